"""Write the planted-error suite's documents with the outputs PyTorch 2.13 gives for their code.

    python tests/documents/planted/capture.py      (needs torch and IPython)

For each document of ``spec.DOCUMENTS`` a notebook (``<name>.ipynb``: each cell run as
Jupyter runs it, its last expression shown by IPython's pretty printer, its stdout, its
warnings on stderr, its error) and a Markdown page (``<name>.md``: each block run as a
script, its printed output in the block after it, in the style the spec names) are written
here, each from a fresh interpreter, so that unseeded draws start from the operating system's
entropy as they would for an author. The documents hold PyTorch's outputs only; the tests
plant the errors.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def _run_cells(name: str, notebook: bool) -> list[dict]:
    """In this (fresh) interpreter: run the document's cells on PyTorch, as a notebook or a page."""
    from IPython.lib.pretty import pretty

    sys.path.insert(0, HERE)
    from spec import DOCUMENTS

    namespace = {"__name__": "__main__"}
    out = []
    for code, _style in DOCUMENTS[name]:
        stdout, stderr = io.StringIO(), io.StringIO()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = stdout, stderr
        shown = error = None
        try:
            tree = ast.parse(code)
            last = None
            if notebook and tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), namespace)
                if value is not None:
                    shown = pretty(value)
        except Exception as e:
            error = (type(e).__name__, str(e))
        finally:
            sys.stdout, sys.stderr = saved
        out.append({"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "shown": shown, "error": error})
    return out


def _captured(name: str, notebook: bool) -> list[dict]:
    code = (f"import sys; sys.path.insert(0, {HERE!r}); import capture, json; "
            f"print(json.dumps(capture._run_cells({name!r}, {notebook!r})))")
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _notebook(cells: list, outputs: list[dict]) -> dict:
    nb_cells = [{"cell_type": "markdown", "metadata": {}, "source": ["Written for scalargrad's planted-error suite; "
                                                                    "outputs from PyTorch 2.13."]}]
    for n, ((code, _), o) in enumerate(zip(cells, outputs), 1):
        outs = []
        if o["stdout"]:
            outs.append({"output_type": "stream", "name": "stdout", "text": o["stdout"].splitlines(True)})
        if o["stderr"]:  # the file a warning names: PyTorch's, wherever it is installed
            text = re.sub(r"^\S*/site-packages/", "/usr/lib/python3/site-packages/", o["stderr"], flags=re.M)
            outs.append({"output_type": "stream", "name": "stderr", "text": text.splitlines(True)})
        if o["shown"] is not None:
            outs.append({"output_type": "execute_result", "execution_count": n, "metadata": {},
                         "data": {"text/plain": o["shown"].splitlines(True)}})
        if o["error"] is not None:
            outs.append({"output_type": "error", "ename": o["error"][0], "evalue": o["error"][1], "traceback": []})
        nb_cells.append({"cell_type": "code", "execution_count": n, "metadata": {}, "source": code.splitlines(True),
                         "outputs": outs})
    return {"nbformat": 4, "nbformat_minor": 5, "cells": nb_cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}


_BLOCKS = {
    "fence": "\n```\n{}```\n",
    "text": "\n```text\n{}```\n",
    "label-python": "\nOutput:\n\n```python\n{}```\n",
    "label-zh-python": "\n输出：\n```python\n{}```\n",
    "label-ja": "\n出力:\n\n```\n{}```\n",
    "comment-python": "\n```python\n# output\n{}```\n",
}


def _page(name: str, cells: list, outputs: list[dict]) -> str:
    parts = [f"# {name}\n\nWritten for scalargrad's planted-error suite; outputs from PyTorch 2.13.\n"]
    for (code, style), o in zip(cells, outputs):
        parts.append(f"\nSome text about the next step.\n\n```python\n{code}```\n")
        shown = o["stdout"]
        if o["error"] is not None:  # as Python shows it (the frames left out)
            shown += "Traceback (most recent call last):\n  ...\n" + f"{o['error'][0]}: {o['error'][1]}\n"
        if style is not None and shown:
            parts.append(_BLOCKS[style].format(shown))
    return "".join(parts)


def main() -> int:
    sys.path.insert(0, HERE)
    from spec import DOCUMENTS

    warnings.simplefilter("default")
    for name, cells in DOCUMENTS.items():
        with open(os.path.join(HERE, f"{name}.ipynb"), "w", encoding="utf-8") as fh:
            json.dump(_notebook(cells, _captured(name, True)), fh, indent=1, ensure_ascii=False)
            fh.write("\n")
        with open(os.path.join(HERE, f"{name}.md"), "w", encoding="utf-8") as fh:
            fh.write(_page(name, cells, _captured(name, False)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
