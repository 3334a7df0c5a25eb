"""scalargrad verify PATH...: reading notebooks, Markdown, reST and docstring examples, running
their cells, and the verdict on each cell.

The 003 documents (tests/documents/, built by build_003.py from the reference catalogue) hold
seed 003's Module and Hook examples with the output the seed's page printed under PyTorch 1.4;
the verdicts expected for them are the catalogue's hand classification (reference/README.md).
The documents with deliberate mistakes are written here, each cell with the status a reader
would give it; their stored outputs are PyTorch 2.13's except where a mistake is made on
purpose, and the conformance tests run the same documents on PyTorch itself and get the same
verdicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from scalargrad.documents import check_documents, document_report, read_document
from scalargrad.documents.cells import UnreadableDocument
from scalargrad.documents.named_differences import RULES, UNSEEDED_RANDOM, classify
from scalargrad.documents.notebook import split_magics
from scalargrad.documents.report import exit_status, markdown, summary, table

HERE = os.path.join(os.path.dirname(__file__), "documents")
NOTEBOOK_003 = os.path.join(HERE, "003_module_and_hooks.ipynb")
MARKDOWN_003 = os.path.join(HERE, "003_module_and_hooks.md")

FUTURE_WARNING = ("FutureWarning: Using a non-full backward hook when the forward contains multiple autograd "
                  "Nodes is deprecated and will be removed in future versions. This hook will be missing some "
                  "grad_input. Please use register_full_backward_hook to get the documented behavior.")


def statuses(entry: dict) -> list[tuple[str, str]]:
    return [(c["status"], c["detail"]) for c in entry["cells"]]


# ---------------------------------------------------------------- seed 003's examples


def test_notebook_of_003_module_and_hook_examples():
    entry = document_report(NOTEBOOK_003)
    assert entry["kind"] == "notebook" and entry["error"] is None
    assert statuses(entry) == [
        ("reproduced", ""),  # import torch
        ("named difference", "node names gained an index"),  # Module Code 1: LogBackward -> LogBackward0
        ("named difference", "node names gained an index"),  # its z, displayed
        ("named difference", "node names gained an index"),  # Module Code 2
        # Module Code 7: the page lost the indentation and PyTorch 1.4 sorted the ModuleDict
        ("named difference", "node names gained an index; ModuleDict order; white space"),
        ("reproduced", ""),  # Hook Code 1
        ("reproduced", ""),  # Hook Code 2
        # Hook Code 3: the legacy backward hook now warns
        ("named difference", f"warnings differ (PyTorch 2.13 also warns: {FUTURE_WARNING})"),
    ]
    cells = entry["cells"]
    assert [c["sympy"] for c in cells] == ["no backward", "1 backward: 2 grads agree", "no backward",
                                           "1 backward: 2 grads agree", "1 backward: 2 grads agree",
                                           "1 backward: 4 grads agree", "1 backward: 4 grads agree",
                                           "1 backward: 4 grads agree"]
    # Hook Code 3's backward hook returns grad_input unchanged: the SymPy proof holds
    assert all(c["sympy_ok"] for c in cells)
    assert cells[2]["expected"] == "tensor(4.8283, grad_fn=<LogBackward>)\n"
    assert cells[2]["produced"] == "tensor(4.8283, grad_fn=<LogBackward0>)\n"
    assert exit_status([entry]) == 0


def test_markdown_page_of_003_module_and_hook_examples():
    entry = document_report(MARKDOWN_003)
    assert entry["kind"] == "markdown"
    assert statuses(entry) == [
        ("ran", ""),  # import torch: the page shows no output for it
        ("named difference", "node names gained an index"),
        ("named difference", "node names gained an index"),
        ("named difference", "node names gained an index; ModuleDict order; white space"),
        ("reproduced", ""),
        ("reproduced", ""),
        ("reproduced", ""),  # a page shows no warnings: the FutureWarning is no difference
    ]
    assert [c["line"] for c in entry["cells"]][:2] == [6, 12]  # the code's first line in the file
    assert exit_status([entry]) == 0


def test_003_documents_give_the_same_verdicts_on_pytorch(torch_ref):
    """Run on PyTorch 2.13 itself, the 003 documents get the verdicts scalargrad gets."""
    for path in (NOTEBOOK_003, MARKDOWN_003):
        on_torch = document_report(path, check=False, alias_torch=False)
        assert statuses(on_torch) == statuses(document_report(path, check=False))


# ---------------------------------------------------------------- deliberate mistakes

PARAM_PRINT_OLD = ("OrderedDict([('w', Parameter containing:\n"
                   "tensor(2., requires_grad=True))])\n")
GRAPH_AGAIN = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
               "have already been freed). Saved intermediate values of the graph are freed when you call "
               ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
               "graph a second time or if you need to access saved tensors after calling backward.")


def stdout(text: str) -> list:
    return [{"output_type": "stream", "name": "stdout", "text": text}]


def shown(text: str) -> list:
    return [{"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": text}}]


def error(ename: str, evalue: str) -> list:
    return [{"output_type": "error", "ename": ename, "evalue": evalue, "traceback": []}]


# (code, stored outputs (None: never run), status, detail)
MISTAKES = [
    ("!pip install torch\nimport torch\n", [], "reproduced", ""),
    ("%matplotlib inline\n", [], "skipped", "only shell and magic lines"),
    ("%%bash\necho hello\n", stdout("hello\n"), "skipped", "cell magic %%bash"),
    ("x = torch.tensor(5.0, requires_grad=True)\nq = torch.tensor(3.0, requires_grad=True)\n"
     "z = torch.log(x ** q)\nz.backward()\nprint('x.grad', x.grad)\nprint('q.grad', q.grad)\n",
     stdout("x.grad tensor(0.6000)\nq.grad tensor(1.6095)\n"),  # 1.6095: a wrong digit on purpose
     "differs", "line 2: the document shows 'q.grad tensor(1.6095)', scalargrad prints 'q.grad tensor(1.6094)'"),
    ("z.grad_fn\n", shown("<LogBackward object at 0x7f3a2c1b5e80>"), "named difference",
     "node names gained an index"),
    ("z.backward()\n", [], "error", f"RuntimeError: {GRAPH_AGAIN}"),
    ("torch.tensor(1.0).backward()\n",
     error("RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn"),
     "reproduced", ""),
    ("y = x * 2\n", error("RuntimeError", "x is not defined"), "differs",
     "the document shows 'RuntimeError: x is not defined', scalargrad runs without error"),
    ("opt = torch.optim.Adafactor([x])\n", [], "unsupported", "torch.optim.Adafactor"),
    ("rows = open('measurements.csv').read().splitlines()\n", [], "skipped", "needs the file measurements.csv"),
    ("print(len(rows))\n", stdout("3\n"), "skipped", "needs 'rows' from cell 10, which did not run to the end"),
    ("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\n",
     [{"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo=",
                                                                "text/plain": "<Figure size 640x480 with 1 Axes>"}}],
     "skipped", "draws a plot (matplotlib is not installed)"),
    ("m = torch.nn.Module()\nm.w = torch.nn.Parameter(torch.tensor(2.0))\nprint(m._parameters)\n",
     stdout(PARAM_PRINT_OLD), "named difference", "OrderedDict printed as dict"),
    ("r = torch.rand(1)\nr\n", shown("tensor([0.1234])"), "named difference", "unseeded random numbers"),
    ("torch.manual_seed(0)\ntorch.rand(1)\n", shown("tensor([0.4963])"), "reproduced", ""),
    ("torch.manual_seed(0)\ntorch.rand(1)\n", shown("tensor([0.4964])"), "differs",
     "line 1: the document shows 'tensor([0.4964])', scalargrad prints 'tensor([0.4963])'"),
    ("class Pow(torch.nn.Module):\n    def forward(self, x, q):\n        return torch.log(x) * x ** q\n"
     "pm = Pow()\npm.register_backward_hook(lambda m, gi, go: None)\nw = pm(x, q)\nw.backward()\n",
     [{"output_type": "stream", "name": "stderr",
       "text": f"/usr/lib/python3/site-packages/torch/nn/modules/module.py:1869: {FUTURE_WARNING}\n"
               "  self._maybe_warn_non_full_backward_hook(args, result, grad_fn)\n"}],
     "reproduced", ""),
    ("print(x.grad)\n", None, "ran", ""),  # never run by the author (no execution count)
]


def notebook(cells, path, kernel="python") -> str:
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"language": kernel, "name": "k"}},
          "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# mistakes"}]}
    for n, (code, outputs, *_rest) in enumerate(cells, 1):
        nb["cells"].append({"cell_type": "code", "metadata": {}, "source": code,
                            "execution_count": None if outputs is None else n, "outputs": outputs or []})
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(nb, fh)
    return str(path)


@pytest.fixture
def no_matplotlib(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as on a machine without it


def test_notebook_with_deliberate_mistakes(tmp_path, no_matplotlib):
    entry = document_report(notebook(MISTAKES, tmp_path / "mistakes.ipynb"))
    assert statuses(entry) == [(status, detail) for _code, _out, status, detail in MISTAKES]
    cells = entry["cells"]
    assert cells[0]["notes"] == ["left out (IPython shell or magic): !pip install torch"]
    assert cells[3]["diff"].split("\n")[2:] == ["@@ -1,2 +1,2 @@", " x.grad tensor(0.6000)", "-q.grad tensor(1.6095)",
                                                "+q.grad tensor(1.6094)"]
    assert cells[3]["sympy"] == "1 backward: 2 grads agree" and cells[3]["sympy_ok"] is True
    assert cells[11]["notes"] == ["its picture is not compared"]
    # x.grad: 3/5 from cell 4, plus d(log(x) * x**3)/dx = x**2 + 3 x**2 log(x) = 25 + 75 ln 5 at 5
    assert cells[17]["expected"] is None and cells[17]["produced"] == "tensor(146.3079)\n"
    assert exit_status([entry]) == 1


def test_mistakes_get_the_same_verdicts_on_pytorch(tmp_path, torch_ref, no_matplotlib):
    path = notebook(MISTAKES, tmp_path / "mistakes.ipynb")
    on_torch = statuses(document_report(path, check=False, alias_torch=False))
    on_scalargrad = statuses(document_report(path, check=False))
    unsupported = [i for i, (status, _) in enumerate(on_scalargrad) if status == "unsupported"]
    assert unsupported == [8]  # PyTorch has torch.optim.Adafactor: there the cell runs
    assert on_torch[8] == ("ran", "") or on_torch[8][0] == "reproduced"
    assert [s for i, s in enumerate(on_torch) if i != 8] == [s for i, s in enumerate(on_scalargrad) if i != 8]


def test_a_notebook_that_is_not_python(tmp_path):
    entry = document_report(notebook([("println(1)", [])], tmp_path / "julia.ipynb", kernel="julia"))
    assert statuses(entry) == [("skipped", "a julia cell")]
    assert entry["note"] == "the notebook's kernel is julia, not Python"


def test_magic_lines_only_when_the_cell_is_not_python():
    # "% 2" continues an expression: the cell compiles, nothing is left out
    assert split_magics("y = (10\n% 3)\n") == ("y = (10\n% 3)\n", [], "")
    code, left, why = split_magics("files = !ls\n%time y = 1\nprint(2)\n")
    assert left == ["files = !ls", "%time y = 1"] and code == "\n\nprint(2)" and why == ""


MARKDOWN_MISTAKES = """\
# A page with mistakes

