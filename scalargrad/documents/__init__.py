"""``scalargrad verify PATH...``: check a tutorial's own document against scalargrad.

A notebook (``.ipynb``), a Markdown (``.md``) or reStructuredText (``.rst``) page, or a Python
file with ``>>>`` examples in its docstrings (``.py``) is read into cells (``read_document``),
run on scalargrad cell by cell in one namespace (``execute``), every backward proved with
SymPy, and each cell judged against the output the document shows (``judge``).

Each run of a document is a process of its own (a fork of a warm one, ``warm_worker``). When a
cell drew from a random generator the document did not seed, the document is run twice more,
from other unseeded states of the generators, and the numbers that differ between the runs are
the ones its random draws explain (``compare``); a document that drew nothing is run once.
``document_report`` gives the result as plain data, the ``--json`` schema's document entry
(see ``report``).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

from .. import warm_worker
from .cells import Cell, Document, Expected, UnreadableDocument
from .doctests import read_python
from .execute import CellRun, run_document
from .judge import judge_document
from .markdown import read_markdown
from .notebook import read_notebook
from .report import document_entry
from .restructured import read_restructured

__all__ = ["read_document", "document_report", "check_documents", "expand_paths", "Cell", "Document",
           "Expected", "UnreadableDocument", "READERS", "RERUNS", "CELL_TIMEOUT", "DOCUMENT_TIMEOUT"]

READERS = {
    ".ipynb": read_notebook,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".rst": read_restructured,
    ".rest": read_restructured,
    ".py": read_python,
}

RERUNS = 2  # runs from other unseeded generator states, for a document that drew unseeded
CONFIRM_RERUNS = 4  # more of them when a cell of such a document differs: do its numbers vary after all?
CELL_TIMEOUT = 300.0  # seconds a cell may run
DOCUMENT_TIMEOUT = 1800.0  # seconds a document may run (each of its runs)
_GRACE = 30.0  # past the document's limit, a run that did not stop itself is killed

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
    if not os.path.exists(path):
        raise UnreadableDocument("no such file")
    if not os.path.isfile(path):
        raise UnreadableDocument("not a file")
    try:
        doc = reader(path)
    except UnicodeDecodeError as e:
        raise UnreadableDocument(f"not UTF-8 text ({e.reason})") from None
    except OSError as e:
        raise UnreadableDocument(f"cannot be read ({e.strerror or e})") from None
    _assumed_imports(doc)
    return doc


def _assumed_imports(doc: Document) -> None:
    """A page that uses ``torch`` without importing it (an earlier page of the book did) runs
    with ``import torch`` first, and its note says so."""
    if doc.kind == "python":
        return
    for cell in doc.cells:
        if cell.skip:
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        binds = uses = False
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(a.asname or a.name).split(".")[0] for a in node.names]
                binds |= "torch" in names
            elif isinstance(node, ast.Name) and node.id == "torch":
                if isinstance(node.ctx, ast.Store):
                    binds = True
                else:
                    uses = True
        if binds:
            return
        if uses:
            doc.prelude = "import torch\n"
            doc.note = "; ".join(n for n in (doc.note, "it uses torch without importing it: run with import torch "
                                             "first") if n)
            return


# ---------------------------------------------------------------- one run of a document


def run_cells(path: str, check: bool, alias_torch: bool, cell_timeout: float | None, doc_timeout: float | None,
              progress_path: str | None = None, last_cell: int | None = None) -> dict:
    """Run the document once, here (its cells up to ``last_cell``); ``{"runs": [cell
    records]}`` or ``{"error": why it cannot be read}``. With ``progress_path``, each cell's
    record is also appended there as it ends."""
    try:
        doc = read_document(path)
    except UnreadableDocument as e:
        return {"error": str(e)}
    progress = None
    if progress_path:
        def progress(index, run) -> None:
            with open(progress_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(run.as_dict()) + "\n")
    runs = run_document(doc, check=check, alias_torch=alias_torch, cell_timeout=cell_timeout,
                        doc_timeout=doc_timeout, progress=progress, last_cell=last_cell)
    return {"runs": [r.as_dict() for r in runs]}


def _partial(progress_path: str, ending: str) -> dict:
    """What a run that was killed (or crashed) left in its progress file, the cell it was in
    marked with how it ended."""
    runs = []
    if os.path.exists(progress_path):
        with open(progress_path, encoding="utf-8") as fh:
            runs = [json.loads(line) for line in fh if line.strip()]
    return {"runs": runs, "ended": ending}


def _entry(path: str, doc: Document | None, result: dict, reruns: list[dict]) -> dict:
    if doc is None or "error" in result:
        return document_entry(path, None, [], [], error=result.get("error", "cannot be read"))
    runs = [CellRun.from_dict(d) for d in result["runs"]]
    ended = result.get("ended")
    if ended:  # the run was killed: the cell it was in, then the rest, not run
        n = len(runs)
        runs += [CellRun() for _ in range(len(doc.cells) - n)]
        if n < len(doc.cells):
            runs[n] = CellRun(ran=True, timed_out=f"the check of the document {ended}")
    extra = [[CellRun.from_dict(d) for d in r.get("runs", [])] for r in reruns]
    verdicts = judge_document(doc, runs, extra)
    entry = document_entry(path, doc, runs, verdicts)
    if reruns:
        entry["note"] = "; ".join(n for n in (entry["note"], f"a cell draws from a random generator the document "
                                              "does not seed, or reads uninitialised memory: run "
                                              f"{1 + len(reruns)} times, from different unseeded states") if n)
    if ended:
        entry["crashed"] = True
    return entry


# ---------------------------------------------------------------- several runs, several documents


def _limits(cell_timeout, doc_timeout) -> tuple:
    return (CELL_TIMEOUT if cell_timeout is None else cell_timeout,
            DOCUMENT_TIMEOUT if doc_timeout is None else doc_timeout)


def document_report(path: str, check: bool = True, alias_torch: bool = True, cell_timeout: float | None = None,
                    doc_timeout: float | None = None, reruns: int = RERUNS) -> dict:
    """Read, run and judge the document at ``path``; the report's entry for it (``report``).
    Each run is a fork of this process where one can be made (else the first runs here and
    the reruns in fresh interpreters). ``alias_torch=False`` runs the cells here on the real
    ``torch`` (for the tests), reruns included."""
    [entry] = check_documents([path], jobs=1, check=check, cell_timeout=cell_timeout, doc_timeout=doc_timeout,
                              reruns=reruns, alias_torch=alias_torch)
    return entry


def check_documents(paths: list[str], jobs: int = 1, check: bool = True, cell_timeout: float | None = None,
                    doc_timeout: float | None = None, progress: Callable[[int, int, str], None] | None = None,
                    reruns: int = RERUNS, alias_torch: bool = True) -> list[dict]:
    """The report entry of every path, in the given order: each document run in a process of
    its own, ``jobs`` at a time, and run again ``reruns`` times if it drew from a generator it
    did not seed. ``progress(done, total, path)`` is called as each document is judged."""
    cell_timeout, doc_timeout = _limits(cell_timeout, doc_timeout)
    total = len(paths)
    done = 0
    docs: list = []
    for p in paths:
        try:
            docs.append(read_document(p))
        except UnreadableDocument as e:
            docs.append(str(e))
    entries: list = [None] * total

    def finish(i: int, result: dict, again: list[dict]) -> None:
        nonlocal done
        doc = docs[i] if isinstance(docs[i], Document) else None
        if doc is None:
            result = {"error": docs[i]}
        entries[i] = _entry(paths[i], doc, result, again)
        done += 1
        if progress is not None:
            progress(done, total, paths[i])

    todo = [i for i in range(total) if isinstance(docs[i], Document)]
    for i in range(total):
        if i not in todo:
            finish(i, {"error": docs[i]}, [])
    runner = _Runs(cell_timeout, doc_timeout, alias_torch)
    first = runner.run([(paths[i], check, None) for i in todo], jobs)
    again_for = [(i, r) for i, r in zip(todo, first) if reruns and _drew(r)]
    again = runner.run([(paths[i], False, _rerun_limits(r, doc_timeout)) for i, r in again_for
                        for _ in range(reruns)], jobs)
    again_for = [i for i, _ in again_for]
    extra = {i: again[k * reruns:(k + 1) * reruns] for k, i in enumerate(again_for)}
    # a number can depend on an unseeded draw and yet come out the same in a few runs (a loop
    # that doubles a random vector until its norm passes 1000 runs 9 or 10 times): where a cell
    # of such a document differs, more runs (up to that cell) say whether its numbers vary
    results = dict(zip(todo, first))
    confirm = [(i, last) for i in again_for if (last := _last_differing(paths[i], docs[i], results[i], extra[i]))]
    more = runner.run([(paths[i], False, _rerun_limits(results[i], doc_timeout, last)) for i, last in confirm
                       for _ in range(CONFIRM_RERUNS)], jobs)
    for k, (i, _) in enumerate(confirm):
        extra[i] = extra[i] + more[k * CONFIRM_RERUNS:(k + 1) * CONFIRM_RERUNS]
    for i, r in zip(todo, first):
        finish(i, r, extra.get(i, []))
    return entries


def _last_differing(path: str, doc: Document, result: dict, reruns: list[dict]) -> int:
    """The index of the last cell that differs in the judgement from these runs (0: none)."""
    cells = _entry(path, doc, result, reruns)["cells"]
    return max((c["index"] for c in cells if c["status"] == "differs"), default=0)


def _rerun_limits(result: dict, doc_timeout: float, upto: int | None = None) -> tuple:
    """A rerun runs the cells the first run finished (not one that timed out, nor any after;
    none after cell ``upto``), within twice the time they took (and a minute), at most the
    document's limit."""
    runs = result.get("runs", [])[:upto]
    last = 0
    for k, r in enumerate(runs, 1):
        if r.get("timed_out"):
            break
        if r.get("ran"):
            last = k
    seconds = sum(r.get("seconds", 0.0) for r in runs[:last])
    return last, min(doc_timeout, 2 * seconds + 60)


