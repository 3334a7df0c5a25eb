"""Running a document's cells on scalargrad, in order, in one namespace, capturing each one.

The cells run as the document's reader would run them: ``import torch`` resolves to
scalargrad (``runner.torch_alias``), the working directory is the document's, and the
namespace is a fresh ``__main__`` module shared by all cells (a Python file's docstring
examples get a copy of the module's namespace each, as ``doctest`` gives them). Per cell,
what it printed (and displayed: a notebook cell's last expression as IPython shows it, a
doctest example's value), its warnings, its exception, the SymPy proof of every backward call
it made, whether it drew random numbers from a generator the document did not seed, and the
``id()`` values it computed are recorded. A cell's exception does not stop the document: the
next cell runs, as in a notebook.

Time limits: a cell that runs longer than ``cell_timeout`` seconds is stopped (its status says
so) and the next cell runs; when the whole document has run ``doc_timeout`` seconds, the cell
running is stopped and the rest are not run. ``progress`` is called with each cell's record as
it ends, so that a check stopped from outside keeps what it had.

Run a document in a process of its own (``verify`` forks one per document): the cells change
global state (the random generators, the default dtype, global module hooks). At the start the
generators are seeded from the operating system, as in a fresh interpreter.
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import random
import re
import signal
import sys
import threading
import time
import traceback
import types
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

from .._autograd import engine
from .._base import rng
from .._tensor import factories
from ..errors import Unsupported
from ..proof_summary import summarise_checks
from ..runner import torch_alias
from ..warm_worker import fresh_warning_filters
from .cells import Cell, Document
from .display import display_text

__all__ = ["CellRun", "run_document", "display_text", "CHECK_LIMIT", "CellTimeout", "error_line"]

CHECK_LIMIT = 200
"""Backward calls proved with SymPy per document (a training loop makes thousands)."""


class CellTimeout(BaseException):
    """Raised in a cell that ran past its time limit (a BaseException: ``except Exception`` in
    the cell does not swallow it)."""


@dataclass
class CellRun:
    """What one cell did (plain data: it crosses processes as JSON)."""

    ran: bool = False
    output: str = ""  # printed and displayed text, in order
    sorted_output: str | None = None  # the same with the displayed dict's keys sorted (IPython < 5)
    displayed: str | None = None  # a page's block: its last expression as it would be displayed
    stderr: str = ""
    error: str | None = None  # "Category: message" of the exception
    error_kind: str = ""  # "name" (NameError), "module" (ModuleNotFoundError), "file" (FileNotFoundError)
    error_name: str | None = None  # the missing name, module or file
    unsupported: str | None = None  # the feature, for an Unsupported error
    sympy: dict | None = None  # summarise_checks of its backward calls (None: not checked)
    unchecked: int = 0  # backward calls past CHECK_LIMIT
    seconds: float = 0.0
    timed_out: str = ""  # why it was stopped ("the cell's time limit, 60 s")
    drew: bool = False  # it drew from a random generator the document did not seed
    uninitialised: bool = False  # it made a tensor of uninitialised memory (torch.empty)
    unbound: list | None = None  # it did not run to the end: the names its code binds that it did not bind
    missing: dict = field(default_factory=dict)  # name an import left out would bind -> its package (not installed)
    ids: list = field(default_factory=list)  # id() values it computed

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> CellRun:
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


def error_line(exc: BaseException) -> str:
    """``Category: message``, the last line of the traceback, without the class's module path."""
    line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    name = type(exc).__qualname__
    k = line.find(name)
    return line[k:] if k > 0 and line[:k].endswith(".") else line


def _display(*objs, **kwargs) -> None:
    """IPython's ``display()``, as text."""
    for obj in objs:
        text = display_text(obj)
        if text:
            print(text)


# ---------------------------------------------------------------- random generators


_ARBITRARY = random.Random()


def _arbitrary_numbers(n: int, dtype) -> list:
    """Numbers for uninitialised memory: anything, different in every run."""
    seed = int.from_bytes(os.urandom(8), "little")
    _ARBITRARY.seed(seed)
    if dtype.is_floating_point:
        return [dtype.round(_ARBITRARY.uniform(-1.0, 1.0) * 10.0 ** _ARBITRARY.randint(-9, 9)) for _ in range(n)]
    if dtype.name == "bool":
        return [_ARBITRARY.random() < 0.5 for _ in range(n)]
    return [_ARBITRARY.randint(-(2 ** 15), 2 ** 15) for _ in range(n)]


