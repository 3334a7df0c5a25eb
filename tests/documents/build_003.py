"""Build the test documents 003_module_and_hooks.ipynb / .md from the reference catalogue.

Each holds seed 003's Module and Hook examples: the catalogue's program for each (the seed's
code with its indentation restored, ``import torch`` instead of ``import scalargrad as torch``)
and, as its output, what the seed's page printed (the catalogue's ``document_output``, from
PyTorch 1.4: ``LogBackward``, a ModuleDict in sorted order, no FutureWarning). Run from the
repository: ``python3 tests/documents/build_003.py``; the files are committed.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from scalargrad.verify import load_catalogue, reference_dir  # noqa: E402

EXAMPLES = ["module_code_1", "module_code_2", "module_code_7", "hook_code_1", "hook_code_2", "hook_code_3"]


def program(path: str) -> str:
    lines = open(path, encoding="utf-8").read().splitlines()
    body = [ln for ln in lines if ln != "import scalargrad as torch" and not ln.startswith("# ")]
    return "\n".join(body).strip("\n") + "\n"


def main() -> None:
    with reference_dir() as ref:
        catalogue = {e.id: e for e in load_catalogue(ref) if e.document.startswith("003_")}
    chosen = [catalogue[i] for i in EXAMPLES]
    cells = [("import torch\n", "", None)]
    for ex in chosen:
        cells.append((program(ex.program), ex.document_output, ex.title))
        if ex.id == "module_code_1":
            # the page's z, shown as a notebook shows a cell's last expression
            z = [ln for ln in ex.document_output.splitlines() if ln.startswith("z ")][0][2:]
            cells.append(("z\n", z, None))
    nb_cells = []
    for n, (code, out, title) in enumerate(cells, 1):
        if title:
            nb_cells.append({"cell_type": "markdown", "metadata": {}, "source": f"## {title}"})
        outputs = []
        if code == "z\n":
            outputs.append({"output_type": "execute_result", "execution_count": n, "metadata": {},
                            "data": {"text/plain": out}})
        elif out:
            outputs.append({"output_type": "stream", "name": "stdout", "text": out.splitlines(keepends=True)})
        nb_cells.append({"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": outputs,
                         "source": code.splitlines(keepends=True)})
    nb = {"nbformat": 4, "nbformat_minor": 5, "cells": nb_cells,
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                       "language_info": {"name": "python"}}}
    with open(os.path.join(HERE, "003_module_and_hooks.ipynb"), "w", encoding="utf-8") as fh:
        json.dump(nb, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    md = ["# PyTorch Module: Module and Hook examples", "",
          "Seed 003's Module and Hook examples, with the output the page printed (PyTorch 1.4).", ""]
    for code, out, title in cells:
        if code == "z\n":
            continue
        if title:
            md += [f"## {title}", ""]
        md += ["```python", code.rstrip("\n"), "```", ""]
        if out:
            md += ["Output:", "", "```", out.rstrip("\n"), "```", ""]
    with open(os.path.join(HERE, "003_module_and_hooks.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(md))


if __name__ == "__main__":
    main()