def _drew(result: dict) -> bool:
    return any(r.get("drew") or r.get("uninitialised") for r in result.get("runs", []))


class _Runs:
    """Runs of documents, each in a process of its own: forks of this one, or fresh
    interpreters where ``os.fork`` is missing; on PyTorch itself (the tests), here."""

    def __init__(self, cell_timeout: float, doc_timeout: float, alias_torch: bool) -> None:
        self.cell_timeout, self.doc_timeout, self.alias_torch = cell_timeout, doc_timeout, alias_torch

    def run(self, work: list[tuple[str, bool, tuple | None]], jobs: int) -> list[dict]:
        """Run each (path, check, (last cell, time limit) or None) once."""
        if not work:
            return []
        limits = [(None, self.doc_timeout) if lim is None else lim for _, _, lim in work]
        if not self.alias_torch:
            return [run_cells(os.path.abspath(p), c, False, self.cell_timeout, t, None, last)
                    for (p, c, _), (last, t) in zip(work, limits)]
        with tempfile.TemporaryDirectory(prefix="scalargrad-documents-") as tmp:
            progress = [os.path.join(tmp, f"progress-{k}.jsonl") for k in range(len(work))]
            if warm_worker.fork_available():
                warm_worker.warm_up()
                tasks = [warm_worker.Task(run_cells, (os.path.abspath(p), c, True, self.cell_timeout, t, progress[k],
                                                      last))
                         for k, ((p, c, _), (last, t)) in enumerate(zip(work, limits))]
                finished = warm_worker.run_tasks(tasks, jobs=jobs, timeout=max(t for _, t in limits) + _GRACE)
                return [f.result if f.result is not None else _partial(progress[k], _ending(f.ending))
                        for k, f in enumerate(finished)]
            return [self._fresh(os.path.abspath(p), c, progress[k], last, t)
                    for k, ((p, c, _), (last, t)) in enumerate(zip(work, limits))]

    def _fresh(self, path: str, check: bool, progress_path: str, last: int | None, limit: float) -> dict:
        code = ("import json, sys; from scalargrad.documents import run_cells; "
                "print(json.dumps(run_cells(sys.argv[1], sys.argv[2] == '1', True, float(sys.argv[3]), "
                "float(sys.argv[4]), sys.argv[5], int(sys.argv[6]) if sys.argv[6] else None)))")
        try:
            proc = subprocess.run([sys.executable, "-c", code, path, "1" if check else "0", str(self.cell_timeout),
                                   str(limit), progress_path, "" if last is None else str(last)],
                                  capture_output=True, text=True, encoding="utf-8", timeout=limit + _GRACE)
        except subprocess.TimeoutExpired:
            return _partial(progress_path, _ending(f"timed out after {limit + _GRACE:.0f} s"))
        try:
            return json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return _partial(progress_path, f"crashed: {tail}")


def _ending(ending: str) -> str:
    if ending.startswith("timed out"):
        return "was killed: " + ending
    return ending