class _Generators:
    """Which of the generators a document may draw from it did not seed: scalargrad's (or
    PyTorch's, when the cells run on PyTorch), Python's ``random`` and NumPy's global one.
    ``drew()`` says whether one was drawn from since the last call."""

    def __init__(self, alias_torch: bool, doc: Document) -> None:
        self.torch = None
        if not alias_torch:
            import torch

            self.torch = torch
            torch.seed()
            self.torch_start = torch.initial_seed()
        else:
            self.rng = rng
            rng.default_generator.seed()  # a fresh interpreter's: from the operating system
            # torch.empty's memory holds arbitrary numbers, different in every run, as PyTorch's does
            self.memory = factories.UNINITIALISED
            self.memory.source = _arbitrary_numbers
            self._reads = self.memory.reads
        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        source = "\n".join(c.source for c in doc.cells)
        self.python_seeded = bool(re.search(r"\brandom\.seed\s*\(", source))
        self.numpy_seeded = bool(re.search(r"\brandom\.seed\s*\(|default_rng\s*\(\s*\d", source))
        self._last = self._state()

    def _state(self) -> tuple:
        if self.torch is not None:
            t = self.torch
            torch_state = (t.initial_seed() == self.torch_start, bytes(t.get_rng_state().tolist()))
        else:
            torch_state = self.rng.ENTROPY.draws
        np = sys.modules.get("numpy")
        np_state = None
        if np is not None and not self.numpy_seeded:
            try:
                state = np.random.get_state()
                np_state = (state[1].tobytes(), state[2], state[3])
            except Exception:
                np_state = None
        py_state = None if self.python_seeded else random.getstate()
        return torch_state, np_state, py_state

    def read_uninitialised(self) -> bool:
        """Whether a tensor was made of uninitialised memory since the last call."""
        if self.torch is not None:
            return False
        now = self.memory.reads
        changed, self._reads = now != self._reads, now
        return changed

    def stop(self) -> None:
        if self.torch is None:
            self.memory.source = None

    def drew(self) -> bool:
        now = self._state()
        last, self._last = self._last, now
        if self.torch is not None:
            unseeded, state = now[0]
            torch_drew = unseeded and state != last[0][1]
        else:
            torch_drew = now[0] != last[0]
        numpy_drew = now[1] != last[1]
        if numpy_drew and last[1] is None and now[1] is not None:
            numpy_drew = not _numpy_untouched(now[1])
        return torch_drew or numpy_drew or now[2] != last[2]


def _numpy_untouched(state: tuple) -> bool:
    """Whether NumPy's global generator, first seen now (the cell imported NumPy), is as its import
    left it: at the position and without the cached Gaussian a generator seeded from the operating
    system starts with (read from a new one, so that no draw is taken from the global one). Importing
    NumPy draws nothing; a cell that also drew is told by the moved position (a draw of a multiple
    of 624 numbers would look untouched: its numbers then differ between runs and come out
    ``differs``, a false alarm, never an excuse)."""
    np = sys.modules["numpy"]
    try:
        fresh = np.random.RandomState().get_state()
    except Exception:
        return False
    return (state[1], state[2]) == (fresh[2], fresh[3])


