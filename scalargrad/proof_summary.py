"""What the SymPy proof of a program's backward calls found, said briefly.

* ``summarise_checks(reports)``: one line for a report's "SymPy check" column (``verify``): how
  many backward calls were proved and how their gradients fared (``N grads agree``; ``hook``,
  ``convention``, ``unverifiable``... as ``symbolic.InputCheck`` explains; ``mismatch`` is a
  real disagreement).
* ``summarise_proof(reports, seconds)``: the figures ``scalargrad run --check`` prints at exit
  (a ``ProofSummary``): backward passes, gradient elements proved, the worst disagreement and
  where it is, the mismatches and failed op rules, the time the proof took; ``lines()`` says
  them in a few lines. The full table, element by element, is ``check_report``'s.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

__all__ = ["summarise_checks", "summarise_proof", "ProofSummary", "Disagreement", "ulps"]

_LISTED = 5  # mismatches and rule failures a summary names; the report has them all
_MORE_FAILURES = re.compile(r"^(\d+) more rule failures not listed")
_MANTISSA = {"float64": 52, "float32": 23, "float16": 10, "bfloat16": 7}
_MIN_EXP = {"float64": -1022, "float32": -126, "float16": -14, "bfloat16": -126}


def summarise_checks(reports) -> dict:
    """``{"summary": text, "ok": bool | None}`` for a list of ``SymbolicReport`` (None: not
    checked)."""
    if reports is None:
        return {"summary": "n/a", "ok": None}
    if not reports:
        return {"summary": "no backward", "ok": True}
    counts: dict = {}
    for r in reports:
        for check in r.inputs:
            counts[check.status] = counts.get(check.status, 0) + 1
        if not r.inputs and r.notes:
            counts["unverifiable"] = counts.get("unverifiable", 0) + 1
    agree = counts.pop("ok", 0)
    agreed = f"{agree} grad agrees" if agree == 1 else f"{agree} grads agree"
    parts = [agreed] + [f"{n} {status}" for status, n in sorted(counts.items())]
    calls = f"{len(reports)} backward" + ("s" if len(reports) > 1 else "")
    return {"summary": f"{calls}: " + ", ".join(parts), "ok": all(r.ok for r in reports)}


def ulps(difference: float, at: float, dtype: str) -> float:
    """``difference`` in units in the last place of ``dtype`` at the value ``at`` (the spacing of
    the dtype's numbers there; subnormal spacing below the smallest normal)."""
    if not (math.isfinite(difference) and math.isfinite(at)):
        return math.inf if difference != 0 else 0.0
    bits = _MANTISSA.get(dtype, 52)
    e = math.frexp(at)[1] - 1 if at else _MIN_EXP.get(dtype, -1022)
    spacing = math.ldexp(1.0, max(e, _MIN_EXP.get(dtype, -1022)) - bits)
    return abs(difference) / spacing


@dataclass
class Disagreement:
    """One gradient element beside SymPy's value: where it is (the backward call and the input
    element), both values and how far apart they are (absolute, relative to SymPy's value, in
    ulps of the dtype, and as a share of the tolerance the check allowed it)."""

    backward: str
    element: str
    autograd: float | None
    sympy: float | None
    difference: float
    relative: float
    ulps: float
    tolerance: float
    share: float  # difference / tolerance: above 1 is a mismatch
    dtype: str
    status: str

    def text(self) -> str:
        return (f"{self.element} in {self.backward}: autograd {_g(self.autograd)}, SymPy {_g(self.sympy)}, "
                f"difference {self.difference:.3g} ({self.ulps:.3g} ulps of {self.dtype}, relative "
                f"{self.relative:.3g}; {_share(self.share)} its tolerance {self.tolerance:.3g}) [{self.status}]")


@dataclass
class ProofSummary:
    """The figures of a program's SymPy proof.

    ``backwards``: backward calls checked; ``elements``: gradient elements compared with SymPy;
    ``proved``: those that agree with it (``ok`` or PyTorch's ``convention``); ``statuses``:
    elements by status; ``rule_failures``: op rules (forward values, local derivatives) that
    contradict SymPy; ``check_errors``: why the check itself failed on a call (each such call
    counts as not ok); ``worst``: the
    element closest to (or furthest past) its tolerance among those with a SymPy value;
    ``mismatches``/``failures``: the first few, named; ``seconds``: the time the proof took
    (planning and comparing, not the backward calls themselves), None if not measured, and
    ``cpu_seconds`` the same in CPU time.
    """

    backwards: int = 0
    elements: int = 0
    proved: int = 0
    statuses: dict = field(default_factory=dict)
    rule_failures: int = 0
    check_errors: list = field(default_factory=list)
    worst: Disagreement | None = None
    mismatches: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    seconds: float | None = None
    cpu_seconds: float | None = None
    ok: bool = True
    column: str = "n/a"  # summarise_checks' line

    def as_dict(self) -> dict:
        d = asdict(self)
        d["worst"] = None if self.worst is None else asdict(self.worst)
        d["mismatches"] = [asdict(m) for m in self.mismatches]
        return d

    def lines(self) -> list[str]:
        """The summary as ``scalargrad run --check`` prints it."""
        took = "" if self.seconds is None else f", in {self.seconds:.1f} s"
        head = (f"SymPy check: {'OK' if self.ok else 'MISMATCH'}, {self.backwards:,} backward "
                f"pass{'es' if self.backwards != 1 else ''} checked, {self.proved:,} of {self.elements:,} "
                f"gradient elements proved{took}")
        out = [head, f"  ({self.column})"]
        if self.worst is not None and self.worst.difference == 0:
            out.append("  worst disagreement: none, every gradient element equals SymPy's value")
        elif self.worst is not None:
            out.append(f"  worst disagreement: {self.worst.text()}")
        for m in self.mismatches:
            out.append(f"  mismatch: {m.text()}")
        more = self.statuses.get("mismatch", 0) - len(self.mismatches)
        if more > 0:
            out.append(f"  ... and {more:,} more mismatches")
        for f in self.failures:
            out.append(f"  rule failure: {f}")
        if self.rule_failures > len(self.failures):
            out.append(f"  ... and {self.rule_failures - len(self.failures):,} more rule failures")
        for e in self.check_errors[:_LISTED]:
            out.append(f"  check failed: {e}")
        return out


def _g(x) -> str:
    return "None" if x is None else repr(x)


def _share(x: float) -> str:
    """What share of its tolerance a difference is: '25% of', '2 times'."""
    return f"{100 * x:.2g}% of" if x < 1 else f"{x:.3g} times"


def _distance(check) -> float | None:
    """How far autograd's value is from SymPy's (0 when equal, infinities and both-nan
    included; inf when only one is nan); None without a real SymPy value."""
    a, s = check.autograd, check.symbolic
    if s is None:
        return None
    a_val = 0.0 if a is None else a
    try:
        if a_val == s or (a_val != a_val and s != s):
            return 0.0
        diff = abs(a_val - s)
    except TypeError:  # a complex value: not ranked
        return None
    return math.inf if diff != diff else diff


def _disagreement(label: str, check, dtype: str, diff: float) -> Disagreement:
    s = check.symbolic
    rel = diff / abs(s) if s else (0.0 if diff == 0 else math.inf)
    tol = check.tolerance
    share = diff / tol if tol > 0 else (0.0 if diff == 0 else math.inf)
    return Disagreement(label, check.name, check.autograd, s, diff, rel, ulps(diff, s, dtype), tol, share, dtype,
                        check.status)


def summarise_proof(reports, seconds: float | None = None, cpu_seconds: float | None = None) -> ProofSummary:
    """The figures of the proof made of ``reports`` (``symbolic.SymbolicReport``s, one per
    backward call, as ``check_every_backward`` collects them)."""
    out = ProofSummary(seconds=seconds, cpu_seconds=cpu_seconds, column=summarise_checks(reports)["summary"])
    if reports is None:
        return out
    out.backwards = len(reports)
    worst_key = -1.0
    for r in reports:
        if r.strategy == "none":  # the check itself failed on this call: its failure says why
            out.check_errors.extend(f"{r.label}: {f}" for f in r.failures)
            continue
        more = 0
        for n in r.notes:
            m = _MORE_FAILURES.match(n)
            if m:
                more += int(m.group(1))
        out.rule_failures += len(r.failures) + more
        for f in r.failures:
            if len(out.failures) < _LISTED:
                out.failures.append(f"{r.label}: {f}")
        statuses = out.statuses
        for c in r.inputs:  # a few hundred thousand in a real program: the objects only for the worst
            st = c.status
            statuses[st] = statuses.get(st, 0) + 1
            if st != "ok" and st != "convention" and st != "mismatch":
                continue  # a hook or custom backward departs on purpose; unverifiable has no value
            diff = _distance(c)
            if diff is None:
                continue
            tol = c.tolerance
            key = diff / tol if tol > 0 else (0.0 if diff == 0 else math.inf)
            if key != key:  # inf against an infinite tolerance: put it first, to be looked at
                key = math.inf
            if st == "mismatch" and len(out.mismatches) < _LISTED:
                out.mismatches.append(_disagreement(r.label, c, r.dtype, diff))
            if key > worst_key:
                worst_key, out.worst = key, _disagreement(r.label, c, r.dtype, diff)
        out.elements += len(r.inputs)
    out.proved = out.statuses.get("ok", 0) + out.statuses.get("convention", 0)
    out.ok = all(r.ok for r in reports)
    return out
