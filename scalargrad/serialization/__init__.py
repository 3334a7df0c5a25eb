"""``torch.save`` / ``torch.load`` without pickle: a saved object is plain data that cannot run code.

``save(obj, f)`` writes ``obj`` (tensors, Parameters, numbers, strings, None, dtypes, devices,
and lists, tuples, dicts, OrderedDicts and sets of them: a model's or an optimizer's
``state_dict()``, a checkpoint dict, one tensor) to a path or a binary file object as a zip
archive holding a JSON object tree and each storage's raw little-endian bytes
(``archive.py`` gives the layout). ``load(f)`` reads it back.

A whole Module (``torch.save(model, f)``) is saved as PyTorch pickles it, but as data: its
class by name (a reference, never code) and its ``__dict__`` (parameters, buffers, submodules,
attributes). As in PyTorch 2.13, ``torch.load(f)`` then refuses it (``weights_only`` is True by
default: the same UnpicklingError naming the first class not allowlisted, e.g. ``__main__.Net``),
and ``torch.load(f, weights_only=False)`` (or the class allowlisted with ``add_safe_globals`` /
``safe_globals``) rebuilds it from a class the program has defined or imported: the file only
names it, and nothing is imported or run on its say. An optimizer object is still refused
(save its ``state_dict()``).

A file written by PyTorch's own ``torch.save`` stores its objects as a pickle, which only an
unpickler can read and which can run arbitrary code: ``load`` recognises both of PyTorch's
formats (the zip archive with ``data.pkl``, and the older bare pickle stream) and says so.
``pickle_module``, ``pickle_protocol`` and the other pickle arguments are accepted and have
nothing to act on.
"""

from __future__ import annotations

import os
import pathlib
from contextlib import contextmanager

from .._base.dtypes import by_name
from .._base.errors import Unsupported
from .._base.missing_api import missing_attribute
from .._tensor.factories import device
from . import archive
from .element_bytes import from_bytes, to_bytes
from .mapped_file import from_file
from .object_tree import Encoder, decode, shown_name

__all__ = ["save", "load", "from_file", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

_CUDA = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
         "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
         "storages to the CPU.")


def save(obj, f, pickle_module=None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Write ``obj`` to ``f`` (a path, or a binary file object with ``write``) in scalargrad's
    save format; raises ``Unsupported`` for an object that is not plain data (nothing is
    written then)."""
    enc = Encoder()
    tree = enc.encode(obj)
    header = {"format": archive.FORMAT, "version": archive.VERSION, "byteorder": "little", "object": tree,
              "tensors": enc.tensors,
              "storages": [{"dtype": dt.name, "numel": len(values)} for dt, values in enc.storages]}
    blobs = [to_bytes(dt, values) for dt, values in enc.storages]
    if isinstance(f, (str, os.PathLike)):
        parent = pathlib.Path(os.fspath(f)).parent
        if not parent.is_dir():
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        with open(f, "wb") as out:
            archive.write(out, header, blobs)
        return
    if not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    archive.write(f, header, blobs)


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args):
    """The object ``save`` wrote to ``f`` (a path, or a binary file object positioned at the
    save). Its tensors are CPU leaves; ``map_location`` may name the CPU (a string, device,
    dict or function), as on a CPU-only PyTorch."""
    is_path = isinstance(f, (str, os.PathLike))
    if mmap and not is_path:
        raise ValueError("f must be a file path in order to use the mmap argument")
    rules = (weights_only is not False, frozenset(_allowed_names()))
    if is_path:
        with open(f, "rb") as stream:
            return _load_stream(stream, map_location, rules)
    if not hasattr(f, "read"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load from a "
                             "file that is seekable. Please pre-load the data into a buffer like io.BytesIO and try "
                             "to load from it instead.")
    return _load_stream(f, map_location, rules)


def _load_stream(f, map_location, rules):
    seekable = getattr(f, "seekable", None)
    if seekable is None or not seekable():
        f = archive.seekable_copy(f)
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    kind = archive.classify(head)
    if kind == "empty":
        raise EOFError("torch.load: the file is empty (nothing was saved to it, or it was read to its end already)")
    if kind == "pickle":
        raise _pytorch_format("a pickle stream (PyTorch's format before 1.6)")
    if kind == "other":
        raise RuntimeError("torch.load: this is not a file that torch.save wrote: it is neither a zip archive nor a "
                           "pickle stream")
    header, blobs = archive.read(f)
    if header is None:
        if blobs == "pytorch":
            raise _pytorch_format("a zip archive whose objects are pickled (data.pkl)")
        raise RuntimeError("torch.load: this zip archive is not a file that torch.save wrote (it holds neither "
                           "scalargrad/object.json nor data.pkl)")
    storages = []
    for spec, blob in zip(header["storages"], blobs):
        values = from_bytes(by_name(spec["dtype"]), blob)
        if len(values) != spec["numel"]:
            raise RuntimeError(f"torch.load: the file is damaged: a storage holds {len(values)} elements, its "
                               f"header says {spec['numel']}")
        storages.append(values)
    if storages:
        _check_location(map_location)
    return decode(header["object"], header["tensors"], storages, *rules)


def _pytorch_format(what: str) -> Unsupported:
    return Unsupported(f"torch.load of a file written by PyTorch's torch.save ({what})",
                       "reading it needs an unpickler, which can run any code the file holds; scalargrad saves "
                       "and loads plain data only: save the state_dict from scalargrad, or from PyTorch as numbers "
                       "(tensor.tolist()) in JSON")


class _CpuStorage:
    """What a ``map_location`` function receives: a CPU storage that can only stay on the CPU."""

    def cpu(self) -> _CpuStorage:
        return self

    def __getattr__(self, name: str):
        raise Unsupported(f"torch.load with a map_location function that calls storage.{name}")


def _check_location(map_location) -> None:
    """Refuse, as a CPU-only PyTorch does, to put the loaded tensors anywhere but the CPU."""
    if map_location is None:
        return
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu", "cpu")
    if callable(map_location) and not isinstance(map_location, device):
        storage = _CpuStorage()
        result = map_location(storage, "cpu")
        if result is not None and result is not storage:
            raise Unsupported("torch.load with a map_location function that returns something other than the "
                              "storage it was given")
        return
    where = device(map_location)
    if where.type == "cuda":
        raise RuntimeError(_CUDA)
    if where.type != "cpu":
        raise Unsupported(f"torch.load with map_location='{where}'")


_safe: list = []


def _allowed_names() -> list:
    """The ``module.qualname`` of each allowlisted class or function (an entry may also be a
    ``(callable, "name")`` pair, as PyTorch accepts)."""
    names = []
    for entry in _safe:
        if isinstance(entry, tuple) and len(entry) == 2:
            names.append(entry[1])
        else:
            names.append(shown_name(entry))
    return names


def add_safe_globals(safe_globals: list) -> None:
    """Allow ``torch.load``'s ``weights_only`` mode to rebuild these classes (and to hand back
    these functions), as PyTorch's does."""
    _safe.extend(safe_globals)


def get_safe_globals() -> list:
    """What ``add_safe_globals`` recorded."""
    return list(_safe)


def clear_safe_globals() -> None:
    _safe.clear()


@contextmanager
def safe_globals(safe_globals: list):
    """``add_safe_globals`` for the duration of a ``with`` block."""
    before = list(_safe)
    _safe.extend(safe_globals)
    try:
        yield
    finally:
        _safe[:] = before


def __getattr__(name: str):
    # a name of torch.serialization scalargrad does not define (skip_data...): Unsupported naming it
    return missing_attribute("torch.serialization", name)
