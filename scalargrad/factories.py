"""Tensor factories (``tensor``, ``zeros``, ``rand``...), ``torch.device`` and shape parsing.

scalargrad's tensors hold exactly one number; any shape whose sizes are all 1 is accepted
(``()``, ``(1,)``, ``(1, 1)``...) and the repr follows it. A request for more elements says so.
"""

from __future__ import annotations

from . import dtypes
from .dtypes import TensorType
from .errors import ScalarOnly
from .value import Value, _defaults, leaf

__all__ = ["tensor", "scalar_tensor", "zeros", "ones", "full", "empty", "rand", "randn",
           "zeros_like", "ones_like", "rand_like", "randn_like", "manual_seed", "device"]

class device:
    """``torch.device``: scalargrad has only the CPU."""

    def __init__(self, spec: str = "cpu", index: int | None = None) -> None:
        spec = str(spec)
        self.type = spec.split(":")[0]
        self.index = index
        if self.type != "cpu":
            raise RuntimeError(f"scalargrad runs on the CPU only; device '{spec}' is not available")

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other) -> bool:
        return str(other) == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")


def _nested(data, what: str):
    """The number inside a nested one-element list, and the shape of the nesting."""
    shape = []
    x = data
    while isinstance(x, (list, tuple)):
        if len(x) != 1:
            n = _count(data)
            raise ScalarOnly(what, n)
        shape.append(1)
        x = x[0]
    if isinstance(x, Value):
        return x.item(), tuple(shape) + tuple(x.shape), x.dtype
    return x, tuple(shape), None


def _count(data) -> int:
    if isinstance(data, (list, tuple)):
        return sum(_count(x) for x in data) if data else 0
    return 1


def _dtype_of(x, explicit):
    if explicit is not None:
        return explicit
    if isinstance(x, bool):
        return dtypes.bool
    if isinstance(x, int):
        return dtypes.int64
    if isinstance(x, float):
        return _defaults["dtype"]
    if isinstance(x, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _require_grad(v: Value) -> None:
    # a factory's requires_grad=True words its refusal differently from requires_grad_()
    if not v.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    v.requires_grad_(True)


def _single(data) -> bool:
    """Is ``data`` one number, possibly in nested one-element lists (a plain Value)?"""
    x = data
    while isinstance(x, (list, tuple)):
        if len(x) != 1:
            return False
        x = x[0]
    return not isinstance(x, Value) or x.numel() == 1


def multi_element_tensor(args: tuple):
    """``Tensor(data)`` or ``Tensor(*sizes)`` with other than one element: a float32
    ``shaped.ShapedTensor`` (sizes give zeros); None for a one-element tensor."""
    from . import shaped

    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        if _single(args[0]):
            return None
        return shaped.from_data(args[0], dtypes.float32)
    if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        shape = _shape_arg(args, "Tensor")
        if _numel(shape) != 1:
            return shaped.filled(shape, 0.0, dtypes.float32)
    return None


def tensor(data, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Value:
    """A new leaf tensor holding ``data``: a number or nested lists (several elements make a
    multi-element tensor, ``shaped.ShapedTensor``)."""
    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"scalargrad runs on the CPU only; cannot create a tensor on {device}")
    if not _single(data):
        from . import shaped

        return shaped.from_data(data, dtype, requires_grad)
    x, shape, inner = _nested(data, "this tensor")
    dt = _dtype_of(x, dtype if dtype is not None else inner)
    v = leaf(dt.round(x), TensorType(dt, shape))
    if requires_grad:
        _require_grad(v)
    return v


def scalar_tensor(s, dtype=None, requires_grad: bool = False) -> Value:
    return tensor(float(s), dtype=dtype, requires_grad=requires_grad)


def _shape_arg(size, what: str) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{what}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"{what}: Dimension size must be non-negative.")
    from .shaped import check_size

    check_size(size)
    return tuple(size)


