#!/usr/bin/env python3
"""PyTorch's docstring examples that use sparse layouts, under PyTorch and under scalargrad.

Every docstring with ``>>>`` lines in the installed torch's ``_tensor_docs.py``,
``_torch_docs.py`` and ``sparse/*.py`` whose code names a sparse layout or accessor is run as one
program (``tools/heldout.py``'s doctest harness: statement by statement as the interactive
interpreter runs them), once under PyTorch and once with ``scalargrad run`` from SOURCE (this
worktree unless given); a program is exact when its stdout and its success are PyTorch's.

    python tools/sparse_doctests.py [--source DIR] [--root DIR]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api_census  # beside this file
import heldout

SPARSE = re.compile(r"sparse|to_dense|_nnz|crow_indices|ccol_indices")


def programs() -> list[tuple[str, str]]:
    """(name, code) of each docstring example that uses sparse layouts."""
    root = heldout.torch_root()
    out = []
    for f in [root / "_tensor_docs.py", root / "_torch_docs.py"] + sorted((root / "sparse").glob("*.py")):
        for node, name in heldout.docstring_nodes(f.read_text(encoding="utf-8")):
            code = "\n".join(api_census.doctest_blocks(api_census._dedent_docstring(node.value)))
            if SPARSE.search(code):
                out.append((f"{f.name}:{node.lineno}:{name}", code))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=heldout.REPO, help="the scalargrad to run (a checkout)")
    parser.add_argument("--root", type=Path, default=Path("/tmp/sparse_doctests"), help="where programs run")
    args = parser.parse_args()
    heldout.write_stubs(args.root)
    exact = 0
    progs = programs()
    for i, (name, code) in enumerate(progs):
        directory = args.root / "programs" / f"p{i}"
        directory.mkdir(parents=True, exist_ok=True)
        program = directory / "program.py"
        program.write_text(heldout.DOCTEST_HARNESS.format(id=name, origin=name, source=code), encoding="utf-8")
        theirs, _, ok, _ = heldout.run_torch(program, args.root)
        ours = heldout.run_scalargrad(program, args.root, source=args.source)
        same = ours["stdout"] == theirs and (ours["status"] == 0) == ok
        exact += same
        print(("exact     " if same else "different ") + name, flush=True)
    print(f"{exact} of {len(progs)} print exactly what PyTorch prints")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
