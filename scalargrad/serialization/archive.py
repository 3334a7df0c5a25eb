"""The file layout of a scalargrad save, and telling it from PyTorch's own files.

A save is a zip archive (stored, not compressed, fixed timestamps: saving the same object
twice writes the same bytes) with three kinds of entry under ``scalargrad/``:

- ``scalargrad/format``: the line ``scalargrad-save 1``;
- ``scalargrad/object.json``: ``{"format": "scalargrad-save", "version": 1, "byteorder":
  "little", "object": <tree>, "tensors": [<row>...], "storages": [{"dtype": ..., "numel": ...}...]}``
  (``object_tree.py`` describes the tree and the rows);
- ``scalargrad/data/<k>``: storage ``k``'s elements, raw little-endian (``element_bytes.py``).

PyTorch's ``torch.save`` writes a zip archive too, but its object tree is a pickle
(``<name>/data.pkl``); before 1.6 it wrote a bare pickle stream. Reading either would need an
unpickler, which can run arbitrary code: ``classify`` recognises them so that ``load`` can say so.
"""

from __future__ import annotations

import io
import json
import zipfile

__all__ = ["FORMAT", "VERSION", "write", "read", "classify"]

FORMAT = "scalargrad-save"
VERSION = 1
_ROOT = "scalargrad/"
_WHEN = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: no clock in the file


def write(f, header: dict, blobs: list) -> None:
    """Write the archive to the binary file object ``f``: ``header`` as ``object.json`` and
    ``blobs[k]`` as ``data/<k>``."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as z:
        _put(z, "format", f"{FORMAT} {VERSION}\n".encode("ascii"))
        _put(z, "object.json", json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        for k, blob in enumerate(blobs):
            _put(z, f"data/{k}", blob)


def _put(z: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(_ROOT + name, date_time=_WHEN)
    info.external_attr = 0o644 << 16
    z.writestr(info, data)


def classify(head: bytes) -> str:
    """What a file starting with ``head`` (its first bytes) is: ``"zip"``, ``"pickle"``
    (PyTorch's legacy format: a pickle stream, protocol 2 or later), ``"empty"`` or ``"other"``."""
    if not head:
        return "empty"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head[0] == 0x80:
        return "pickle"
    return "other"


def read(f) -> tuple:
    """``(header, blobs)`` from the zip archive ``f``; ``header`` is None when the archive is
    not a scalargrad save, with the reason as the second item (``"pytorch"``: it holds a
    ``data.pkl``, PyTorch's pickled object tree; ``"unknown"`` otherwise)."""
    with zipfile.ZipFile(f) as z:
        names = z.namelist()
        if _ROOT + "object.json" not in names:
            if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
                return None, "pytorch"
            return None, "unknown"
        header = _json(z.read(_ROOT + "object.json"))
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            return None, "unknown"
        if header.get("version") != VERSION:
            raise RuntimeError(f"torch.load: the file is a scalargrad save of version {header.get('version')}; "
                               f"this scalargrad reads version {VERSION}")
        blobs = [z.read(f"{_ROOT}data/{k}") for k in range(len(header["storages"]))]
    return header, blobs


def _json(raw: bytes):
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RuntimeError("torch.load: the file is damaged: its object.json is not valid JSON") from None


def seekable_copy(f) -> io.BytesIO:
    """A stream that cannot seek, read whole (zipfile needs to seek to the central directory)."""
    return io.BytesIO(f.read())