# ---------------------------------------------------------------- running


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
    """The cell's code objects: (statements, last expression to display or None). A notebook
    cell's or a page block's top-level import that fails for a package that is not installed
    is left out (unless the document shows the cell's error), so that the rest of the cell
    runs: ``_MissingPackages`` records the names it would have bound; a later use of one fails
    with NameError, and the judge names the package."""
    padded = "\n" * (cell.line - 1) + cell.source if cell.mode != "notebook" else cell.source
    if cell.mode == "doctest":
        return compile(padded, filename, "single", dont_inherit=True), None
    if cell.mode not in ("notebook", "page"):
        return compile(padded, filename, "exec", dont_inherit=True), None
    tree = ast.parse(padded, filename)
    shows_error = cell.expected is not None and cell.expected.error is not None
    body = []
    for node in tree.body:
        if shows_error:  # (the document may show the ModuleNotFoundError itself)
            body.append(node)
        elif isinstance(node, ast.Import):
            body += [_guarded(ast.copy_location(ast.Import(names=[a]), node), [(a.asname or a.name).split(".")[0]])
                     if a.name.split(".")[0] not in _ALWAYS_THERE else ast.copy_location(ast.Import(names=[a]), node)
                     for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.split(".")[0] not in _ALWAYS_THERE:
            body.append(_guarded(node, [a.asname or a.name for a in node.names if a.name != "*"]))
        else:
            body.append(node)
    tree.body = body
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not cell.source.rstrip().endswith(";"):
        last = compile(ast.Expression(tree.body.pop().value), filename, "eval", dont_inherit=True)
    return compile(ast.fix_missing_locations(tree), filename, "exec", dont_inherit=True), last


_ALWAYS_THERE = {"torch", "scalargrad", "__future__"}  # (torch: scalargrad, or PyTorch in the tests)
_NOTE_MISSING = "__scalargrad_missing_package__"  # its name in the cells' builtins


def _guarded(node: ast.stmt, names: list[str]) -> ast.stmt:
    """``try: <import> except ModuleNotFoundError: <note_missing>(names)``."""
    note = ast.Expr(ast.Call(ast.Name(_NOTE_MISSING, ast.Load()), [ast.Constant(tuple(names))], []))
    handler = ast.ExceptHandler(ast.Name("ModuleNotFoundError", ast.Load()), None, [note])
    return ast.copy_location(ast.Try([node], [handler], [], []), node)


class _MissingPackages:
    """Called where a cell's top-level import failed for a missing package: records the names
    it would have bound -> the package, in ``into`` (the running cell's ``CellRun.missing``)."""

    def __init__(self) -> None:
        self.into: dict = {}

    def __call__(self, names: tuple) -> None:
        exc = sys.exc_info()[1]
        package = (getattr(exc, "name", None) or "?").split(".")[0]
        self.into.update(dict.fromkeys(names, package))


class _Clock:
    """The time limits, as SIGALRM raising CellTimeout in the cell (re-raised every second,
    should the cell swallow it); no limits where signals cannot be used (not the main thread)."""

    def __init__(self, cell_timeout: float | None, doc_timeout: float | None) -> None:
        self.cell_timeout = cell_timeout
        self.deadline = time.monotonic() + doc_timeout if doc_timeout else None
        self.doc_timeout = doc_timeout
        self.why = ""
        self.usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
                       and (cell_timeout or doc_timeout))
        self._old = None
        self.armed = False  # the alarm raises only while a cell runs

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _fire(self, signum, frame) -> None:
        if self.armed:
            raise CellTimeout(self.why)

    def start(self) -> None:
        if not self.usable:
            return
        limits = []
        if self.cell_timeout:
            limits.append((self.cell_timeout, f"stopped after {self.cell_timeout:g} s (the time limit of a cell)"))
        if self.deadline is not None:
            left = max(self.deadline - time.monotonic(), 0.001)
            limits.append((left, f"stopped when the document had run {self.doc_timeout:g} s (its time limit)"))
        seconds, self.why = min(limits)
        old = signal.signal(signal.SIGALRM, self._fire)
        self._old = old if old is not None else signal.SIG_DFL
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)

    def stop(self) -> None:
        """Disarm (idempotent: called again where an alarm may have cut it short)."""
        self.armed = False
        if not self.usable or self._old is None:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._old)
        self._old = None


