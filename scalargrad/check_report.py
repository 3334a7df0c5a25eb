"""The full table of a SymPy proof, element by element, as a file: ``scalargrad run --check-report FILE``.

``FILE`` ending in ``.json`` gets JSON, in ``.md`` Markdown. The JSON schema
(``"schema": "scalargrad-check-report/1"``)::

    {"schema": "scalargrad-check-report/1",
     "program": the script's path as given,
     "ok": true unless a gradient or an op rule contradicts SymPy (or the check failed),
     "summary": {"backwards", "elements", "proved", "statuses": {status: count},
                 "rule_failures", "check_errors": [text], "seconds" (wall), "cpu_seconds", "ok",
                 "column": the one-line summary verify prints,
                 "worst": null or a disagreement, "mismatches": [disagreement, at most 5],
                 "failures": [text, at most 5]},
     "backwards": [{"label": "backward #1" (or "autograd.grad #2"), "ok", "verified",
                    "strategy": "whole" | "local" | "none" (the check failed),
                    "nodes", "elements", "dtype", "expression": the output as SymPy wrote it or null,
                    "failures": [text], "notes": [text],
                    "inputs": [{"name": "x0[1, 2]", "autograd", "sympy", "status", "tolerance",
                                "expression", "at_point", "notes": [text]}]}]}

A disagreement is ``{"backward", "element", "autograd", "sympy", "difference", "relative",
"ulps", "tolerance", "share", "dtype", "status"}`` (``share`` = difference / tolerance; above
1 is a mismatch). Numbers are JSON numbers; nan and infinities, which JSON lacks, are the
strings ``"nan"``, ``"inf"`` and ``"-inf"``; a missing value is null. ``status`` is one of
``ok``, ``convention``, ``hook``, ``custom backward``, ``unverifiable``, ``mismatch``
(``symbolic.InputCheck``). Inputs are named as the check names them: the leaf tensors of each
backward call in order of first use, ``x0``, ``x1``..., indexed per element.
"""

from __future__ import annotations

import json
import math

from .proof_summary import ProofSummary

__all__ = ["SCHEMA", "report_format", "as_json", "as_markdown", "write_report"]

SCHEMA = "scalargrad-check-report/1"
_FORMATS = {".json": "json", ".md": "markdown"}


def report_format(path: str) -> str | None:
    """'json' or 'markdown' by the file name's ending, None for any other."""
    for ending, kind in _FORMATS.items():
        if path.lower().endswith(ending):
            return kind
    return None


def _num(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if isinstance(x, complex):
        return repr(x)
    return x


def _clean(obj):
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_clean(v) for v in obj]
    return _num(obj)


def _backward(r) -> dict:
    return {"label": r.label, "ok": r.ok, "verified": r.verified, "strategy": r.strategy, "nodes": r.nodes,
            "elements": r.elements, "dtype": r.dtype, "expression": r.expression, "failures": list(r.failures),
            "notes": list(r.notes),
            "inputs": [{"name": c.name, "autograd": _num(c.autograd), "sympy": _num(c.symbolic), "status": c.status,
                        "tolerance": _num(c.tolerance), "expression": c.expression, "at_point": c.at_point,
                        "notes": list(c.notes)} for c in r.inputs]}


def as_json(program: str, reports, summary: ProofSummary) -> dict:
    """The report as a JSON-ready dict (see the module docstring for the schema)."""
    return {"schema": SCHEMA, "program": program, "ok": summary.ok, "summary": _clean(summary.as_dict()),
            "backwards": [_backward(r) for r in reports or ()]}


def _cell(x) -> str:
    """A table cell: text as code (with the table's separator escaped), a number as Python writes it."""
    if x is None:
        return "-"
    if isinstance(x, str):
        return "`" + x.replace("`", "'").replace("|", "\\|") + "`"
    return repr(x)


def as_markdown(program: str, reports, summary: ProofSummary) -> str:
    """The report as a Markdown page: the summary, then one table per backward call."""
    out = [f"# SymPy check of `{program}`", "", "```text", *summary.lines(), "```", ""]
    for r in reports or ():
        size = f"{r.nodes} nodes" + (f", {r.elements} elements" if r.elements else "")
        out.append(f"## {r.label}: {'OK' if r.ok else 'MISMATCH'} ({r.strategy} strategy, {size}, {r.dtype})")
        out.append("")
        if r.expression is not None:
            out += [f"output = {_cell(r.expression)}", ""]
        if r.inputs:
            out.append("| input | autograd | SymPy | status | tolerance | d/d(input) | at the point |")
            out.append("|---|---|---|---|---|---|---|")
            for c in r.inputs:
                out.append(f"| {_cell(c.name)} | {_cell(c.autograd)} | {_cell(c.symbolic)} | {c.status} | "
                           f"{c.tolerance:.3g} | {_cell(c.expression)} | {_cell(c.at_point)} |")
            out.append("")
        notes = [f"{c.name}: {n}" for c in r.inputs for n in c.notes] + list(r.notes) + \
            [f"rule failure: {f}" for f in r.failures]
        if notes:
            out.append("Notes:")
            out.append("")
            out += [f"- {n}" for n in notes]
            out.append("")
    return "\n".join(out)


def write_report(path: str, program: str, reports, summary: ProofSummary) -> None:
    """Write the full table to ``path``, JSON or Markdown by its ending (``report_format``)."""
    kind = report_format(path)
    if kind is None:
        raise ValueError(f"a check report is written as .json or .md, not {path!r}")
    with open(path, "w", encoding="utf-8") as fh:
        if kind == "json":
            json.dump(as_json(program, reports, summary), fh, ensure_ascii=False, allow_nan=False)
            fh.write("\n")
        else:
            fh.write(as_markdown(program, reports, summary))