def _filled(value, size, what: str, dtype, requires_grad: bool) -> Value:
    shape = _shape_arg(size, what)
    dt = dtype if dtype is not None else _defaults["dtype"]
    if _numel(shape) != 1:
        from . import shaped

        return shaped.filled(shape, value, dt, requires_grad)
    v = leaf(dt.round(value), TensorType(dt, shape))
    if requires_grad:
        _require_grad(v)
    return v


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Value:
    return _filled(0.0, size, "zeros", dtype, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Value:
    return _filled(1.0, size, "ones", dtype, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Value:
    """Like zeros: scalargrad has no uninitialised memory to show."""
    return _filled(0.0, size, "empty", dtype, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Value:
    if dtype is None:
        dtype = _dtype_of(fill_value, None)
    return _filled(fill_value, (tuple(size),), "full", dtype, requires_grad)


def _like(v: Value, value, dtype, requires_grad) -> Value:
    dt = dtype if dtype is not None else v.dtype
    if v.numel() != 1:
        from . import shaped

        return shaped.filled(tuple(v.shape), value, dt, requires_grad)
    out = leaf(dt.round(value), TensorType(dt, v.shape))
    if requires_grad:
        _require_grad(out)
    return out


def zeros_like(v: Value, dtype=None, requires_grad: bool = False) -> Value:
    return _like(v, 0.0, dtype, requires_grad)


def ones_like(v: Value, dtype=None, requires_grad: bool = False) -> Value:
    return _like(v, 1.0, dtype, requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Value:
    """One number uniform in [0, 1), drawn as PyTorch's CPU generator draws it."""
    from . import random

    shape = _shape_arg(size, "rand")
    dt = dtype if dtype is not None else _defaults["dtype"]
    n = _numel(shape)
    if n != 1:
        from . import shaped

        return shaped.from_values(random.uniform(n, dt.name, generator=generator), shape, dt, requires_grad)
    (x,) = random.uniform(1, dt.name, generator=generator)
    return _filled(x, (shape,), "rand", dt, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Value:
    """One standard normal number, drawn as PyTorch's CPU generator draws it."""
    from . import random

    shape = _shape_arg(size, "randn")
    dt = dtype if dtype is not None else _defaults["dtype"]
    n = _numel(shape)
    if n != 1:
        from . import shaped

        return shaped.from_values(random.normal(n, dt.name, generator=generator), shape, dt, requires_grad)
    (x,) = random.normal(1, dt.name, generator=generator)
    return _filled(x, (shape,), "randn", dt, requires_grad)


def rand_like(v: Value, dtype=None, requires_grad: bool = False) -> Value:
    return rand(*v.shape, dtype=dtype or v.dtype, requires_grad=requires_grad)


def randn_like(v: Value, dtype=None, requires_grad: bool = False) -> Value:
    return randn(*v.shape, dtype=dtype or v.dtype, requires_grad=requires_grad)


def _numel(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def manual_seed(seed: int):
    """Seed the default generator, as ``torch.manual_seed``."""
    from . import random

    return random.manual_seed(seed)


def init_tensor_from_args(self: Value, args: tuple, kwargs: dict) -> None:
    """``torch.Tensor(...)``: from data (``Tensor([5])``) or sizes (``Tensor(1)``), float32."""
    dt = dtypes.float32
    if kwargs:
        raise TypeError(f"Tensor() got unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 1 and isinstance(args[0], (list, tuple, Value)):
        x, shape, _ = _nested(args[0], "this tensor")
        val = dt.round(x)
    elif len(args) == 1 and isinstance(args[0], float):
        raise TypeError("new(): data must be a sequence (got float)")
    elif all(isinstance(a, int) for a in args):
        shape = _shape_arg(args, "Tensor") if args else None
        if shape is None:
            raise ScalarOnly("Tensor()", 0)
        val = 0.0
    else:
        raise TypeError(f"Tensor(): could not build a tensor from {args!r}")
    v = leaf(val, TensorType(dt, shape))
    for s in Value.__slots__:
        setattr(self, s, getattr(v, s))
