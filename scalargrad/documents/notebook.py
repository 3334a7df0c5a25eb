"""Jupyter notebooks (``.ipynb``, nbformat 4), read with the standard library.

Every code cell becomes a ``Cell`` run in one shared namespace, in order. What the notebook
stored for it is the expected output: its ``stdout`` streams and the text of its displayed
results (``execute_result`` / ``display_data`` ``text/plain``), in the order they were
stored; the warnings in its ``stderr`` streams; its error (``ename: evalue``); and whether it
shows a picture. A cell that was never run (no execution count, no outputs) shows nothing.
IPython's shell and magic lines (``!pip install ...``, ``%matplotlib inline``) are not Python:
they are left out and reported; a cell magic (``%%bash``) leaves the whole cell out.
"""

from __future__ import annotations

import json
import re

from .cells import Cell, Document, Expected, UnreadableDocument

__all__ = ["read_notebook", "split_magics", "warning_lines"]

_MAGIC = re.compile(r"^\s*(?:[!%]|[\w.]+\s*=\s*[!%](?![=]))")
_WARNING = re.compile(r"^(?:.*?:\d+: )?(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*(?:Warning|Error|Exception): .*)$")


def _text(x) -> str:
    return "".join(x) if isinstance(x, list) else (x or "")


def split_magics(source: str) -> tuple[str, list[str], str]:
    """(the Python lines, the shell/magic lines left out, why the whole cell is left out).

    A cell that compiles as Python has no magic lines (a line starting with ``%`` may be the
    continuation of an expression); otherwise the lines starting with ``!`` or ``%``, or
    assigning from one (``files = !ls``), are IPython's."""
    lines = source.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    if first.lstrip().startswith("%%"):
        return "", [first.strip()], f"cell magic {first.split()[0]}"
    try:
        compile(source, "<cell>", "exec")
        return source, [], ""
    except (SyntaxError, ValueError):
        pass
    kept, skipped = [], []
    for ln in lines:
        if _MAGIC.match(ln):
            skipped.append(ln.strip())
            kept.append("")  # keep line numbers
        else:
            kept.append(ln)
    code = "\n".join(kept)
    if skipped and not code.strip():
        return "", skipped, "only shell and magic lines"
    return code, skipped, ""


def warning_lines(stderr: str) -> list[str]:
    """The 'Category: message' lines of warnings and errors in ``stderr``."""
    out = []
    for line in stderr.splitlines():
        m = _WARNING.match(line.strip())
        if m:
            out.append(m.group(1))
    return out


def _expected(cell: dict) -> Expected | None:
    outputs = cell.get("outputs") or []
    if not outputs and cell.get("execution_count") is None:
        return None
    exp = Expected(warnings=[])
    text = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stderr":
                exp.warnings += warning_lines(_text(out.get("text")))
            else:
                text.append(_text(out.get("text")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data") or {}
            if any(k.startswith("image/") for k in data):
                exp.picture = True
            elif "text/plain" in data:
                text.append(_text(data["text/plain"]) + "\n")
        elif kind == "error":
            ename, evalue = out.get("ename", ""), out.get("evalue", "")
            exp.error = f"{ename}: {evalue}" if evalue else ename
    exp.text = "".join(text)
    return exp


def read_notebook(path: str) -> Document:
    """The code cells of the notebook at ``path``."""
    try:
        with open(path, encoding="utf-8") as fh:
            nb = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UnreadableDocument(f"not a notebook (not valid JSON: {e})") from None
    if not isinstance(nb, dict) or "cells" not in nb:
        version = nb.get("nbformat") if isinstance(nb, dict) else None
        raise UnreadableDocument("only nbformat 4 notebooks can be read (this one is "
                                 f"{'nbformat ' + str(version) if version else 'not a notebook'}); "
                                 "convert it with: jupyter nbconvert --to notebook --nbformat 4")
    doc = Document(path, "notebook")
    meta = nb.get("metadata") or {}
    language = ((meta.get("kernelspec") or {}).get("language") or (meta.get("language_info") or {}).get("name")
                or "python")
    number = 0
    for i, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        number += 1
        code, skipped, skip = split_magics(_text(cell.get("source")))
        if language.lower() != "python":
            code, skip = "", f"a {language} cell"
        doc.cells.append(Cell(index=number, line=i + 1, source=code, mode="notebook", expected=_expected(cell),
                              skipped_lines=skipped, skip=skip))
    if language.lower() != "python":
        doc.note = f"the notebook's kernel is {language}, not Python"
    return doc
