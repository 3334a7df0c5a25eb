"""Reports of ``scalargrad verify PATH...``: a table, Markdown, or JSON, and the exit status.

The JSON report (``--json``), schema ``scalargrad-verify-documents/1``::

    {
      "schema": "scalargrad-verify-documents/1",
      "summary": "<the summary line>",
      "exit_status": 0 | 1 | 2 | 3,
      "documents": [
        {
          "path": "tutorial.ipynb",
          "kind": "notebook" | "markdown" | "restructuredtext" | "python" | null,
          "error": null | "<why the document could not be read or checked>",
          "crashed": true,                      # only when the check itself failed or timed out
          "note": "<remark on the document, or empty>",
          "cells": [
            {
              "index": 1,                       # position among the document's code cells
              "line": 12,                       # line in the file (a notebook: the cell's number)
              "status": "reproduced" | "named difference" | "differs" | "unsupported"
                        | "error" | "skipped" | "ran",
              "detail": "<first difference, feature, error, reason for skipping, or empty>",
              "differences": [{"name": "...", "explanation": "..."}],   # named differences
              "source": "<the code run>",
              "expected": "<output the document shows>" | null,        # null: it shows none
              "expected_error": "<exception the document shows>" | null,
              "produced": "<what scalargrad printed>" | null,           # null: not run
              "produced_error": "<exception scalargrad raised>" | null,
              "diff": "<unified diff, expected -> produced>",           # status differs
              "notes": ["<skipped magic lines, pictures not compared...>"],
              "sympy": "<summary of the SymPy proof of its backward calls>",
              "sympy_ok": true | false | null,  # false: autograd and SymPy disagree
              "seconds": 0.01
            }
          ]
        }
      ]
    }

Exit status: 0 when every cell reproduced, differs only by named differences, ran, or was
skipped; 1 when a cell differs or raised an error, SymPy disagrees with autograd, or the check
of a document crashed or timed out; 2 when a document cannot be read; 3 when nothing else is
wrong but a cell needs a part of PyTorch that scalargrad does not implement.
"""

from __future__ import annotations

from .judge import STATUSES

__all__ = ["SCHEMA", "document_entry", "summary", "table", "markdown", "exit_status"]

SCHEMA = "scalargrad-verify-documents/1"


def document_entry(path: str, doc, runs: list, verdicts: list, error: str | None = None) -> dict:
    """One document's entry of the JSON report."""
    cells = []
    if doc is not None:
        for cell, run, v in zip(doc.cells, runs, verdicts):
            exp = cell.expected
            cells.append({
                "index": cell.index, "line": cell.line, "status": v.status, "detail": v.detail,
                "differences": [{"name": n, "explanation": e} for n, e in v.differences],
                "source": cell.source,
                "expected": None if exp is None else exp.text,
                "expected_error": None if exp is None else exp.error,
                "produced": run.output if run.ran else None,
                "produced_error": run.error,
                "diff": v.diff, "notes": list(v.notes), "sympy": v.sympy, "sympy_ok": v.sympy_ok,
                "seconds": round(run.seconds, 3),
            })
    return {"path": path, "kind": None if doc is None else doc.kind, "error": error,
            "note": "" if doc is None else doc.note, "cells": cells}


def exit_status(entries: list[dict]) -> int:
    """0, 1, 2 or 3, as the module docstring says."""
    cells = [c for e in entries for c in e["cells"]]
    if any(c["status"] in ("differs", "error") or c["sympy_ok"] is False for c in cells) \
            or any(e.get("crashed") for e in entries):
        return 1
    if any(e["error"] for e in entries):
        return 2
    if any(c["status"] == "unsupported" for c in cells):
        return 3
    return 0


def _plural(n: int, word: str) -> str:
    if word.endswith("difference"):
        return f"{n} {word}" + ("s" if n != 1 else "")
    if word == "error":
        return f"{n} error" + ("s" if n != 1 else "")
    return f"{n} {word}"


def summary(entries: list[dict]) -> str:
    """One line: how many cells had each status, and the SymPy disagreements."""
    cells = [c for e in entries for c in e["cells"]]
    counts = {s: sum(c["status"] == s for c in cells) for s in STATUSES}
    unread = sum(1 for e in entries if e["error"])
    docs = len(entries) - unread
    parts = ", ".join(_plural(counts[s], s) for s in STATUSES)
    line = (f"{len(cells)} cell{'s' if len(cells) != 1 else ''} in {docs} document{'s' if docs != 1 else ''}: {parts}; "
            f"SymPy disagreements: {sum(c['sympy_ok'] is False for c in cells)}")
    if unread:
        line += f"; {unread} document{'s' if unread != 1 else ''} could not be read"
    return line


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def table(entries: list[dict]) -> str:
    """A plain-text table per document, the differences and errors, and the summary line."""
    lines = []
    for e in entries:
        if e["error"]:
            lines += [f"{e['path']}: cannot be read: {e['error']}", ""]
            continue
        n = len(e["cells"])
        head = f"{e['path']} ({e['kind']}, {n} cell{'s' if n != 1 else ''})"
        lines.append(head + (f": {e['note']}" if e["note"] else ""))
        rows = [("cell", "line", "status", "detail", "SymPy check")]
        for c in e["cells"]:
            status = c["status"].upper() if c["status"] in ("differs", "error") else c["status"]
            sympy = c["sympy"] + (" DISAGREES" if c["sympy_ok"] is False else "")
            rows.append((str(c["index"]), str(c["line"]), status, _cut(c["detail"], 60), sympy))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for j, r in enumerate(rows):
            lines.append("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
            if j == 0:
                lines.append("  ".join("-" * w for w in widths))
        shown = [c for c in e["cells"] if c["status"] in ("differs", "error") or c["notes"]]
        if shown:
            lines.append("")
        for c in shown:
            if c["status"] == "differs":
                lines.append(f"  cell {c['index']} differs: {c['detail']}")
                lines += ["    " + d for d in c["diff"].split("\n")[2:14] if c["diff"]]
            elif c["status"] == "error":
                lines.append(f"  cell {c['index']} raised {c['detail']}")
            for note in c["notes"]:
                lines.append(f"  cell {c['index']}: {note}")
        lines.append("")
    lines.append(summary(entries))
    return "\n".join(lines)


def markdown(entries: list[dict]) -> str:
    """The same as Markdown tables."""
    lines = []
    for e in entries:
        lines.append(f"### {e['path']}")
        lines.append("")
        if e["error"]:
            lines += [f"Cannot be read: {e['error']}", ""]
            continue
        lines += ["| cell | line | status | detail | SymPy check |", "|---|---|---|---|---|"]
        for c in e["cells"]:
            detail = " ".join(c["detail"].split()).replace("|", "\\|")
            lines.append(f"| {c['index']} | {c['line']} | {c['status']} | {detail} | {c['sympy']} |")
        lines.append("")
    lines.append(summary(entries))
    return "\n".join(lines)
