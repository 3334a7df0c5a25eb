"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``empty``, their ``*_like``
variants and ``Tensor.new_*``, ``torch.device`` and ``torch.layout``, with PyTorch's dtype
inference and its refusals, and the checks every factory shares (``factory_options``: layout,
pin_memory; ``like_options``: memory_format). The random factories are ``random_factories``,
the ranges (``arange``, ``linspace``, ``eye``...) ``ranges``.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from contextlib import contextmanager

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.layout import contiguous_strides, is_non_overlapping_and_dense
from .._base.meta_data import meta_refusal
from .._base.numpy_types import array_values, is_ndarray, is_numpy_scalar, numpy_dtype, scalar_value
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .arguments import not_tensor
from .memory_formats import check_format, contiguous_format, format_strides, preserve_format, preserved_strides
from .meta import is_meta, meta_tensor
from .numpy_bridge import array_tensor, shared_tensor
from .operands import check_size
from .out_argument import call_with_out
from .tensor import Tensor, defaults, leaf
from .views import to_dtype

__all__ = ["install", "device", "use_device", "factory_device", "like_device", "meta_factory", "move_device",
           "in_layer_constructor", "layout", "strided", "tensor", "scalar_tensor", "as_tensor", "zeros", "ones",
           "full", "empty", "empty_permuted", "empty_strided", "zeros_like", "ones_like", "full_like", "empty_like",
           "from_values",
           "repeated", "uninitialised_tensor", "parse_data", "shape_arg", "sizes", "check_dtype", "factory_options",
           "like_options", "refuse_out", "written_into", "default_device"]


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
        """``with torch.device(d)``: the device of the factories' new tensors inside the block
        (``factory_device``): the CPU or the meta device; another device is refused."""
        if self.type not in ("cpu", "meta"):
            raise Unsupported(f"with torch.device({str(self)!r})", "a default device other than the CPU")
        _device_context.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _device_context.pop()


_device_context: list = []
"""The devices of the open ``with torch.device(...)`` blocks, innermost last."""


def default_device() -> device:
    """``torch.get_default_device()``: the innermost ``with torch.device`` block's, else the CPU."""
    return _device_context[-1] if _device_context else device("cpu")


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
        raise meta_refusal()
    raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


def move_device(t: Tensor, spec) -> None:
    """``t.to(spec)``'s device: a meta tensor stays on the meta device, and cannot leave it
    (PyTorch's error: it has no data to copy); only the CPU exists otherwise (``use_device``)."""
    if spec is None or not is_meta(t):
        use_device(spec)
        return
    d = spec if isinstance(spec, device) else device(spec)
    if d.type == "cpu":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if d.type != "meta":
        use_device(d)


def factory_device(spec, meta: bool = False) -> bool:
    """Where a factory puts its new tensor: on ``spec``, else on the device of the innermost
    ``with torch.device`` block, else on the CPU. True for the meta device when the factory has
    a meta kernel (``meta``); any other device but the CPU is refused (``use_device``)."""
    if spec is None:
        if not _device_context or not _LAYERS[0] and _asked_by_scalargrad():
            return False  # scalargrad's own tensors (an optimizer's state) stay on the CPU, as PyTorch's do
        spec = _device_context[-1]
    d = spec if isinstance(spec, device) else device(spec)
    if meta and d.type == "meta":
        return True
    use_device(d)
    return False


_LAYERS = [0]
"""How many of nn's layer constructors are running: the tensors they make follow the ``with
torch.device`` block as a program's own do (``in_layer_constructor``)."""


@contextmanager
def in_layer_constructor():
    """Around an nn layer's ``__init__``: its parameters and buffers go where the block says."""
    _LAYERS[0] += 1
    try:
        yield
    finally:
        _LAYERS[0] -= 1


def like_device(spec, input, meta: bool = False) -> bool:
    """Where a ``*_like`` factory or ``Tensor.new_*`` puts its new tensor: on ``spec``, else on
    ``input``'s device (not the ``with torch.device`` block's, as in PyTorch). True for the meta
    device when the factory has a meta kernel (``meta``), else as ``factory_device``."""
    if spec is None:
        if not isinstance(input, Tensor) or not is_meta(input):
            return False
        if not meta:
            raise meta_refusal()
        return True
    return factory_device(spec, meta)


