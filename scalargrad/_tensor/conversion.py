"""Conversions: ``to`` (dtype, device, another tensor's dtype), ``type`` (a dtype, a legacy type
name or class), ``type_as`` and the dtype methods (``float()``, ``long()``, ``bool()``...), as
ToCopyBackward0 nodes where the result is floating (``to_dtype``).
"""

from __future__ import annotations

from .._base import dtypes
from . import legacy
from .factories import check_dtype, move_device
from .tensor import Tensor
from .views import clone, to_dtype

__all__ = ["to", "type_", "install"]


def to(self, *args, **kwargs):
    """Convert dtype (``to(torch.float64)``, ``to(other)``); devices other than the CPU are refused."""
    dt = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    for a in args:
        if isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, Tensor):
            dt = a._t.dtype
        elif isinstance(a, bool):
            continue
        elif a is not None:
            move_device(self, a)
    move_device(self, kwargs.get("device"))
    fmt = kwargs.get("memory_format")
    if dt is None:
        if fmt is not None:
            return to_dtype(self, self._t.dtype, copy, fmt)
        return clone(self) if copy else self
    check_dtype(dt, "to")  # complex dtypes are refused by name
    return to_dtype(self, dt, copy, fmt)


_LEGACY = {d.legacy: d for d in (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.int64, dtypes.int32,
                                 dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.bool)}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    if dtype is None:
        return self._t.dtype.legacy
    if isinstance(dtype, legacy.tensortype):
        dtype = dtype.dtype
    if isinstance(dtype, str):
        if dtype not in _LEGACY:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _LEGACY[dtype]
    return to_dtype(self, dtype)


def install(method, function) -> None:
    """to, type, type_as, and the dtype methods."""
    method("to", to)
    method("type", type_)
    method("type_as", lambda self, other: to_dtype(self, other._t.dtype))
    for name, dt in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                     ("bfloat16", dtypes.bfloat16), ("long", dtypes.int64), ("int", dtypes.int32),
                     ("short", dtypes.int16), ("char", dtypes.int8), ("byte", dtypes.uint8), ("bool", dtypes.bool)):
        method(name, lambda self, memory_format=None, _dt=dt: to_dtype(self, _dt, memory_format=memory_format))
