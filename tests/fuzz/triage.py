"""The triage: each cause's minimal repro run as a script on both libraries, and the markdown.

``printed(source, lib)`` runs a repro (``Program.source()``, which prints every value the
fuzzer compares) with ``torch`` bound to ``lib`` and returns what it printed, an uncaught
exception included, so the triage shows what a user would see. ``markdown(report)`` writes
the per-cause sections of ``TRIAGE.md`` from a campaign report whose groups were shrunk.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

from .compare import GROUPS, SEVERITY

__all__ = ["printed", "markdown"]


def printed(source: str, lib) -> list[str]:
    """The lines the repro prints when ``torch`` is ``lib`` (its ``import torch`` line is skipped)."""
    body = source.split("\n", 1)[1] if source.startswith("import torch\n") else source
    out = io.StringIO()
    ns = {"torch": lib, "__name__": "__repro__"}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(body, "<repro>", "exec"), ns)
        except Exception as e:  # the repro's uncaught exception is part of its output
            print(f"{type(e).__name__}: {e}")
    lib.set_default_dtype(lib.float32)
    lib.set_grad_enabled(True)
    return out.getvalue().splitlines()


def _code(text: str) -> str:
    return "```python\n" + text.rstrip() + "\n```"


def _without_prints(source: str) -> str:
    """The repro without the print after each step (the outputs shown below are those prints)."""
    return "\n".join(line for line in source.splitlines() if not re.fullmatch(r"\s*print\('v\d+', v\d+\)", line))


def _differing(sg: list[str], th: list[str], context: int = 1) -> tuple[list[str], list[str]]:
    """The printed lines from the first difference on (with a line of context)."""
    first = next((i for i, (a, b) in enumerate(zip(sg, th)) if a != b), min(len(sg), len(th)))
    start = max(0, first - context)
    return sg[start:start + 8], th[start:start + 8]


_CLASSIFICATION = {"silently wrong": "defect (silently wrong)", "raw Python error": "raw Python error",
                   "wrong message": "wrong error", "other": "other (what is shown, or missing)",
                   "layout": "layout-only"}


def markdown(report: dict, level: int = 2) -> str:
    """The cause sections of the triage, most severe first (``level``: the heading level of the
    severity groups)."""
    h = "#" * level
    lines: list[str] = []
    groups = report["groups"]
    for sev in GROUPS:
        members = [g for g in groups if g["severity"] == sev]
        if not members:
            continue
        lines.append(f"\n{h} {sev[0].upper() + sev[1:]} ({sum(g['count'] for g in members)} program-causes)\n")
        for g in members:
            title = g["title"] or "Unclassified: " + g["cause"].removeprefix("unclassified: ")
            lines.append(f"{h}# `{g['cause']}` - {g['count']} programs ({_CLASSIFICATION[sev]})\n")
            lines.append(title + "\n")
            if g["where"]:
                lines.append(f"- where: `{g['where']}`")
            if g["issue"]:
                lines.append(f"- issue: {g['issue']}")
            classes = ", ".join(f"{c} {n}" for c, n in sorted(g["classes"].items(), key=lambda x: SEVERITY[x[0]][0]))
            cases = ", ".join(f"{n} {c}" for c, n in sorted(g.get("cases", {}).items()))
            alone = sum(g.get("sole", {}).values())
            lines.append(f"- worst class: {g['worst']}; divergences: {classes}")
            lines.append(f"- cases: {cases}; the only cause in {alone} of them")
            lines.append(f"- programs: {', '.join(g['programs'][:3])}\n")
            if g.get("repro"):
                lines.append("Minimal repro (shrunk from the first program; the outputs below print each bound "
                             "value after its step):\n")
                lines.append(_code(_without_prints(g["repro"])))
                sg, th = _differing(g.get("printed_sg", []), g.get("printed_torch", []))
                lines.append("\nscalargrad prints:\n")
                lines.append(_code("\n".join(sg) or "(nothing)"))
                lines.append("\nPyTorch 2.13 prints:\n")
                lines.append(_code("\n".join(th) or "(nothing)") + "\n")
                if g.get("repro_detail"):
                    lines.append(f"The fuzzer's comparison: `{g['repro_detail'][:600]}`\n")
    return "\n".join(lines) + "\n"
