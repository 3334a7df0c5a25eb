"""``scalargrad run``: a PyTorch program run on scalargrad, with its report (used by the command
line and by ``verify``, which runs each example the same way)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

__all__ = ["run"]


def _sympy_checker():
    """The SymPy cross-check of every backward, as a context manager, or None if unavailable."""
    try:
        from .symbolic import check_every_backward
    except ImportError:  # pragma: no cover - symbolic is part of the package
        return None
    return check_every_backward()


def run(args: argparse.Namespace) -> int:
    """Run a program with ``torch`` resolved to scalargrad; 0 on success, 1 on its error,
    3 when it needs a part of PyTorch scalargrad does not have. ``--graph FILE`` draws the
    last backward call it made."""
    from .proof_summary import summarise_checks
    from .runner import run_path

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
    checker = _sympy_checker() if args.check else None
    report = None
    graph = None
    if getattr(args, "graph", None):
        from .viz.program_graph import ProgramGraph

        graph = ProgramGraph(args.graph)

    def start() -> None:
        nonlocal report
        if checker is not None:
            report = checker.__enter__()
        if graph is not None:
            graph.start()

    try:
        result = run_path(path, args.args, on_start=start)
    finally:
        if checker is not None and report is not None:
            checker.__exit__(None, None, None)
        if graph is not None:
            graph.stop()
    sys.stdout.flush()
    if graph is not None:
        message = graph.write()
        if message:
            print(f"scalargrad run --graph: {message}", file=sys.stderr)
    checks = summarise_checks(report) if args.check else None
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
    if args.check and not args.report_json:
        print(f"\nSymPy check: {checks['summary']}", file=sys.stderr)
        if report:
            print(str(report), file=sys.stderr)
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
