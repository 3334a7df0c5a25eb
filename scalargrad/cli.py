"""The ``scalargrad`` command.

    scalargrad verify [--markdown | --json] [-k TEXT]   reproduce the documents' examples
    scalargrad run [--check] script.py [args...]       run a PyTorch program on scalargrad
    scalargrad demo                                     z = log(x ** q) and its gradients

A failure of the command itself (bad command line, missing file, unreadable catalogue, a bug) is
one line on stderr and the exit status ``EXIT_STATUS`` lists; ``--debug`` adds the traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

EXIT_STATUS = """\
exit status:
  0  done (verify: no example regressed)
  1  verify: an example regressed; run: the program raised an error (its traceback, as python shows it)
  2  bad command line: unknown command or option, bad value, missing script or directory
  3  run: the program needs a part of PyTorch that scalargrad does not implement
  4  verify: the reference catalogue is missing, unreadable or not valid
  5  scalargrad itself failed (a bug; --debug shows the traceback)
  130  interrupted (Ctrl-C)
run passes on the status of the program's own sys.exit()."""


class UsageError(Exception):
    """A bad command line: exit status 2."""


def demo() -> int:
    """The documents' first example, z = log(x ** q) at x = 5, q = 3, printed as PyTorch does."""
    import scalargrad as torch

    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = torch.log(x**q)
    z.backward()
    print("z = log(x ** q) at x = 5, q = 3")
    print("z", z)
    print("x.grad", x.grad)
    print("q.grad", q.grad)
    return 0


def _sympy_checker():
    """The SymPy cross-check of every backward, as a context manager, or None if unavailable."""
    try:
        from .symbolic import check_every_backward
    except ImportError:  # pragma: no cover - symbolic is part of the package
        return None
    return check_every_backward()


def _summarise_checks(report) -> dict:
    """One line for the verify table: how many backward calls, and how their gradients fared
    (ok = autograd agrees with SymPy; hook / convention / unverifiable as the report explains)."""
    if report is None:
        return {"summary": "n/a", "ok": None}
    if not report:
        return {"summary": "no backward", "ok": True}
    counts: dict = {}
    for r in report:
        for check in r.inputs:
            counts[check.status] = counts.get(check.status, 0) + 1
        if not r.inputs and r.notes:
            counts["unverifiable"] = counts.get("unverifiable", 0) + 1
    agree = counts.pop("ok", 0)
    parts = [f"{agree} grads agree"] + [f"{n} {status}" for status, n in sorted(counts.items())]
    calls = f"{len(report)} backward" + ("s" if len(report) > 1 else "")
    return {"summary": f"{calls}: " + ", ".join(parts), "ok": report.ok}


def run(args: argparse.Namespace) -> int:
    """Run a program with ``torch`` resolved to scalargrad; 0 on success, 1 on its error,
    3 when it needs a part of PyTorch scalargrad does not have."""
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

    def start() -> None:
        nonlocal report
        if checker is not None:
            report = checker.__enter__()

    try:
        result = run_path(path, args.args, on_start=start)
    finally:
        if checker is not None and report is not None:
            checker.__exit__(None, None, None)
    sys.stdout.flush()
    checks = _summarise_checks(report) if args.check else None
    if args.report_json:
        with open(args.report_json, "w", encoding="utf-8") as fh:
            json.dump({"ok": result.ok, "error": result.summary,
                       "unsupported": result.error.feature if result.unsupported else None,
                       "sympy": checks}, fh)
    status = 0 if result.ok else 1
    if result.unsupported:
        print(f"scalargrad run: {path} stopped: {result.error}", file=sys.stderr)
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


def verify_cmd(args: argparse.Namespace) -> int:
    """Run the reference suite; non-zero exit when an example regresses."""
    from . import verify as v

    if args.reference is not None and not os.path.isdir(args.reference):
        raise UsageError(f"scalargrad verify: --reference {args.reference}: no such directory")
    with v.reference_dir(args.reference) as ref:
        return _verify_catalogue(args, v, v.load_catalogue(ref))


def _verify_catalogue(args: argparse.Namespace, v, examples: list) -> int:
    if args.k:
        examples = [e for e in examples if args.k in e.id or args.k in e.document]
        if not examples:
            raise UsageError(f"scalargrad verify: no example id or document contains {args.k!r}")
    tty = sys.stderr.isatty() and not (args.json or args.markdown)

    def progress(done: int, total: int, ex) -> None:
        if tty:
            print(f"\r\033[Kverifying [{done}/{total}] {ex.document} {ex.id}", end="", file=sys.stderr, flush=True)
        elif done == 1 and not (args.json or args.markdown):
            print(f"verifying {total} examples (each in a fresh interpreter)...", file=sys.stderr, flush=True)

    outcomes = v.verify(examples, check=not args.no_check, jobs=args.jobs, progress=progress)
    if tty:
        print("\r\033[K", end="", file=sys.stderr)
    if args.json:
        print(json.dumps({"summary": v.summary(outcomes), "examples": [o.as_dict() for o in outcomes]},
                         ensure_ascii=False, indent=2))
    elif args.markdown:
        print(v.markdown(outcomes))
    else:
        print(v.table(outcomes))
    return 1 if any(o.regression for o in outcomes) else 0


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (exit status 2) instead of the usage text."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="scalargrad", description="PyTorch's autograd on scalars, verified: reproduce "
                     "tutorials and prove their gradients.", epilog=EXIT_STATUS,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    debug = dict(action="store_true", help="on a failure, show the traceback too")
    parser.add_argument("--debug", **debug)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    # a subcommand's --debug must not reset the one given before it
    sub_debug = dict(debug, default=argparse.SUPPRESS)
    p = sub.add_parser("verify", help="run every reference example and compare with PyTorch 2.13",
                       epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    form = p.add_mutually_exclusive_group()
    form.add_argument("--markdown", action="store_true", help="print a Markdown report")
    form.add_argument("--json", action="store_true", help="print a JSON report")
    p.add_argument("--reference", help="the reference directory (default: the catalogue installed with scalargrad)")
    p.add_argument("-k", help="only examples whose id or document contains this text")
    p.add_argument("--no-check", action="store_true", help="skip the SymPy check of each backward")
    p.add_argument("--jobs", type=_positive, default=os.cpu_count() or 1, help="examples run at once")
    p.add_argument("--debug", **sub_debug)
    p = sub.add_parser("run", help="run a PyTorch program with torch resolved to scalargrad",
                       epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="prove every backward with SymPy, report at exit")
    p.add_argument("--report-json", help=argparse.SUPPRESS)
    p.add_argument("--debug", **sub_debug)
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    sub.add_parser("demo", help="compute the documents' z = log(x ** q) and its gradients")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``scalargrad`` command; returns the exit status (``EXIT_STATUS``)."""
    from .verify import CatalogueError

    args = None
    try:
        args = _parser().parse_args(argv)
        if args.command == "verify":
            return verify_cmd(args)
        if args.command == "run":
            return run(args)
        return demo()
    except UsageError as e:
        return _failed(str(e), 2, args)
    except CatalogueError as e:
        return _failed(f"scalargrad verify: {e}", 4, args)
    except KeyboardInterrupt:
        return _failed("scalargrad: interrupted", 130, args)
    except Exception as e:  # a bug in scalargrad itself, not in the user's program
        return _failed(f"scalargrad: internal error: {type(e).__name__}: {e} (--debug shows the traceback)", 5,
                       args)


def _failed(message: str, status: int, args: argparse.Namespace | None) -> int:
    if args is not None and getattr(args, "debug", False):
        traceback.print_exc()
    print(message, file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
