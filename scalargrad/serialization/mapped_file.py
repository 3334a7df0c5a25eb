"""``torch.from_file``: a tensor of a file's first ``size`` elements, read as raw little-endian
bytes of the dtype (what ``ndarray.tofile`` writes). PyTorch maps the file privately
(``shared=False``): the tensor's later changes never reach the file, so reading it once is the
same tensor. ``shared=True`` (writes through to the file, shared between processes) is refused.
"""

from __future__ import annotations

import os

from .._base.errors import Unsupported
from .._tensor.factories import from_values
from .._tensor.tensor import get_default_dtype
from .element_bytes import from_bytes

__all__ = ["from_file"]


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """The first ``size`` elements of the file ``filename`` as a 1-D CPU tensor of ``dtype``."""
    if not isinstance(filename, str):
        raise TypeError(f"from_file(): argument 'filename' (position 1) must be str, not {type(filename).__name__}")
    if shared:
        raise Unsupported("torch.from_file with shared=True", "it maps the file into memory, shared between "
                          "processes and written through: scalargrad keeps its own elements")
    if device is not None and str(device) != "cpu":
        raise Unsupported(f"torch.from_file on device {device!r}", "only CPU tensors can be mapped to files")
    dt = dtype or get_default_dtype()
    need = size * dt.itemsize
    try:
        with open(filename, "rb") as f:
            have = os.fstat(f.fileno()).st_size
            if need < 0:
                raise RuntimeError(f"unable to mmap {need} bytes from file <{filename}>: Cannot allocate memory (12)")
            if have < need:
                raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required mapping size "
                                   f"<{need}>")
            raw = f.read(need)
    except OSError as e:
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: {e.strerror} ({e.errno})") from None
    return from_values(from_bytes(dt, raw), (size,), dt, requires_grad, "from_file")
