"""``scalargrad run``: a PyTorch program run on scalargrad, with its report (used by the command
line and by ``verify``, which runs each example the same way)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

from ._autograd import engine
from .check_report import report_format, write_report
from .proof_summary import summarise_checks, summarise_proof
from .runner import run_path

__all__ = ["run", "ProofClock"]


def _sympy_checker():
    """The SymPy cross-check of every backward, as a context manager, or None if unavailable."""
    try:
        from .symbolic import check_every_backward
    except ImportError:  # pragma: no cover - symbolic is part of the package
        return None
    return check_every_backward()


class ProofClock:
    """The time the SymPy check takes, apart from the program's own backward calls: engine
    observers placed just before and just after the check's own one time its planning (on entry
    to each backward call) and its comparison (once the call has finished). ``seconds`` is wall
    time, ``cpu_seconds`` this process's CPU time (what a loaded machine does not stretch)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self._t = self._c = 0.0

    def _begin(self) -> None:
        self._t = time.perf_counter()
        self._c = time.process_time()

    def _end(self) -> None:
        self.seconds += time.perf_counter() - self._t
        self.cpu_seconds += time.process_time() - self._c

    def _start(self, *args):
        self._begin()
        return self._start_finish

    def _stop(self, *args):
        self._end()
        return self._stop_finish

    def _start_finish(self, result) -> None:
        self._begin()

    def _stop_finish(self, result) -> None:
        self._end()

    def around(self, observer) -> None:
        """Time ``observer``, which must be in the engine's list of observers."""
        i = engine.observers.index(observer)
        engine.observers.insert(i + 1, self._stop)
        engine.observers.insert(i, self._start)

    def stop(self) -> None:
        for f in (self._start, self._stop):
            if f in engine.observers:
                engine.observers.remove(f)


def run(args: argparse.Namespace) -> int:
    """Run a program with ``torch`` resolved to scalargrad; 0 on success, 1 on its error,
    3 when it needs a part of PyTorch scalargrad does not have. ``--graph FILE`` draws the
    last backward call it made; ``--check`` proves every backward call with SymPy and prints a
    summary at exit, ``--check-report FILE`` (which implies it) writes the full table."""
    path = args.script
    if not os.path.isfile(path):
        print(f"scalargrad run: no such file: {path}", file=sys.stderr)
        return 2
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        print(f"scalargrad run: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    report_path = getattr(args, "check_report", None)
    if report_path is not None and report_format(report_path) is None:
        print(f"scalargrad run: --check-report {report_path}: the file name must end in .json (JSON) or .md "
              "(Markdown)", file=sys.stderr)
        return 2
    check = args.check or report_path is not None
    checker = _sympy_checker() if check else None
    clock = ProofClock() if checker is not None else None
    report = None
    graph = None
    if getattr(args, "graph", None):
        from .viz.program_graph import ProgramGraph  # --graph alone needs the picture (viz loads nn)

        graph = ProgramGraph(args.graph)

    def start() -> None:
        nonlocal report
        if checker is not None:
            report = checker.__enter__()
            clock.around(engine.observers[-1])  # the check's observer, just added
        if graph is not None:
            graph.start()

    try:
        result = run_path(path, args.args, on_start=start)
    finally:
        if checker is not None and report is not None:
            clock.stop()
            checker.__exit__(None, None, None)
        if graph is not None:
            graph.stop()
    sys.stdout.flush()
    if graph is not None:
        message = graph.write()
        if message:
            print(f"scalargrad run --graph: {message}", file=sys.stderr)
    checks = summarise_checks(report) if check else None
    if args.report_json:
        with open(args.report_json, "w", encoding="utf-8") as fh:
            json.dump({"ok": result.ok, "error": result.summary,
                       "unsupported": result.error.feature if result.unsupported else None,
                       "sympy": checks}, fh)
    status = 0 if result.ok else 1
    if result.unsupported:
        if getattr(args, "debug", False):
            traceback.print_exception(type(result.error), result.error, _program_frames(result.error, path))
        line = _program_line(result.error, path)
        where = f"{path}, line {line}" if line is not None else path
        print(f"scalargrad run: {where}: stopped: {result.error}", file=sys.stderr)
        status = 3
    elif isinstance(result.error, SystemExit):
        # sys.exit(n) / sys.exit("message"), as the interpreter itself handles them
        code = result.error.code
        if isinstance(code, int):
            status = code
        else:
            print(code, file=sys.stderr)
    elif result.error is not None:
        traceback.print_exception(type(result.error), result.error, _program_frames(result.error, path))
    if check and not args.report_json:
        summary = summarise_proof(report, clock.seconds, clock.cpu_seconds)
        lines = summary.lines()
        if report_path is not None:
            try:
                write_report(report_path, path, report, summary)
                lines.append(f"  the full table: {report_path}")
            except OSError as e:
                lines.append(f"  the full table could not be written to {report_path}: {e.strerror}")
                status = status or 2
        elif report:
            lines.append("  the full table, element by element: --check-report FILE.md (or FILE.json)")
        print("\n" + "\n".join(lines), file=sys.stderr)
    return status


def _program_line(error: BaseException, path: str) -> int | None:
    """The line of the program (its last frame in the traceback) that was running when
    ``error`` was raised; None if the program's own code is not in the traceback."""
    target = os.path.abspath(path)
    line = None
    tb = error.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == target:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _program_frames(error: BaseException, path: str):
    """The traceback from the program's first frame on, as ``python script.py`` shows it (the
    runner's and runpy's frames are ours, not the user's); None for a syntax error."""
    target = os.path.abspath(path)
    tb = error.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    if tb is None and not isinstance(error, SyntaxError):
        return error.__traceback__  # not raised from the program's code: keep everything
    return tb
