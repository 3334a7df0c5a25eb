"""``scalargrad verify PATH...``: check a tutorial's own document against scalargrad.

A notebook (``.ipynb``), a Markdown (``.md``) or reStructuredText (``.rst``) page, or a Python
file with ``>>>`` examples in its docstrings (``.py``) is read into cells (``read_document``),
run on scalargrad cell by cell in one namespace (``execute``), every backward proved with
SymPy, and each cell judged against the output the document shows (``judge``).
``document_report`` gives the result as plain data, the ``--json`` schema's document entry
(see ``report``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

from .. import warm_worker
from .cells import Cell, Document, Expected, UnreadableDocument
from .doctests import read_python
from .execute import run_document
from .judge import judge_document
from .markdown import read_markdown
from .notebook import read_notebook
from .report import document_entry
from .restructured import read_restructured

__all__ = ["read_document", "document_report", "check_documents", "expand_paths", "Cell", "Document",
           "Expected", "UnreadableDocument", "READERS"]

READERS = {
    ".ipynb": read_notebook,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".rst": read_restructured,
    ".rest": read_restructured,
    ".py": read_python,
}


_IN_DIRECTORIES = {".ipynb", ".md", ".markdown", ".rst", ".rest"}  # .py files only when named


def expand_paths(paths: list[str]) -> list[str]:
    """``paths`` with each directory replaced by the notebooks and Markdown/reST pages under it
    (sorted; hidden directories and ``.ipynb_checkpoints`` left out)."""
    out = []
    for p in paths:
        if not os.path.isdir(p):
            out.append(p)
            continue
        found = []
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            found += [os.path.join(root, f) for f in files if os.path.splitext(f)[1].lower() in _IN_DIRECTORIES]
        out += sorted(found)
    return out


def read_document(path: str) -> Document:
    """The cells of the document at ``path``, read by its extension (``READERS``)."""
    ext = os.path.splitext(path)[1].lower()
    reader = READERS.get(ext)
    if reader is None:
        kinds = ", ".join(sorted(READERS))
        raise UnreadableDocument(f"cannot tell what kind of document this is (the extensions read are "
                                 f"{kinds})")
    if not os.path.isfile(path):
        raise UnreadableDocument("no such file")
    try:
        return reader(path)
    except UnicodeDecodeError as e:
        raise UnreadableDocument(f"not UTF-8 text ({e.reason})") from None


def document_report(path: str, check: bool = True, alias_torch: bool = True) -> dict:
    """Read, run and judge the document at ``path``; the report's entry for it (``report``).
    ``alias_torch=False``: run on the real ``torch`` (for the tests)."""
    try:
        doc = read_document(path)
    except UnreadableDocument as e:
        return document_entry(path, None, [], [], error=str(e))
    runs = run_document(doc, check=check, alias_torch=alias_torch)
    return document_entry(path, doc, runs, judge_document(doc, runs))


def _failed_entry(path: str, why: str) -> dict:
    entry = document_entry(path, None, [], [], error=f"could not be checked: {why}")
    entry["crashed"] = True
    return entry


def check_documents(paths: list[str], jobs: int = 1, check: bool = True, timeout: float = 600.0,
                    progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """``document_report`` for every path, each document in a process of its own (a fork of
    this warm one where possible: ``warm_worker``), ``jobs`` at a time, in the given order.
    ``progress(done, total, path)`` is called as each one ends."""
    entries: list = [None] * len(paths)
    total = len(paths)
    done = 0

    def finished(i: int, entry: dict) -> None:
        nonlocal done
        entries[i] = entry
        done += 1
        if progress is not None:
            progress(done, total, paths[i])

    if warm_worker.fork_available():
        warm_worker.warm_up()
        tasks = [warm_worker.Task(document_report, (os.path.abspath(p), check)) for p in paths]

        def on_done(i: int, f) -> None:
            if f.result is not None:
                f.result["path"] = paths[i]
                finished(i, f.result)
            else:
                finished(i, _failed_entry(paths[i], f.ending))

        warm_worker.run_tasks(tasks, jobs=jobs, timeout=timeout, on_done=on_done)
        return entries
    for i, p in enumerate(paths):  # no fork: a fresh interpreter per document
        code = ("import json, sys; from scalargrad.documents import document_report; "
                "print(json.dumps(document_report(sys.argv[1], sys.argv[2] == '1')))")
        try:
            proc = subprocess.run([sys.executable, "-c", code, os.path.abspath(p), "1" if check else "0"],
                                  capture_output=True, text=True, encoding="utf-8", timeout=timeout)
        except subprocess.TimeoutExpired:  # as a fork that overran: the document's entry says so
            finished(i, _failed_entry(p, f"timed out after {timeout:.0f} s"))
            continue
        try:
            entry = json.loads(proc.stdout.strip().splitlines()[-1])
            entry["path"] = p
        except (ValueError, IndexError):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            entry = _failed_entry(p, f"crashed: {tail}")
        finished(i, entry)
    return entries
