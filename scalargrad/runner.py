"""Running an unmodified PyTorch program on scalargrad (``scalargrad run script.py``).

An import alias on ``sys.meta_path`` resolves ``torch`` and ``torch.<sub>`` to ``scalargrad`` and
``scalargrad.<sub>``, so ``import torch``, ``from torch import nn`` and
``from torch.nn.parameter import Parameter`` load scalargrad's modules; no program text is
rewritten. A part of torch that scalargrad does not implement stops the program with an
``Unsupported`` error naming it, which the command line prints as one clear sentence: a module
PyTorch has and scalargrad lacks (``torch.fft``) imports as a ``MissingModule`` whose names raise
it when used (``_base/missing_api.py``).
``torchviz`` resolves to ``scalargrad.viz``, whose ``make_dot`` draws
scalargrad's graph with torchviz's conventions.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import os
import runpy
import sys
import traceback
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._base.errors import Unsupported
from ._base.missing_api import is_pytorch_module, missing_module

__all__ = ["Unsupported", "torch_alias", "run_path", "RunResult"]

_VIZ = {"torchviz": "scalargrad.viz"}


def _aliased(name: str) -> bool:
    return name == "torch" or name.startswith("torch.") or name in _VIZ


class _AliasSpec(importlib.machinery.ModuleSpec):
    """The alias's spec, which importlib puts on the module while it sets it up (``exec_module``
    puts the real one back). Its ``parent`` is the real module's package: importlib reads
    attributes such as ``__path__`` meanwhile, which reaches a module's ``__getattr__``, whose
    relative import would otherwise see ``__package__ != __spec__.parent`` (a
    DeprecationWarning from Python 3.12 on)."""

    real_parent: str | None = None

    @property
    def parent(self):
        if self.real_parent is not None:
            return self.real_parent
        return super().parent


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finder and loader that hand out scalargrad's module for every ``torch`` name."""

    def find_spec(self, fullname, path=None, target=None):
        if not _aliased(fullname):
            return None
        return _AliasSpec(fullname, self)

    def __init__(self) -> None:
        self._specs: dict = {}

    def create_module(self, spec):
        target = _VIZ.get(spec.name) or "scalargrad" + spec.name[len("torch"):]
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as e:
            if not (e.name and e.name.startswith("scalargrad")):
                raise
            if is_pytorch_module(spec.name):  # torch.fft, torch.distributions: its names are Unsupported
                return missing_module(spec.name)
            raise Unsupported(spec.name) from None
        self._specs[spec.name] = module.__spec__
        if isinstance(spec, _AliasSpec):
            spec.real_parent = module.__spec__.parent
        return module

    def exec_module(self, module) -> None:
        # already executed under its scalargrad name; importlib has just replaced its __spec__
        # with the alias's, which would break scalargrad's own relative imports: put it back
        real = self._specs.pop(module.__spec__.name, None)
        if real is not None:
            module.__spec__ = real


@contextmanager
def torch_alias() -> Iterator[None]:
    """While active, ``import torch...`` imports scalargrad instead (previous modules restored)."""
    saved = {k: v for k, v in sys.modules.items() if _aliased(k)}
    for k in saved:
        del sys.modules[k]
    finder = _Alias()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if _aliased(k)]:
            del sys.modules[k]
        sys.modules.update(saved)


class RunResult:
    """How a program ended: ``ok``, or the exception's one-line summary and whether it was an
    unsupported feature."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error
        self.ok = error is None
        self.unsupported = isinstance(error, Unsupported)
        self.summary = "" if error is None else traceback.format_exception_only(type(error), error)[-1].strip()


def run_path(path: str, argv: list[str] | None = None, *, alias_torch: bool = True,
             on_start: Callable[[], None] | None = None) -> RunResult:
    """Run the Python program at ``path`` as ``__main__`` with ``sys.argv = [path, *argv]``.

    Exceptions raised by the program are caught and returned in the RunResult (SystemExit with
    status 0 or None counts as success); the program's own output goes to the real stdout.
    """
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [path, *(argv or [])]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    error: BaseException | None = None
    try:
        ctx = torch_alias() if alias_torch else _nothing()
        with ctx:
            if on_start is not None:
                on_start()
            try:
                _run_as_main(path)
            except SystemExit as e:
                if e.code not in (None, 0):
                    error = e
            except Exception as e:  # the program's own error is a result, not a crash of ours
                error = e
    finally:
        sys.argv = old_argv
        sys.path[:] = old_path
    return RunResult(error)


def _run_as_main(path: str) -> None:
    """Run the file at ``path`` as ``python path`` would: since Python 3.9 its code, ``__file__``,
    tracebacks and warnings carry the absolute path while ``sys.argv[0]`` stays as typed (runpy would
    set both to one string). A directory or zip archive goes to runpy as ``python`` would."""
    full = os.path.abspath(path)
    if not os.path.isfile(full) or _is_zip_archive(full):
        runpy.run_path(path, run_name="__main__")
        return
    with io.open_code(full) as f:
        code = compile(f.read(), full, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=full, __cached__=None, __loader__=None, __package__=None, __spec__=None)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _is_zip_archive(path: str) -> bool:
    """Whether ``python path`` would run the file as a zip archive (zipapp): its end-of-central-directory
    record is in its last 64 KiB (importing zipfile for this would cost every run's start-up)."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 65_558))
        return b"PK\x05\x06" in f.read()


@contextmanager
def _nothing() -> Iterator[None]:
    yield