def _run_cell(cell: Cell, namespace: dict, filename: str, run: CellRun, clock: _Clock) -> None:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    start = time.perf_counter()
    shown = None
    try:
        clock.start()
        try:
            code, last = _compile(cell, filename)
            exec(code, namespace)
            if last is not None:
                value = eval(last, namespace)
                if value is not None and cell.mode == "page":
                    try:
                        run.displayed = display_text(value) + "\n"
                    except Exception:
                        run.displayed = None
                elif value is not None:
                    namespace["_"] = value
                    shown = value
                    text = display_text(value)
                    if text:
                        before = out.getvalue()
                        print(text)
                        sorted_text = display_text(value, sort_dict_keys=True)
                        if sorted_text != text:
                            run.sorted_output = before + sorted_text + "\n"
        finally:
            clock.stop()
    except KeyboardInterrupt:
        raise
    except CellTimeout as e:
        clock.stop()
        run.timed_out = str(e)
    except Unsupported as e:
        run.error, run.unsupported = error_line(e), e.feature
    except BaseException as e:
        run.error = error_line(e)
        if isinstance(e, ModuleNotFoundError):
            run.error_kind, run.error_name = "module", e.name
        elif isinstance(e, NameError):
            run.error_kind, run.error_name = "name", getattr(e, "name", None)
        elif isinstance(e, FileNotFoundError):
            run.error_kind, run.error_name = "file", e.filename
    finally:
        sys.stdout.flush()
        sys.stdout, sys.stderr = saved
        run.seconds = time.perf_counter() - start
    del shown
    run.ran = True
    run.output, run.stderr = out.getvalue(), err.getvalue()


def run_document(doc: Document, check: bool = True, alias_torch: bool = True, cell_timeout: float | None = None,
                 doc_timeout: float | None = None, progress: Callable[[int, CellRun], None] | None = None,
                 last_cell: int | None = None) -> list[CellRun]:
    """Run every cell of ``doc`` (skipped ones excepted; none after ``last_cell``, a cell's
    index) and return what each did. ``alias_torch=False`` runs the cells on whatever ``import
    torch`` imports (the tests run them on PyTorch itself, to show the verdicts are the same);
    ``check`` is then pointless."""
    from ..symbolic import check_every_backward

    module = types.ModuleType("__main__")
    module.__file__ = os.path.abspath(doc.path)
    ids: list = []

    def recorded_id(obj) -> int:
        value = builtins.id(obj)
        ids.append(value)
        return value

    note_missing = _MissingPackages()
    own_builtins = dict(builtins.__dict__, id=recorded_id, **{_NOTE_MISSING: note_missing})
    module.__dict__.update(__builtins__=own_builtins, display=_display)
    namespaces: dict = {}
    runs: list[CellRun] = []
    clock = _Clock(cell_timeout, doc_timeout)
    with _document_context(doc, module, alias_torch):
        generators = _Generators(alias_torch, doc)
        if doc.prelude:
            exec(compile(doc.prelude, doc.path, "exec"), module.__dict__)
            generators.drew()
        checker = check_every_backward(limit=CHECK_LIMIT) if check else None
        log = checker.__enter__() if checker is not None else None
        calls = _BackwardCounter()
        try:
            for cell in doc.cells:
                run = CellRun()
                runs.append(run)
                if cell.skip:
                    continue
                if clock.out_of_time() or (last_cell is not None and cell.index > last_cell):
                    break
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
                del ids[:]
                names = _bound_names(cell.source)
                old = {n: namespace.get(n, _MISSING) for n in names}
                note_missing.into = run.missing
                _run_cell(cell, namespace, filename, run, clock)
                if run.error is not None or run.timed_out:
                    run.unbound = sorted(n for n in names if namespace.get(n, _MISSING) is old[n])
                del old
                run.ids = list(ids)
                run.drew = generators.drew()
                run.uninitialised = generators.read_uninitialised()
                if log is not None:
                    checks = list(log[before:])
                    run.sympy = summarise_checks(checks)
                    if len(log) >= CHECK_LIMIT:  # (a backward that raised has nothing to prove)
                        run.unchecked = max(0, calls.count - made_before - len(checks))
                if progress is not None:
                    progress(cell.index, run)
        finally:
            if checker is not None:
                checker.__exit__(None, None, None)
            calls.stop()
            generators.stop()
    while len(runs) < len(doc.cells):
        runs.append(CellRun())
    return runs


_MISSING = object()


def _bound_names(source: str) -> set:
    """The names a cell's code binds at its top level or in its loops and blocks (not inside
    its functions and classes)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            else:
                todo.append(child)  # (a function or class met here: its name only, above)
    return names


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
