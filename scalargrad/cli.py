"""The ``scalargrad`` command.

    scalargrad verify [--markdown | --json] [-k TEXT]   reproduce the reference catalogue
    scalargrad verify --corpus                         ... or the corpus of real-program patterns
    scalargrad verify [--markdown | --json] PATH...     check notebooks, Markdown/reST pages,
                                                        docstring examples against scalargrad
    scalargrad run [--check] [--check-report FILE] [--graph FILE] script.py [args...]
                                                        run a PyTorch program on scalargrad
    scalargrad demo                                     z = log(x ** q) and its gradients

A failure of the command itself (bad command line, missing file, unreadable catalogue or
document, a bug) is one line on stderr and the exit status ``EXIT_STATUS`` lists; ``--debug``
adds the traceback. ``scalargrad`` with no command prints its usage line to stderr, status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

from . import verify as v
from .run_command import run
from .verify import CatalogueError
from .version import __version__ as pytorch_version
from .version import scalargrad_version

EXIT_STATUS = """\
exit status:
  0  done (verify: no example regressed; verify PATH: every cell reproduced, differs only by a
     named difference, ran or was skipped)
  1  verify: an example regressed; verify PATH: a cell differs, raised an error or timed out,
     SymPy disagrees with autograd, or a check crashed; run: the program raised an error (its
     traceback, as python shows it)
  2  bad command line: no command, unknown command or option, bad value, missing script,
     directory or document; verify PATH: a document cannot be read, or the PATHs hold no code
     to check
  3  run: the program needs a part of PyTorch that scalargrad does not implement (the line of
     the program that used it is named; --debug adds the traceback); verify PATH: a cell does
     (and nothing worse happened). A program that asks for a CUDA device fails as under
     PyTorch's CPU build: AssertionError "Torch not compiled with CUDA enabled", status 1
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


def _progress_line(text: str) -> None:
    print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)


def verify_cmd(args: argparse.Namespace) -> int:
    """The reference catalogue (no paths; non-zero exit when an example regresses) or the
    documents at ``args.paths`` (exit status as ``documents.report`` says)."""
    tty = sys.stderr.isatty()
    if args.paths:
        return verify_documents_cmd(args, tty)
    if args.reference is not None and not os.path.isdir(args.reference):
        raise UsageError(f"scalargrad verify: --reference {args.reference}: no such directory")
    with v.reference_dir(args.reference) as ref:
        if args.corpus:
            ref = os.path.join(ref, "corpus")
            if not os.path.isdir(ref):
                raise v.CatalogueError(f"the reference catalogue has no corpus of real-program patterns ({ref})")
        return _verify_catalogue(args, v, v.load_catalogue(ref), tty)


def _verify_catalogue(args: argparse.Namespace, v, examples: list, tty: bool) -> int:
    if args.k:
        examples = [e for e in examples if args.k in e.id or args.k in e.document]
        if not examples:
            raise UsageError(f"scalargrad verify: no example id or document contains {args.k!r}")

    def progress(done: int, total: int, ex) -> None:
        if tty:
            _progress_line(f"verifying [{done}/{total}] {ex.document} {ex.id}")

    outcomes = v.verify(examples, check=not args.no_check, jobs=args.jobs, progress=progress,
                        timeout=args.timeout or v.EXAMPLE_TIMEOUT)
    if tty:
        _progress_line("")
    if args.json:
        print(json.dumps({"summary": v.summary(outcomes), "examples": [o.as_dict() for o in outcomes]},
                         ensure_ascii=False, indent=2))
    elif args.markdown:
        print(v.markdown(outcomes))
    else:
        print(v.table(outcomes))
    return 1 if any(o.regression for o in outcomes) else 0


def verify_documents_cmd(args: argparse.Namespace, tty: bool) -> int:
    """``scalargrad verify PATH...``: each document checked in a process of its own. A document
    that is missing or cannot be read is one line on stderr; the others are still checked."""
    from .documents import check_documents, expand_paths, report  # the readers and judges load with the command

    def progress(done: int, total: int, path: str) -> None:
        if tty:
            _progress_line(f"verifying [{done}/{total}] {path}")

    paths = expand_paths(args.paths)
    entries = check_documents(paths, jobs=args.jobs, check=not args.no_check, cell_timeout=args.timeout,
                              doc_timeout=args.document_timeout, progress=progress)
    if tty:
        _progress_line("")
    for e in entries:  # a failure of the command: one line on stderr (the report says it too)
        if e["error"] and not e.get("crashed"):
            why = "no such file or directory" if e["error"] == "no such file" else f"cannot be read: {e['error']}"
            print(f"scalargrad verify: {e['path']}: {why}", file=sys.stderr)
    if not any(e["cells"] for e in entries) and not any(e["error"] for e in entries):
        found = ", ".join(e["path"] for e in entries) or " ".join(args.paths)
        raise UsageError(f"scalargrad verify: nothing to check: no code cells in {found}")
    status = report.exit_status(entries)
    readable = [e for e in entries if not e["error"] or e.get("crashed")]
    if args.json:
        print(json.dumps({"schema": report.SCHEMA, "summary": report.summary(entries), "exit_status": status,
                          "documents": entries}, ensure_ascii=False, indent=2))
    elif not readable:
        pass  # nothing was checked: the lines on stderr say why
    elif args.markdown:
        print(report.markdown(readable))
    else:
        print(report.table(readable))
    return status