```python
import torch
a = torch.tensor(2.0, requires_grad=True)
b = a ** 3
b.backward()
print(a.grad)
```

The gradient:

```
tensor(12.)
```

```python
print(a.grad * 2)
```

```text
tensor(25.)
```

```bash
pip install torch
```

```python
torch.optim.Adafactor([a])
```

```python
print(undefined_name)
```

```python
print(b)
```

A long paragraph between a block and the next fence means the fence is not its output: the
text explains something else entirely, and goes on for more than one line.

```
tensor(8., grad_fn=<PowBackward0>)
```

```pycon
>>> b.grad_fn.name()
'PowBackward0'
>>> 1 / 0
Traceback (most recent call last):
  ...
ZeroDivisionError: division by zero
>>> print(a)  # doctest: +ELLIPSIS
tensor(2., ...)
>>> import os  # doctest: +SKIP
```

1. In a list item:

   ```python
   print(a.requires_grad)
   ```

   ```
   True
   ```
"""


def line_of(text: str, line: str) -> int:
    """The 1-based number of ``line`` in ``text`` (it must be there once)."""
    lines = text.splitlines()
    assert lines.count(line) == 1
    return lines.index(line) + 1


def test_markdown_with_deliberate_mistakes(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(MARKDOWN_MISTAKES, encoding="utf-8")
    entry = document_report(str(path))
    assert statuses(entry) == [
        ("reproduced", ""),
        ("differs", "line 1: the document shows 'tensor(25.)', scalargrad prints 'tensor(24.)'"),
        ("unsupported", "torch.optim.Adafactor"),
        ("error", "NameError: name 'undefined_name' is not defined"),
        ("ran", ""),  # its would-be output block is too far away
        ("reproduced", ""),  # >>> b.grad_fn.name()
        ("reproduced", ""),  # the ZeroDivisionError, as shown
        ("reproduced", ""),  # +ELLIPSIS
        ("skipped", "marked # doctest: +SKIP"),
        ("reproduced", ""),  # the block in a list item
    ]
    assert [c["line"] for c in entry["cells"]] == [line_of(MARKDOWN_MISTAKES, s) for s in (
        "import torch", "print(a.grad * 2)", "torch.optim.Adafactor([a])", "print(undefined_name)", "print(b)",
        ">>> b.grad_fn.name()", ">>> 1 / 0", ">>> print(a)  # doctest: +ELLIPSIS", ">>> import os  # doctest: +SKIP",
        "   print(a.requires_grad)")]
    assert entry["cells"][0]["sympy"] == "1 backward: 1 grad agrees"
    assert exit_status([entry]) == 1


RST = """\
Gradients
=========

