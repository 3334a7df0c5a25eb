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
        ("named difference", "node names of an older PyTorch"),  # Module Code 1: LogBackward -> LogBackward0
        ("named difference", "node names of an older PyTorch"),  # its z, displayed
        ("named difference", "node names of an older PyTorch"),  # Module Code 2
        # Module Code 7: the page lost the indentation and PyTorch 1.4 sorted the ModuleDict
        ("named difference", "ModuleDict order; node names of an older PyTorch; white space"),
        ("reproduced", ""),  # Hook Code 1
        ("reproduced", ""),  # Hook Code 2
        # Hook Code 3: the legacy backward hook now warns
        ("named difference", "warnings differ (register_backward_hook: PyTorch 1.7 and older gave no warning, 1.8 to "
                             "1.13 a UserWarning, 2.x a FutureWarning)"),
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
        ("named difference", "node names of an older PyTorch"),
        ("named difference", "node names of an older PyTorch"),
        ("named difference", "ModuleDict order; node names of an older PyTorch; white space"),
        ("reproduced", ""),
        ("reproduced", ""),
        ("reproduced", ""),  # a page shows no warnings: the FutureWarning is no difference
    ]
    assert [c["line"] for c in entry["cells"]][:2] == [6, 12]  # the code's first line in the file
    assert exit_status([entry]) == 0


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
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
    ("z.grad_fn\n", shown("<LogBackward at 0x7f3a2c1b5e80>"), "named difference",  # as IPython shows it
     "node names of an older PyTorch"),
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


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
def test_notebook_with_deliberate_mistakes(tmp_path, no_matplotlib):
    entry = document_report(notebook(MISTAKES, tmp_path / "mistakes.ipynb"))
    assert statuses(entry) == [(status, detail) for _code, _out, status, detail in MISTAKES]
    cells = entry["cells"]
    assert cells[0]["notes"] == ["left out (IPython shell or magic): !pip install torch"]
    assert cells[3]["diff"].split("\n")[2:] == ["@@ -1,2 +1,2 @@", " x.grad tensor(0.6000)", "-q.grad tensor(1.6095)",
                                                "+q.grad tensor(1.6094)"]
    assert cells[3]["sympy"] == "1 backward: 2 grads agree" and cells[3]["sympy_ok"] is True
    assert cells[11]["notes"] == ["left out: the import of matplotlib (not installed)", "its picture is not compared"]
    # x.grad: 3/5 from cell 4, plus d(log(x) * x**3)/dx = x**2 + 3 x**2 log(x) = 25 + 75 ln 5 at 5
    assert cells[17]["expected"] is None and cells[17]["produced"] == "tensor(146.3079)\n"
    assert exit_status([entry]) == 1


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
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


