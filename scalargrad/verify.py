"""``scalargrad verify``: run every reference example and compare it with PyTorch 2.13.

The catalogue lives in ``reference/<document>/examples.json`` beside one program per code
example of the source documents; installed, it is the package data ``scalargrad._reference``
(read with ``importlib.resources``, so a wheel carries it). Each entry records what the document printed, what PyTorch
2.13 printed for the program (captured with ``reference/capture.py``), and the document's
status (``reproduced``, ``named_difference``, ``document_error``). ``verify`` runs each
program on scalargrad in a process of its own (as ``scalargrad run --check`` would, so that
every backward is also proved with SymPy: a fork of a warm worker that imported scalargrad
and SymPy once, see ``warm_worker``), compares its output with PyTorch's, and reports.

An example *regresses* when scalargrad's output differs from PyTorch's, unless the program
stops on a feature the catalogue lists under ``needs`` (then it is "not yet supported").
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import warm_worker
from .run_command import run

EXAMPLE_TIMEOUT = 300.0  # seconds a catalogue example or corpus program may run (cli's --timeout)

__all__ = ["Example", "Outcome", "CatalogueError", "reference_dir", "load_catalogue", "for_this_python", "verify",
           "normalise_stdout", "normalise_stderr", "lists_feature"]

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SOURCE_TREE = os.path.join(_PACKAGE_PARENT, "reference")  # a checkout used without installing
_ADDR = re.compile(r"0x[0-9a-fA-F]{6,}")
_TRIGGERED = re.compile(r" \(Triggered internally at [^()]*\.\)$")
_ERRLINE = re.compile(r"^(?:.*?:\d+: )?((?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*(?:Warning|Error|Exception)):.*)$")


@dataclass
class Example:
    """One catalogue entry."""

    document: str
    id: str
    program: str
    title: str
    status: str
    torch_output: str
    torch_stderr: str
    document_output: str = ""
    differences: list = field(default_factory=list)
    needs: list = field(default_factory=list)
    # what PyTorch printed on other processors' kernels, as (stdout, stderr) pairs: an entry
    # whose output depends on the processor (the corpus's ``torch_other_cpu``) is reproduced
    # if scalargrad prints any of them
    other_cpu: list = field(default_factory=list)
    source: str = ""

    @property
    def path(self) -> str:
        return self.program


@dataclass
class Outcome:
    """What scalargrad did with one example."""

    example: Example
    result: str  # "reproduced", "differs", "not supported", "crashed"
    detail: str = ""
    sympy: str = "n/a"  # summary of the SymPy checks
    sympy_ok: bool | None = None
    seconds: float = 0.0

    @property
    def regression(self) -> bool:
        if self.result == "reproduced":
            return False
        if self.result == "not supported" and lists_feature(self.example.needs, self.detail):
            return False
        return True

    def as_dict(self) -> dict:
        d = asdict(self.example)
        d.pop("torch_output")
        d.pop("torch_stderr")
        d.pop("document_output")
        d.pop("other_cpu")
        d.update(result=self.result, detail=self.detail, sympy=self.sympy, sympy_ok=self.sympy_ok,
                 regression=self.regression, seconds=round(self.seconds, 3))
        return d


def lists_feature(needs: list[str], feature: str) -> bool:
    """Does a catalogue ``needs`` list name ``feature`` as ``Unsupported`` names it? A module
    covers what is in it (a need ``torch.utils.data`` covers the feature
    ``torch.utils.data.DataLoader``, and a need ``torch.optim.Adam`` the feature ``torch.optim``
    when the whole module is missing), the ``torch.`` prefix is
    optional (``torch.nn.Linear`` is ``nn.Linear``), and any multi-element feature is listed by
    "multi-element tensors"."""
    def bare(name: str) -> str:
        return name[len("torch."):] if name.startswith("torch.") else name

    f = bare(feature)
    for need in needs:
        n = bare(need)
        if n == f or n.startswith((f + ".", f + " ")) or f.startswith(n + "."):
            return True
        if "multi-element" in n and ("multi-element" in f or "more than one element" in f):
            return True
    return False


class CatalogueError(Exception):
    """The reference catalogue is missing, unreadable or malformed (one sentence, for the user)."""


def _has_catalogue(directory: str) -> bool:
    return os.path.isdir(directory) and any(os.path.isfile(os.path.join(directory, d, "examples.json"))
                                            for d in os.listdir(directory))


@contextmanager
def reference_dir(given: str | None = None) -> Iterator[str]:
    """The catalogue as a real directory, for as long as the block runs: ``given``, else the
    installed package data ``scalargrad._reference``, else ``reference/`` beside the source
    tree (a checkout on ``PYTHONPATH``, not installed). Raises CatalogueError if there is none."""
    if given is not None:
        if not _has_catalogue(given):
            raise CatalogueError(f"no reference catalogue in {given} (expected <document>/examples.json)")
        yield given
        return
    try:
        packaged = importlib.resources.files("scalargrad._reference")
    except ModuleNotFoundError:
        packaged = None
    if isinstance(packaged, Path) and _has_catalogue(str(packaged)):
        yield str(packaged)
        return
    if packaged is not None and not isinstance(packaged, Path) and packaged.is_dir():  # a zip: programs must be files
        with tempfile.TemporaryDirectory(prefix="scalargrad-reference-") as tmp:
            _copy_tree(packaged, Path(tmp))
            if _has_catalogue(tmp):
                yield tmp
                return
    if _has_catalogue(_SOURCE_TREE):
        yield _SOURCE_TREE
        return
    raise CatalogueError("cannot find the reference catalogue: this installation of scalargrad has no "
                         "scalargrad._reference package data; reinstall it, or pass --reference DIR")


def _copy_tree(src, dest: Path) -> None:
    pending = [(src, dest)]
    while pending:
        node, target = pending.pop()
        target.mkdir(exist_ok=True)
        for child in node.iterdir():
            if child.is_dir():
                pending.append((child, target / child.name))
            else:
                (target / child.name).write_bytes(child.read_bytes())


def load_catalogue(ref_dir: str) -> list[Example]:
    """Every example of every document, in document order. Raises CatalogueError for an
    unreadable or invalid examples.json, an entry without ``id`` or ``program``, or a program
    that is not there."""
    out = []
    for doc in sorted(os.listdir(ref_dir)):
        f = os.path.join(ref_dir, doc, "examples.json")
        if not os.path.isfile(f):
            continue
        try:
            with open(f, encoding="utf-8") as fh:
                entries = json.load(fh)
        except (OSError, UnicodeDecodeError) as e:
            raise CatalogueError(f"cannot read {f}: {e.strerror if isinstance(e, OSError) else e}") from e
        except json.JSONDecodeError as e:
            raise CatalogueError(f"{f} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from e
        if not isinstance(entries, list):
            raise CatalogueError(f"{f} must hold a list of examples")
        for i, e in enumerate(entries):
            missing = [k for k in ("id", "program") if not isinstance(e, dict) or not isinstance(e.get(k), str)]
            if missing:
                raise CatalogueError(f"{f}: example {i + 1} has no {' or '.join(repr(k) for k in missing)}")
            program = os.path.join(ref_dir, doc, e["program"])
            if not os.path.isfile(program):
                raise CatalogueError(f"{f}: the program of {e['id']} is missing ({program})")
            printed = for_this_python(e)
            out.append(Example(
                document=doc, id=e["id"], program=program,
                title=e.get("title", e["id"]), status=e.get("status", ""),
                torch_output=printed.get("torch_output", ""), torch_stderr=printed.get("torch_stderr", ""),
                document_output=e.get("document_output", ""), differences=list(e.get("differences", [])),
                needs=list(e.get("needs", [])), source=e.get("source", ""),
                other_cpu=[(o.get("stdout", ""), o.get("stderr", "")) for o in printed.get("torch_other_cpu", [])]))
    return out


def for_this_python(entry: dict, version: tuple = sys.version_info[:2]) -> dict:
    """The captured fields of a catalogue entry for the Python ``version`` (the running one):
    the entry itself (what Python 3.10 and 3.11 print), or the newest of its
    ``torch_output_python`` captures whose ``python`` is not newer than ``version`` (Python's own
    reprs changed: ``OrderedDict({'a': 1})`` from 3.12 on; reference/README.md)."""
    chosen = entry
    for variant in entry.get("torch_output_python", []):
        if tuple(int(x) for x in variant["python"].split(".")) <= tuple(version):
            chosen = variant
    return chosen


def normalise_stdout(text: str) -> str:
    """Memory addresses vary between runs (and libraries): compare them as 0xADDR."""
    return _ADDR.sub("0xADDR", text.replace("\r\n", "\n"))


def normalise_stderr(text: str) -> list[str]:
    """Warnings and the final error, as 'Category: message' lines without file, line and the
    module path of the class (torch's and scalargrad's files differ, the messages must not),
    and without the " (Triggered internally at <file>:<line>.)" that PyTorch's C++ warnings end
    with: it names a file of PyTorch's build machine, which scalargrad has no counterpart of."""
    out = []
    for line in text.splitlines():
        m = _ERRLINE.match(line.strip())
        if m:
            msg = m.group(1)
            if m.group(1).startswith(m.group(2)) is False:
                msg = msg[msg.index(m.group(2)):]
            msg = _TRIGGERED.sub("", msg)
            out.append(_ADDR.sub("0xADDR", msg))
    return out


