"""One line for a report's "SymPy check" column: how many backward calls were proved and how
their gradients fared (``N grads agree``; ``hook``, ``convention``, ``unverifiable``... as
``symbolic.InputCheck`` explains; ``mismatch`` is a real disagreement)."""

from __future__ import annotations

__all__ = ["summarise_checks"]


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