.. code-block:: python
   :linenos:

   import torch
   x = torch.tensor(3.0, requires_grad=True)
   (x * x).backward()
   print(x.grad)

Output::

   tensor(6.)

.. testcode::

   print(x.grad + 1)

.. testoutput::

   tensor(8.)

>>> x.grad.item()
6.0
"""


def test_restructured_text(tmp_path):
    path = tmp_path / "page.rst"
    path.write_text(RST, encoding="utf-8")
    entry = document_report(str(path))
    assert entry["kind"] == "restructuredtext"
    assert statuses(entry) == [
        ("reproduced", ""),
        ("differs", "line 1: the document shows 'tensor(8.)', scalargrad prints 'tensor(7.)'"),
        ("reproduced", ""),
    ]
    assert [c["line"] for c in entry["cells"]] == [line_of(RST, s) for s in (
        "   import torch", "   print(x.grad + 1)", ">>> x.grad.item()")]


PYTHON_FILE = '''\
"""Squares, with examples.

>>> import torch
>>> x = torch.tensor(3.0, requires_grad=True)
>>> y = square(x)
>>> y
tensor(9., grad_fn=<MulBackward0>)
"""
import torch


def square(t):
    """The square of ``t``.

    >>> t = torch.tensor(2.0, requires_grad=True)
    >>> square(t).backward()
    >>> t.grad
    tensor(5.)
    >>> y  # each docstring has its own namespace
    Traceback (most recent call last):
    NameError: name 'y' is not defined
    """
    return t * t


if __name__ == "__main__":
    print("not run as a script")
'''


def test_python_file_docstring_examples(tmp_path):
    path = tmp_path / "squares.py"
    path.write_text(PYTHON_FILE, encoding="utf-8")
    entry = document_report(str(path))
    assert entry["kind"] == "python"
    assert statuses(entry) == [
        ("ran", ""),  # the module body (its __name__ is not __main__)
        ("reproduced", ""), ("reproduced", ""), ("reproduced", ""), ("reproduced", ""),
        ("reproduced", ""), ("reproduced", ""),
        ("differs", "line 1: the document shows 'tensor(5.)', scalargrad prints 'tensor(4.)'"),
        ("reproduced", ""),
    ]
    assert [c["line"] for c in entry["cells"]] == [1] + [line_of(PYTHON_FILE, s) for s in (
        ">>> import torch", ">>> x = torch.tensor(3.0, requires_grad=True)", ">>> y = square(x)", ">>> y",
        "    >>> t = torch.tensor(2.0, requires_grad=True)", "    >>> square(t).backward()", "    >>> t.grad",
        "    >>> y  # each docstring has its own namespace")]
    assert entry["cells"][0]["produced"] == ""


def test_unreadable_documents(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json", encoding="utf-8")
    old = tmp_path / "old.ipynb"
    old.write_text(json.dumps({"nbformat": 3, "worksheets": []}), encoding="utf-8")
    other = tmp_path / "notes.docx"
    other.write_text("x", encoding="utf-8")
    entries = [document_report(str(p)) for p in (bad, old, other, tmp_path / "missing.md")]
    assert [e["error"].split(" (")[0] for e in entries] == [
        "not a notebook", "only nbformat 4 notebooks can be read", "cannot tell what kind of document this is",
        "no such file"]
    assert exit_status(entries) == 2
    with pytest.raises(UnreadableDocument):
        read_document(str(old))


# ---------------------------------------------------------------- named differences


@pytest.mark.parametrize("document, produced, names", [
    ("z tensor(4.8283, grad_fn=<LogBackward>)", "z tensor(4.8283, grad_fn=<LogBackward0>)",
     ["node names gained an index"]),
    ("OrderedDict([('a', tensor(1.)), ('b', OrderedDict())])", "{'a': tensor(1.), 'b': {}}",
     ["OrderedDict printed as dict"]),
    ("OrderedDict([('a', 1)])", "OrderedDict({'a': 1})", ["OrderedDict printed as dict"]),  # Python 3.12's repr
    ("ModuleDict(\n  (b): B()\n  (a): A()\n)", "ModuleDict(\n  (a): A()\n  (b): B()\n)", ["ModuleDict order"]),
    ("y = tensor([[3.5681],\n[3.4868]], grad_fn=)", "y = tensor([[3.5681],\n        [3.4868]], grad_fn=<AddBackward0>)",
     ["text in angle brackets dropped", "white space"]),
    ("over forwardbackward now", "over forward\n\nbackward now", ["white space"]),
    ("<Node object at 0x7f0000000001>", "<Node object at 0x55d1aa0b2c30>", []),  # addresses never count
    ("a  \n\n", "a", []),  # white space at line ends and blank lines at the end never count
])
def test_named_differences(document, produced, names):
    equal, rules = classify(document, produced)
    assert equal and [r.name for r in rules] == names


def test_a_real_difference_is_not_named():
    assert classify("x.grad tensor(0.6000)", "x.grad tensor(0.6001)") == (False, [])
    # the numbers only count as random draws when the cell drew them unseeded
    assert classify("tensor([0.1234])", "tensor([0.4963])", RULES + [UNSEEDED_RANDOM])[1] == [UNSEEDED_RANDOM]


# ---------------------------------------------------------------- several documents, reports


def test_documents_run_each_in_their_own_process(tmp_path):
    """Global state does not leak between documents: the first changes the default dtype and
    registers a global module hook, the second sees PyTorch's defaults and no hook."""
    first = tmp_path / "first.md"
    first.write_text("```python\nimport torch\ntorch.set_default_dtype(torch.float64)\n"
                     "torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: print('hooked'))\n"
                     "torch.nn.Identity()(torch.tensor(1.0))\nprint(torch.tensor(1.0).dtype)\n```\n\n"
                     "```\nhooked\ntorch.float64\n```\n", encoding="utf-8")
    second = tmp_path / "second.md"
    second.write_text("```python\nimport torch\ntorch.nn.Identity()(torch.tensor(1.0))\n"
                      "print(torch.tensor(1.0).dtype)\n```\n\n```\ntorch.float32\n```\n", encoding="utf-8")
    done = []
    entries = check_documents([str(first), str(second)], jobs=2, progress=lambda d, t, p: done.append((d, t)))
    assert [statuses(e) for e in entries] == [[("reproduced", "")], [("reproduced", "")]]
    assert sorted(done) == [(1, 2), (2, 2)]
    assert [e["path"] for e in entries] == [str(first), str(second)]