class layout:
    """``torch.layout``: scalargrad tensors are all ``torch.strided``."""

    __slots__ = ("name",)

    def __init__(self, name: str = "strided") -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


strided = layout("strided")


def factory_options(what: str, layout=None, pin_memory=False) -> None:
    """A factory's ``layout`` and ``pin_memory``: PyTorch's defaults (``torch.strided``, False)
    are taken; pinned memory is CPU-only PyTorch's RuntimeError, another layout refused by name."""
    if layout is not None and layout is not strided:
        if not isinstance(layout, globals()["layout"]):
            getattr(layout, "name", None)  # a layout scalargrad lacks (torch.sparse_coo) raises its refusal here
            raise TypeError(f"{what}(): argument 'layout' must be torch.layout, not {type(layout).__name__}")
        raise Unsupported(f"{what}(layout={layout!r})", "scalargrad's tensors are all torch.strided")
    if pin_memory is None or pin_memory is False:
        return
    if pin_memory is not True:
        raise TypeError(f"{what}(): argument 'pin_memory' must be bool, not {type(pin_memory).__name__}")
    raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
                       "available on this system.")


def like_options(what: str, input, layout=None, pin_memory=False, memory_format=None) -> tuple | None:
    """A ``*_like`` factory's options: the strides of its result (None: contiguous), preserving
    ``input``'s layout unless ``memory_format`` says otherwise, as ``empty_like`` does."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, what, "input", 1)
    factory_options(what, layout, pin_memory)
    fmt = check_format(memory_format, what)
    t = input._t
    if t.contiguous and fmt is None:
        return None
    strides = preserved_strides(t.shape, t.strides, fmt)
    return None if strides == contiguous_strides(t.shape) else strides


def laid_out(v: Tensor, strides: tuple | None) -> Tensor:
    """``v`` (new, with no other reference) given memory ``strides`` (None: contiguous)."""
    if strides is not None:
        v._t = TensorType(v._t.dtype, v._t.shape, strides)
    return v


_PYTHON_TYPES = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool}


def check_dtype(dtype, what: str = "tensor"):
    """``dtype`` as a dtype (or None): Python's float, int and bool stand for float64, int64 and
    bool, as in PyTorch; anything else is PyTorch's TypeError."""
    if dtype is None:
        return dtype
    if isinstance(dtype, dtypes.dtype):
        if dtype is dtypes.complex32:
            raise Unsupported("torch.complex32 (ComplexHalf) tensors")
        return dtype
    dt = _PYTHON_TYPES.get(dtype) if isinstance(dtype, type) else None
    if dt is not None:
        return dt
    if dtype is complex:  # Python's complex stands for complex128, as float for float64
        return dtypes.complex128
    raise TypeError(f"{what}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")



