"""PyTorch's legacy tensor types: ``torch.FloatTensor``, ``DoubleTensor``, ``LongTensor``...,
the constructor ``torch.Tensor(...)`` they share, ``torch.set_default_device`` and the deprecated
``torch.set_default_tensor_type``.

A legacy type is a class whose metaclass is ``torch.tensortype``: calling it builds a tensor of
its dtype with the legacy constructor's rules (sizes, data, another tensor), ``isinstance``
asks whether a tensor has its dtype, and ``x.type(torch.DoubleTensor)`` converts to it. Every
tensor so made is a plain ``torch.Tensor`` (``type(torch.FloatTensor(2))`` is
``torch.Tensor``), as in PyTorch.
"""

from __future__ import annotations

import importlib
import math
import sys
import warnings

from .._base import dtypes
from .._base.errors import Unsupported
from .._base.numpy_types import is_ndarray, is_numpy_scalar, numpy_dtype, numpy_type_name
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .factories import (
    default_device,
    device,
    from_values,
    parse_data,
    shape_arg,
    uninitialised,
    uninitialised_tensor,
    use_device,
)
from .numpy_bridge import array_tensor, shared_tensor
from .tensor import Tensor, defaults, impl, set_default_dtype
from .views import basic_index

__all__ = ["install", "tensortype", "LEGACY_TYPES", "construct", "legacy_dtype", "set_default_device",
           "get_default_device", "set_default_tensor_type"]

_FIRST_SIGNATURE = "\n * (*, torch.device device = None)"
_OTHER_SIGNATURES = (
    "\n * (torch.Storage storage)"
    "\n * (Tensor other)"
    "\n * (tuple of ints size, *, torch.device device = None)"
    "\n * (object data, *, torch.device device = None)\n"
)