def test_reports(tmp_path, no_matplotlib):
    entries = [document_report(MARKDOWN_003), document_report(notebook(MISTAKES, tmp_path / "m.ipynb"))]
    line = summary(entries)
    # the 003 page: 1 ran, 3 named, 3 reproduced; the mistakes: 4 reproduced, 3 named, 3 differ, 1
    # unsupported, 1 error, 5 skipped, 1 ran
    assert line == ("25 cells in 2 documents: 7 reproduced, 6 named differences, 3 differs, 1 unsupported, "
                    "1 error, 5 skipped, 2 ran; SymPy disagreements: 0")
    text = table(entries)
    assert text.endswith("\n" + line)
    assert "cell 4 differs: line 2: the document shows 'q.grad tensor(1.6095)'" in text
    assert "    -q.grad tensor(1.6095)\n    +q.grad tensor(1.6094)" in text
    md = markdown(entries)
    assert f"### {MARKDOWN_003}" in md and "| 2 | 12 | named difference | node names gained an index |" in md


def test_json_schema_fields(tmp_path):
    entry = document_report(MARKDOWN_003)
    assert set(entry) == {"path", "kind", "error", "note", "cells"}
    assert set(entry["cells"][1]) == {"index", "line", "status", "detail", "differences", "source", "expected",
                                      "expected_error", "produced", "produced_error", "diff", "notes", "sympy",
                                      "sympy_ok", "seconds"}
    assert entry["cells"][1]["differences"] == [{
        "name": "node names gained an index",
        "explanation": "PyTorch 1.10 and later name graph nodes with an index: LogBackward is now LogBackward0"}]
    json.dumps(entry)  # plain data