_VERIFY_HELP = """\
With no PATH: reproduce every example of the reference catalogue (reference/) and compare it
with PyTorch 2.13's output; exit status 1 when an example that used to reproduce does not.
--corpus: the same for the corpus of real-program patterns (reference/corpus/: training loops,
hooks, custom Functions, state_dict, printing); exit status 1 while a program differs or fails
for a reason other than a feature its entry lists under "needs".

With PATHs: check your own documents. A notebook (.ipynb: code cells in order, in one
namespace, against their stored outputs; a cell's last expression shown as IPython's pretty
printer shows it), a Markdown (.md) or reStructuredText (.rst) page (Python code blocks, each
against the output block after it), or a Python file (.py: the >>> examples of its
docstrings); a directory stands for the notebooks and pages under it. Each cell is reported as
reproduced, named difference, differs (with a diff), unsupported (the feature named), error,
timed out, skipped (shell/magic lines, plots, missing files or packages, with the reason) or
ran (nothing to compare), beside the SymPy proof of its backward calls. Every number must be
the document's, except those that differ between runs of the document from other unseeded
generator states (a document that draws unseeded, or prints uninitialised memory, is run
three times). The named differences, each a precise rule, reported with the lines it
excused: node names of an older PyTorch (from a table of historical names: LogBackward for
LogBackward0), text in angle brackets dropped (only where the document lacks a <...> group
scalargrad prints), OrderedDict printed as dict, ModuleDict order (the entries of one
ModuleDict sorted by key), dict keys sorted (a displayed dict, IPython before 5), white space
(between tokens, never joining them), unseeded random numbers, uninitialised memory
(torch.empty's numbers, different in each run), warnings differ (a warning PyTorch 2.13 gives
where 1.x gave none or another, from a table). Each document runs in a process of its own; a
document that cannot be read is one line on stderr.

--timeout SECONDS stops a cell, or a catalogue example or corpus program, that runs longer
(default 300; the next one runs);
--document-timeout SECONDS stops a document that runs longer (default 1800), keeping the
verdicts of its cells so far.

exit status (PATHs): 0 all cells reproduced, differ only by named differences, ran or were
skipped; 1 a cell differs, raised an error or timed out, SymPy disagrees with autograd, or a
check crashed; 2 a document cannot be read; 3 otherwise, a cell needs a part of PyTorch that
scalargrad does not implement.

--json (PATHs) prints {"schema": "scalargrad-verify-documents/2", "summary", "exit_status",
"documents": [{"path", "kind", "error", "note", "cells": [{"index", "line", "status",
"detail", "differences", "excused", "source", "expected", "expected_error", "produced",
"produced_error", "diff", "notes", "sympy", "sympy_ok", "seconds"}]}]} (see README.md).
"""


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


def _seconds(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not x > 0 or x == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return x


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="scalargrad", description="PyTorch's autograd on scalars, verified: reproduce "
                     "tutorials and prove their gradients.", epilog=EXIT_STATUS,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    debug = dict(action="store_true", help="on a failure, show the traceback too")
    parser.add_argument("--debug", **debug)
    parser.add_argument("--version", action="version",
                        version=f"scalargrad {scalargrad_version} (reproduces PyTorch {pytorch_version})")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    # a subcommand's --debug must not reset the one given before it
    sub_debug = dict(debug, default=argparse.SUPPRESS)
    p = sub.add_parser("verify", help="reproduce the reference catalogue, or check your own documents",
                       description=_VERIFY_HELP, epilog=EXIT_STATUS,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", help="notebooks, Markdown/reST pages, Python files or "
                   "directories to check (default: the reference catalogue)")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--markdown", action="store_true", help="print a Markdown report")
    form.add_argument("--json", action="store_true", help="print a JSON report")
    p.add_argument("--reference", help="the reference directory (default: the catalogue installed with scalargrad)")
    p.add_argument("--corpus", action="store_true", help="the corpus of real-program patterns (reference/corpus/) "
                   "instead of the seed documents' examples")
    p.add_argument("-k", help="only catalogue examples whose id or document contains this text")
    p.add_argument("--no-check", action="store_true", help="skip the SymPy check of each backward")
    p.add_argument("--jobs", type=_positive, default=os.cpu_count() or 1, help="examples or documents run at once")
    p.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="stop a catalogue example or corpus program, or with PATHs a cell, that runs longer "
                        f"(default {v.EXAMPLE_TIMEOUT:g}; the next one runs)")
    p.add_argument("--document-timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="PATHs: stop a document that runs longer (default 1800), keeping the verdicts of "
                        "its cells so far")
    p.add_argument("--debug", **sub_debug)
    p = sub.add_parser("run", help="run a PyTorch program with torch resolved to scalargrad",
                       epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="prove every backward with SymPy and print a summary at "
                   "exit (backward passes, gradient elements proved, the worst disagreement and where, time)")
    p.add_argument("--check-report", metavar="FILE", help="with --check (implied): write the full table, "
                   "element by element, to FILE: JSON if it ends in .json, Markdown if in .md (JSON schema: "
                   "scalargrad/check_report.py)")
    p.add_argument("--graph", metavar="FILE", help="draw the last backward call's graph, its hooks numbered "
                   "in the order they fired (.dot: DOT text; .svg, .png, .pdf: needs Graphviz)")
    p.add_argument("--report-json", help=argparse.SUPPRESS)
    p.add_argument("--debug", **sub_debug)
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    sub.add_parser("demo", help="compute the documents' z = log(x ** q) and its gradients")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``scalargrad`` command; returns the exit status (``EXIT_STATUS``)."""
    args = None
    try:
        args = _parser().parse_args(argv)
        if args.command == "verify":
            return verify_cmd(args)
        if args.command == "run":
            return run(args)
        if args.command == "demo":
            return demo()
        raise UsageError(f"scalargrad: no command given; {_parser().format_usage().strip()} (see scalargrad --help)")
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
