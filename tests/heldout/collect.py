"""Copy the real documents ``scalargrad verify`` is measured on out of the fetched mirrors.

The documents are other people's notebooks and Markdown pages about PyTorch's autograd,
modules and state_dict (Chinese, Korean, Japanese, English). Their text never enters this
repository: ``manifest.json`` records where each one comes from (repository, commit, path)
and its SHA-256, and whether it is in the frozen set (chosen before the judge was changed
against any of them, and not looked at while it was) or the development set.

    python tests/heldout/collect.py [--mirrors /work/.mirror] [--out /work/judge-heldout/files]
    python tests/heldout/collect.py --record      # (re)write manifest.json from the mirrors

Each mirror is a bare git directory ``<mirrors>/<owner>+<name>/repo`` (as the ``fetch`` tool
leaves it); files are read at the recorded commit, and a file whose hash differs is refused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")

# (repository, path, set): the frozen set was fixed before the judge changed
CHOSEN = [
    ("ShusenTang/Dive-into-DL-PyTorch", "docs/chapter02_prerequisite/2.3_autograd.md", "frozen"),
    ("ShusenTang/Dive-into-DL-PyTorch", "code/chapter02_prerequisite/2.3_autograd.ipynb", "frozen"),
    ("ShusenTang/Dive-into-DL-PyTorch", "docs/chapter04_DL_computation/4.2_parameters.md", "frozen"),
    ("ShusenTang/Dive-into-DL-PyTorch", "docs/chapter04_DL_computation/4.4_custom-layer.md", "frozen"),
    ("apachecn/pytorch-doc-zh", "docs/2.0/tutorials/beginner/basics/buildmodel_tutorial.md", "frozen"),
    ("zergtant/pytorch-handbook", "chapter2/2.1.2-pytorch-basics-autograd.ipynb", "frozen"),
    ("zergtant/pytorch-handbook", "chapter1/2_autograd_tutorial.ipynb", "frozen"),
    ("deeplearningzerotoall/PyTorch", "lab-01_tensor_manipulation.ipynb", "frozen"),
    ("deeplearningzerotoall/PyTorch", "lab-03_minimizing_cost.ipynb", "frozen"),
    ("pphos/pytorch_tutorial", "autograd_tutorial.ipynb", "frozen"),
    ("pphos/pytorch_tutorial", "two_layer_net_custom.ipynb", "frozen"),
    ("mrdbourke/pytorch-deep-learning", "01_pytorch_workflow.ipynb", "frozen"),
    ("apachecn/pytorch-doc-zh", "docs/2.0/tutorials/beginner/basics/autogradqs_tutorial.md", "development"),
    ("apachecn/pytorch-doc-zh", "docs/2.0/tutorials/beginner/introyt/autogradyt_tutorial.md", "development"),
    ("ShusenTang/Dive-into-DL-PyTorch", "code/chapter04_DL_computation/4.1_model-construction.ipynb", "development"),
    ("ShusenTang/Dive-into-DL-PyTorch", "code/chapter04_DL_computation/4.5_read-write.ipynb", "development"),
    ("ShusenTang/Dive-into-DL-PyTorch", "docs/chapter04_DL_computation/4.5_read-write.md", "development"),
    ("deeplearningzerotoall/PyTorch", "lab-02_linear_regression.ipynb", "development"),
    ("deeplearningzerotoall/PyTorch", "lab-04_1_multivariable_linear_regression.ipynb", "development"),
    ("pphos/pytorch_tutorial", "two_layer_net_autograd.ipynb", "development"),
    ("mrdbourke/pytorch-deep-learning", "00_pytorch_fundamentals.ipynb", "development"),
    ("chenyuntc/pytorch-book", "Chapter3/chapter3.ipynb", "development"),
]


def _git(mirrors: str, repo: str, *args: str) -> bytes:
    git_dir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True).stdout


def local_path(out: str, entry: dict) -> str:
    """Where ``collect`` puts a manifest entry's file."""
    return os.path.join(out, entry["repo"].replace("/", "+"), entry["path"])


def load_manifest(which: str | None = None) -> list[dict]:
    """The manifest's entries (``which``: only the "frozen" or the "development" ones)."""
    with open(MANIFEST, encoding="utf-8") as fh:
        entries = json.load(fh)["documents"]
    return [e for e in entries if which is None or e["set"] == which]


def record(mirrors: str) -> None:
    docs = []
    for repo, path, which in CHOSEN:
        commit = _git(mirrors, repo, "rev-parse", "HEAD").decode().strip()
        data = _git(mirrors, repo, "show", f"{commit}:{path}")
        docs.append({"repo": repo, "commit": commit, "path": path, "sha256": hashlib.sha256(data).hexdigest(),
                     "set": which})
    with open(MANIFEST, "w", encoding="utf-8") as fh:
        json.dump({"about": "real documents scalargrad verify is measured on (tests/heldout/README.md); "
                            "their text is not in this repository", "documents": docs}, fh, indent=1)
        fh.write("\n")


def collect(mirrors: str, out: str) -> list[str]:
    paths = []
    for e in load_manifest():
        data = _git(mirrors, e["repo"], "show", f"{e['commit']}:{e['path']}")
        if hashlib.sha256(data).hexdigest() != e["sha256"]:
            raise SystemExit(f"{e['repo']}:{e['path']}: not the recorded file (hash differs)")
        target = local_path(out, e)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(data)
        paths.append(target)
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mirrors", default="/work/.mirror")
    p.add_argument("--out", default="/work/judge-heldout/files")
    p.add_argument("--record", action="store_true", help="write manifest.json from the mirrors' HEAD")
    args = p.parse_args(argv)
    if args.record:
        record(args.mirrors)
    for path in collect(args.mirrors, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