@pytest.mark.parametrize("forks", [True, False])
def test_a_cell_that_hangs_is_stopped(tmp_path, monkeypatch, forks):
    # in a fork of the warm worker, or, in a process that runs other threads (PyTorch's pool, say),
    # in a fresh interpreter
    from scalargrad import warm_worker

    if forks and not hasattr(os, "fork"):
        pytest.skip("no os.fork here")
    monkeypatch.setattr(warm_worker, "_threads", lambda: 1 if forks else 2)
    page = tmp_path / "slow.md"
    page.write_text(textwrap.dedent("""\
        ```python
        import time
        time.sleep(30)
        ```
    """), encoding="utf-8")
    [entry] = check_documents([str(page)], timeout=1)
    assert entry["crashed"] and entry["error"] == "could not be checked: timed out after 1 s"
    assert exit_status([entry]) == 1


# ---------------------------------------------------------------- the command line


def cli(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scalargrad", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=cwd, timeout=300)


@pytest.mark.slow
def test_cli_verify_documents_json_and_exit_status(tmp_path, no_matplotlib):
    page = tmp_path / "page.md"
    page.write_text(MARKDOWN_MISTAKES, encoding="utf-8")
    proc = cli("verify", "--json", str(page), MARKDOWN_003, cwd=str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""  # no progress line when stderr is not a terminal
    report = json.loads(proc.stdout)
    assert report["schema"] == "scalargrad-verify-documents/1" and report["exit_status"] == 1
    assert [d["path"] for d in report["documents"]] == [str(page), MARKDOWN_003]
    assert [c["status"] for c in report["documents"][1]["cells"]] == [
        "ran", "named difference", "named difference", "named difference", "reproduced", "reproduced", "reproduced"]
    # the page: 5 reproduced, 1 differs, 1 unsupported, 1 error, 1 ran, 1 skipped; the 003 page as above
    assert report["summary"] == ("17 cells in 2 documents: 8 reproduced, 3 named differences, 1 differs, "
                                 "1 unsupported, 1 error, 1 skipped, 2 ran; SymPy disagreements: 0")


@pytest.mark.slow
def test_cli_verify_documents_table_and_markdown(tmp_path):
    proc = cli("verify", NOTEBOOK_003, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{NOTEBOOK_003} (notebook, 8 cells)\ncell  line  status")
    assert proc.stdout.rstrip().endswith("8 cells in 1 document: 3 reproduced, 5 named differences, 0 differs, "
                                         "0 unsupported, 0 errors, 0 skipped, 0 ran; SymPy disagreements: 0")
    md = cli("verify", "--markdown", "--no-check", NOTEBOOK_003, cwd=str(tmp_path))
    assert "| 8 | 14 | named difference | warnings differ (PyTorch 2.13 also warns: FutureWarning:" in md.stdout
    assert "| n/a |" in md.stdout  # --no-check: nothing proved


@pytest.mark.slow
def test_cli_verify_exit_status_2_and_3(tmp_path):
    page = tmp_path / "opt.md"
    page.write_text("```python\nimport torch\ntorch.optim.Adafactor([])\n```\n", encoding="utf-8")
    assert cli("verify", str(page), cwd=str(tmp_path)).returncode == 3
    proc = cli("verify", str(tmp_path / "missing.ipynb"), cwd=str(tmp_path))
    # a missing document is a command-line failure: one line on stderr, exit status 2
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"scalargrad verify: {tmp_path / 'missing.ipynb'}: no such file or directory\n"


@pytest.mark.slow
def test_cli_verify_help_documents_exit_statuses_and_json():
    proc = cli("verify", "--help", cwd=HERE)
    text = " ".join(proc.stdout.split())
    assert "exit status (PATHs): 0 all cells reproduced" in text
    assert '"schema": "scalargrad-verify-documents/1"' in text and '"expected", "expected_error", "produced"' in text


def test_directories_stand_for_their_notebooks_and_pages(tmp_path):
    from scalargrad.documents import expand_paths

    for name in ("b.md", "a.ipynb", "sub/c.rst", "sub/skip.py", ".hidden/d.md", "sub/.ipynb_checkpoints/a.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    assert expand_paths([str(tmp_path), "x.py"]) == [str(tmp_path / "a.ipynb"), str(tmp_path / "b.md"),
                                                      str(tmp_path / "sub" / "c.rst"), "x.py"]


def test_a_sympy_disagreement_fails_whatever_the_status():
    cell = {"status": "reproduced", "sympy_ok": False}
    assert exit_status([{"error": None, "cells": [cell]}]) == 1
    assert exit_status([{"error": None, "cells": [dict(cell, sympy_ok=None)]}]) == 0


def test_doctest_ignore_exception_detail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```pycon\n>>> int('x')  # doctest: +IGNORE_EXCEPTION_DETAIL\nTraceback (most recent call last):\n"
                    "ValueError: something else\n>>> int('y')\nTraceback (most recent call last):\n"
                    "ValueError: something else\n```\n", encoding="utf-8")
    assert statuses(document_report(str(page))) == [
        ("reproduced", ""),
        ("differs", "the document shows 'ValueError: something else', scalargrad raises "
                    "\"ValueError: invalid literal for int() with base 10: 'y'\"")]


def test_a_graph_picture_in_a_notebook_is_not_compared(tmp_path):
    """torchviz's make_dot displayed in Jupyter is stored as a picture (and its text/plain
    repr); under scalargrad the cell draws with scalargrad.viz and only printed text counts."""
    cells = [("import torch\nfrom torchviz import make_dot\nx = torch.tensor(2.0, requires_grad=True)\n"
              "print('drawing')\nmake_dot(x * x)\n",
              stdout("drawing\n") + [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                      "data": {"image/svg+xml": "<svg/>",
                                               "text/plain": "<graphviz.graphs.Digraph at 0x7f1d2c3b4a90>"}}])]
    entry = document_report(notebook(cells, tmp_path / "graph.ipynb"))
    assert statuses(entry) == [("reproduced", "")]
    assert entry["cells"][0]["notes"] == ["its picture is not compared"]