def _first_difference(want: str, got: str) -> str:
    a, b = want.splitlines(), got.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<missing>"
        y = b[i] if i < len(b) else "<missing>"
        if x != y:
            return f"line {i + 1}: PyTorch prints {x!r}, scalargrad {y!r}"
    return ""


def run_example(ex: Example, check: bool = True, timeout: float = EXAMPLE_TIMEOUT) -> Outcome:
    """Run one example in a fresh interpreter and compare with the PyTorch capture (where
    ``os.fork`` is missing; ``verify`` forks a warm worker instead)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [sys.executable, "-m", "scalargrad", "run", "--report-json", report]
        if check:
            cmd.append("--check")
        cmd.append(ex.program)
        env = dict(os.environ, PYTHONIOENCODING="utf-8")
        env.pop("PYTHONWARNINGS", None)
        # the worker runs in the program's directory: make this scalargrad importable there too
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                                  cwd=os.path.dirname(ex.program))
        except subprocess.TimeoutExpired:
            return Outcome(ex, "crashed", f"timed out after {timeout:.0f} s", seconds=time.perf_counter() - start)
        rep = {}
        if os.path.exists(report):
            with open(report, encoding="utf-8") as fh:
                rep = json.load(fh)
    return judge(ex, proc.stdout, proc.stderr, rep, time.perf_counter() - start)


def judge(ex: Example, stdout: str, stderr: str, rep: dict, seconds: float, ending: str = "") -> Outcome:
    """The outcome of an example from what its run printed and its ``--report-json`` report
    (empty when the run did not get that far; ``ending`` then says why, if known)."""
    if not rep:
        tail = ending or (stderr.strip().splitlines() or ["no output"])[-1]
        return Outcome(ex, "crashed", tail, seconds=seconds)
    sym = rep.get("sympy") or {}
    sympy_text, sympy_ok = sym.get("summary", "n/a"), sym.get("ok")
    if rep.get("unsupported"):
        return Outcome(ex, "not supported", rep["unsupported"], sympy_text, sympy_ok, seconds)
    got_out, got_err = normalise_stdout(stdout), normalise_stderr(stderr)
    for torch_out, torch_err in [(ex.torch_output, ex.torch_stderr)] + list(ex.other_cpu):
        if got_out == normalise_stdout(torch_out) and got_err == normalise_stderr(torch_err):
            return Outcome(ex, "reproduced", "", sympy_text, sympy_ok, seconds)
    want_out = normalise_stdout(ex.torch_output)
    want_err = normalise_stderr(ex.torch_stderr)
    if got_out != want_out:
        detail = _first_difference(want_out, got_out)
        raised = [e for e in got_err if e not in want_err and not e.split(":", 1)[0].endswith("Warning")]
        if raised:  # the program stopped on an error PyTorch did not raise: name it
            detail += f"; scalargrad raised {raised[-1]}"
    else:
        detail = f"stderr: PyTorch {want_err!r}, scalargrad {got_err!r}"
    return Outcome(ex, "differs", detail, sympy_text, sympy_ok, seconds)


def _run_in_worker(program: str, check: bool) -> dict:
    """In a forked worker (working directory: the program's): what ``scalargrad run
    --report-json R [--check] program`` does; returns the report (empty if none was written)."""
    import argparse

    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        run(argparse.Namespace(script=program, args=[], check=check, report_json=report, graph=None))
        if not os.path.exists(report):
            return {}
        with open(report, encoding="utf-8") as fh:
            return json.load(fh)


def verify(examples: list[Example], check: bool = True, jobs: int = 2, progress=None,
           timeout: float = EXAMPLE_TIMEOUT) -> list[Outcome]:
    """Run the examples (``jobs`` at a time), each in a process of its own, and return their
    outcomes in catalogue order. Each process is a fork of this one after it imported
    scalargrad and SymPy (``warm_worker``), or, without ``os.fork``, a fresh interpreter."""
    done = 0
    outcomes: list = [None] * len(examples)

    def finished(i: int, outcome: Outcome) -> None:
        nonlocal done
        outcomes[i] = outcome
        done += 1
        if progress is not None:
            progress(done, len(examples), examples[i])

    if warm_worker.fork_available():
        warm_worker.warm_up()
        tasks = [warm_worker.Task(_run_in_worker, (ex.program, check), cwd=os.path.dirname(ex.program))
                 for ex in examples]

        def on_done(i: int, f) -> None:
            finished(i, judge(examples[i], f.stdout, f.stderr, f.result or {}, f.seconds,
                              "" if f.ending == "ok" else f.ending))

        warm_worker.run_tasks(tasks, jobs=jobs, timeout=timeout, on_done=on_done)
        return outcomes

    def one(i: int) -> None:
        finished(i, run_example(examples[i], check=check, timeout=timeout))

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, range(len(examples))))
    return outcomes


# ---------------------------------------------------------------- reports

_DOC_STATUS = {"reproduced": "as printed", "named_difference": "named difference",
               "document_error": "DOCUMENT ERROR", "corpus": "own program"}


def table(outcomes: list[Outcome]) -> str:
    """A plain-text table for the terminal, with a summary line."""
    rows = [("example", "document", "document vs PyTorch", "scalargrad", "SymPy check")]
    for o in outcomes:
        ex = o.example
        res = o.result if o.result != "not supported" else f"not supported ({o.detail})"
        if o.result == "differs":
            res = "DIFFERS"
        rows.append((ex.id, ex.document, _DOC_STATUS.get(ex.status, ex.status), res, o.sympy))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    widths[3] = min(widths[3], 48)
    lines = []
    for j, r in enumerate(rows):
        cells = [c if len(c) <= widths[i] else c[:widths[i] - 1] + "…" for i, c in enumerate(r)]
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    details = [f"  {o.example.id}: {o.detail}" for o in outcomes if o.regression and o.detail]
    if details:
        lines += ["", "Differences:"] + details
    lines += ["", summary(outcomes)]
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> str:
    n = len(outcomes)
    rep = sum(o.result == "reproduced" for o in outcomes)
    unsup = sum(o.result == "not supported" and not o.regression for o in outcomes)
    reg = sum(o.regression for o in outcomes)
    docs = len({o.example.document for o in outcomes})
    errs = sum(o.example.status == "document_error" for o in outcomes)
    sym_bad = sum(o.sympy_ok is False for o in outcomes)
    if outcomes and all(o.example.status == "corpus" for o in outcomes):
        return (f"{_count(n, 'corpus program')}: {rep} reproduced exactly, {unsup} not yet supported, "
                f"{reg} {'differs or fails' if reg == 1 else 'differ or fail'}; SymPy disagreements: {sym_bad}")
    return (f"{_count(n, 'example')} from {_count(docs, 'document')}: {rep} reproduced exactly, {unsup} not yet "
            f"supported, {reg} regressed; {_count(errs, 'document error')} recorded; SymPy disagreements: {sym_bad}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("s" if n != 1 else "")


def markdown(outcomes: list[Outcome]) -> str:
    lines = ["| example | document | document vs PyTorch | scalargrad | SymPy check |", "|---|---|---|---|---|"]
    for o in outcomes:
        ex = o.example
        res = o.result + (f" ({o.detail})" if o.result == "not supported" else "")
        lines.append(f"| {ex.id} | {ex.document} | {_DOC_STATUS.get(ex.status, ex.status)} | {res} | {o.sympy} |")
    lines += ["", summary(outcomes)]
    return "\n".join(lines)