def _options(dt) -> str:
    return (f"TensorOptions(dtype={dt.c_name}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _invalid(args: tuple, kwargs: dict) -> TypeError:
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    why = ""
    if kwargs:
        why = f"\n      didn't match because some of the keywords were incorrect: {', '.join(kwargs)}"
    return TypeError(f"new() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                     f"one of:{_FIRST_SIGNATURE}{why}{_OTHER_SIGNATURES}")


def construct(cls, args: tuple, kwargs: dict, dt=None) -> Tensor:
    """The legacy constructor ``torch.Tensor(...)`` (``dt`` None: the default dtype) or
    ``torch.FloatTensor(...)``: empty (``()``), uninitialised sizes (``(2, 3)``, a
    ``torch.Size``; scalargrad fills them with zeros), data (nested sequences, cast to the
    dtype), or another tensor of the same dtype (an alias of it: AliasBackward0 in a graph)."""
    if cls is not Tensor and not isinstance(cls, tensortype):
        raise Unsupported(f"subclassing torch.Tensor ({cls.__name__})")
    explicit = dt is not None
    dt = dt or defaults["dtype"]
    kw = dict(kwargs)
    dev = kw.pop("device", None)
    if kw:
        raise _invalid(args, kwargs)
    use_device(dev)
    if not args:
        return from_values([], (0,), dt)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if explicit and first._t.dtype is not dt:  # torch.Tensor(t) aliases t whatever its dtype
            raise TypeError(f"expected {_options(dt)} (got {_options(first._t.dtype)})")
        return basic_index(first, Ellipsis)  # Tensor.alias()
    if len(args) == 1 and is_ndarray(first):
        # PyTorch's legacy_new_from_sequence: the array's memory itself when its dtype is the
        # type's (as from_numpy: strides kept, writes shared), else a copy cast to the dtype
        if numpy_dtype(first) is dt:
            return shared_tensor(first)
        return array_tensor(first, dt)
    if len(args) == 1 and isinstance(first, (list, tuple)) and not isinstance(first, dtypes.Size):
        values, shape, kind = parse_data(first)
        if kind is not dt and values and not dt.is_floating_point and kind.is_floating_point:
            values = dtypes.cast_values(kind, dt, values)  # LongTensor([np.float64(1.5)]) truncates
        return from_values(values, shape, dt)
    if len(args) == 1 and isinstance(first, dtypes.Size):
        args = tuple(first)
    if args and all(a.__class__ is int for a in args):
        shape = shape_arg(args, "Tensor")
        return uninitialised_tensor(uninitialised(math.prod(shape), dt), shape, dt)
    if len(args) == 1 and (isinstance(first, (float, int, bool)) or is_numpy_scalar(first)):
        raise TypeError(f"new(): data must be a sequence (got {numpy_type_name(first)})")
    raise _invalid(args, kwargs)


class tensortype(type):  # PyTorch's name
    """The metaclass of the legacy tensor types: ``torch.FloatTensor(2, 3)`` builds a float32
    tensor, ``isinstance(x, torch.FloatTensor)`` is true for a float32 tensor."""

    def __call__(cls, *args, **kwargs):
        return construct(cls, args, kwargs, cls.dtype)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._t.dtype is cls.dtype

    def __subclasscheck__(cls, sub) -> bool:
        return sub is cls

    @property
    def is_cuda(cls) -> bool:
        return False

    @property
    def is_sparse(cls) -> bool:
        return False


tensortype.__module__ = "torch"


def _legacy_type(dt) -> tensortype:
    name = dt.legacy.split(".")[-1]
    cls = tensortype(name, (), {"dtype": dt, "__module__": "torch",
                                "__doc__": f"``{dt.legacy}``: the legacy type of {dt.name} tensors."})
    return cls


LEGACY_TYPES = {dt.legacy.split(".")[-1]: _legacy_type(dt)
                for dt in (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16, dtypes.int64,
                           dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.bool)}
"""name (``FloatTensor``) -> the legacy type."""


def legacy_dtype(spec):
    """The dtype a legacy type or its name (``"torch.FloatTensor"``) stands for; None otherwise."""
    if isinstance(spec, tensortype):
        return spec.dtype
    if isinstance(spec, str) and spec.startswith("torch."):
        cls = LEGACY_TYPES.get(spec[6:])
        return None if cls is None else cls.dtype
    return None


_default_device = {"device": None}


def set_default_device(device) -> None:  # PyTorch's parameter name
    """``torch.set_default_device``: the CPU (or None, the CPU again); scalargrad has no other."""
    if device is not None:
        d = device if isinstance(device, device_type) else device_type(device)
        if d.type != "cpu":
            raise Unsupported(f"torch.set_default_device({str(d)!r})", "scalargrad computes on the CPU only")
    _default_device["device"] = device


def get_default_device():
    """``torch.get_default_device``: the CPU, or the device of the innermost ``with torch.device``."""
    return default_device()


_DEPRECATED_TYPE = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                    "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
                    "internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)")


def set_default_tensor_type(t, /) -> None:
    """``torch.set_default_tensor_type(torch.DoubleTensor)`` (or its name ``"torch.DoubleTensor"``):
    the legacy type's floating dtype becomes the default, as ``set_default_dtype``. PyTorch warns
    once per process that it is deprecated (TORCH_WARN_ONCE, before checking ``t``), refuses
    anything but a legacy type (``invalid type object``) and a non-floating one (TypeError)."""
    if isinstance(t, str):  # PyTorch's _import_dotted_name: import the first component, then getattr
        parts = t.split(".")
        obj = sys.modules[__name__.split(".")[0]] if parts[0] == "torch" else importlib.import_module(parts[0])
        for part in parts[1:]:
            obj = getattr(obj, part)
        t = obj
    if first_time("set_default_tensor_type"):
        warnings.warn(_DEPRECATED_TYPE, UserWarning, stacklevel=program_stacklevel())
    if not isinstance(t, tensortype) or not t.dtype.is_floating_point:
        raise dtypes.not_a_default(t, isinstance(t, tensortype), "type")
    set_default_dtype(t.dtype)


device_type = device
impl.construct = construct


def new(self, *args, **kwargs) -> Tensor:
    """``Tensor.new(...)``: the legacy constructor with ``self``'s dtype (sizes, data, a tensor of
    that dtype or nothing), as ``torch.DoubleTensor(...)`` for a float64 ``self``."""
    return construct(Tensor, args, kwargs, self._t.dtype)


def install(method, function) -> None:
    """torch.FloatTensor... (the legacy types), torch.set_default_device, get_default_device,
    Tensor.new."""
    method("new", new)
    for name, cls in LEGACY_TYPES.items():
        function(name, cls, checked=False)
    for name, fn in (("tensortype", tensortype), ("set_default_device", set_default_device),
                     ("get_default_device", get_default_device), ("set_default_tensor_type", set_default_tensor_type)):
        function(name, fn, checked=False)
