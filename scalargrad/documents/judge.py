"""The verdict on each cell: does scalargrad print what the document shows?

Statuses:

``reproduced``        the same output (memory addresses and ``id()`` values aside)
``named difference``  the same up to named differences, each a precise rule
                      (``named_differences``), listed with the lines it excused
``differs``           the output differs: the first differing line and a diff say where
``unsupported``       the cell needs a part of PyTorch scalargrad does not implement (named)
``error``             the cell raised an exception the document does not show
``timed out``         the cell was stopped at its time limit, or the document's
``skipped``           not run or not judged, with the reason: a cell magic or only shell lines,
                      a plot library or another package that is not installed, a missing
                      file, a name that an earlier cell which failed should have defined, the
                      document's time limit ran out before it
``ran``               the document shows no output for it; it ran without error

What a cell printed is compared token by token (``compare``): every number must be the
document's, except those that differ between runs of the document from other unseeded
generator states (the document was run again from two such states when a cell drew from a
generator the document did not seed). A cell whose stored output ends in an error compares
what it printed before the error, then the error's type and message. A notebook's stored
warnings are compared too: a warning the document shows and scalargrad does not give, or
another one, is a difference unless ``named_differences.WARNING_CHANGES`` explains it.

The SymPy proof of the cell's backward calls is reported beside the status; a disagreement
between autograd and SymPy makes ``verify`` fail whatever the status.
"""

from __future__ import annotations

import ast
import difflib
import doctest
import re
from dataclasses import dataclass, field

from .cells import Cell, Document
from .compare import Match, canonical_ordered_dicts, match, moduledict_sorted, normalise, template
from .execute import CHECK_LIMIT, CellRun
from .named_differences import (
    DICT_KEYS_SORTED,
    EXPLANATIONS,
    MODULEDICT_ORDER,
    ORDERED_DICT_SPELLING,
    UNINITIALISED,
    UNSEEDED,
    WARNINGS,
    warning_change,
)
from .notebook import warning_lines

__all__ = ["Verdict", "judge_document", "judge_cell", "STATUSES", "FAILING"]

STATUSES = ("reproduced", "named difference", "differs", "unsupported", "error", "timed out", "skipped", "ran")
FAILING = ("differs", "error", "timed out")  # statuses that make verify's exit status non-zero

_PLOTTING = {"matplotlib", "seaborn", "plotly", "bokeh", "altair", "IPython"}
_QUALIFIED = re.compile(r"^(?:[A-Za-z_][\w]*\.)+(?=[A-Za-z_]\w*(?::|$))")
_TRIGGERED = re.compile(r" \(Triggered internally at [^()]*\.\)$")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


@dataclass
class Verdict:
    """The judgement on one cell, with what was expected and what was produced."""

    status: str
    detail: str = ""  # the first difference, the feature, the error, the reason for skipping
    differences: list = field(default_factory=list)  # (name, explanation) of named differences
    excused: list = field(default_factory=list)  # dicts: rule, document line, scalargrad's line
    diff: str = ""  # a unified diff of expected and produced output (differs only)
    notes: list = field(default_factory=list)
    sympy: str = "n/a"
    sympy_ok: bool | None = None


def _error_text(line: str | None) -> str:
    """An exception's last line, without the module path of its class."""
    lines = normalise(line or "").split("\n")
    return _QUALIFIED.sub("", lines[-1].strip())


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


