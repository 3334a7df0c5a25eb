#!/usr/bin/env python3
"""The held-out corpus (issue 23): fresh real programs, frozen before anyone codes against them.

The programs are extracted from fetched snapshots of real sources (bare git directories under
``/work/.mirror``; PyTorch's docstrings from the installed torch 2.13 package) and kept OUTSIDE
git, under ``/work/heldout`` (``--root``); only ``tools/heldout_manifest.json`` (what each
program is: repository, commit, path, cells or lines, the sha256 of the extracted text, the
edits made, the date frozen) and this script are committed.

Steps, each a subcommand::

    python tools/heldout.py candidates     # every candidate program of every source -> ROOT/candidates/
    python tools/heldout.py screen         # each candidate twice under PyTorch: runs, no download, same output
    python tools/heldout.py select         # draw and FREEZE the corpus (seeded): 60 English + 40 fresh
    python tools/heldout.py capture        # PyTorch's output on four kernel sets -> ROOT/captures/
    python tools/heldout.py restore        # on a new machine: the frozen programs from candidates/ -> programs/
    python tools/heldout.py verify         # re-extract every program from the snapshots, check its sha256
    python tools/heldout.py compare [--set en60|fresh40|all] [-j N]   # scalargrad run vs PyTorch
    python tools/heldout.py causes OUT.json   # what stopped programs, grouped (compare --out OUT.json)

How a program is made from its source (the manifest's ``kind``):

* ``file``: a whole Python file (a Sphinx-gallery tutorial, an example script), run as is.
* ``cells``: a notebook's code cells, or the Python cells of a Markdown page (d2l's PyTorch
  cells), run in order in one namespace as Jupyter runs them: each cell's last expression is
  displayed with ``repr`` (not when the line ends with ``;``); IPython's ``%``/``!`` lines are
  left out. The cells are stored in the program as a JSON list under a short harness.
* ``doctest``: the ``>>>`` lines of one docstring, run statement by statement as the
  interactive interpreter does (an expression's value is printed), after ``import torch``,
  ``from torch import nn`` and ``import torch.nn.functional as F`` (what PyTorch's docs assume).
* ``test``: one test function of a test file (micrograd's tests), called after the file's text
  as pytest calls it; ``<name> passed`` is printed when it returns.
* ``snippet``: a code block quoted in an issue thread (stored under ROOT/sources/, its address
  in the manifest).

A program runs in a directory of its own (its working directory), with ROOT/stubs on
``PYTHONPATH``: matplotlib, matplotlib_inline and IPython are no-op stand-ins (a program's
pictures are not compared, its printed text is), torchvision, PIL, pandas and requests raise
when used (so a program that needs them fails under PyTorch and is not drawn). d2l's programs
get ``d2l/torch.py`` of the same commit beside them. Edits to a program's text are listed in
the manifest (``edits``: exact replacements); none changes a size, an epoch count or a seed.

The screen keeps a candidate only if PyTorch runs it to the end within the time limit twice
with the same output (PyTorch 2.13 seeds its generator at random when a program does not:
an unseeded program has no single truth). The draw takes, per source, a seeded random sample
of what passed (quotas and caps in STRATA), in two sets (SETS): 60 from English sources and 40
fresh ones. Candidates already run under scalargrad before the draw are left out. The whole
draw is FROZEN in the manifest before scalargrad runs on it: nobody codes against it.

``compare`` runs each program with ``python -m scalargrad run --report-json`` in its
directory and classifies it: ``exact`` (stdout and warnings as PyTorch's on this machine or on
one of the other kernel sets), ``last digits`` (only numbers differ, each in its last printed
digits; the machine-dependent kernels the program uses are named), ``unsupported`` (scalargrad
stopped with ``Unsupported``: the name), ``differs`` (the first differing line), ``crashed``
(a Python error PyTorch did not raise, or a time-out: the raw error).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "tools" / "heldout_manifest.json"
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "reference"))

import api_census  # noqa: E402 - beside this file

MIRROR = Path("/work/.mirror")
TIMEOUT = 300  # seconds a program may take under PyTorch (screen, capture)
SG_TIMEOUT = 900  # under scalargrad
SELECT_SEED = 2313
OTHER_CPUS = (
    {"ATEN_CPU_CAPABILITY": "default"},
    {"ATEN_CPU_CAPABILITY": "avx2"},
    {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
)

# The two parts of issue 23's figure: 60 programs from English sources (PyTorch's docs, micrograd's
# tests, d2l's English book, pytorch/examples, issue threads) and 40 fresh ones (Korean, Chinese and
# Japanese courses and translations, PyTorch's docstring examples of tensor ops).
SETS = {"en60": 60, "fresh40": 40}
# stratum: (repository, language, quota, set, cap). Each stratum is screened in its own seeded random
# order until `quota` candidates have passed or `cap` have been screened (the cost is bounded); a quota
# of None fills its set to its size (screened last, after the set's other strata). The fillers' caps
# were set by the time left in session 3 (a screen costs ~15 s of a busy core), not by any result:
# 66 and 36 for the draw frozen at 13:49 UTC, then 142 (where the screen was stopped) and 80.
STRATA = {
    "issues": ("pytorch/pytorch", "en", 12, "en60", 12),
    "micrograd-tests": ("karpathy/micrograd", "en", 2, "en60", 2),
    "examples": ("pytorch/examples", "en", 2, "en60", 14),
    "d2l-en": ("d2l-ai/d2l-en", "en", 4, "en60", 24),
    "docs-en": ("pytorch/pytorch", "en", None, "en60", 142),
    "zerotoall-ko": ("deeplearningzerotoall/PyTorch", "ko", 8, "fresh40", 30),
    "tutorials-kr": ("PyTorchKorea/tutorials-kr", "ko", 4, "fresh40", 131),
    "handbook-zh": ("zergtant/pytorch-handbook", "zh", 4, "fresh40", 14),
    "pytorch-book-zh": ("chenyuntc/pytorch-book", "zh", 2, "fresh40", 5),
    "d2l-zh": ("d2l-ai/d2l-zh", "zh", 2, "fresh40", 101),
    "tutorials-jp": ("YutaroOgawa/pytorch_tutorials_jp", "ja", 1, "fresh40", 43),
    "entering-jp": ("convergence-lab/Entering-PyTorch", "ja", 1, "fresh40", 2),
    "intro-jp": ("yuji0001/2020Introduction_of_Pytorch", "ja", 1, "fresh40", 2),
    "docstrings": ("pytorch/pytorch", "en", None, "fresh40", 80),
}
# PyTorch's docstrings of these modules are its English docs of nn, optim, autograd and data
# (stratum docs-en); the others (tensor ops: _torch_docs, _tensor_docs, functional, ...) are docstrings.
DOCS_EN = ("torch/nn/", "torch/optim/", "torch/autograd/", "torch/utils/")
SCREEN_TIMEOUT = 120  # seconds under PyTorch when screening the strata added in session 3 (300 before)


def seen_ids(root: Path) -> list[str]:
    """Candidates already run under scalargrad before this draw (ROOT/measure-*.json): not held out."""
    seen = set()
    for f in sorted(root.glob("measure-*.json")):
        data = json.loads(f.read_text())
        seen.update(r["id"] for r in (data if isinstance(data, list) else data.get("results", [])) if "id" in r)
    return sorted(seen)


# ---------------------------------------------------------------------------------------------
# harnesses
# ---------------------------------------------------------------------------------------------

CELLS_HARNESS = '''\
# held-out program {id}: {origin}
# The code cells below run in order in one namespace, as Jupyter runs them: a cell's last
# expression is displayed with repr() unless the line ends with ';'. (tools/heldout.py)
import ast as _ast
import json as _json


def _run_cell(_source, _name):
    _tree = _ast.parse(_source, _name)
    _last = None
    if _tree.body and isinstance(_tree.body[-1], _ast.Expr) and not _source.rstrip().endswith(";"):
        _last = _tree.body.pop()
    exec(compile(_tree, _name, "exec"), globals())
    if _last is not None:
        _value = eval(compile(_ast.Expression(_last.value), _name, "eval"), globals())
        if _value is not None:
            print(repr(_value))


_CELLS = _json.loads({cells!r})
for _i, _cell in enumerate(_CELLS):
    _run_cell(_cell, "<cell %d>" % (_i + 1))
'''

DOCTEST_HARNESS = '''\
# held-out program {id}: {origin}
# The docstring's >>> lines run statement by statement as the interactive interpreter runs
# them (an expression's value is printed), after the imports PyTorch's docs assume. (tools/heldout.py)
import ast as _ast

import torch
import torch.nn.functional as F
from torch import nn

_SOURCE = {source!r}
for _node in _ast.parse(_SOURCE, "<doctest>").body:
    exec(compile(_ast.Interactive([_node]), "<doctest>", "single"), globals())
'''

TEST_HARNESS = '''

# held-out program {id}: {origin}
# The test function is called as pytest calls it; its result is printed. (tools/heldout.py)
if __name__ == "__main__":
    {test}()
    print("{test} passed")
'''

PLOT_STUB = '''\
"""Held-out stand-in for {name}: pictures are not compared; every use does nothing."""


class _Nothing:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Nothing()

    def __call__(self, *args, **kwargs):
        return _Nothing()

    def __iter__(self):
        return iter(())

    def __getitem__(self, key):
        return _Nothing()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def subplots(*args, **kwargs):
    return _Nothing(), _Nothing()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Nothing()
'''

ABSENT_STUB = '''\
"""Held-out stand-in for {name}: not installed here; importing works (d2l's library imports it),
any use raises."""


class NotInstalled(AttributeError):
    """An AttributeError, so that ``from {name} import sub`` still finds a stand-in submodule."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotInstalled("{name} is not installed (held-out corpus: a program that needs it is not drawn)")
'''

PLOT_MODULES = ["matplotlib", "matplotlib.pyplot", "matplotlib_inline", "matplotlib_inline.backend_inline",
                "IPython", "IPython.display", "seaborn"]
ABSENT_MODULES = ["torchvision", "torchvision.transforms", "torchvision.datasets", "torchvision.models",
                  "torchvision.utils", "PIL", "PIL.Image", "pandas", "requests", "torchtext", "torchaudio",
                  "tqdm", "sklearn", "scipy", "tensorboard", "torch_tensorrt"]


def write_stubs(root: Path) -> Path:
    stubs = root / "stubs"
    for names, text in ((PLOT_MODULES, PLOT_STUB), (ABSENT_MODULES, ABSENT_STUB)):
        for name in names:
            parts = name.split(".")
            d = stubs.joinpath(*parts)
            d.mkdir(parents=True, exist_ok=True)
            (d / "__init__.py").write_text(text.format(name=name), encoding="utf-8")
    return stubs


# ---------------------------------------------------------------------------------------------
# extraction
# ---------------------------------------------------------------------------------------------

def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_MAGIC = re.compile(r"^\s*(%|!)")


def code_cell(text: str) -> str:
    """A cell without IPython's lines (a ``%%`` cell magic drops the cell)."""
    if text.lstrip().startswith("%%") and not text.lstrip().startswith("%%tab"):
        return ""
    return "\n".join(line for line in text.splitlines() if not _MAGIC.match(line) and
                     not line.strip().startswith(("#@tab", "%%tab"))).strip("\n")


def notebook_cells(text: str) -> list[str]:
    return [c for c in (code_cell(s) for s in api_census.notebook_snippets(text)) if c.strip()]


def markdown_cells(text: str, d2l: bool) -> list[str]:
    cells = []
    for s in api_census.markdown_snippets(text, d2l=d2l):
        c = code_cell(s)
        if c.strip() and api_census.parses(c):
            cells.append(c)
    return cells


class Snapshot:
    """One fetched repository, read by path at its commit."""

    cache: dict = {}

    def __init__(self, repo: str) -> None:
        self.repo = repo
        self.mirror = api_census.Mirror(MIRROR / repo.replace("/", "+") / "repo")
        self.commit = self.mirror.commit

    @classmethod
    def of(cls, repo: str) -> Snapshot:
        if repo not in cls.cache:
            cls.cache[repo] = cls(repo)
        return cls.cache[repo]

    def files(self, prefix: str = "") -> list[str]:
        return self.mirror.files((prefix,))

    def read(self, path: str) -> str:
        return self.mirror.read_all([path])[path].decode("utf-8", "replace")


def torch_root() -> Path:
    import importlib.util

    return Path(importlib.util.find_spec("torch").origin).parent


def torch_commit() -> str:
    import torch

    return torch.version.git_version


def extract(entry: dict) -> tuple[str, list[str] | str]:
    """(the extracted text, what the program is made of) of a manifest entry, from its source."""
    kind, path = entry["kind"], entry["path"]
    if kind == "doctest":
        text = (torch_root() / path.removeprefix("torch/")).read_text(encoding="utf-8")
        block = docstring_at(text, entry["line"])
        code = "\n".join(api_census.doctest_blocks(block))
        return code, code
    if kind == "snippet":
        text = (Path(entry["stored"])).read_text(encoding="utf-8")
        return text, text
    snap = Snapshot.of(entry["repo"])
    if snap.commit != entry["commit"]:
        raise SystemExit(f"{entry['id']}: the snapshot of {entry['repo']} is at {snap.commit}, "
                         f"the manifest at {entry['commit']}")
    text = snap.read(path)
    if kind in ("file", "test"):
        return text, text
    cells = notebook_cells(text) if path.endswith(".ipynb") else markdown_cells(text, d2l="d2l" in entry["repo"])
    return json.dumps(cells, ensure_ascii=False), cells


def docstring_at(module_text: str, line: int) -> str:
    for node in ast.walk(ast.parse(module_text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno == line:
            return api_census._dedent_docstring(node.value)
    raise SystemExit(f"no string constant at line {line}")


def render(entry: dict, made_of) -> str:
    """The program's text: the extracted code under its harness, with the recorded edits."""
    origin = f"{entry['repo']}@{entry['commit'][:12]}:{entry['path']}" if entry["commit"] else entry["path"]
    if entry["kind"] == "cells":
        text = CELLS_HARNESS.format(id=entry["id"], origin=origin,
                                    cells=json.dumps(made_of, ensure_ascii=False))
    elif entry["kind"] == "doctest":
        text = DOCTEST_HARNESS.format(id=entry["id"], origin=f"{origin} line {entry['line']} ({entry['object']})",
                                      source=made_of)
    elif entry["kind"] == "test":
        text = made_of + TEST_HARNESS.format(id=entry["id"], origin=origin, test=entry["test"])
    else:
        text = made_of
    for old, new in entry.get("edits", []):
        if old not in text:
            raise SystemExit(f"{entry['id']}: edit {old!r} does not apply")
        text = text.replace(old, new)
    return text


def install(entry: dict, made_of, directory: Path) -> None:
    """The program's directory: main.py, and d2l's library (micrograd's package) of the same commit
    where it uses it."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / "main.py").write_text(render(entry, made_of), encoding="utf-8")
    if "d2l" in entry["repo"]:
        lib = Snapshot.of(entry["repo"]).read("d2l/torch.py")
        (directory / "d2l").mkdir()
        (directory / "d2l" / "__init__.py").write_text("", encoding="utf-8")
        (directory / "d2l" / "torch.py").write_text(lib, encoding="utf-8")
    if entry["repo"] == "karpathy/micrograd":  # its tests import the package of the same commit
        snap = Snapshot.of(entry["repo"])
        (directory / "micrograd").mkdir()
        for path in snap.files("micrograd/"):
            (directory / path).write_text(snap.read(path), encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# candidates
# ---------------------------------------------------------------------------------------------

def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[-60:]


def candidate_entries(root: Path) -> list[dict]:
    out = []

    def add(stratum, repo, commit, path, kind, **extra):
        cid = f"{stratum}:{slug(path)}" + (f":{extra['line']}" if "line" in extra else "") + \
            (f":{extra['test']}" if "test" in extra else "")
        if stratum == "docstrings" and path.startswith(DOCS_EN):
            stratum = "docs-en"  # same id as before the split (the screen's results are kept)
        out.append({"id": cid, "stratum": stratum, "repo": repo, "commit": commit, "path": path, "kind": kind,
                    "language": STRATA[stratum][1], **extra})

    def snapshot_files(stratum, repo, pick):
        snap = Snapshot.of(repo)
        for path in snap.files():
            kind = pick(path)
            if kind:
                add(stratum, repo, snap.commit, path, kind)

    snapshot_files("tutorials-kr", "PyTorchKorea/tutorials-kr", lambda p: "file" if p.endswith(".py") and p.split(
        "/")[0] in ("beginner_source", "intermediate_source", "recipes_source", "advanced_source") else None)
    snapshot_files("tutorials-jp", "YutaroOgawa/pytorch_tutorials_jp",
                   lambda p: "cells" if p.startswith("notebook/") and p.endswith(".ipynb") else None)
    snapshot_files("d2l-zh", "d2l-ai/d2l-zh", lambda p: "cells" if p.startswith("chapter_") and p.endswith(".md")
                   and not p.endswith("_origin.md") else None)

    def zerotoall(p):
        if p.endswith(".py"):
            return "file"
        if p.endswith(".ipynb") and "/" not in p:
            return "cells"  # the top-level labs have no .py twin
        return None

    snapshot_files("zerotoall-ko", "deeplearningzerotoall/PyTorch", zerotoall)
    snapshot_files("handbook-zh", "zergtant/pytorch-handbook", lambda p: "cells" if p.endswith(".ipynb") else None)
    snapshot_files("pytorch-book-zh", "chenyuntc/pytorch-book",
                   lambda p: "cells" if p.endswith(".ipynb") and p.startswith("Chapter") else None)
    snapshot_files("entering-jp", "convergence-lab/Entering-PyTorch",
                   lambda p: "cells" if p.startswith("book/pytorch/") and p.endswith(".md") else None)
    snapshot_files("intro-jp", "yuji0001/2020Introduction_of_Pytorch",
                   lambda p: "cells" if p.endswith(".ipynb") and not p.startswith(".") else None)
    snapshot_files("d2l-en", "d2l-ai/d2l-en", lambda p: "cells" if p.startswith("chapter_") and p.endswith(".md")
                   and not p.endswith("_origin.md") else None)
    # micrograd's tests: one program per test function, run as pytest would call it
    snap = Snapshot.of("karpathy/micrograd")
    for path in snap.files("test/"):
        if path.endswith(".py"):
            for node in ast.parse(snap.read(path)).body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                    add("micrograd-tests", "karpathy/micrograd", snap.commit, path, "test", test=node.name)
    snapshot_files("examples", "pytorch/examples",
                   lambda p: "file" if p.endswith("main.py") and p.count("/") == 1 else None)
    # PyTorch's docstrings: one program per docstring with >>> lines, in the user-facing modules
    package, commit = torch_root(), torch_commit()
    files = ["_torch_docs.py", "_tensor_docs.py", "functional.py", "nn/functional.py", "nn/init.py",
             "autograd/__init__.py", "autograd/function.py", "autograd/functional.py", "autograd/grad_mode.py",
             "utils/data/dataset.py", "utils/data/sampler.py", "utils/data/dataloader.py", "optim/lr_scheduler.py",
             "optim/optimizer.py", "nn/utils/clip_grad.py", "nn/utils/convert_parameters.py", "testing/_comparison.py",
             "random.py", "serialization.py", "_tensor.py"]
    files += [f"nn/modules/{p.name}" for p in sorted((package / "nn" / "modules").glob("*.py"))]
    for rel in files:
        text = (package / rel).read_text(encoding="utf-8")
        for node, name in docstring_nodes(text):
            block = api_census._dedent_docstring(node.value)
            code = "\n".join(api_census.doctest_blocks(block))
            if code.strip():
                add("docstrings", "pytorch/pytorch", commit, "torch/" + rel, "doctest", line=node.lineno, object=name)
    # code quoted in issue threads (schedulers...), stored by hand with their addresses
    listed = root / "sources" / "issues.json"
    for s in json.loads(listed.read_text()) if listed.exists() else []:
        add("issues", s["repo"], s.get("commit", ""), s["url"], "snippet", stored=str(root / "sources" / "issues" /
                                                                                     s["file"]), title=s["title"],
            edits=s.get("edits", []))
        out[-1]["id"] = "issues:" + s["file"].removesuffix(".py")
    return out


def docstring_nodes(text: str):
    """(string constant, the name it documents) for each docstring or add_docstr text with >>>."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            doc = node.body[0] if node.body else None
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str) \
                    and ">>>" in doc.value.value:
                yield doc.value, node.name
        elif isinstance(node, ast.Call) and node.args and len(node.args) >= 2:
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if fname in ("add_docstr", "add_docstr_all", "_add_docstr"):
                target = ast.unparse(node.args[0])
                for arg in node.args[1:]:
                    for c in ast.walk(arg):
                        if isinstance(c, ast.Constant) and isinstance(c.value, str) and ">>>" in c.value:
                            yield c, target


# ---------------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------------

def base_env(root: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root / "stubs")
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONHASHSEED"] = "0"
    # no network: a download fails at once instead of hanging
    for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[k] = "http://127.0.0.1:9"
    env.pop("PYTHONWARNINGS", None)
    env.pop("ATEN_CPU_CAPABILITY", None)
    env.pop("MKL_CBWR", None)
    return env


def run_torch(program: Path, root: Path, extra_env: dict | None = None, timeout: int = TIMEOUT):
    """(stdout, stderr, ok, seconds) of the program under real PyTorch (reference/run_with_torch's
    child: warnings one line each, the last line of an error; paths normalised)."""
    import run_with_torch

    env = base_env(root)
    env.update(extra_env or {})
    start = time.time()
    try:
        proc = subprocess.run([sys.executable, str(REPO / "reference" / "run_with_torch.py"), "--child",
                               str(program)], capture_output=True, env=env, timeout=timeout, cwd=program.parent)
    except subprocess.TimeoutExpired:
        return "", f"timed out after {timeout} s", False, time.time() - start
    out = run_with_torch.normalise(proc.stdout.decode("utf-8", "replace"), str(program))
    err = run_with_torch.normalise(proc.stderr.decode("utf-8", "replace"), str(program))
    return out, err, proc.returncode == 0, time.time() - start


def run_scalargrad(program: Path, root: Path, timeout: int = SG_TIMEOUT, source: Path = REPO) -> dict:
    """``python -m scalargrad run --report-json`` in the program's directory, with scalargrad
    from ``source`` (this worktree, or an exported older commit)."""
    report = program.parent / ".scalargrad-report.json"
    if report.exists():
        report.unlink()
    env = base_env(root)
    env["PYTHONPATH"] = os.pathsep.join([str(source), env["PYTHONPATH"]])
    start = time.time()
    try:
        proc = subprocess.run([sys.executable, "-m", "scalargrad", "run", "--report-json", str(report), str(program)],
                              capture_output=True, env=env, timeout=timeout, cwd=program.parent)
        out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
        code = proc.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err, code = f"timed out after {timeout} s", None
    rep = json.loads(report.read_text()) if report.exists() else {}
    return {"stdout": out, "stderr": err, "status": code, "report": rep, "seconds": time.time() - start}


def pool_map(fn, items, jobs):
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        yield from ex.map(fn, items)


# ---------------------------------------------------------------------------------------------
# subcommands
# ---------------------------------------------------------------------------------------------

def cmd_candidates(args) -> int:
    root = args.root
    write_stubs(root)
    entries = candidate_entries(root)
    made = []
    for e in entries:
        try:
            text, made_of = extract(e)
        except Exception as exc:  # an unreadable candidate is left out, said
            print(f"{e['id']}: not extracted: {exc}", file=sys.stderr)
            continue
        if not text.strip() or (e["kind"] == "cells" and not made_of):
            continue
        if "torch" not in render(e, made_of):
            continue
        e["sha256"] = sha256(text)
        install(e, made_of, root / "candidates" / e["id"].replace(":", "__"))
        made.append(e)
    (root / "candidates.json").write_text(json.dumps(made, ensure_ascii=False, indent=1), encoding="utf-8")
    counts = {}
    for e in made:
        counts[e["stratum"]] = counts.get(e["stratum"], 0) + 1
    print(f"{len(made)} candidates: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def missing_imports(text: str, directory: Path, root: Path) -> str:
    """The first module a program (or its cells) imports that is not installed here, or ""
    (the stand-ins that raise when used count as not installed)."""
    import importlib.util

    codes = [text]
    m = re.search(r"^_CELLS = _json\.loads\((.*)\)$", text, re.M)
    if m:
        codes = json.loads(ast.literal_eval(m.group(1)))
    absent = set(ABSENT_MODULES)
    for code in codes:
        tree = api_census.parse_salvaging(code)
        for node in ast.walk(tree) if tree else ():
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
            for name in names:
                top = name.split(".")[0]
                if name in absent or top in absent:
                    return name
                if (directory / top).exists() or (directory / f"{top}.py").exists() or top in PLOT_MODULES:
                    continue
                try:
                    if importlib.util.find_spec(top) is None:
                        return name
                except (ImportError, ValueError):
                    return name
    return ""


def draw_order(entries: list[dict], root: Path) -> dict[str, list[dict]]:
    """Each stratum's candidates in the seeded random order the draw takes them in (a generator of
    its own per stratum, so adding a stratum changes no other's order), without the ones already
    run under scalargrad (``seen_ids``)."""
    seen = set(seen_ids(root))
    order = {}
    for stratum in STRATA:
        pool = sorted((e for e in entries if e["stratum"] == stratum and e["id"] not in seen), key=lambda e: e["id"])
        random.Random(f"{SELECT_SEED}:{stratum}").shuffle(pool)
        order[stratum] = pool
    return order


def passes(result: dict | None) -> bool:
    """Ran to the end twice with the same output, and printed something to compare."""
    return bool(result and result.get("ok") and result.get("lines", 0) > 0)


def strata_in_order():
    """The strata with a fixed quota first, then each set's filler (its quota is what is left)."""
    return [k for k, v in STRATA.items() if v[2] is not None] + [k for k, v in STRATA.items() if v[2] is None]


def take(pool: list[dict], screen: dict, quota: int, cap: int) -> tuple[list[dict], int, bool]:
    """(the first `quota` passing candidates in draw order, how many were looked at, whether the
    draw is complete: quota met, cap reached or pool exhausted with every one before screened)."""
    taken, looked = [], 0
    for e in pool:
        if len(taken) == quota or looked == cap:
            break
        if e["id"] not in screen:
            return taken, looked, False
        looked += 1
        if passes(screen[e["id"]]):
            taken.append(e)
    return taken, looked, True


def quotas(order: dict, screen: dict) -> dict[str, int]:
    """Each stratum's quota; a filler's is its set's size less what the set's other strata drew."""
    out, drawn = {}, {k: 0 for k in SETS}
    for stratum in strata_in_order():
        _, _, quota, group, cap = STRATA[stratum]
        if quota is None:
            quota = SETS[group] - drawn[group]
        out[stratum] = quota
        drawn[group] += len(take(order[stratum], screen, quota, cap)[0])
    return out


def cmd_screen(args) -> int:
    """Screens each stratum's candidates in draw order until its quota has passed or its cap is
    reached (taking the first passing ones in a random order is a random sample of those that pass)."""
    root = args.root
    entries = json.loads((root / "candidates.json").read_text())
    screen_path = root / "screen.json"
    done = json.loads(screen_path.read_text()) if screen_path.exists() else {}
    outs = root / "screen-out"
    outs.mkdir(exist_ok=True)

    def one(e):
        prog = root / "candidates" / e["id"].replace(":", "__") / "main.py"
        absent = missing_imports(prog.read_text(encoding="utf-8"), prog.parent, root)
        if absent:  # decided without running it: it cannot run here
            return e["id"], {"ok": False, "why": f"imports {absent} (not installed)", "seconds": 0.0}
        o1, e1, ok1, s1 = run_torch(prog, root, timeout=args.timeout)
        if not ok1:
            return e["id"], {"ok": False, "why": (e1.strip().splitlines() or ["?"])[-1][:200], "seconds": s1,
                             "timeout": args.timeout}
        o2, e2, ok2, _ = run_torch(prog, root, timeout=args.timeout)
        same = ok2 and (o1, e1) == (o2, e2)
        if same:  # the capture's run on this machine (same program, same environment)
            (outs / (e["id"].replace(":", "__") + ".json")).write_text(json.dumps(
                {"stdout": o1, "stderr": e1, "ok": True, "seconds": round(s1, 1)}, ensure_ascii=False))
        return e["id"], {"ok": same, "why": "" if same else "output differs between two runs", "seconds": s1,
                         "lines": len(o1.splitlines()), "timeout": args.timeout}

    order = draw_order(entries, root)
    for stratum in strata_in_order():
        if args.stratum and stratum not in args.stratum:
            continue
        pool, cap = order[stratum], STRATA[stratum][4]
        while True:
            quota = quotas(order, done)[stratum]
            taken, looked, complete = take(pool, done, quota, cap)
            if complete:
                break
            need = quota - len(taken)
            batch = [e for e in pool[:cap] if e["id"] not in done][:max(need, args.jobs)]
            for cid, res in pool_map(one, batch, args.jobs):
                done[cid] = res
                print(f"{cid}: {'ok' if passes(res) else res.get('why') or 'prints nothing'} ({res['seconds']:.0f} s)",
                      flush=True)
                screen_path.write_text(json.dumps(done, indent=1), encoding="utf-8")  # a stop loses nothing
        print(f"== {stratum}: {len(taken)} of quota {quota} passed, {looked} screened in draw order "
              f"(cap {cap}, {len(pool)} candidates)", flush=True)
    return 0


def cmd_select(args) -> int:
    root = args.root
    if MANIFEST.exists() and not (args.force or args.extend):
        raise SystemExit(f"{MANIFEST} exists: the corpus is frozen (--extend after raising a cap, --force to redraw)")
    before = json.loads(MANIFEST.read_text()) if args.extend else None
    entries = json.loads((root / "candidates.json").read_text())
    screen = json.loads((root / "screen.json").read_text())
    order = draw_order(entries, root)
    quota = quotas(order, screen)
    chosen, stats = [], {}
    for stratum in strata_in_order():
        taken, looked, complete = take(order[stratum], screen, quota[stratum], STRATA[stratum][4])
        if not complete:
            raise SystemExit(f"{stratum}: not screened far enough in draw order: run screen first")
        stats[stratum] = {"quota": quota[stratum], "drawn": len(taken), "screened_in_order": looked,
                          "pool": len(order[stratum])}
        chosen += sorted(taken, key=lambda e: e["id"])
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    frozen_at = {}
    if before:  # a larger cap only lengthens each stratum's prefix: every program frozen before is kept
        frozen_at = {p["id"]: p["date_frozen"] for p in before["programs"]}
        lost = set(frozen_at) - {e["id"] for e in chosen}
        if lost:
            raise SystemExit(f"--extend would drop programs frozen before: {sorted(lost)}")
    manifest = {
        "schema": "scalargrad-heldout/2",
        "about": "Held-out real programs (issue 23), frozen before scalargrad ran on them; the programs live "
                 "outside git (tools/heldout.py).",
        "select_seed": SELECT_SEED, "order": "random.Random(f'{select_seed}:{stratum}').shuffle(ids sorted)",
        "date_frozen": sorted({today, *frozen_at.values()}), "python": sys.version.split()[0],
        "torch": torch_commit(),
        "screen_timeout_seconds": {"before session 3": TIMEOUT, "session 3": SCREEN_TIMEOUT},
        "sets": SETS,
        "strata": {k: {"repository": v[0], "language": v[1], "quota": v[2], "set": v[3], "cap": v[4],
                       **stats[k]} for k, v in STRATA.items()},
        "excluded_seen": {"why": "run under scalargrad before this draw (measure-*.json of an earlier session)",
                          "ids": seen_ids(root)},
        "programs": [{**{k: v for k, v in e.items() if k != "stored"}, "set": STRATA[e["stratum"]][3],
                      "date_frozen": frozen_at.get(e["id"], today)} for e in chosen],
    }
    MANIFEST.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for e in chosen:
        if e["id"] in frozen_at:
            continue  # its directory holds its captures' and runs' program already
        src = root / "candidates" / e["id"].replace(":", "__")
        dst = root / "programs" / e["id"].replace(":", "__")
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst)
    counts = {g: sum(p["set"] == g for p in manifest["programs"]) for g in SETS}
    print(f"{len(chosen)} programs drawn ({counts}) -> {MANIFEST.relative_to(REPO)}")
    return 0


def manifest_programs(which: str = "all") -> list[dict]:
    m = json.loads(MANIFEST.read_text())
    return [p for p in m["programs"] if which == "all" or p["set"] == which]


def installed(root: Path, programs: list[dict]) -> list[dict]:
    """The programs present under ROOT/programs/; the absent ones are named on stderr (a new machine
    without an issue snippet's stored source: see ``restore``)."""
    here = [e for e in programs if (root / "programs" / e["id"].replace(":", "__") / "main.py").exists()]
    for e in programs:
        if e not in here:
            print(f"{e['id']}: not installed under {root / 'programs'}: left out", file=sys.stderr)
    return here


def cmd_restore(args) -> int:
    """Installs the frozen programs on a new machine (after ``candidates``): each manifest program's
    candidate directory is copied to ROOT/programs/ when its text's sha256 is the manifest's. Nothing
    is drawn or selected; a program whose source is missing (an issue snippet not stored under
    ROOT/sources/issues/) or differs is named and left out."""
    root = args.root
    made = {e["id"]: e for e in json.loads((root / "candidates.json").read_text())}
    missing = 0
    for e in manifest_programs():
        name = e["id"].replace(":", "__")
        c = made.get(e["id"])
        if c is None or c.get("sha256") != e["sha256"]:
            missing += 1
            print(f"{e['id']}: {'no candidate' if c is None else 'candidate differs from the manifest'}: not restored")
            continue
        dst = root / "programs" / name
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(root / "candidates" / name, dst)
    print(f"{len(manifest_programs()) - missing} programs restored, {missing} not")
    return 1 if missing else 0


def cmd_verify(args) -> int:
    bad = 0
    for e in manifest_programs():
        if e["kind"] == "snippet":
            e = {**e, "stored": str(args.root / "sources" / "issues" / (e["id"].split(":", 1)[1] + ".py"))}
            if not Path(e["stored"]).exists():
                bad += 1
                print(f"{e['id']}: its source is not stored ({e['stored']})")
                continue
        text, made_of = extract(e)
        prog = args.root / "programs" / e["id"].replace(":", "__") / "main.py"
        # the bytes, not read_text: a source with CRLF line ends keeps them in its program
        ok = sha256(text) == e["sha256"] and prog.exists() and prog.read_bytes().decode("utf-8") == render(e, made_of)
        if not ok:
            bad += 1
            print(f"{e['id']}: does not match the manifest")
    print(f"{len(manifest_programs()) - bad} programs match the manifest, {bad} do not")
    return 1 if bad else 0


def cmd_capture(args) -> int:
    root = args.root
    caps = root / "captures"
    caps.mkdir(exist_ok=True)
    todo = [e for e in installed(root, manifest_programs())
            if args.again or not (caps / (e["id"].replace(":", "__") + ".json")).exists()]

    def one(e):
        prog = root / "programs" / e["id"].replace(":", "__") / "main.py"
        first = root / "screen-out" / (e["id"].replace(":", "__") + ".json")
        if first.exists():  # the screen's first run: this program, this machine, this environment
            f = json.loads(first.read_text())
            out, err, ok, secs = f["stdout"], f["stderr"], f["ok"], f["seconds"]
        else:
            out, err, ok, secs = run_torch(prog, root)
        others = []
        text = prog.read_text(encoding="utf-8")
        skip = args.kernel_programs_only and not any(re.search(pat, text) for pat in MACHINE_KERNELS.values())
        for env in () if skip else OTHER_CPUS:
            o, r, _, _ = run_torch(prog, root, env)
            if (o, r) != (out, err) and not any((x["stdout"], x["stderr"]) == (o, r) for x in others):
                label = " ".join(f"{k}={v}" for k, v in env.items())
                others.append({"environment": label, "stdout": o, "stderr": r})
        cap = {"id": e["id"], "stdout": out, "stderr": err, "ok": ok, "seconds": round(secs, 1),
               "machine_dependent": bool(others), "other_cpu": others, "other_cpus_run": not skip}
        (caps / (e["id"].replace(":", "__") + ".json")).write_text(json.dumps(cap, ensure_ascii=False, indent=1))
        return e["id"], cap

    for i, (cid, cap) in enumerate(pool_map(one, todo, args.jobs)):
        print(f"[{i + 1}/{len(todo)}] {cid}: {'ok' if cap['ok'] else 'FAILED'} "
              f"{'machine-dependent' if cap['machine_dependent'] else ''}", flush=True)
    return 0


# the kernels whose last bits differ between processors in PyTorch (README, "How faithful it is"), by the
# names a program uses them through
MACHINE_KERNELS = {
    "exp/log/sin/cos/tanh/sqrt (MKL VML)": r"\b(exp|log|log1p|expm1|sin|cos|tanh|sqrt|rsqrt)\b|\*\*\s*0?\.5",
    "other transcendental functions (MKL VML / SLEEF)":
        r"\b(a?sinh?|a?cosh?|a?tanh?|atan2?|arc\w+|erfc?|erfinv|exp2|log2|log10|sinc|logit|logaddexp2?|xlogy|hypot)\b",
    "sigmoid/pow (SLEEF)": r"\b(sigmoid|Sigmoid|pow|logsigmoid|BCELoss|binary_cross_entropy)\b|\*\*",
    "softmax/log_softmax": r"\b(softmax|log_softmax|Softmax|LogSoftmax|cross_entropy|CrossEntropyLoss|NLLLoss)\b",
    "matrix products (MKL sgemm/sgemv/sdot)": r"\b(mm|matmul|bmm|mv|dot|Linear|linear|LSTM|GRU|RNN|einsum)\b|@",
    "convolution (oneDNN / MKL)": r"\b(conv\d?d|Conv\dd|conv_transpose\dd)\b",
    "optimizers with a square root (Adam, RMSprop, Adagrad)": r"\b(Adam|AdamW|RMSprop|Adagrad|Adadelta)\b",
    "normalisation (vectorised moments)": r"\b(BatchNorm\dd|LayerNorm|batch_norm|layer_norm|var|std)\b",
}

_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|\bnan\b|-?\binf\b")


def last_digits_only(want: str, got: str) -> bool:
    """Whether the texts differ only in numbers, each within a few units of its last printed digit."""
    wl, gl = want.splitlines(), got.splitlines()
    if len(wl) != len(gl):
        return False
    for a, b in zip(wl, gl):
        if a == b:
            continue
        if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
            return False
        for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
            if x == y:
                continue
            try:
                fx, fy = float(x), float(y)
            except ValueError:
                return False
            digits = len(x.split("e")[0].split(".")[1]) if "." in x else 0
            exp = int(x.split("e")[1]) if "e" in x else 0
            unit = 10.0 ** (exp - digits)
            if abs(fx - fy) > 3 * unit * (1 + 1e-9) and abs(fx - fy) > 1e-5 * max(abs(fx), abs(fy)):
                return False
    return True


def classify(entry: dict, cap: dict, run: dict, program_text: str) -> tuple[str, str]:
    from scalargrad.verify import normalise_stderr, normalise_stdout

    rep = run["report"]
    if run["status"] is None:
        return "crashed", run["stderr"]
    if rep.get("unsupported"):
        return "unsupported", rep["unsupported"]
    got_out, got_err = normalise_stdout(run["stdout"]), normalise_stderr(run["stderr"])
    variants = [(cap["stdout"], cap["stderr"], "this machine")] + \
        [(o["stdout"], o["stderr"], o["environment"]) for o in cap.get("other_cpu", [])]
    for out, err, where in variants:
        if got_out == normalise_stdout(out) and got_err == normalise_stderr(err):
            return "exact", "" if where == "this machine" else f"as PyTorch under {where}"
    want_out, want_err = normalise_stdout(cap["stdout"]), normalise_stderr(cap["stderr"])
    if not rep or (not rep.get("ok") and rep.get("error") and not any(
            rep["error"].split(":")[0] in e for e in want_err)):
        if not rep:
            return "crashed", (run["stderr"].strip().splitlines() or ["no report"])[-1]
        return "crashed", rep["error"]
    if any(last_digits_only(normalise_stdout(out), got_out) for out, _, _ in variants) and \
            (got_err == want_err or any(got_err == normalise_stderr(e) for _, e, _ in variants)):
        kernels = [k for k, pat in MACHINE_KERNELS.items() if re.search(pat, program_text)]
        return "last digits", "; ".join(kernels) or "no machine-dependent kernel found in the text"
    if got_out != want_out:
        a, b = want_out.splitlines(), got_out.splitlines()
        for i in range(max(len(a), len(b))):
            x, y = (a[i] if i < len(a) else "<missing>"), (b[i] if i < len(b) else "<missing>")
            if x != y:
                return "differs", f"line {i + 1}: PyTorch {x[:100]!r}, scalargrad {y[:100]!r}"
    return "differs", f"stderr: PyTorch {want_err[-2:]!r}, scalargrad {got_err[-2:]!r}"


def cmd_compare(args) -> int:
    root = args.root
    programs = installed(root, manifest_programs(args.set))
    if args.k:
        programs = [p for p in programs if any(k in p["id"] for k in args.k)]

    runs = root / "runs"
    runs.mkdir(exist_ok=True)
    if args.only_captured:
        programs = [p for p in programs if (root / "captures" / (p["id"].replace(":", "__") + ".json")).exists()]
    if args.skip_run:
        programs = [p for p in programs if not (runs / (p["id"].replace(":", "__") + ".json")).exists()]

    def one(e):
        name = e["id"].replace(":", "__")
        d = root / "programs" / name
        cap_path = root / "captures" / (name + ".json")
        if cap_path.exists():
            cap = json.loads(cap_path.read_text())
        else:  # not captured yet: the screen's run on this machine is the only truth so far
            cap = {**json.loads((root / "screen-out" / (name + ".json")).read_text()), "other_cpu": []}
        saved = runs / (name + ".json")
        if args.reuse_runs and saved.exists():  # classify scalargrad's recorded run again (a newer capture)
            run = json.loads(saved.read_text())
        else:
            run = run_scalargrad(d / "main.py", root, timeout=args.timeout, source=args.scalargrad)
            saved.write_text(json.dumps(run, ensure_ascii=False))
        verdict, detail = classify(e, cap, run, (d / "main.py").read_text(encoding="utf-8"))
        return e, verdict, detail, run["seconds"]

    results = []
    counts: dict = {}
    for e, verdict, detail, secs in pool_map(one, programs, args.jobs):
        results.append({"id": e["id"], "set": e["set"], "verdict": verdict, "detail": detail,
                        "seconds": round(secs, 1)})
        counts.setdefault(e["set"], {}).setdefault(verdict, 0)
        counts[e["set"]][verdict] += 1
        print(f"{e['id']:60s} {e['set']:8s} {verdict:12s} {detail[:150]}", flush=True)
    order = ["exact", "last digits", "unsupported", "differs", "crashed"]
    for s in SETS:
        if s in counts:
            c = counts[s]
            n = sum(c.values())
            good = c.get("exact", 0) + c.get("last digits", 0)
            print(f"{s}: {n} programs: {good} print what PyTorch prints (" +
                  ", ".join(f"{c.get(k, 0)} {k}" for k in order) + ")")
    if args.out:
        Path(args.out).write_text(json.dumps(sorted(results, key=lambda r: r["id"]), indent=1), encoding="utf-8")
    return 0


def cmd_causes(args) -> int:
    """What stopped the programs of a compare's ``--out`` file, grouped: the names ``Unsupported``
    gave, the raw errors by their first words, the outputs that differ."""
    results = json.loads(Path(args.results).read_text())
    order = ["exact", "last digits", "unsupported", "differs", "crashed"]
    for s in SETS:
        rs = [r for r in results if r["set"] == s]
        if rs:
            c = {k: sum(r["verdict"] == k for r in rs) for k in order}
            print(f"{s}: {len(rs)} programs: {c['exact'] + c['last digits']} print what PyTorch prints (" +
                  ", ".join(f"{c[k]} {k}" for k in order) + ")")
    groups: dict = {}
    for r in results:
        if r["verdict"] in ("exact", "last digits"):
            continue
        if r["verdict"] == "unsupported":
            key = ("unsupported", r["detail"].split(":")[0].strip()[:90])
        elif r["verdict"] == "crashed":
            key = ("crashed", (r["detail"].strip().splitlines() or ["?"])[0][:90])
        else:
            key = ("differs", "")
        groups.setdefault(key, []).append(r)
    for (verdict, what), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0][1])):
        print(f"\n{verdict}: {what} ({len(rs)})" if what else f"\n{verdict} ({len(rs)})")
        for r in rs:
            print(f"  {r['set']:7s} {r['id']}: {r['detail'][:160]}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, default=Path("/work/heldout"), help="where the programs live (not in git)")
    p.add_argument("-j", "--jobs", type=int, default=2)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("candidates")
    s = sub.add_parser("screen")
    s.add_argument("--stratum", action="append")
    s.add_argument("--timeout", type=int, default=SCREEN_TIMEOUT, help="seconds a program may run under PyTorch")
    s = sub.add_parser("select")
    s.add_argument("--force", action="store_true")
    s.add_argument("--extend", action="store_true", help="add what larger caps draw; keep every frozen program")
    s = sub.add_parser("capture")
    s.add_argument("--again", action="store_true")
    s.add_argument("--kernel-programs-only", action="store_true",
                   help="run the other kernel sets only for programs whose text names a machine-dependent kernel "
                        "(MACHINE_KERNELS); elsewhere this machine's output is the only truth (can only count "
                        "fewer programs exact, never more)")
    sub.add_parser("restore")
    sub.add_parser("verify")
    s = sub.add_parser("compare")
    s.add_argument("--set", choices=(*SETS, "all"), default="all")
    s.add_argument("--timeout", type=int, default=SG_TIMEOUT, help="seconds a program may run under scalargrad")
    s.add_argument("-k", action="append", help="only programs whose id contains this")
    s.add_argument("--out", help="write the verdicts as JSON here")
    s.add_argument("--reuse-runs", action="store_true", help="classify the runs recorded under ROOT/runs again")
    s.add_argument("--only-captured", action="store_true", help="only the programs captured already")
    s.add_argument("--skip-run", action="store_true", help="leave out the programs with a recorded run")
    s.add_argument("--scalargrad", type=Path, default=REPO,
                   help="the scalargrad source tree to run (default: this worktree; e.g. `git archive` of a commit)")
    s = sub.add_parser("causes")
    s.add_argument("results", help="a compare --out file")
    args = p.parse_args(argv)
    return {"candidates": cmd_candidates, "screen": cmd_screen, "select": cmd_select, "capture": cmd_capture,
            "restore": cmd_restore, "verify": cmd_verify, "compare": cmd_compare,
            "causes": cmd_causes}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