def _require_grad(v: Tensor, requires_grad, what: str = "tensor") -> Tensor:
    if requires_grad.__class__ is not bool:
        raise TypeError(f"{what}(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
    if requires_grad:
        if v._t.dtype.is_complex:
            raise Unsupported(f"requires_grad=True on a {v._t.dtype!r} tensor (autograd of complex numbers)")
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
    vals = dtypes.round_values(dtype, values)
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
    if "numpy" not in sys.modules:  # without NumPy loaded there is no array
        return
    for cls in set(map(type, items)):
        if cls.__module__.startswith("numpy") and any(is_ndarray(i) for i in items if i.__class__ is cls):
            if first_time("tensor_from_arrays"):
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
        elif isinstance(x, complex):  # the default complex dtype (complex64 under float32)
            kinds.add(defaults["dtype"].to_complex())
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
    factory_options("tensor", None, pin_memory)
    if extra:
        raise TypeError(f"tensor() takes 1 positional argument but {1 + len(extra)} were given")
    if data is _NO_DATA:  # PyTorch's argument parser says it so
        raise TypeError('tensor() missing 1 required positional arguments: "data"')
    dtype = check_dtype(dtype)
    meta = factory_device(device, meta=True)
    if isinstance(data, Tensor) and "tensor_copy" not in _warned:
        _warned.add("tensor_copy")
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    if is_ndarray(data):
        if meta:
            raise meta_refusal()
        return _require_grad(array_tensor(data, dtype), requires_grad)
    values, shape, inferred = parse_data(data)
    if dtype is not None and inferred.kind == "c" and dtype.kind in "if":  # the parser's conversion of a complex
        raise TypeError("'complex' object cannot be interpreted as an integer" if dtype.kind == "i" else
                        "must be real number, not complex")
    if dtype is not None and dtype.kind == "i":
        for v in values:
            dtypes.check_fits(dtype, v, cpp=False)
    if meta:  # the data gives the shape and the dtype, and is not kept
        return _require_grad(meta_tensor(shape, dtype if dtype is not None else inferred), requires_grad)
    return from_values(values, shape, dtype if dtype is not None else inferred, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` itself if it is a tensor of that dtype, else a new tensor."""
    if isinstance(data, Tensor):
        factory_device(device)
        return data if dtype is None else to_dtype(data, dtype)
    if is_ndarray(data):  # shares the array's memory when of its dtype, as PyTorch's
        factory_device(device)
        return shared_tensor(data) if dtype is None or dtype is numpy_dtype(data) else array_tensor(data, dtype)
    return tensor(data, dtype=dtype, device=device)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False) -> Tensor:
    factory_options("scalar_tensor", layout, pin_memory)
    factory_device(device)
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


def _filled(value, shape: tuple, dtype, requires_grad, what: str = "tensor", meta: bool = False) -> Tensor:
    dt = check_dtype(dtype, what) or defaults["dtype"]
    if meta:
        check_size(shape)
        return _require_grad(meta_tensor(shape, dt), requires_grad, what)
    return repeated(value, shape, dt, requires_grad, what)


def meta_factory(shape: tuple, dtype, requires_grad, what: str) -> Tensor:
    """A factory's new meta tensor (``meta.py``): its size and ``requires_grad`` checked as for
    any of its tensors."""
    return _filled(0, tuple(shape), dtype, requires_grad, what, True)


def repeated(value, shape: tuple, dtype, requires_grad=False, what: str = "tensor") -> Tensor:
    """A new leaf tensor of ``shape`` whose every element is ``value`` rounded to ``dtype``: the
    value is rounded once and the list holds one float object ``n`` times (8 bytes an element),
    and the size is checked before the list is made."""
    shape = tuple(shape)
    n = check_size(shape)
    v = dtypes.round_values(dtype, [value])[0]
    t = leaf([v] * n if shape else v, TensorType(dtype, shape))
    return _require_grad(t, requires_grad, what)


def refuse_out(out, name: str) -> None:
    """PyTorch writes a factory's result into ``out``; scalargrad does not yet for this one, and
    never ignores it."""
    if out is not None:
        raise Unsupported(f"torch.{name}(out=...)", f"write the result with out.copy_(torch.{name}(...)) instead")


def written_into(out, name: str, make, dtype) -> Tensor:
    """A factory's ``out=``: the tensor made in ``out``'s dtype unless ``dtype`` is given (a draw
    is then in that dtype, as PyTorch draws into out), written into ``out`` (``out_argument``)."""
    if isinstance(out, Tensor):
        if dtype is None:
            dtype = out.dtype
        elif dtype is not out.dtype:
            raise RuntimeError(f"dtype {dtype.short} does not match dtype of out parameter ({out.dtype.short})")
    return call_with_out(name, make, (dtype,), {}, out, None, False, factory=True)


def zeros(*shape, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
          names=None) -> Tensor:
    factory_options("zeros", layout, pin_memory)
    refuse_names(names, "zeros")
    if out is not None:
        return written_into(out, "zeros", lambda dt: zeros(*shape, size=size, dtype=dt, device=device), dtype)
    return _filled(0, sizes(shape, size, "zeros"), dtype, requires_grad, "zeros", factory_device(device, meta=True))


def ones(*shape, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
          names=None) -> Tensor:
    factory_options("ones", layout, pin_memory)
    refuse_names(names, "ones")
    if out is not None:
        return written_into(out, "ones", lambda dt: ones(*shape, size=size, dtype=dt, device=device), dtype)
    return _filled(1, sizes(shape, size, "ones"), dtype, requires_grad, "ones", factory_device(device, meta=True))


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


def empty(*shape, size=None, memory_format=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False, names=None) -> Tensor:
    """Uninitialised memory (``uninitialised``): zeros, laid out in ``memory_format``."""
    factory_options("empty", layout, pin_memory)
    refuse_names(names, "empty")
    fmt = check_format(memory_format, "empty")
    if out is not None:
        if fmt is not None:
            raise Unsupported("torch.empty(out=..., memory_format=...)")
        return written_into(out, "empty", lambda dt: empty(*shape, size=size, dtype=dt, device=device), dtype)
    meta = factory_device(device, meta=True)
    shape = sizes(shape, size, "empty")
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    strides = None if fmt is None or fmt is contiguous_format else format_strides(shape, fmt)
    dt = check_dtype(dtype, "empty") or defaults["dtype"]
    if meta:
        return laid_out(_filled(0, shape, dt, requires_grad, "empty", meta), strides)
    vals = uninitialised(math.prod(shape), dt)
    return laid_out(uninitialised_tensor(vals, shape, dt, requires_grad, "empty"), strides)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, pin_memory=False,
                   requires_grad=False) -> Tensor:
    """Uninitialised memory (zeros) of ``size`` whose dims lie in memory in the order
    ``physical_layout`` gives, outermost first (``(0, 2, 3, 1)``: channels-last)."""
    factory_options("empty_permuted", layout, pin_memory)
    factory_device(device)
    shape = shape_arg((tuple(size),), "empty_permuted")
    perm = tuple(physical_layout)
    if len(perm) != len(shape):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(shape)} is not equal to len(physical_layout) = {len(perm)}")
    strides = [0] * len(shape)
    acc = 1
    for i in range(len(perm) - 1, -1, -1):
        d = perm[i]
        if not 0 <= d < len(shape):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(shape) - 1}, but got {d} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you want "
                               "it.")
        if strides[d]:
            raise RuntimeError("Duplicate dim not allowed")
        strides[d] = acc
        acc *= max(shape[d], 1)
    dt = check_dtype(dtype, "empty_permuted") or defaults["dtype"]
    vals = uninitialised(math.prod(shape), dt)
    t = uninitialised_tensor(vals, shape, dt, requires_grad, "empty_permuted")
    return laid_out(t, None if tuple(strides) == contiguous_strides(shape) else tuple(strides))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> Tensor:
    """Uninitialised memory (zeros) of ``size`` with memory strides ``stride``. A layout where
    elements overlap or leave gaps is refused by name: scalargrad's tensors own one slot per
    element, so it cannot alias elements as PyTorch's storage would."""
    factory_options("empty_strided", layout, pin_memory)
    factory_device(device)
    shape = shape_arg((tuple(size),), "empty_strided")
    strides = tuple(stride)
    for i, s in enumerate(strides):
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"empty_strided(): argument 'stride' (position 2) must be tuple of ints, but found element "
                            f"of type {type(s).__name__} at pos {i}")
    if len(strides) != len(shape):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
                           f"({len(strides)})")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(strides)}")
    if not is_non_overlapping_and_dense(shape, strides):
        raise Unsupported("torch.empty_strided with strides whose elements overlap or leave gaps in memory")
    dt = check_dtype(dtype, "empty_strided") or defaults["dtype"]
    t = uninitialised_tensor(uninitialised(math.prod(shape), dt), shape, dt, requires_grad, "empty_strided")
    return laid_out(t, None if strides == contiguous_strides(shape) else strides)


def _dtype_of_number(x):
    if isinstance(x, complex):
        return defaults["dtype"].to_complex()
    if isinstance(x, bool):
        return dtypes.bool
    if isinstance(x, int):
        return dtypes.int64
    return defaults["dtype"]


def full(size, fill_value, *, out=None, names=None, layout=None, dtype=None, device=None, requires_grad=False,
         pin_memory=False) -> Tensor:
    factory_options("full", layout, pin_memory)
    refuse_names(names, "full")
    if out is not None:
        return written_into(out, "full", lambda dt: full(size, fill_value, dtype=dt, device=device), dtype)
    meta = factory_device(device, meta=True)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = check_dtype(dtype, "full")
    if dtype is None:
        dtype = _dtype_of_number(fill_value)
    dtypes.check_fits(dtype, fill_value)
    return _filled(fill_value, shape_arg((size,) if isinstance(size, int) else (tuple(size),), "full"), dtype,
                   requires_grad, "full", meta)


def _like(v: Tensor, value, dtype, requires_grad, what: str, strides, meta: bool = False) -> Tensor:
    dt = check_dtype(dtype, what) or v._t.dtype
    if meta:
        return laid_out(_filled(value, tuple(v._t.shape), dt, requires_grad, what, meta), strides)
    return laid_out(repeated(value, tuple(v._t.shape), dt, requires_grad, what), strides)


def zeros_like(input, *, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
               requires_grad=False) -> Tensor:
    strides = like_options("zeros_like", input, layout, pin_memory, memory_format)
    return _like(input, 0, dtype, requires_grad, "zeros_like", strides, like_device(device, input, meta=True))


def ones_like(input, *, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False) -> Tensor:
    strides = like_options("ones_like", input, layout, pin_memory, memory_format)
    return _like(input, 1, dtype, requires_grad, "ones_like", strides, like_device(device, input, meta=True))


def empty_like(input, *, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
               requires_grad=False) -> Tensor:
    strides = like_options("empty_like", input, layout, pin_memory, memory_format)
    if like_device(device, input, meta=True):
        return _like(input, 0, dtype, requires_grad, "empty_like", strides, True)
    dt = check_dtype(dtype, "empty_like") or input._t.dtype
    vals = uninitialised(input._t.numel, dt)
    return laid_out(uninitialised_tensor(vals, tuple(input._t.shape), dt, requires_grad, "empty_like"), strides)


def full_like(input, fill_value, *, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False) -> Tensor:
    strides = like_options("full_like", input, layout, pin_memory, memory_format)
    return _like(input, fill_value, dtype, requires_grad, "full_like", strides,
                 like_device(device, input, meta=True))


def _new_filled(value, what: str):
    def apply(self, *shape, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
        factory_options(what, layout, pin_memory)
        shape = sizes(shape, size, what)
        if like_device(device, self, meta=True):
            return _filled(value, shape, dtype or self._t.dtype, requires_grad, what, True)
        return repeated(value, shape, dtype or self._t.dtype, requires_grad)

    return apply


def _new_tensor(self, data, *extra, dtype=None, device=None, requires_grad=False, pin_memory=_NO_DATA):
    # PyTorch's type stub lists dtype... as positional and a pin_memory; its parser refuses both
    if extra:
        raise TypeError(f"new_tensor() takes 1 positional argument but {1 + len(extra)} were given")
    if pin_memory is not _NO_DATA:
        raise TypeError("new_tensor() got an unexpected keyword argument 'pin_memory'")
    if device is None:  # on self's device, not the with torch.device block's
        device = "meta" if is_meta(self) else "cpu"
    return tensor(data, dtype=dtype or self._t.dtype, device=device, requires_grad=requires_grad)


def _new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    factory_options("new_full", layout, pin_memory)
    if device is None:  # on self's device, not the with torch.device block's
        device = "meta" if is_meta(self) else "cpu"
    return full(size, fill_value, dtype=dtype or self._t.dtype, device=device, requires_grad=requires_grad)


def refuse_names(names, what: str) -> None:
    """``names=``: named tensors, a prototype of PyTorch's, refused by name (None is the default)."""
    if names is not None:
        raise Unsupported(f"torch.{what}(names=...)", "named tensors (a prototype feature of PyTorch's)")


def install(method, function) -> None:
    """The torch factories (as they are: no input to check) and ``Tensor.new_*``."""
    for name in ("tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "full", "empty", "empty_permuted",
                 "empty_strided", "zeros_like", "ones_like", "full_like", "empty_like", "device", "layout", "strided"):
        function(name, globals()[name], checked=False)
    method("new_tensor", _new_tensor)
    for name, value in (("new_zeros", 0), ("new_ones", 1), ("new_empty", 0)):
        method(name, _new_filled(value, name))
    method("new_full", _new_full)
    method("new_empty_strided", lambda self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
           requires_grad=False: empty_strided(size, stride, dtype=dtype or self._t.dtype, layout=layout,
                                              device=device, requires_grad=requires_grad, pin_memory=pin_memory))