def _loaded_names(source: str) -> set:
    """Names a cell's code reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _package_reason(top: str) -> str:
    if top in _PLOTTING:
        return f"draws a plot ({top} is not installed)"
    return f"needs the package {top}, which is not installed"


def _skip_reason(run: CellRun, failed: list[tuple[int, set]], absent: dict | None = None) -> str:
    """Why an exception means "could not be checked" rather than "error" ("" if it does not);
    ``absent``: names that imports of packages not installed would have bound -> the package."""
    if run.error_kind == "name" and run.error_name in (absent or {}):
        return _package_reason(absent[run.error_name])
    if run.error_kind == "name" and run.error_name:
        for index, names in reversed(failed):
            if run.error_name in names:
                return f"needs {run.error_name!r} from cell {index}, which did not run to the end"
    if run.error_kind == "module" and run.error_name:
        top = run.error_name.split(".")[0]
        if top not in ("torch", "scalargrad"):
            return _package_reason(top)
    if run.error_kind == "file":
        return f"needs the file {run.error_name}" if run.error_name else "needs a file that is not there"
    return ""


# ---------------------------------------------------------------- comparing texts


class _Judged:
    """Collects the named differences and the excused lines of one cell."""

    def __init__(self) -> None:
        self.names: list = []
        self.excused: list = []

    def name(self, rule: str, explanation: str | None = None) -> None:
        if all(n != rule for n, _ in self.names):
            self.names.append((rule, explanation or EXPLANATIONS[rule]))

    def add(self, m: Match, want: str, got: str, part: str) -> None:
        w, g = normalise(want).split("\n"), normalise(got).split("\n")
        for e in m.excused:
            self.name(e.rule)
            entry = {"rule": e.rule, "part": part,
                     "document_line": e.document_line + 1 if e.document_line >= 0 else None,
                     "document": w[e.document_line] if 0 <= e.document_line < len(w) else "",
                     "scalargrad_line": e.produced_line + 1, "scalargrad": g[e.produced_line]
                     if 0 <= e.produced_line < len(g) else "", "shown": e.shown, "printed": e.printed}
            if e.rule == UNSEEDED or entry not in self.excused:
                self.excused.append(entry)


def _compare_text(want: str, texts: list[str], variants: list[tuple[str, list[str]]], ids: frozenset, judged: _Judged,
                  part: str, varies: str = UNSEEDED) -> tuple[bool, str, str]:
    """Match the document's ``want`` with scalargrad's ``texts`` (this run and the reruns), or
    a variant of them (a rule's, or another reading of the cell: rule ""); returns (equal,
    first difference, diff)."""
    first = None
    for rule, alt in [("", texts)] + variants:
        m = match(want, template(alt, ids, varies))
        if m.equal:
            if rule:
                judged.name(rule)
                judged.excused.append({"rule": rule, "part": part, "document_line": None, "document": "",
                                       "scalargrad_line": None, "scalargrad": "", "shown": "", "printed": ""})
            judged.add(m, want, alt[0], part)
            if canonical_ordered_dicts(want)[1] and ("OrderedDict([" in want) != ("OrderedDict([" in alt[0]) \
                    and "OrderedDict(" in alt[0]:
                judged.name(ORDERED_DICT_SPELLING)
            return True, "", ""
        if first is None:
            first = m
    w, g = normalise(want), normalise(texts[0])
    wl, gl = w.split("\n"), g.split("\n")
    i = first.document_line
    x = wl[i] if 0 <= i < len(wl) and w else "<nothing>"
    k = first.produced_line
    y = gl[k] if 0 <= k < len(gl) and g else "<nothing>"
    if x == y:  # the line matched as far as tokens go: name the next one that differs
        for a in range(max(len(wl), len(gl))):
            xa = wl[a] if a < len(wl) else "<nothing>"
            ya = gl[a] if a < len(gl) else "<nothing>"
            if xa != ya:
                i, x, y = a, xa, ya
                break
    where = "" if part == "output" else f"{part}, "
    detail = f"{where}line {i + 1}: the document shows {x!r}, scalargrad prints {y!r}"
    return False, detail, _unified(w, g)


def _warning_key(line: str) -> str:
    return _ADDRESS.sub("0xADDR", _TRIGGERED.sub("", line.strip()))


def _compare_warnings(shown: list[str], given: list[str], judged: _Judged) -> str:
    """"" if the warnings agree (or differ only as a rule says); else the difference."""
    want = [_warning_key(w) for w in shown]
    got = [_warning_key(w) for w in given]
    if want == got:
        return ""
    sm = difflib.SequenceMatcher(None, want, got, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        a, b = want[i1:i2], got[j1:j2]
        for k in range(max(len(a), len(b))):
            s = a[k] if k < len(a) else None
            g = b[k] if k < len(b) else None
            why = warning_change(s, g)
            if why is None:
                if s is None:
                    return f"scalargrad warns {g!r}, which the document does not show"
                if g is None:
                    return f"the document shows the warning {s!r}, which scalargrad does not give"
                return f"the document shows the warning {s!r}, scalargrad gives {g!r}"
            judged.name(WARNINGS, f"{EXPLANATIONS[WARNINGS]}: {why}")
            judged.excused.append({"rule": WARNINGS, "part": "warnings", "document_line": None, "document": s or "",
                                   "scalargrad_line": None, "scalargrad": g or "", "shown": s or "",
                                   "printed": g or ""})
    return ""


def _variants(cell: Cell, runs: list[CellRun], texts: list[str]) -> list[tuple[str, list[str]]]:
    out = []
    if cell.mode == "page" and runs[0].displayed is not None and runs[0].output.strip():
        # a page made from a notebook shows the block's last expression as it was displayed
        texts = [t + (r.displayed or "") for r, t in zip(runs, texts)]
        out.append(("", texts))
    sorted_md = [moduledict_sorted(normalise(t)) for t in texts]
    if sorted_md[0] is not None:
        out.append((MODULEDICT_ORDER, [s if s is not None else normalise(t) for s, t in zip(sorted_md, texts)]))
    if cell.mode == "notebook" and runs[0].sorted_output is not None:
        out.append((DICT_KEYS_SORTED, [r.sorted_output if r.sorted_output is not None else t
                                       for r, t in zip(runs, texts)]))
    return out


def _compare(cell: Cell, runs: list[CellRun], varies: str) -> Verdict:
    exp = cell.expected
    main = runs[0]
    judged = _Judged()
    ids = frozenset(i for r in runs[:1] for i in r.ids)
    want = exp.text
    texts = [r.output for r in runs]
    if cell.mode == "page" and main.displayed is not None and not main.output.strip():
        # it printed nothing: as a page made from a notebook, it shows its last expression
        texts = [t + (r.displayed or "") for r, t in zip(runs, texts)]
    if cell.mode == "notebook" and exp.picture:
        # a plotting cell's displayed result is the figure's repr: only printed text counts
        texts = ["\n".join(ln for ln in t.split("\n") if not re.match(r"^[\[(]?<matplotlib\.|^<Figure", ln))
                 for t in texts]
    if cell.mode == "doctest":
        # doctest's own rules (<BLANKLINE>, +ELLIPSIS...); a shown exception: only it counts
        checker = doctest.OutputChecker()
        if exp.error is not None:
            want, texts = "", ["" for _ in texts]
        elif checker.check_output(want, texts[0], cell.options | doctest.DONT_ACCEPT_TRUE_FOR_1):
            want = texts[0]
        else:
            want = want.replace("<BLANKLINE>", "")
    equal, detail, diff = _compare_text(want, texts, _variants(cell, runs, texts), ids, judged, "output", varies)
    if not equal:
        return Verdict("differs", detail, diff=diff)
    if exp.error is not None:
        shown = _error_text(exp.error)
        raised = [_error_text(r.error) for r in runs if r.ran and r.error]
        if cell.options & doctest.IGNORE_EXCEPTION_DETAIL:
            shown, raised = shown.split(":")[0], [r.split(":")[0] for r in raised]
        equal, _, _ = _compare_text(shown, raised or [""], [], ids, judged, "error", varies)
        if not equal:
            return Verdict("differs", f"the document shows {shown!r}, scalargrad raises {_error_text(main.error)!r}")
    if exp.warnings is not None:
        why = _compare_warnings(exp.warnings, warning_lines(main.stderr), judged)
        if why:
            return Verdict("differs", why)
    if not judged.names:
        return Verdict("reproduced")
    detail = "; ".join(f"{n} ({e.split(': ', 1)[1]})" if n == WARNINGS and ": " in e else n for n, e in judged.names)
    return Verdict("named difference", detail, differences=judged.names, excused=judged.excused)


def judge_cell(cell: Cell, runs: list[CellRun], failed: list[tuple[int, set]], stopped: str = "",
               varies: str = UNSEEDED, absent: dict | None = None) -> Verdict:
    """The verdict on ``cell`` given what it did in each run (``runs[0]``, then the reruns
    from other unseeded generator states, if any); ``failed`` lists the earlier cells that did
    not run to the end and the names they would have defined; ``stopped``: why the document's
    run ended before this cell, if it did; ``absent``: the names this and earlier cells' imports
    of packages that are not installed would have bound -> the package."""
    run = runs[0]
    # a rerun in which the cell ended otherwise (an error, or none, or the time limit) says
    # nothing about which of its numbers vary
    runs = [run] + [r for r in runs[1:] if r.ran and not r.timed_out and (r.error is None) == (run.error is None)
                    and _error_text(r.error).split(":")[0] == _error_text(run.error).split(":")[0]]
    if cell.skip:
        return Verdict("skipped", cell.skip)
    if not run.ran:
        return Verdict("skipped", f"not run: {stopped}" if stopped else "not run")
    if run.timed_out:
        return Verdict("timed out", run.timed_out)
    if run.unsupported is not None:
        return Verdict("unsupported", run.unsupported)
    if run.error is not None and (cell.expected is None or cell.expected.error is None):
        reason = _skip_reason(run, failed, absent)
        return Verdict("skipped", reason) if reason else Verdict("error", run.error)
    if cell.expected is None:
        return Verdict("ran")
    if cell.expected.error is not None and run.error is None:
        return Verdict("differs", f"the document shows {_error_text(cell.expected.error)!r}, scalargrad runs "
                                  "without error")
    return _compare(cell, runs, varies)


def judge_document(doc: Document, runs: list[CellRun], reruns: list[list[CellRun]] | None = None) -> list[Verdict]:
    """A verdict for every cell of ``doc``, given what each did (``execute.run_document``) and
    in the reruns from other unseeded generator states."""
    reruns = reruns or []
    verdicts = []
    failed: list[tuple[int, set]] = []  # cells that did not run to the end: what they would define
    stale: dict = {}  # a name a cell that did not run to the end should have (re)defined -> that cell
    stopped = ""
    # what makes the runs differ: unseeded draws, or else only uninitialised memory
    varies = UNSEEDED if any(r.drew for r in runs) or not any(r.uninitialised for r in runs) else UNINITIALISED
    absent: dict = {}  # a name an import of a package not installed would have bound -> the package
    for k, (cell, run) in enumerate(zip(doc.cells, runs)):
        others = [r[k] for r in reruns if k < len(r)]
        absent.update(run.missing)
        v = judge_cell(cell, [run] + others, failed, stopped, varies, absent)
        if v.status in ("differs", "error"):
            # a value an earlier failing cell should have made: that cell is where it went wrong
            own = _defined_names(cell.source)  # (a loop variable of its own is no earlier cell's)
            used = sorted((n for n in _loaded_names(cell.source) - own if n in stale), key=lambda n: stale[n])
            if used:
                v = Verdict("skipped", f"needs {used[0]!r} from cell {stale[used[0]]}, which did not run to the end")
        bound = _defined_names(cell.source)
        if run.error is not None or cell.skip or run.timed_out or not run.ran:
            missed = bound if run.unbound is None else set(run.unbound)  # (what it did bind is fine)
            stale.update(dict.fromkeys(missed, cell.index))
            for name in bound - missed:
                stale.pop(name, None)
        else:
            for name in bound:
                stale.pop(name, None)
        if run.timed_out.startswith("stopped when the document"):
            stopped = f"the document's time limit ran out in cell {cell.index}"
        elif run.timed_out.startswith("the check of the document"):
            stopped = f"the check of the document was stopped in cell {cell.index}"
        if run.error is not None or cell.skip or run.timed_out or not run.ran:
            failed.append((cell.index, _defined_names(cell.source)))
        if run.missing:
            v.notes.append("left out: the import of " + ", ".join(sorted(set(run.missing.values())))
                           + " (not installed)")
        if cell.skipped_lines:
            v.notes.append("left out (IPython shell or magic): " + "; ".join(cell.skipped_lines))
        if cell.expected is not None and cell.expected.picture:
            v.notes.append("its picture is not compared")
        if run.unchecked:
            v.notes.append(f"{run.unchecked} backward call(s) not proved with SymPy (over the limit of "
                           f"{CHECK_LIMIT} per document)")
        if run.drew:
            v.notes.append("draws from a random generator the document does not seed")
        if run.uninitialised:
            v.notes.append("makes a tensor of uninitialised memory (torch.empty)")
        if run.ran:
            s = run.sympy or {"summary": "n/a", "ok": None}
            v.sympy, v.sympy_ok = s["summary"], s["ok"]
        verdicts.append(v)
    return verdicts