# ---------------------------------------------------------------- several documents, reports


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
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


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
def test_reports(tmp_path, no_matplotlib):
    entries = [document_report(MARKDOWN_003), document_report(notebook(MISTAKES, tmp_path / "m.ipynb"))]
    line = summary(entries)
    # the 003 page: 1 ran, 3 named, 3 reproduced; the mistakes: 4 reproduced, 3 named, 3 differ, 1
    # unsupported, 1 error, 5 skipped, 1 ran
    assert line == ("25 cells in 2 documents: 7 reproduced, 6 named differences, 3 differs, 1 unsupported, "
                    "1 error, 0 timed out, 5 skipped, 2 ran; SymPy disagreements: 0")
    text = table(entries)
    assert text.endswith("\n" + line)
    assert "cell 4 differs: line 2: the document shows 'q.grad tensor(1.6095)'" in text
    assert "    -q.grad tensor(1.6095)\n    +q.grad tensor(1.6094)" in text
    md = markdown(entries)
    assert f"### {MARKDOWN_003}" in md and "| 2 | 12 | named difference | node names of an older PyTorch |" in md


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
def test_json_schema_fields(tmp_path):
    entry = document_report(MARKDOWN_003)
    assert set(entry) == {"path", "kind", "error", "note", "cells"}
    assert set(entry["cells"][1]) == {"index", "line", "status", "detail", "differences", "excused", "source",
                                      "expected", "expected_error", "produced", "produced_error", "diff", "notes",
                                      "sympy", "sympy_ok", "seconds"}
    assert entry["cells"][1]["differences"] == [{
        "name": "node names of an older PyTorch",
        "explanation": "the document shows a graph node's name as an older PyTorch printed it (LogBackward became "
                       "LogBackward0 in PyTorch 1.10; ThAddBackward was PyTorch 0.4's AddBackward0)"}]
    assert entry["cells"][1]["excused"] == [{
        "rule": "node names of an older PyTorch", "part": "output", "document_line": 5,
        "document": "z tensor(4.8283, grad_fn=<LogBackward>)", "scalargrad_line": 5,
        "scalargrad": "z tensor(4.8283, grad_fn=<LogBackward0>)", "shown": "LogBackward", "printed": "LogBackward0"}]
    json.dumps(entry)  # plain data


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
@pytest.mark.parametrize("forks", [True, False])
def test_a_cell_that_hangs_is_stopped_and_the_others_keep_their_verdicts(tmp_path, monkeypatch, forks):
    # in a fork of the warm worker, or, in a process that runs other threads (PyTorch's pool, say),
    # in a fresh interpreter
    from scalargrad import warm_worker

    if forks and not hasattr(os, "fork"):
        pytest.skip("no os.fork here")
    monkeypatch.setattr(warm_worker, "_threads", lambda: 1 if forks else 2)
    page = tmp_path / "slow.md"
    page.write_text(textwrap.dedent("""\
        ```python
        print(1 + 1)
        ```

        ```
        2
        ```

        ```python
        import time
        while True:
            try:
                time.sleep(30)
            except Exception:  # what it catches does not stop the limit
                pass
        ```

        ```python
        print(2 + 2)
        ```

        ```
        4
        ```
    """), encoding="utf-8")
    [entry] = check_documents([str(page)], cell_timeout=1)
    assert statuses(entry) == [("reproduced", ""), ("timed out", "stopped after 1 s (the time limit of a cell)"),
                               ("reproduced", "")]
    assert not entry.get("crashed") and exit_status([entry]) == 1
    [entry] = check_documents([str(page)], cell_timeout=60, doc_timeout=8)
    assert statuses(entry) == [
        ("reproduced", ""), ("timed out", "stopped when the document had run 8 s (its time limit)"),
        ("skipped", "not run: the document's time limit ran out in cell 2")]


@pytest.mark.slow  # a whole document judged in a child process, killed after 9 s of wall time
def test_a_run_that_cannot_stop_itself_is_killed_and_keeps_its_verdicts(tmp_path, monkeypatch):
    import scalargrad.documents as documents

    monkeypatch.setattr(documents, "_GRACE", 1.0)
    page = tmp_path / "stuck.md"
    page.write_text("```python\nprint(3)\n```\n\n```\n3\n```\n\n```python\nimport signal, time\n"
                    "signal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(60)\n```\n\n```python\nprint(4)\n```\n",
                    encoding="utf-8")
    [entry] = check_documents([str(page)], doc_timeout=8)
    assert entry["crashed"] and entry["error"] is None
    assert statuses(entry) == [("reproduced", ""), ("timed out", "the check of the document was killed: timed out "
                                                                  "after 9 s"),
                               ("skipped", "not run: the check of the document was stopped in cell 2")]
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
    assert report["schema"] == "scalargrad-verify-documents/2" and report["exit_status"] == 1
    assert [d["path"] for d in report["documents"]] == [str(page), MARKDOWN_003]
    assert [c["status"] for c in report["documents"][1]["cells"]] == [
        "ran", "named difference", "named difference", "named difference", "reproduced", "reproduced", "reproduced"]
    # the page: 5 reproduced, 1 differs, 1 unsupported, 1 error, 1 ran, 1 skipped; the 003 page as above
    assert report["summary"] == ("17 cells in 2 documents: 8 reproduced, 3 named differences, 1 differs, "
                                 "1 unsupported, 1 error, 0 timed out, 1 skipped, 2 ran; SymPy disagreements: 0")


