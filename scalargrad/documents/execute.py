"""Running a document's cells on scalargrad, in order, in one namespace, capturing each one.

The cells run as the document's reader would run them: ``import torch`` resolves to
scalargrad (``runner.torch_alias``), the working directory is the document's, and the
namespace is a fresh ``__main__`` module shared by all cells (a Python file's docstring
examples get a copy of the module's namespace each, as ``doctest`` gives them). Per cell,
what it printed (and displayed: a notebook cell's last expression, a doctest example's value),
its warnings, its exception and the SymPy proof of every backward call it made are recorded.
A cell's exception does not stop the document: the next cell runs, as in a notebook.

Run a document in a process of its own (``verify`` forks one per document): the cells may
change global state (the random generator, the default dtype, global module hooks).
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import pprint
import sys
import time
import traceback
import types
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

from .._autograd import engine
from ..errors import Unsupported
from ..runner import torch_alias
from ..warm_worker import fresh_warning_filters
from .cells import Cell, Document

__all__ = ["CellRun", "run_document", "display_text", "CHECK_LIMIT"]

CHECK_LIMIT = 200
"""Backward calls proved with SymPy per document (a training loop makes thousands)."""

_WIDTH = 79  # IPython's pretty printer breaks lines longer than this


@dataclass
class CellRun:
    """What one cell did."""

    ran: bool = False
    output: str = ""  # printed and displayed text, in order
    stderr: str = ""
    error: str | None = None  # "Category: message" of the exception
    exception: BaseException | None = field(default=None, repr=False)
    unsupported: str | None = None  # the feature, for an Unsupported error
    checks: list | None = None  # SymbolicReports of its backward calls (None: not checked)
    unchecked: int = 0  # backward calls past CHECK_LIMIT
    seconds: float = 0.0


_PICTURES = ("_repr_svg_", "_repr_png_", "_repr_jpeg_")


def display_text(value) -> str:
    """A displayed result as IPython shows it: ``repr``, with containers too long for one line
    broken one item per line; "" for an object Jupyter shows as a picture (a graph drawn by
    ``make_dot``), whose picture is not compared."""
    if any(hasattr(type(value), a) for a in _PICTURES):
        return ""
    text = repr(value)
    if len(text) > _WIDTH and isinstance(value, (dict, list, tuple, set, frozenset)):
        return pprint.pformat(value, width=_WIDTH, sort_dicts=False)
    return text


def _display(*objs, **kwargs) -> None:
    """IPython's ``display()``, as text."""
    for obj in objs:
        text = display_text(obj)
        if text:
            print(text)


def error_line(exc: BaseException) -> str:
    """``Category: message``, the last line of the traceback, without the class's module path."""
    line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    name = type(exc).__qualname__
    k = line.find(name)
    return line[k:] if k > 0 and line[:k].endswith(".") else line


@contextmanager
def _document_context(doc: Document, module: types.ModuleType, alias_torch: bool):
    directory = os.path.dirname(os.path.abspath(doc.path))
    saved = (sys.argv, list(sys.path), os.getcwd(), sys.modules.get("__main__"), sys.displayhook)
    sys.argv = [doc.path]
    sys.path.insert(0, directory)
    sys.modules["__main__"] = module
    sys.displayhook = sys.__displayhook__
    os.environ.setdefault("MPLBACKEND", "Agg")  # a plotting cell draws off screen
    caught = warnings.catch_warnings()
    caught.__enter__()
    fresh_warning_filters()
    try:
        os.chdir(directory)
        if alias_torch:
            with torch_alias():
                yield
        else:
            yield
    finally:
        caught.__exit__(None, None, None)
        sys.argv, sys.path[:], cwd, main, sys.displayhook = saved
        os.chdir(cwd)
        if main is not None:
            sys.modules["__main__"] = main


def _compile(cell: Cell, filename: str):
    """The cell's code objects: (statements, last expression to display or None)."""
    padded = "\n" * (cell.line - 1) + cell.source if cell.mode in ("exec", "doctest", "module") else cell.source
    if cell.mode == "doctest":
        return compile(padded, filename, "single", dont_inherit=True), None
    if cell.mode != "notebook":
        return compile(padded, filename, "exec", dont_inherit=True), None
    tree = ast.parse(padded, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not cell.source.rstrip().endswith(";"):
        last = compile(ast.Expression(tree.body.pop().value), filename, "eval", dont_inherit=True)
    return compile(tree, filename, "exec", dont_inherit=True), last


def _run_cell(cell: Cell, namespace: dict, filename: str, run: CellRun) -> None:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    start = time.perf_counter()
    try:
        code, last = _compile(cell, filename)
        exec(code, namespace)
        if last is not None:
            value = eval(last, namespace)
            if value is not None:
                namespace["_"] = value
                text = display_text(value)
                if text:
                    print(text)
    except KeyboardInterrupt:
        raise
    except Unsupported as e:
        run.error, run.exception, run.unsupported = error_line(e), e, e.feature
    except BaseException as e:  # the cell's own error is a result (SystemExit included)
        run.error, run.exception = error_line(e), e
    finally:
        sys.stdout.flush()
        sys.stdout, sys.stderr = saved
        run.seconds = time.perf_counter() - start
    run.ran = True
    run.output, run.stderr = out.getvalue(), err.getvalue()


def run_document(doc: Document, check: bool = True, alias_torch: bool = True) -> list[CellRun]:
    """Run every cell of ``doc`` (skipped ones excepted) and return what each did.
    ``alias_torch=False`` runs the cells on whatever ``import torch`` imports (the tests run
    them on PyTorch itself, to show the verdicts are the same); ``check`` is then pointless."""
    from ..symbolic import check_every_backward

    module = types.ModuleType("__main__")
    module.__file__ = os.path.abspath(doc.path)
    module.__dict__.update(__builtins__=builtins, display=_display)
    namespaces: dict = {}
    runs: list[CellRun] = []
    with _document_context(doc, module, alias_torch):
        checker = check_every_backward(limit=CHECK_LIMIT) if check else None
        log = checker.__enter__() if checker is not None else None
        calls = _BackwardCounter()
        try:
            for cell in doc.cells:
                run = CellRun()
                runs.append(run)
                if cell.skip:
                    continue
                if cell.mode == "module":
                    module.__name__ = os.path.splitext(os.path.basename(doc.path))[0]
                    namespace = module.__dict__
                elif cell.namespace:
                    if cell.namespace not in namespaces:
                        namespaces[cell.namespace] = dict(module.__dict__)
                    namespace = namespaces[cell.namespace]
                else:
                    namespace = module.__dict__
                filename = doc.path if cell.mode != "notebook" else f"{doc.path} (cell {cell.index})"
                before, made_before = (len(log) if log is not None else 0), calls.count
                _run_cell(cell, namespace, filename, run)
                if log is not None:
                    run.checks = list(log[before:])
                    run.unchecked = max(0, calls.count - made_before - len(run.checks))
        finally:
            if checker is not None:
                checker.__exit__(None, None, None)
            calls.stop()
    return runs


class _BackwardCounter:
    """Counts backward calls (to report those past the SymPy check's limit)."""

    def __init__(self) -> None:
        self.count = 0
        self._engine = engine
        engine.observers.append(self)

    def __call__(self, *args) -> None:
        self.count += 1

    def stop(self) -> None:
        if self in self._engine.observers:
            self._engine.observers.remove(self)
