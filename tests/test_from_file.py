"""torch.from_file (``serialization/mapped_file.py``): a file's raw little-endian elements as a
tensor of the dtype, against live PyTorch (the same bytes read under both), and its errors;
``shared=True`` refused by name."""

from __future__ import annotations

import struct

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _outcomes(L, path: str) -> list:
    p = str(path)
    calls = [lambda: L.from_file(p, shared=False, size=6, dtype=L.float64), lambda: L.from_file(p, size=0),
             lambda: L.from_file(p, False, 4, dtype=L.int32), lambda: L.from_file(p, size=3),
             lambda: L.from_file(p, size=7, dtype=L.float64), lambda: L.from_file(p + ".absent", size=1),
             lambda: L.from_file(p, size=-1), lambda: L.from_file(3, size=1),
             lambda: L.from_file(p, size=2, requires_grad=True), lambda: L.from_file(p, size=2, dtype=L.int64,
                                                                                   requires_grad=True)]
    out = []
    for call in calls:
        try:
            out.append(repr(call()))
        except (RuntimeError, TypeError) as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_from_file_as_pytorch(torch_ref, tmp_path):
    path = tmp_path / "storage.pt"
    path.write_bytes(struct.pack("<6d", 1.5, -2.0, 3.0, 4.0, 5.0, 6.0))
    assert _outcomes(scalargrad, path) == _outcomes(torch_ref, path)


def test_from_file_reads_the_elements_and_refuses_sharing(tmp_path):
    path = tmp_path / "ints.bin"
    path.write_bytes(struct.pack("<3i", 7, -1, 2**31 - 1))
    assert scalargrad.from_file(str(path), size=3, dtype=scalargrad.int32).tolist() == [7, -1, 2**31 - 1]
    with pytest.raises(Unsupported, match="shared=True"):
        scalargrad.from_file(str(path), shared=True, size=1)
