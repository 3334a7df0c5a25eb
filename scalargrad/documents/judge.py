"""The verdict on each cell: does scalargrad print what the document shows?

Statuses:

``reproduced``        the same output (memory addresses, line-end white space aside)
``named difference``  the same up to named differences between PyTorch versions or what the
                      page did to the text (``named_differences``): the names are listed
``differs``           the output differs: a short diff says where
``unsupported``       the cell needs a part of PyTorch scalargrad does not implement (named)
``error``             the cell raised an exception the document does not show
``skipped``           not run or not judged, with the reason: a cell magic or only shell lines,
                      a plot library or another package that is not installed, a missing
                      file, a name that an earlier cell which failed should have defined
``ran``               the document shows no output for it; it ran without error

The SymPy proof of the cell's backward calls is reported beside the status; a disagreement
between autograd and SymPy makes ``verify`` fail whatever the status.
"""

from __future__ import annotations

import ast
import difflib
import doctest
import re
from dataclasses import dataclass, field

from ..proof_summary import summarise_checks
from .cells import Cell, Document
from .execute import CHECK_LIMIT, CellRun
from .named_differences import RULES, UNSEEDED_RANDOM, classify, normalise
from .notebook import warning_lines

__all__ = ["Verdict", "judge_document", "STATUSES", "FAILING"]

STATUSES = ("reproduced", "named difference", "differs", "unsupported", "error", "skipped", "ran")
FAILING = ("differs", "error")  # statuses that make verify's exit status non-zero

_PLOTTING = {"matplotlib", "seaborn", "plotly", "bokeh", "altair", "IPython"}
_RANDOM = re.compile(r"\b(?:rand|randn|randint|randperm|rand_like|randn_like|normal_|uniform_|bernoulli|"
                     r"multinomial|dropout|Dropout\d?d?|Linear|Bilinear|Conv\w*|RNN|LSTM|GRU|Embedding|"
                     r"kaiming_\w+|xavier_\w+|shuffle|random_split)\s*\(")
_SEED = re.compile(r"\bmanual_seed\s*\(")
_QUALIFIED = re.compile(r"^(?:[A-Za-z_][\w]*\.)+(?=[A-Za-z_]\w*(?::|$))")


@dataclass
class Verdict:
    """The judgement on one cell, with what was expected and what was produced."""

    status: str
    detail: str = ""  # the first difference, the feature, the error, the reason for skipping
    differences: list = field(default_factory=list)  # (name, explanation) of named differences
    diff: str = ""  # a unified diff of expected and produced output (differs only)
    notes: list = field(default_factory=list)
    sympy: str = "n/a"
    sympy_ok: bool | None = None


def _error_text(line: str | None) -> str:
    """An exception's last line, without the module path of its class."""
    lines = normalise(line or "").split("\n")
    return _QUALIFIED.sub("", lines[-1].strip())


def _first_difference(want: str, got: str) -> str:
    a, b = want.split("\n"), got.split("\n")
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<nothing>"
        y = b[i] if i < len(b) else "<nothing>"
        if x != y:
            return f"line {i + 1}: the document shows {x!r}, scalargrad prints {y!r}"
    return ""


def _unified(want: str, got: str) -> str:
    lines = difflib.unified_diff(want.split("\n"), got.split("\n"), "document", "scalargrad", lineterm="", n=1)
    return "\n".join(lines)


