"""A storage's elements as raw little-endian bytes, per dtype (the ``data/<k>`` entries of a save).

Each element takes its dtype's ``itemsize`` bytes, as in PyTorch's storages: IEEE binary32 /
binary64 / binary16, bfloat16 as the upper half of the binary32 pattern (scalargrad keeps a
bfloat16 value rounded, so the lower half is zero), two's-complement integers, bool as one byte
0 or 1.
"""

from __future__ import annotations

import struct

from .._base import dtypes
from .._base.errors import Unsupported

__all__ = ["to_bytes", "from_bytes"]

_CODES = {"float16": "e", "float32": "f", "float64": "d", "uint8": "B", "int8": "b", "int16": "h",
          "int32": "i", "int64": "q", "bool": "?"}


def _refuse_complex(dt: dtypes.dtype) -> None:
    if dt.is_complex:  # scalargrad's complex tensors are not written into, nor read from, an archive yet
        raise Unsupported(f"saving or loading {dt!r} tensors")


def to_bytes(dt: dtypes.dtype, values: list) -> bytes:
    """``values`` (Python numbers already rounded to ``dt``) packed little-endian."""
    _refuse_complex(dt)
    n = len(values)
    if dt is dtypes.bfloat16:
        words = struct.unpack(f"<{n}I", struct.pack(f"<{n}f", *values))
        return struct.pack(f"<{n}H", *(w >> 16 for w in words))
    return struct.pack(f"<{n}{_CODES[dt.name]}", *values)


def from_bytes(dt: dtypes.dtype, raw: bytes) -> list:
    """The elements that ``to_bytes`` packed: Python floats, ints or bools."""
    _refuse_complex(dt)
    if len(raw) % dt.itemsize:
        raise RuntimeError(f"a {dt.name} storage of {len(raw)} bytes is not a whole number of elements")
    n = len(raw) // dt.itemsize
    if dt is dtypes.bfloat16:
        halves = struct.unpack(f"<{n}H", raw)
        return list(struct.unpack(f"<{n}f", struct.pack(f"<{n}I", *(h << 16 for h in halves))))
    return list(struct.unpack(f"<{n}{_CODES[dt.name]}", raw))
