"""Conversions: ``to`` (dtype, device, another tensor's dtype), ``type`` (a dtype, a legacy type
name or class), ``type_as`` and the dtype methods (``float()``, ``long()``, ``bool()``...), as
ToCopyBackward0 nodes where the result is floating (``to_dtype``); ``torch.asarray`` (an object
to a tensor, sharing its memory where it can).
"""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.numpy_types import is_ndarray, is_numpy_scalar
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from . import legacy
from .factories import check_dtype, factory_device, move_device, tensor
from .numpy_bridge import shared_tensor
from .tensor import Tensor
from .views import clone, detach, to_dtype

__all__ = ["to", "type_", "asarray", "install"]


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


_ASARRAY_WARNING = ("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                    "Pass requires_grad=False explicitly to get the old behavior and silence this warning. "
                    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1737.)")


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad: bool | None = None) -> Tensor:
    """``obj`` as a tensor, PyTorch's ``torch.utils.asarray``: a tensor or a NumPy array is shared
    (the tensor itself is returned) unless ``copy=True`` or another dtype needs a copy
    (``copy=False`` then refuses); a sequence is always copied. ``requires_grad`` defaults to the
    tensor's own, with PyTorch 2.13's warn-once when that makes the result require grad; it is set
    on a leaf in place, a non-leaf that should not require grad is detached."""
    dt = None if dtype is None else check_dtype(dtype, "asarray")
    factory_device(device)
    source = obj if isinstance(obj, Tensor) else None
    wants_grad = requires_grad if requires_grad is not None else (source is not None and source.requires_grad)
    if wants_grad and requires_grad is None and first_time("asarray_requires_grad"):
        warnings.warn(_ASARRAY_WARNING, UserWarning, stacklevel=program_stacklevel())
    if source is None and is_numpy_scalar(obj) and not is_ndarray(obj):
        if copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
        source, copy = tensor(obj), None  # a new storage already: never copied again
    elif source is None and is_ndarray(obj):
        source = shared_tensor(obj)
    if source is None:  # a sequence or a number: a new tensor, the dtype inferred unless given
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return tensor(obj, dtype=dt).requires_grad_(wants_grad) if wants_grad else tensor(obj, dtype=dt)
    wrong_dtype = dt is not None and dt is not source._t.dtype
    if copy or (copy is None and wrong_dtype):
        source = to_dtype(source, dt, copy=True) if wrong_dtype else clone(source)
    elif wrong_dtype:
        raise ValueError(f"can't alias tensor with dtype '{source._t.dtype.short}' into dtype '{dt.short}'.")
    if not source.is_leaf and not wants_grad:
        return detach(source)
    return source.requires_grad_(wants_grad)


def install(method, function) -> None:
    """to, type, type_as, and the dtype methods; torch.asarray."""
    function("asarray", asarray)
    method("to", to)
    method("type", type_)
    method("type_as", lambda self, other: to_dtype(self, other._t.dtype))
    for name, dt in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                     ("bfloat16", dtypes.bfloat16), ("long", dtypes.int64), ("int", dtypes.int32),
                     ("short", dtypes.int16), ("char", dtypes.int8), ("byte", dtypes.uint8), ("bool", dtypes.bool)):
        method(name, lambda self, memory_format=None, _dt=dt: to_dtype(self, _dt, memory_format=memory_format))