def _defined_names(source: str) -> set:
    """Names a cell's code binds (over-approximated: any name stored anywhere)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _skip_reason(cell: Cell, run: CellRun, failed: list[tuple[int, set]]) -> str:
    """Why an exception means "could not be checked" rather than "error" ("" if it does not)."""
    exc = run.exception
    if isinstance(exc, NameError) and getattr(exc, "name", None):
        for index, names in reversed(failed):
            if exc.name in names:
                return f"needs {exc.name!r} from cell {index}, which did not run to the end"
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        if top in _PLOTTING:
            return f"draws a plot ({top} is not installed)"
        if top not in ("torch", "scalargrad"):
            return f"needs the package {top}, which is not installed"
    if isinstance(exc, FileNotFoundError):
        return f"needs the file {exc.filename}" if exc.filename else "needs a file that is not there"
    return ""


def _warning_difference(expected: list[str], produced: list[str]) -> tuple[str, str] | None:
    want = [normalise(w) for w in expected]
    got = [normalise(w) for w in produced]
    if want == got:
        return None
    extra = [w for w in got if w not in want]
    missing = [w for w in want if w not in got]
    if extra and not missing:
        return ("warnings differ", f"PyTorch 2.13 also warns: {extra[0]}")
    if missing and not extra:
        return ("warnings differ", f"the document shows a warning PyTorch 2.13 does not give: {missing[0]}")
    return ("warnings differ", f"the document shows {missing[:1] or want}, PyTorch 2.13 gives {extra[:1] or got}")


def _compare(cell: Cell, run: CellRun, random: bool) -> Verdict:
    exp = cell.expected
    want, got = exp.text, run.output
    if exp.error is not None:
        want, got = "", ""  # as doctest: only the exception counts when one is shown
        shown, raised = _error_text(exp.error), _error_text(run.error)
        if cell.options & doctest.IGNORE_EXCEPTION_DETAIL:
            shown, raised = shown.split(":")[0], raised.split(":")[0]
        if shown != raised:
            return Verdict("differs", f"the document shows {_error_text(exp.error)!r}, scalargrad raises "
                                      f"{_error_text(run.error)!r}")
    if cell.mode == "doctest":
        checker = doctest.OutputChecker()
        if checker.check_output(want, got, cell.options | doctest.DONT_ACCEPT_TRUE_FOR_1):
            want = got  # doctest's own rules (<BLANKLINE>, +ELLIPSIS...) accept it
        else:
            want = want.replace("<BLANKLINE>", "")
    if cell.mode == "notebook" and exp.picture:
        # a plotting cell's displayed result is the figure's repr: only printed text counts
        got = "\n".join(ln for ln in got.split("\n") if not re.match(r"^[\[(]?<matplotlib\.|^<Figure", ln))
    rules = RULES + ([UNSEEDED_RANDOM] if random else [])
    equal, used = classify(want, got, rules)
    named = [(r.name, r.explanation) for r in used]
    if not equal:
        w, g = normalise(want), normalise(got)
        return Verdict("differs", _first_difference(w, g), diff=_unified(w, g))
    if exp.warnings is not None:
        diff = _warning_difference(exp.warnings, warning_lines(run.stderr))
        if diff is not None:
            named.append(diff)
    if not named:
        return Verdict("reproduced")
    detail = "; ".join(f"{n} ({e})" if n == "warnings differ" else n for n, e in named)
    return Verdict("named difference", detail, differences=named)


def judge_document(doc: Document, runs: list[CellRun]) -> list[Verdict]:
    """A verdict for every cell of ``doc``, given what each did (``execute.run_document``)."""
    verdicts = []
    failed: list[tuple[int, set]] = []  # cells that did not run to the end: what they would define
    seeded = False
    drew = False
    for cell, run in zip(doc.cells, runs):
        if _SEED.search(cell.source):
            seeded = True
        if _RANDOM.search(cell.source):
            drew = True
        if cell.skip or not run.ran:
            v = Verdict("skipped", cell.skip or "not run")
        elif run.unsupported is not None:
            v = Verdict("unsupported", run.unsupported)
        elif run.error is not None and (cell.expected is None or cell.expected.error is None):
            reason = _skip_reason(cell, run, failed)
            v = Verdict("skipped", reason) if reason else Verdict("error", run.error)
        elif cell.expected is None:
            v = Verdict("ran")
        elif cell.expected.error is not None and run.error is None:
            v = Verdict("differs", f"the document shows {_error_text(cell.expected.error)!r}, scalargrad "
                                   "runs without error")
        else:
            v = _compare(cell, run, random=drew and not seeded)
        if run.error is not None or cell.skip:
            failed.append((cell.index, _defined_names(cell.source)))
        if cell.skipped_lines:
            v.notes.append("left out (IPython shell or magic): " + "; ".join(cell.skipped_lines))
        if cell.expected is not None and cell.expected.picture:
            v.notes.append("its picture is not compared")
        if run.unchecked:
            v.notes.append(f"{run.unchecked} backward call(s) not proved with SymPy (over the limit of "
                           f"{CHECK_LIMIT} per document)")
        if run.ran:
            s = summarise_checks(run.checks)
            v.sympy, v.sympy_ok = s["summary"], s["ok"]
        verdicts.append(v)
    return verdicts
