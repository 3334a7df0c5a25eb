"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``empty``, ``rand``, ``randn``, the
``*_like`` variants, ``arange``, ``linspace``, ``eye``, ``torch.device`` and the legacy
constructor ``torch.Tensor(...)``, with PyTorch's dtype inference and its refusals.

Random draws come from ``_base/rng``, PyTorch's CPU generator reproduced bit for bit.
"""

from __future__ import annotations

import math
import re
import sys
import warnings

from .._base import dtypes, rng
from .._base.dtypes import TensorType, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.kernel_order import fma
from .._base.numpy_types import array_values, integer, is_ndarray, is_numpy_scalar, numpy_dtype, scalar_value
from .._base.program_frame import program_stacklevel
from .arguments import not_tensor
from .numpy_bridge import array_tensor, shared_tensor
from .operands import broadcast_shapes, check_size
from .out_argument import call_with_out
from .storage import dual_memory
from .tensor import Tensor, defaults, leaf
from .views import to_dtype

__all__ = ["install", "device", "use_device", "layout", "strided", "tensor", "scalar_tensor", "as_tensor", "zeros",
           "ones", "full", "empty", "rand", "randn", "normal", "randint", "zeros_like", "ones_like", "full_like",
           "empty_like", "rand_like", "randn_like", "arange", "linspace", "logspace", "randint_like", "eye", "randperm",
           "from_values", "repeated", "uninitialised_tensor", "parse_data", "shape_arg", "check_dtype"]


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?$")


class device:
    """``torch.device``: any device PyTorch names can be described; only the CPU can hold
    tensors (``use_device`` refuses the others as a CPU-only PyTorch does)."""

    __slots__ = ("type", "index")

    def __init__(self, spec="cpu", index: int | None = None) -> None:
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        if isinstance(spec, int) and not isinstance(spec, bool):  # torch.device(0): an accelerator index
            spec, index = "cuda", spec
        spec = str(spec)
        m = _DEVICE_STRING.match(spec)
        if m is None:
            raise RuntimeError(f"Invalid device string: '{spec}'")
        if m.group(1) not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                               f"string: {spec}")
        self.type = m.group(1)
        self.index = int(m.group(2)) if m.group(2) is not None else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> device:
        """``with torch.device(d)``: the CPU is the default already; another device is refused."""
        if self.type != "cpu":
            raise Unsupported(f"with torch.device({str(self)!r})", "a default device other than the CPU")
        return self
    __exit__ = staticmethod(lambda *exc: None)  # nothing to put back


def use_device(spec) -> None:
    """Refuse to put a tensor anywhere but the CPU, in the words of a CPU-only PyTorch."""
    if spec is None:
        return
    d = spec if isinstance(spec, device) else device(spec)
    if d.type == "cpu":
        return
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type == "meta":
        raise Unsupported("meta tensors (device='meta')")
    raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


class layout:
    """``torch.layout``: scalargrad tensors are all ``torch.strided``."""

    __slots__ = ("name",)

    def __init__(self, name: str = "strided") -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


strided = layout("strided")


_PYTHON_TYPES = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool}


def check_dtype(dtype, what: str = "tensor"):
    """``dtype`` as a dtype (or None): Python's float, int, bool as float64, int64, bool; else a TypeError."""
    if dtype is None:
        return dtype
    if isinstance(dtype, dtypes.dtype):
        if dtype.is_complex:
            raise Unsupported("complex numbers and complex dtypes")
        return dtype
    dt = _PYTHON_TYPES.get(dtype) if isinstance(dtype, type) else None
    if dt is not None:
        return dt
    if dtype is complex:
        raise Unsupported("complex numbers and complex dtypes")
    raise TypeError(f"{what}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


def _check_device(dev) -> None:
    use_device(dev)


def _require_grad(v: Tensor, requires_grad, what: str = "tensor") -> Tensor:
    if requires_grad.__class__ is not bool:
        raise TypeError(f"{what}(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
    if requires_grad:
        # a factory's requires_grad=True words its refusal differently from requires_grad_()
        if not v._t.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        v._rg = True
    return v


def from_values(values: list, shape: tuple, dtype, requires_grad=False, what: str = "tensor") -> Tensor:
    """A new leaf tensor of ``shape`` holding ``values`` (row-major), rounded to ``dtype``;
    ``what`` names the factory in a refusal of ``requires_grad``."""
    shape = tuple(shape)
    check_size(shape)
    vals = round_list(dtype, values)
    v = leaf(vals if shape else vals[0], TensorType(dtype, shape))
    return _require_grad(v, requires_grad, what)


def _promote_all(dts):
    out = None
    for d in dts:
        out = d if out is None else dtypes.promote_types(out, d)
    return out


_SLOW_ARRAYS = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the "
                "list to a single numpy.ndarray with numpy.array() before converting to a tensor. (Triggered "
                "internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")


def _is_sequence(x) -> bool:
    """A list, a tuple or a NumPy array of one or more dimensions (whose items are NumPy
    scalars or arrays: their dtypes count, as PyTorch's)."""
    if isinstance(x, (list, tuple)):
        return True
    if is_ndarray(x):
        if not x.ndim:
            raise TypeError("len() of unsized object")
        return True
    return False


def _warn_arrays(items: list) -> None:
    """PyTorch's TORCH_WARN_ONCE about NumPy arrays among a list's items."""
    if "slow_arrays" in _warned or "numpy" not in sys.modules:  # without NumPy loaded there is no array
        return
    for cls in set(map(type, items)):
        if cls.__module__.startswith("numpy") and any(is_ndarray(i) for i in items if i.__class__ is cls):
            _warned.add("slow_arrays")
            warnings.warn(_SLOW_ARRAYS, UserWarning, stacklevel=program_stacklevel())
            return


def _same_arrays(items: list) -> bool:
    first = items[0]
    return is_ndarray(first) and all(is_ndarray(a) and a.shape == first.shape for a in items)


def parse_data(data) -> tuple:
    """(flat values, shape, dtype inferred from the values) of nested lists (PyTorch's rules),
    NumPy arrays and scalars among them."""
    if isinstance(data, Tensor):
        return list(data._val) if data._t.ndim else [data._val], tuple(data._t.shape), data._t.dtype
    if is_ndarray(data):
        return array_values(data)
    level = [data]
    shape = []
    while level and (isinstance(level[0], (list, tuple)) or is_ndarray(level[0]) and level[0].ndim):
        if _same_arrays(level):  # a list of arrays of one shape: their elements at once
            shape.extend(level[0].shape)
            check_size(shape)
            dt = _promote_all(sorted({numpy_dtype(a) for a in level}, key=lambda d: d.name))
            return [v for a in level for v in a.reshape(-1).tolist()], tuple(shape), dt
        n = len(level[0])
        nxt = []
        for item in level:
            if not _is_sequence(item):
                raise ValueError(f"expected sequence of length {n} at dim {len(shape)} (got {type(item).__name__})")
            if len(item) != n:
                raise ValueError(f"expected sequence of length {n} at dim {len(shape)} (got {len(item)})")
            nxt.extend(item)
        _warn_arrays(nxt)
        shape.append(n)
        level = nxt
        check_size(shape)
    values = []
    kinds = set()
    inner = None
    for x in level:
        if isinstance(x, (list, tuple)):
            raise ValueError(f"expected sequence of length {len(x)} at dim {len(shape)} (got a number)")
        if isinstance(x, Tensor):
            if x._t.numel != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            inner = x._t.dtype if inner is None else dtypes.promote_types(inner, x._t.dtype)
            values.append(x.item())
            continue
        if isinstance(x, bool):
            kinds.add(dtypes.bool)
        elif isinstance(x, int):
            if not -(1 << 63) <= x < (1 << 63):
                raise ValueError("Overflow when unpacking long long")
            kinds.add(dtypes.int64)
        elif x.__class__ is float:
            kinds.add(defaults["dtype"])
        elif isinstance(x, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        elif isinstance(x, complex):  # PyTorch makes a complex tensor: refused by name, never a raw error
            raise Unsupported("complex numbers and complex dtypes")
        elif is_numpy_scalar(x):  # its own dtype: np.float64(1.5) gives float64, np.int32(1) int32
            x, dt = scalar_value(x)
            kinds.add(dt)
        elif is_ndarray(x):  # a 0-dim array among sequences
            raise TypeError("len() of unsized object")
        elif isinstance(x, float):
            kinds.add(defaults["dtype"])
        elif hasattr(x, "__float__") and not isinstance(x, complex):
            kinds.add(defaults["dtype"])
            x = float(x)
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
        values.append(x)
    dt = _promote_all(list(kinds) + ([inner] if inner is not None else []))
    return values, tuple(shape), dt if dt is not None else defaults["dtype"]


_warned: set = set()


_NO_DATA = object()


def tensor(data=_NO_DATA, *extra, dtype=None, device=None, requires_grad=False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data``: a number or nested lists of numbers (the
    rest keyword-only, as PyTorch's signature has them)."""
    if extra:
        raise TypeError(f"tensor() takes 1 positional argument but {1 + len(extra)} were given")
    if data is _NO_DATA:  # PyTorch's argument parser says it so
        raise TypeError('tensor() missing 1 required positional arguments: "data"')
    dtype = check_dtype(dtype)
    _check_device(device)
    if isinstance(data, Tensor) and "tensor_copy" not in _warned:
        _warned.add("tensor_copy")
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    if is_ndarray(data):
        return _require_grad(array_tensor(data, dtype), requires_grad)
    values, shape, inferred = parse_data(data)
    if dtype is not None and dtype.kind == "i":
        for v in values:
            dtypes.check_fits(dtype, v, cpp=False)
    return from_values(values, shape, dtype if dtype is not None else inferred, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` itself if it is a tensor of that dtype, else a new tensor."""
    if isinstance(data, Tensor):
        return data if dtype is None else to_dtype(data, dtype)
    if is_ndarray(data):  # shares the array's memory when of its dtype, as PyTorch's
        _check_device(device)
        return shared_tensor(data) if dtype is None or dtype is numpy_dtype(data) else array_tensor(data, dtype)
    return tensor(data, dtype=dtype, device=device)


def scalar_tensor(s, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype = check_dtype(dtype, "scalar_tensor")
    dt = dtype if dtype is not None else defaults["dtype"]
    return from_values([s], (), dt, requires_grad, "scalar_tensor")


def shape_arg(size, what: str) -> tuple:
    """Sizes given as ``f(2, 3)``, ``f((2, 3))`` or ``f(torch.Size([2, 3]))``, checked."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for i, s in enumerate(size):
        if isinstance(s, Tensor) and not s._t.dtype.is_floating_point and s._t.numel == 1:
            s = int(s.item())
        elif (is_numpy_scalar(s) or is_ndarray(s) and not s.ndim) and s.dtype.kind in "iu":
            s = int(s)  # np.int64(2), np.array(2): PyTorch's parser takes an integer NumPy scalar
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{what}(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {i}")
        if s < 0:
            if what == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(s)
    check_size(out)
    return tuple(out)


_RAND_SIGNATURES = (
    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


def sizes(size: tuple, keyword, what: str) -> tuple:
    """The shape of ``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))``, as PyTorch's argument
    parser takes them (``keyword``: the ``size=`` argument, None if not given). No size at all is
    PyTorch's TypeError (``torch.zeros()``), not a 0-dim tensor: that is ``torch.zeros(())``."""
    if keyword is None:
        if not size:
            if what in ("rand", "randn"):  # overloaded in PyTorch's parser: its listing of both
                raise TypeError(f"{what}() received an invalid combination of arguments - got (), but expected one "
                                f"of:\n{_RAND_SIGNATURES}")
            raise TypeError(f'{what}() missing 1 required positional arguments: "size"')
        return shape_arg(size, what)
    if size:
        if what in ("rand", "randn"):
            got = ", ".join(type(s).__name__ for s in size)
            raise TypeError(f"{what}() received an invalid combination of arguments - got ({got}, size="
                            f"{type(keyword).__name__}), but expected one of:\n{_RAND_SIGNATURES}")
        raise TypeError(f"{what}() got multiple values for argument 'size'")
    if not isinstance(keyword, (tuple, list)) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in keyword):
        raise TypeError(f"{what}(): argument 'size' must be tuple of ints, not {type(keyword).__name__}")
    return shape_arg((tuple(keyword),), what)


def _filled(value, shape: tuple, dtype, requires_grad, what: str = "tensor") -> Tensor:
    dt = check_dtype(dtype, what) or defaults["dtype"]
    return repeated(value, shape, dt, requires_grad, what)


def repeated(value, shape: tuple, dtype, requires_grad=False, what: str = "tensor") -> Tensor:
    """A new leaf tensor of ``shape`` whose every element is ``value`` rounded to ``dtype``: the
    value is rounded once and the list holds one float object ``n`` times (8 bytes an element),
    and the size is checked before the list is made."""
    shape = tuple(shape)
    n = check_size(shape)
    v = round_list(dtype, [value])[0]
    t = leaf([v] * n if shape else v, TensorType(dtype, shape))
    return _require_grad(t, requires_grad, what)


def _refuse_out(out, name: str) -> None:
    """PyTorch writes a factory's result into ``out``; scalargrad does not yet for this one, and
    never ignores it."""
    if out is not None:
        raise Unsupported(f"torch.{name}(out=...)", f"write the result with out.copy_(torch.{name}(...)) instead")


def _written_into(out, name: str, make, dtype) -> Tensor:
    """A factory's ``out=``: the tensor made in ``out``'s dtype unless ``dtype`` is given (a draw
    is then in that dtype, as PyTorch draws into out), written into ``out`` (``out_argument``)."""
    if isinstance(out, Tensor):
        if dtype is None:
            dtype = out.dtype
        elif dtype is not out.dtype:
            raise RuntimeError(f"dtype {dtype.short} does not match dtype of out parameter ({out.dtype.short})")
    return call_with_out(name, make, (dtype,), {}, out, None, False, factory=True)


def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    if out is not None:
        return _written_into(out, "zeros", lambda dt: zeros(*shape, size=size, dtype=dt, device=device), dtype)
    _check_device(device)
    return _filled(0, sizes(shape, size, "zeros"), dtype, requires_grad, "zeros")


def ones(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    if out is not None:
        return _written_into(out, "ones", lambda dt: ones(*shape, size=size, dtype=dt, device=device), dtype)
    _check_device(device)
    return _filled(1, sizes(shape, size, "ones"), dtype, requires_grad, "ones")


class _Uninitialised:
    """What ``torch.empty``, ``empty_like`` and ``torch.Tensor(2, 3)`` hold: zeros, as
    scalargrad has no uninitialised memory. ``scalargrad verify`` gives them arbitrary numbers
    instead (``source(n, dtype)``), as PyTorch's memory holds, so that the numbers a document
    printed from such memory are told from the others; ``reads`` counts those tensors."""

    __slots__ = ("source", "reads")

    def __init__(self) -> None:
        self.source = None
        self.reads = 0


UNINITIALISED = _Uninitialised()


def uninitialised(n: int, dt) -> list | None:
    """The elements of a new tensor of ``n`` elements whose memory is not initialised: None
    (zeros, see ``uninitialised_tensor``) where scalargrad itself asked for it (``nn.Linear``
    initialises what it allocates) or outside ``verify``."""
    source = UNINITIALISED.source
    if source is None or not n or _asked_by_scalargrad():
        return None
    UNINITIALISED.reads += 1
    return source(n, dt)


def uninitialised_tensor(vals: list | None, shape: tuple, dt, requires_grad=False, what: str = "tensor") -> Tensor:
    """A tensor of ``uninitialised`` elements ``vals`` (None: zeros, one float object shared)."""
    if vals is None:
        return repeated(0, shape, dt, requires_grad, what)
    return from_values(vals, shape, dt, requires_grad, what)


def _asked_by_scalargrad() -> bool:
    """Whether the first caller outside the tensor layer is scalargrad's own code."""
    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__", "").startswith("scalargrad._tensor"):
        f = f.f_back
    return f is not None and f.f_globals.get("__name__", "").startswith("scalargrad.")


def empty(*shape, size=None, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    """Uninitialised memory (``uninitialised``): zeros."""
    _check_device(device)
    shape = sizes(shape, size, "empty")
    dt = check_dtype(dtype, "empty") or defaults["dtype"]
    vals = uninitialised(math.prod(shape), dt)
    return uninitialised_tensor(vals, shape, dt, requires_grad, "empty")


def _dtype_of_number(x):
    if isinstance(x, complex):
        raise Unsupported("complex numbers and complex dtypes")
    if isinstance(x, bool):
        return dtypes.bool
    if isinstance(x, int):
        return dtypes.int64
    return defaults["dtype"]


def full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    _check_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = check_dtype(dtype, "full")
    if dtype is None:
        dtype = _dtype_of_number(fill_value)
    dtypes.check_fits(dtype, fill_value)
    return _filled(fill_value, shape_arg((size,) if isinstance(size, int) else (tuple(size),), "full"), dtype,
                   requires_grad, "full")


def _like(v: Tensor, value, dtype, requires_grad, what: str) -> Tensor:
    if not isinstance(v, Tensor):
        raise not_tensor(v, what, 'input', 1)
    dt = check_dtype(dtype, what) or v._t.dtype
    return repeated(value, tuple(v._t.shape), dt, requires_grad, what)


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _like(input, 0, dtype, requires_grad, "zeros_like")


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _like(input, 1, dtype, requires_grad, "ones_like")


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    if not isinstance(input, Tensor):
        raise not_tensor(input, "empty_like", 'input', 1)
    dt = check_dtype(dtype, "empty_like") or input._t.dtype
    vals = uninitialised(input._t.numel, dt)
    return uninitialised_tensor(vals, tuple(input._t.shape), dt, requires_grad, "empty_like")


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _like(input, fill_value, dtype, requires_grad, "full_like")


def _float_dtype(dtype, what: str):
    dt = check_dtype(dtype, what) or defaults["dtype"]
    if not dt.is_floating_point:
        # ATen's dispatch macro names the kernel a dtype lacks with a NotImplementedError
        raise NotImplementedError(f"\"{'check_uniform_bounds' if what == 'rand' else 'normal_kernel_cpu'}\" not "
                                  f"implemented for '{dt.short}'")
    return dt


def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Uniform numbers in [0, 1), drawn as PyTorch's CPU generator draws them."""
    if out is not None:
        return _written_into(out, "rand", lambda dt: rand(*shape, size=size, generator=generator, dtype=dt), dtype)
    _check_device(device)
    shape = sizes(shape, size, "rand")
    dt = _float_dtype(dtype, "rand")
    return from_values(rng.uniform(math.prod(shape), dt.name, generator=generator), shape, dt, requires_grad, "rand")


def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Standard normal numbers, drawn as PyTorch's CPU generator draws them."""
    if out is not None:
        return _written_into(out, "randn", lambda dt: randn(*shape, size=size, generator=generator, dtype=dt), dtype)
    _check_device(device)
    shape = sizes(shape, size, "randn")
    dt = _float_dtype(dtype, "randn")
    return from_values(rng.normal(math.prod(shape), dt.name, generator=generator), shape, dt, requires_grad, "randn")


_NORMAL_OVERLOADS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")
_NORMAL_FACTORY_KEYWORDS = frozenset({"dtype", "layout", "device", "pin_memory", "requires_grad"})


def _normal_misuse(args: tuple, kwargs: dict) -> TypeError:
    def kind(x) -> str:
        if isinstance(x, Tensor):
            return "Tensor"
        if isinstance(x, dtypes.dtype):
            return "torch.dtype"
        return type(x).__name__

    got = [kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in sorted(kwargs.items())]
    return TypeError(f"normal() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                     f"one of:\n{_NORMAL_OVERLOADS}")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, Tensor)


def _check_std_tensor(std: Tensor) -> None:
    vals = std._val if std._t.ndim else [std._val]
    if any(not v >= 0 for v in vals):  # a NaN fails as in PyTorch's ``std.min().ge(0)``
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal(*args, **kwargs) -> Tensor:
    """``torch.normal``, PyTorch's four overloads: ``(Tensor mean, Tensor std)``, ``(Tensor
    mean, float std=1)``, ``(float mean, Tensor std)`` and ``(float mean, float std, size, *,
    dtype, requires_grad...)``. As ATen computes it: with a float ``std`` and ``mean`` the
    generator's ``normal_(mean, std)``; a tensor ``mean`` adds itself to ``normal_(0, std)``; a
    tensor ``std`` multiplies ``normal_(0, 1)`` and then the mean (a 0-dim tensor of the result's
    dtype) is added. The result has ``mean``'s shape, ``std``'s, or their broadcast. A mean or
    std that requires grad (PyTorch's NormalBackward1-3, a zero gradient) is refused by name."""
    names = ("mean", "std", "size")
    if len(args) > 3:
        raise _normal_misuse(args, kwargs)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound or k not in (*names, "generator", "out", *_NORMAL_FACTORY_KEYWORDS):
            raise _normal_misuse(args, kwargs)
        bound[k] = v
    if "mean" not in bound:
        raise TypeError('normal() missing 1 required positional arguments: "mean"')
    mean, std, size = bound.get("mean"), bound.get("std", 1.0), bound.get("size")
    generator = bound.get("generator")
    _refuse_out(bound.get("out"), "normal")
    factory = size is not None or any(k in bound for k in _NORMAL_FACTORY_KEYWORDS)
    if _is_number(mean) and _is_number(std):
        if not isinstance(size, (tuple, list, dtypes.Size)) or (not factory and "std" not in bound):
            raise _normal_misuse(args, kwargs)
        shape = shape_arg((size,), "normal")
        _check_device(bound.get("device"))
        dt = _float_dtype(bound.get("dtype"), "normal")
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        vals = rng.normal(math.prod(shape), dt.name, mean, std, generator=generator)
        return from_values(vals, shape, dt, bound.get("requires_grad", False), "normal")
    tensors = [x for x in (mean, std) if isinstance(x, Tensor)]
    if factory or not tensors or not all(isinstance(x, Tensor) or _is_number(x) for x in (mean, std)):
        raise _normal_misuse(args, kwargs)
    if any(x._rg and is_grad_enabled() or dual_memory() and dual_memory()[2](x) is not None for x in tensors):
        raise Unsupported("torch.normal with a mean or std that requires grad or has a forward-mode tangent",
                          "its NormalBackward node (a zero gradient) is not implemented yet")
    if isinstance(mean, Tensor) and not isinstance(std, Tensor):  # (Tensor mean, float std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        dt = _float_dtype(mean._t.dtype, "normal")
        out = from_values(rng.normal(mean._t.numel, dt.name, 0.0, std, generator=generator), mean._t.shape, dt)
        return out.add_(mean)
    _check_std_tensor(std)
    if not isinstance(mean, Tensor):  # (float mean, Tensor std)
        dt = _float_dtype(std._t.dtype, "normal")
        out = from_values(rng.normal(std._t.numel, dt.name, 0.0, 1.0, generator=generator), std._t.shape, dt)
        return out.mul_(std).add_(from_values([mean], (), dt))
    shape = broadcast_shapes(mean._t.shape, std._t.shape)
    dt = _float_dtype(mean._t.dtype, "normal")
    out = from_values(rng.normal(math.prod(shape), dt.name, 0.0, 1.0, generator=generator), shape, dt)
    return out.mul_(std).add_(mean)


def randint(low, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Integers in [low, high) (``randint(high, size)`` too), drawn as PyTorch's generator does."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    shape = shape_arg((tuple(size),), "randint")
    dt = check_dtype(dtype, "randint") or dtypes.int64
    vals = rng.randint(low, high, math.prod(shape), generator=generator)
    return from_values(vals, shape, dt, requires_grad, "randint")


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False,
             layout=None) -> Tensor:
    """A random permutation of 0..n-1, drawn as PyTorch's CPU ``randperm`` (int64 unless asked)."""
    if n.__class__ is bool or not isinstance(n, int):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    check_size((n,))
    dt = check_dtype(dtype, "randperm") or dtypes.int64
    _check_device(device)
    if dt is dtypes.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if not dt.is_floating_point:
        dtypes.check_fits(dt, max(n - 1, 0))
    vals = rng.randperm(n, generator=generator)
    return from_values(vals, (n,), dt, requires_grad, "randperm")


def randint_like(input, low, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=None, generator=None) -> Tensor:
    """Integers in [low, high) (``randint_like(input, high)`` too) in ``input``'s shape and dtype,
    drawn as ``randint`` draws them."""
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                   requires_grad=requires_grad)


def rand_like(input, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``torch.arange``: start, start + step, ... below end (int64 unless a bound is a float)."""
    if end is None:
        start, end = 0, start
    vals = [x.item() if isinstance(x, Tensor) else x for x in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    floating = any(isinstance(x, float) for x in vals)
    dt = check_dtype(dtype, "arange") or (defaults["dtype"] if floating else dtypes.int64)
    n = max(0, math.ceil((end - start) / step))
    check_size((n,))
    if dt.is_floating_point:
        out = [start + i * step for i in range(n)]  # ATen: start + step * index, in double
    else:
        out = [int(start + i * step) for i in range(n)]
    return from_values(out, (n,), dt, requires_grad, "arange")


def linspace(start, end, steps: int, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``torch.linspace``: ``steps`` evenly spaced numbers from start to end, as ATen's CPU
    kernel computes them: ``start + step * i`` for the first half and ``end - step * (steps - 1 - i)``
    for the rest, each one fused multiply-add (the compiler contracts the expression)."""
    if isinstance(steps, bool) or not isinstance(steps, int):
        if integer(steps) is None:
            raise TypeError(f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}")
        steps = integer(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    dt = check_dtype(dtype, "linspace") or defaults["dtype"]
    check_size((steps,))
    if steps <= 1:
        return from_values([start] * steps, (steps,), dt, requires_grad, "linspace")
    if dt.is_floating_point:
        r = dt.round
        f32 = dt is dtypes.float32
        s, e = r(start), r(end)
        step = r((e - s) / (steps - 1))
        half = steps // 2
        out = [fma(step, r(float(i)), s, f32) if i < half else fma(-step, r(float(steps - i - 1)), e, f32)
               for i in range(steps)]
    else:
        step = (end - start) / (steps - 1)
        out = [int(start + step * i) for i in range(steps)]
    return from_values(out, (steps,), dt, requires_grad, "linspace")


def logspace(start, end, steps: int, base: float = 10.0, dtype=None, device=None,
             requires_grad=False) -> Tensor:
    """``torch.logspace``: ``base ** x`` for ``steps`` exponents evenly spaced from start to end,
    as ATen's CPU code computes them: start and end in the result's dtype, the step and each
    exponent in double (``start + step * i`` for the first half, ``end - step * (steps - 1 - i)``
    for the rest; this file is built without FMA), then libm's ``pow``, converted to the dtype."""
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"logspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _check_device(device)
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    dt = check_dtype(dtype, "logspace") or defaults["dtype"]
    check_size((steps,))
    base = float(base)
    if steps == 1:  # filled with the double pow(base, start)
        return from_values([_pow(base, float(start))], (1,), dt, requires_grad, "logspace")
    if dt.is_floating_point:
        s, e = dt.round(float(start)), dt.round(float(end))
        diff = dt.round(e - s)  # scalar_end - scalar_start, in the dtype
    else:
        s, e = dtypes.cast_values(dtypes.float64, dt, float(start)), dtypes.cast_values(dtypes.float64, dt,
                                                                                         float(end))
        diff = e - s
    step = float(diff) / (steps - 1) if steps > 1 else 0.0
    half = steps // 2
    vals = [_pow(base, s + step * i) if i < half else _pow(base, e - step * (steps - i - 1)) for i in range(steps)]
    if not dt.is_floating_point:
        vals = [dtypes.float_to_int(dt, v) for v in vals]
    return from_values(vals, (steps,), dt, requires_grad, "logspace")


def _pow(base: float, exponent: float) -> float:
    """C's pow (Python's math.pow is libm's), with IEEE's answers where Python raises."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf if base > 0 or exponent == int(exponent) and exponent % 2 == 0 else -math.inf
    except ValueError:  # zero to a negative power, or a negative base to a non-integer power
        return math.inf if base == 0 else math.nan


def eye(n: int, m: int | None = None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """The n x m identity matrix (m = n unless given), in the default dtype unless given."""
    m = n if m is None else m
    for letter, size in (("n", n), ("m", m)):
        if size < 0:
            raise RuntimeError(f"{letter} must be greater or equal to 0, got {size}")
    dt = check_dtype(dtype, "eye") or defaults["dtype"]
    check_size((n, m))
    return from_values([1 if i == j else 0 for i in range(n) for j in range(m)], (n, m), dt, requires_grad, "eye")


def _new_filled(value):
    def apply(self, *size, dtype=None, device=None, requires_grad=False):
        shape = shape_arg(size, "new")
        return repeated(value, shape, dtype or self._t.dtype, requires_grad)

    return apply


def install(method, function) -> None:
    """The torch factories (as they are: no input to check) and ``Tensor.new_*``."""
    for name in ("tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "full", "empty", "rand", "randn",
                 "normal", "randint", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
                 "arange", "linspace", "logspace", "randint_like", "eye", "randperm", "device", "layout", "strided"):
        function(name, globals()[name], checked=False)
    method("new_tensor", lambda self, data, dtype=None, device=None, requires_grad=False:
           tensor(data, dtype=dtype or self._t.dtype, requires_grad=requires_grad))
    for name, value in (("new_zeros", 0), ("new_ones", 1), ("new_empty", 0)):
        method(name, _new_filled(value))
    method("new_full", lambda self, size, fill_value, dtype=None, device=None, requires_grad=False:
           full(size, fill_value, dtype=dtype or self._t.dtype, requires_grad=requires_grad))
