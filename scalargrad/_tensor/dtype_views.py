"""``Tensor.view(dtype)``: the same bytes read as another dtype, as ATen's ``view_dtype``.

Of the same element size (float32 <-> int32, float64 <-> int64, float16 <-> int16 <-> bfloat16,
uint8 <-> int8 <-> bool) each element's bits are reinterpreted and sizes, strides and storage
offset are kept; of another size the last dimension (stride 1) is cut into smaller elements or
joined into larger ones, little-endian, and the other strides and the offset scale, with ATen's
checks and messages. A dtype's own view is an alias (a new tensor sharing the memory and the
version counter). The result never requires grad: PyTorch declares no derivative for it.

PyTorch's result shares the input's memory. scalargrad keeps each tensor's elements as numbers,
not bytes, so the result holds the reinterpreted numbers and writing into either side (or any
tensor sharing memory with one) is refused by name (``storage.write_guards``): a write PyTorch
would show through the other dtype is never silently lost. Also refused by name: the bits of a
NaN (sign and payload depend on how it was computed, which scalargrad does not record), bytes
that are not 0 or 1 read as bool, and complex dtypes.
"""

from __future__ import annotations

import struct
import weakref

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .storage import alias, mem, write_guards
from .tensor import Tensor, leaf

__all__ = ["view_dtype", "install"]

# struct codes of each dtype's bytes (bfloat16: the upper half of a float32, below)
_CODES = {"float64": "d", "float32": "f", "float16": "e", "bfloat16": "H", "int64": "q", "int32": "i", "int16": "h",
          "int8": "b", "uint8": "B", "bool": "B"}
# id -> tensor, for the tensors on either side of a view(dtype) of another dtype
_REINTERPRETED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _pack(values: list, dt) -> bytes:
    code = _CODES[dt.name]
    if dt is dtypes.bfloat16:
        values = [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in values]
    elif dt is dtypes.bool:
        values = [int(v) for v in values]
    return struct.pack(f"<{len(values)}{code}", *values)


def _unpack(raw: bytes, dt) -> list:
    n = len(raw) // dt.itemsize
    values = list(struct.unpack(f"<{n}{_CODES[dt.name]}", raw))
    if dt is dtypes.bfloat16:
        return [struct.unpack("<f", struct.pack("<I", b << 16))[0] for b in values]
    if dt is dtypes.bool:
        if any(b > 1 for b in values):
            raise Unsupported("Tensor.view(torch.bool) of bytes other than 0 and 1")
        return [b == 1 for b in values]
    return values


def _sizes(x: Tensor, dt, offset: int) -> tuple:
    """(shape, strides, storage offset) of ``x`` viewed as ``dt``, with view_dtype's checks."""
    t = x._t
    old, new = t.dtype.itemsize, dt.itemsize
    shape, strides = list(t.shape), list(t.strides)
    what = f"to view {t.dtype.short} as {dt.short} (different element sizes)"
    if old == new:
        return tuple(shape), tuple(strides), offset
    if not shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if old > new:
        ratio = old // new
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        shape[-1] *= ratio
        return tuple(shape), tuple(s * ratio for s in strides[:-1]) + (1,), offset * ratio
    ratio = new // old
    if shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
    if offset % ratio:
        raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    for i, s in enumerate(strides[:-1]):
        if s % ratio:
            raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {s}")
    shape[-1] //= ratio
    return tuple(shape), tuple(s // ratio for s in strides[:-1]) + (1,), offset // ratio


def view_dtype(x: Tensor, dt, offset: int) -> Tensor:
    """``x.view(dt)`` (``offset``: ``x``'s storage offset)."""
    src = x._t.dtype
    if src is dt:
        return alias(x, leaf(list(x._val) if x._t.ndim else x._val, x._t), offset=offset)
    if src.is_complex or dt.is_complex:
        raise Unsupported("Tensor.view(dtype) to or from a complex dtype")
    shape, strides, new_offset = _sizes(x, dt, offset)
    values = x._val if x._t.ndim else [x._val]
    if src.is_floating_point and any(v != v for v in values):
        raise Unsupported("Tensor.view(dtype) of a NaN, whose bits (sign, payload) scalargrad does not keep")
    row = x._t.shape[-1] if x._t.ndim else 1  # each row of the last dim lies in memory as one run of bytes
    out: list = []
    for i in range(0, len(values), max(row, 1)):
        out += _unpack(_pack(values[i:i + row], src), dt)
    v = leaf(out if shape else out[0], TensorType(dt, shape, strides))
    if new_offset:
        mem(v).offset = new_offset  # storage_offset(), as PyTorch's view reports it
    _REINTERPRETED[id(x)] = x
    _REINTERPRETED[id(v)] = v
    return v


def _marked(t: Tensor) -> bool:
    return _REINTERPRETED.get(id(t)) is t


def _refuse_reinterpreted_write(t: Tensor) -> None:
    """A write into a tensor that shares memory with a view of it as another dtype."""
    if not _REINTERPRETED:
        return
    s = t._s
    members = [t] if s is None or s.store is None else [r() for r in s.store.members]
    if any(m is not None and _marked(m) for m in members):
        raise Unsupported("writing into a tensor that shares memory with a view of it as another dtype "
                          "(Tensor.view(dtype))")


def install(method, function) -> None:
    """The write guard (``Tensor.view`` itself is installed by ``views``, which calls ``view_dtype``)."""
    write_guards.append(_refuse_reinterpreted_write)