@pytest.mark.slow
def test_cli_verify_documents_table_and_markdown(tmp_path):
    proc = cli("verify", NOTEBOOK_003, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{NOTEBOOK_003} (notebook, 8 cells)\ncell  line  status")
    assert proc.stdout.rstrip().endswith("8 cells in 1 document: 3 reproduced, 5 named differences, 0 differs, "
                                         "0 unsupported, 0 errors, 0 timed out, 0 skipped, 0 ran; SymPy "
                                         "disagreements: 0")
    md = cli("verify", "--markdown", "--no-check", NOTEBOOK_003, cwd=str(tmp_path))
    assert "| 8 | 14 | named difference | warnings differ (register_backward_hook: PyTorch 1.7" in md.stdout
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
    assert '"schema": "scalargrad-verify-documents/2"' in text and '"expected", "expected_error", "produced"' in text


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


# ---------------------------------------------------------------- pages read right

LABELLED = """\
# 自动求梯度

```python
x = torch.ones(2, 2, requires_grad=True)
print(x)
```

输出：
```python
tensor([[1., 1.],
        [1., 1.]], requires_grad=True)
```

```python
y = (x * 3).sum()
print(y.grad_fn)
```

出力:

```py
<SumBackward0 object at 0x7f1e2d3c4b50>
```

```python
y.backward()
print(x.grad)
```

```python
tensor([[3., 3.],
        [3., 3.]])
```

```python
z = x.sum() * 2
print(z)
```

```python
# output
tensor(8., grad_fn=<MulBackward0>)
```

```python
w = x.sum()
print(w)
```

```shell
tensor(4., grad_fn=<SumBackward0>)
```

실행 결과
```shell
tensor(4., grad_fn=<SumBackward0>)
```
"""


def test_pages_read_output_blocks_tagged_as_code(tmp_path):
    page = tmp_path / "labels.md"
    page.write_text(LABELLED, encoding="utf-8")
    entry = document_report(str(page))
    # torch is used, never imported: the page runs with import torch first, and says so
    assert entry["note"] == "it uses torch without importing it: run with import torch first"
    assert statuses(entry) == [("reproduced", "")] * 4 + [("ran", "")]
    assert [c["expected"].split("\n")[0] for c in entry["cells"][:4]] == [
        "tensor([[1., 1.],", "<SumBackward0 object at 0x7f1e2d3c4b50>", "tensor([[3., 3.],",
        "tensor(8., grad_fn=<MulBackward0>)"]
    # a shell block without a label is not an output; with one ("실행 결과") it is, but it
    # follows no code block here
    assert entry["cells"][4]["expected"] is None


NBCONVERT = """# a notebook written out by jupyter nbconvert --to markdown

```python
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
print(a * 2)
```

    tensor([2., 4.], grad_fn=<MulBackward0>)



```python
a.sum()
```




    tensor(3., grad_fn=<SumBackward0>)



```python
print('before')
a.backward()
```

    before



    ---------------------------------------------------------------------------

    RuntimeError                              Traceback (most recent call last):

    Cell In[3], line 2
    ----> 2 a.backward()


    RuntimeError: grad can be implicitly created only for scalar outputs


```python
def f(x):
    return x * 2
```

    def g(x):
        return x + 1

    indented prose after a blank line
"""


def test_pages_read_indented_outputs_as_nbconvert_writes_them(tmp_path):
    page = tmp_path / "nbconvert.md"
    page.write_text(NBCONVERT, encoding="utf-8")
    cells = read_document(str(page)).cells
    assert [c.expected.text if c.expected else None for c in cells] == [
        "tensor([2., 4.], grad_fn=<MulBackward0>)\n", "tensor(3., grad_fn=<SumBackward0>)\n", "before\n\n\n\n", None]
    # IPython's traceback: the error is its last line; indented Python after a block is code, not its output
    assert cells[2].expected.error == "RuntimeError: grad can be implicitly created only for scalar outputs"


def test_a_page_that_imports_torch_has_no_prelude(tmp_path):
    page = tmp_path / "imports.md"
    page.write_text("```python\nimport torch as t\nprint(t.ones(1))\n```\n\n```\ntensor([1.])\n```\n",
                    encoding="utf-8")
    entry = document_report(str(page))
    assert entry["note"] == "" and statuses(entry) == [("reproduced", "")]


def test_a_notebook_cell_that_prints_then_fails(tmp_path):
    """The text printed before a stored error is compared, then the error's type and message."""
    cells = [("import torch\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x\n", []),
             ("print(y.detach())\ny.backward()\ny.backward()\n",
              stdout("tensor(99.)\n") + error("RuntimeError", GRAPH_AGAIN)),
             ("print(y.detach())\ny.backward()\n",
              stdout("tensor(9.)\n") + error("RuntimeError", GRAPH_AGAIN)),
             ("print(y.detach())\ny.backward()\n",
              stdout("tensor(9.)\n") + error("ValueError", GRAPH_AGAIN)),
             ("print(y.detach())\ny.backward()\n",
              stdout("tensor(9.)\n") + error("RuntimeError", "Trying to backward through the graph twice"))]
    entry = document_report(notebook(cells, tmp_path / "errors.ipynb"))
    assert statuses(entry)[:3] == [
        ("reproduced", ""),  # run by its author, it showed nothing: nothing is what it prints
        ("differs", "line 1: the document shows 'tensor(99.)', scalargrad prints 'tensor(9.)'"),
        ("reproduced", "")]
    assert [s for s, _ in statuses(entry)[3:]] == ["differs", "differs"]


def test_warnings_the_document_shows_must_be_given(tmp_path):
    code = "import warnings\nwarnings.warn('the mesh is coarse')\n"
    given = [{"output_type": "stream", "name": "stderr", "text": "/tmp/x.py:2: UserWarning: the mesh is coarse\n"}]
    other = [{"output_type": "stream", "name": "stderr", "text": "/tmp/x.py:2: UserWarning: the mesh is fine\n"}]
    again = code.replace("coarse", "medium")  # (a warning is shown once per place, as in a fresh kernel)
    entry = document_report(notebook([(code, given), (again, other), ("x = 1\n", given)], tmp_path / "w.ipynb"))
    assert statuses(entry) == [
        ("reproduced", ""),
        ("differs", "the document shows the warning 'UserWarning: the mesh is fine', scalargrad gives "
                    "'UserWarning: the mesh is medium'"),
        ("differs", "the document shows the warning 'UserWarning: the mesh is coarse', which scalargrad does not "
                    "give")]


def test_cli_an_unreadable_document_is_one_line_and_the_others_are_checked(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json", encoding="utf-8")
    good = tmp_path / "good.md"
    good.write_text("```python\nprint(1)\n```\n\n```\n1\n```\n", encoding="utf-8")
    proc = cli("verify", str(bad), str(tmp_path / "missing.md"), str(good), cwd=str(tmp_path))
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"scalargrad verify: {bad}: cannot be read: not a notebook (not valid JSON:")
    assert lines[1] == f"scalargrad verify: {tmp_path / 'missing.md'}: no such file or directory"
    assert proc.stdout.startswith(f"{good} (markdown, 1 cell)\n") and "1 reproduced" in proc.stdout


GALLERY_RST = """\
Autograd
========

.. code-block:: python

   import torch
   x = torch.ones(2, requires_grad=True)
   print(x * 2)

.. rst-class:: sphx-glr-script-out

 Out:

 .. code-block:: python

    tensor([2., 2.], grad_fn=<MulBackward0>)

.. code-block:: python

   print((x * 3).sum())

.. code-block:: python

   print("a second block of code, not an output")
"""


def test_restructured_text_outputs_after_a_label(tmp_path):
    page = tmp_path / "gallery.rst"
    page.write_text(GALLERY_RST, encoding="utf-8")
    doc = read_document(str(page))
    assert [(c.source.split("\n")[-2], None if c.expected is None else c.expected.text) for c in doc.cells] == [
        ("print(x * 2)", "tensor([2., 2.], grad_fn=<MulBackward0>)\n"),
        ("print((x * 3).sum())", None),
        ('print("a second block of code, not an output")', None)]


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
def test_numbers_of_uninitialised_memory_are_attributed(tmp_path):
    """torch.empty holds anything in PyTorch: under verify it holds different numbers in each
    run, which excuses exactly the numbers printed from it."""
    page = tmp_path / "empty.md"
    page.write_text(textwrap.dedent("""\
        ```python
        import torch
        x = torch.empty(2, 3)
        print(x)
        print(torch.ones(2).sum())
        ```

        ```
        tensor([[-8.9209e-11,  4.5846e-41, -8.9209e-11],
                [ 4.5846e-41,  0.0000e+00,  0.0000e+00]])
        tensor(2.)
        ```

        ```python
        print(x.shape, torch.ones(3).sum())
        ```

        ```
        torch.Size([2, 3]) tensor(4.)
        ```
    """), encoding="utf-8")
    entry = document_report(str(page))
    assert statuses(entry) == [
        ("named difference", "uninitialised memory"),
        ("differs", "line 1: the document shows 'torch.Size([2, 3]) tensor(4.)', scalargrad prints "
                    "'torch.Size([2, 3]) tensor(3.)'")]
    assert [x["shown"] for x in entry["cells"][0]["excused"]] == [
        "-8.9209e-11", "4.5846e-41", "-8.9209e-11", "4.5846e-41", "0.0000e+00", "0.0000e+00"]
    # outside verify, scalargrad's uninitialised memory holds zeros
    import scalargrad

    assert scalargrad.empty(2).tolist() == [0.0, 0.0]


def test_a_failing_cell_makes_stale_only_the_names_it_did_not_bind(tmp_path):
    cells = [("import torch\nx = torch.tensor(2.0)\nz = torch.tensor(1.0)\n", []),
             # torch and y are bound before the error; z is not (it keeps its old value)
             ("import torch\ny = x * 3\nz = x.frobnicate()\n", []),
             ("print(y)\n", stdout("tensor(7.)\n")),  # y was made: a real difference
             ("print(z)\n", stdout("tensor(8.)\n"))]  # z was not: the earlier cell is where it went wrong
    entry = document_report(notebook(cells, tmp_path / "stale.ipynb"))
    assert statuses(entry)[2:] == [
        ("differs", "line 1: the document shows 'tensor(7.)', scalargrad prints 'tensor(6.)'"),
        ("skipped", "needs 'z' from cell 2, which did not run to the end")]


def test_memory_scalargrad_allocates_and_initialises_is_not_uninitialised():
    import scalargrad
    from scalargrad._tensor import factories

    memory = factories.UNINITIALISED
    saved = memory.source, memory.reads
    memory.source, memory.reads = (lambda n, dt: [7.0] * n), 0
    try:
        scalargrad.manual_seed(0)
        scalargrad.nn.Linear(3, 2)  # allocates its weight with empty, then initialises it
        assert memory.reads == 0
        assert scalargrad.empty(2).tolist() == [7.0, 7.0]  # the document's own empty
        assert memory.reads == 1
    finally:
        memory.source, memory.reads = saved


def test_an_import_of_a_package_not_installed_is_left_out_and_the_rest_runs(tmp_path, no_matplotlib):
    cells = [  # a notebook's first cell, as many begin: the plotting import before torch's
        ("import matplotlib.pyplot as plt\nimport os, no_such_package_here as nsp\nimport torch\n"
         "from no_such_package_here.sub import thing\nx = torch.tensor(2.0, requires_grad=True)\nprint(os.sep)\n",
         stdout("/\n")),
        ("(x ** 3).backward()\nprint(x.grad)\n", stdout("tensor(13.)\n")),  # 3 x**2 = 12: judged, and wrong
        ("plt.plot([1, 2])\n", []),
        ("print(nsp.f(x))\n", stdout("1\n")),
        ("thing\n", []),
        ("print(x.grad * 2)\n", stdout("tensor(24.)\n"))]
    entry = document_report(notebook(cells, tmp_path / "imports.ipynb"))
    assert statuses(entry) == [
        ("reproduced", ""),
        ("differs", "line 1: the document shows 'tensor(13.)', scalargrad prints 'tensor(12.)'"),
        ("skipped", "draws a plot (matplotlib is not installed)"),
        ("skipped", "needs the package no_such_package_here, which is not installed"),
        ("skipped", "needs the package no_such_package_here, which is not installed"),
        ("reproduced", "")]
    assert entry["cells"][0]["notes"] == [
        "left out: the import of matplotlib, no_such_package_here (not installed)"]
    assert exit_status([entry]) == 1


@pytest.mark.slow  # whole documents judged in child processes (10-60 s on a busy machine)
def test_a_differing_cell_of_a_document_that_drew_is_run_more_times(tmp_path):
    # the number of the cell's loop depends on an unseeded draw but comes out the same in the
    # first three runs (here: the runs count themselves in a file, so that it is certain)
    counting = ("import os\nn = int(open('runs').read()) if os.path.exists('runs') else 0\n"
                "open('runs', 'w').write(str(n + 1))\n")
    cells = [("import torch\nx = torch.rand(3)\n" + counting, []),
             ("print(512 if n < 3 else 1024)\n", stdout("2048\n")),  # varies in later runs: excused
             ("print(7)\n", stdout("8\n"))]  # never varies: a difference after every run
    entry = document_report(notebook(cells, tmp_path / "loops.ipynb"), check=False)
    assert statuses(entry)[1:] == [
        ("named difference", "unseeded random numbers"),
        ("differs", "line 1: the document shows '8', scalargrad prints '7'")]
    assert (tmp_path / "runs").read_text() == "7"  # 1 run, 2 reruns, 4 more for the differing cells
    assert "run 7 times" in entry["note"]


def test_an_import_that_a_cell_makes_possible_is_not_left_out(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers_of_the_book.py").write_text("def twice(x):\n    return 2 * x\n", encoding="utf-8")
    cells = [("import sys\nsys.path.append('lib')\nimport helpers_of_the_book as d2l\nprint(d2l.twice(21))\n",
              stdout("42\n"))]
    # and a document that shows the error gets it
    cells.append(("import no_such_package_here\n",
                  error("ModuleNotFoundError", "No module named 'no_such_package_here'")))
    entry = document_report(notebook(cells, tmp_path / "book.ipynb"), check=False)
    assert statuses(entry) == [("reproduced", ""), ("reproduced", "")] and entry["cells"][0]["notes"] == []
