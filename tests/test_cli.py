"""The ``scalargrad`` command line: ``verify`` (the reference catalogue, compared with PyTorch 2.13)
and ``run`` (an unmodified PyTorch program with ``torch`` resolved to scalargrad).

Everything goes through ``python -m scalargrad`` in a child interpreter, from a directory outside
the repository (the console script exists only once the package is installed). The expected
outputs of the small programs below were captured by running them with real PyTorch 2.13
(``python3 prog.py``); they are hard-coded so that these tests run without torch.
"""

from __future__ import annotations

import configparser
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scalargrad import runner
from scalargrad.errors import Unsupported

# end to end: the command in child interpreters (a plain pytest leaves it out: --slow runs it)
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "reference"


def scalargrad_cli(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m scalargrad ARGS`` in a fresh interpreter, run from ``cwd``."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env.pop("PYTHONWARNINGS", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "scalargrad", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def catalogue() -> list[tuple[str, dict]]:
    """(document, entry) for every example, read straight from the examples.json files."""
    out = []
    for f in sorted(REFERENCE.glob("*/examples.json")):
        out += [(f.parent.name, e) for e in json.loads(f.read_text(encoding="utf-8"))]
    return out


def write(tmp: Path, name: str, source: str) -> Path:
    path = tmp / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def markdown_table(text: str) -> list[list[str]]:
    """The rows (cells stripped) of the Markdown table at the top of ``text``; asserts its shape."""
    lines = text.splitlines()
    rows = []
    for line in lines:
        if not line:
            break
        assert line.startswith("| ") and line.endswith(" |") or line.startswith("|---"), line
        rows.append([c.strip() for c in line.strip("|").split("|")])
    assert len(rows) >= 2, text
    width = len(rows[0])
    assert rows[1] == ["---"] * width, "the second line must be the header separator"
    assert all(len(r) == width for r in rows), "every row must have as many cells as the header"
    return rows


# ---------------------------------------------------------------- verify


@pytest.fixture(scope="module")
def verify_all(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict]:
    """``verify --json --no-check`` over the whole catalogue, run once for the tests below."""
    proc = scalargrad_cli("verify", "--json", "--no-check", "--jobs", "4", cwd=tmp_path_factory.mktemp("verify"))
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"verify --json did not print JSON (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc, report


@pytest.mark.slow
def test_verify_json_lists_every_example_of_every_document(verify_all):
    _, report = verify_all
    want = [(doc, e["id"]) for doc, e in catalogue()]
    assert len({doc for doc, _ in want}) == 5
    assert [(e["document"], e["id"]) for e in report["examples"]] == want
    for e in report["examples"]:
        assert e["result"] in ("reproduced", "differs", "not supported", "crashed"), e
        assert "sympy" in e and "sympy_ok" in e, "the SymPy column must be in every row"
        assert e["sympy"] == "n/a"  # --no-check
    assert report["summary"].startswith(f"{len(want)} examples from 5 documents: ")


@pytest.mark.slow
def test_verify_finds_no_regression(verify_all):
    proc, report = verify_all
    regressed = {e["id"]: e["detail"] for e in report["examples"] if e["regression"]}
    assert regressed == {}
    assert proc.returncode == 0, proc.stderr
    assert ", 0 regressed;" in report["summary"]
    for e in report["examples"]:
        # the only accepted shortfall: a feature the catalogue lists under `needs`, named
        assert e["result"] in ("reproduced", "not supported")
        if e["result"] == "not supported":
            assert e["needs"] and e["detail"], e


def test_verify_k_filters_by_id_or_document(tmp_path):
    want = [e["id"] for doc, e in catalogue() if "hook_code_3" in e["id"] or "hook_code_3" in doc]
    assert len(want) == 4  # hook_code_3 and its three probes
    proc = scalargrad_cli("verify", "--json", "--no-check", "-k", "hook_code_3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [e["id"] for e in json.loads(proc.stdout)["examples"]] == want

    doc = "004_794f6cdce7b5a25b"
    proc = scalargrad_cli("verify", "--no-check", "-k", doc[:4], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    head, *body = proc.stdout.splitlines()
    assert head.split() == ["example", "document", "document", "vs", "PyTorch", "scalargrad", "SymPy", "check"]
    ids = [line.split()[0] for line in body[1:] if line.strip() and doc in line]
    assert ids == [e["id"] for d, e in catalogue() if d == doc]
    assert body[-1].startswith(f"{len(ids)} examples from 1 document: ")


def test_verify_markdown_is_a_valid_table(tmp_path):
    doc = "004_794f6cdce7b5a25b"
    proc = scalargrad_cli("verify", "--markdown", "--no-check", "-k", doc, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = markdown_table(proc.stdout)
    assert rows[0] == ["example", "document", "document vs PyTorch", "scalargrad", "SymPy check"]
    assert [r[0] for r in rows[2:]] == [e["id"] for d, e in catalogue() if d == doc]
    assert all(r[1] == doc for r in rows[2:])
    assert proc.stdout.rstrip().splitlines()[-1].startswith("6 examples from 1 document: ")


def test_verify_with_sympy_checks(tmp_path):
    """Without --no-check every backward is proved: the SymPy column says how many gradients agree."""
    ids = [e["id"] for _, e in catalogue() if e["id"].startswith("parameter_code_")]
    assert len(ids) == 5
    proc = scalargrad_cli("verify", "--json", "-k", "parameter_code_", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert [e["id"] for e in report["examples"]] == ids
    for e in report["examples"]:
        assert e["result"] == "reproduced" and not e["regression"], e
        # each program calls backward() once or ten times, and every gradient agrees with SymPy
        assert re.fullmatch(r"(1 backward|10 backwards): (1 grad agrees|\d+ grads agree)", e["sympy"]), e["sympy"]
        assert e["sympy_ok"] is True
    assert report["summary"].endswith("SymPy disagreements: 0")


def _scratch_catalogue(tmp: Path) -> Path:
    """A reference dir with module_code_1 as captured, module_code_2 with one character of its
    recorded PyTorch output altered, and a program that stops on torch.optim.Adafactor, listed with no
    needs, with that need, and with an unrelated need."""
    src = REFERENCE / "003_abae214ff6de8937"
    entries = {e["id"]: e for e in json.loads((src / "examples.json").read_text(encoding="utf-8"))}
    doc = tmp / "ref" / "003_abae214ff6de8937"
    doc.mkdir(parents=True)
    for name in ("module_code_1", "module_code_2"):
        shutil.copy(src / f"{name}.py", doc / f"{name}.py")
    altered = dict(entries["module_code_2"])
    assert "4.8283" in altered["torch_output"]
    altered["torch_output"] = altered["torch_output"].replace("4.8283", "4.8284", 1)
    (doc / "optim.py").write_text("import scalargrad as torch\nprint('start')\ntorch.optim.Adafactor([])\n",
                                  encoding="utf-8")
    optim = {"id": "optim_unlisted", "program": "optim.py", "title": "optim", "status": "reproduced",
             "torch_output": "start\n", "torch_stderr": "", "needs": []}
    optim_listed = dict(optim, id="optim_listed", needs=["torch.optim.Adafactor"])
    optim_other = dict(optim, id="optim_other_need", needs=["Module.named_children"])
    (doc / "examples.json").write_text(
        json.dumps([entries["module_code_1"], altered, optim, optim_listed, optim_other]), encoding="utf-8")
    return tmp / "ref"


def test_verify_detects_a_regression(tmp_path):
    ref = _scratch_catalogue(tmp_path)
    proc = scalargrad_cli("verify", "--no-check", "--reference", str(ref), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    rows = {line.split()[0]: line for line in out[2:out.index("")]}
    assert "DIFFERS" in rows["module_code_2"] and "reproduced" in rows["module_code_1"]
    assert "not supported (torch.optim.Adafactor)" in rows["optim_listed"]
    differences = out[out.index("Differences:") + 1:]
    differences = differences[:differences.index("")]
    assert [d.split(":")[0].strip() for d in differences] == ["module_code_2", "optim_unlisted", "optim_other_need"]
    assert "4.8284" in differences[0] and "4.8283" in differences[0]
    assert out[-1].startswith("5 examples from 1 document: 1 reproduced exactly, 1 not yet supported, 3 regressed")

    proc = scalargrad_cli("verify", "--json", "--no-check", "--reference", str(ref), cwd=tmp_path)
    assert proc.returncode == 1
    regression = {e["id"]: (e["result"], e["regression"]) for e in json.loads(proc.stdout)["examples"]}
    assert regression == {"module_code_1": ("reproduced", False), "module_code_2": ("differs", True),
                          "optim_unlisted": ("not supported", True), "optim_listed": ("not supported", False),
                          "optim_other_need": ("not supported", True)}


def test_verify_timeout_stops_a_catalogue_example(tmp_path):
    # --timeout bounds each example's process too (CI gives a loaded machine's corpus runs more)
    doc = tmp_path / "ref" / "003_abae214ff6de8937"
    doc.mkdir(parents=True)
    (doc / "slow.py").write_text("import time\nprint('start')\ntime.sleep(60)\n", encoding="utf-8")
    entry = {"id": "slow", "program": "slow.py", "title": "slow", "status": "reproduced",
             "torch_output": "start\n", "torch_stderr": "", "needs": []}
    (doc / "examples.json").write_text(json.dumps([entry]), encoding="utf-8")
    proc = scalargrad_cli("verify", "--no-check", "--timeout", "2", "--reference", str(tmp_path / "ref"),
                          cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "timed out after 2 s" in proc.stdout, proc.stdout


@pytest.mark.parametrize("needs, feature, listed", [
    (["torch.optim.Adam", "Module.parameters"], "torch.optim", True),
    (["multi-element tensors", "nn.Linear"], "torch.nn.Linear", True),
    (["nn.functional.linear"], "torch.nn.functional.linear", True),
    (["Tensor.expand", "Tensor.squeeze"], "Tensor.expand", True),
    (["multi-element tensors"], "tensors with more than one element", True),
    (["multi-element tensors"], "hooks on the grad_fn of a multi-element tensor", True),
    (["Module.named_children"], "torch.optim", False),
    (["torch.optimize"], "torch.optim", False),
    (["nn.Linear"], "torch.nn.LinearFoo", False),
    (["torch.utils.data"], "torch.utils.data.DataLoader", True),
    (["torch.utils.data"], "torch.utils.datapipes", False),
    ([], "torch.optim", False),
])
def test_not_supported_counts_only_for_a_listed_need(needs, feature, listed):
    from scalargrad.verify import lists_feature

    assert lists_feature(needs, feature) is listed


def test_python_m_scalargrad_is_the_command(tmp_path):
    proc = scalargrad_cli("--help", cwd=tmp_path)
    assert proc.returncode == 0
    assert "verify" in proc.stdout and "run" in proc.stdout
    # the console script installed by pip is the same function
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    target = cfg["options.entry_points"]["console_scripts"].strip()
    assert target == "scalargrad = scalargrad.cli:main"
    module, func = target.split("=")[1].strip().split(":")
    assert getattr(importlib.import_module(module), func) is importlib.import_module("scalargrad.cli").main


# ---------------------------------------------------------------- run

PLAIN = """\
    import torch
    from torch import nn


    class Square(nn.Module):
        def forward(self, x):
            return x * x


    x = torch.tensor(3.0, requires_grad=True)
    y = Square()(x) + torch.log(x)
    y.backward()
    print(y)
    print(x.grad)
    print(f"{x.grad.item():.6f}")
"""
# python3 prog.py with PyTorch 2.13
PLAIN_TORCH_OUTPUT = "tensor(10.0986, grad_fn=<AddBackward0>)\ntensor(6.3333)\n6.333333\n"


def test_run_a_plain_pytorch_program(tmp_path):
    write(tmp_path, "prog.py", PLAIN)
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, PLAIN_TORCH_OUTPUT, "")


def test_run_names_the_program_by_its_absolute_path_as_python_does(tmp_path):
    # `python prog.py` (3.9+) makes __main__'s __file__, its tracebacks and its warnings' file absolute,
    # while sys.argv[0] stays as typed; warnings printed by a tutorial carry that path
    write(tmp_path, "prog.py", "import sys, warnings\nprint(__file__)\nprint(sys.argv[0])\nwarnings.warn('w')\n")
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    python = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True)
    assert python.stdout == f"{tmp_path / 'prog.py'}\nprog.py\n"
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, python.stdout, python.stderr)


def test_run_missing_script(tmp_path):
    proc = scalargrad_cli("run", "nowhere.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "scalargrad run: no such file: nowhere.py"


@pytest.mark.parametrize("statement, feature", [
    ("opt = torch.optim.Adafactor([w], lr=0.1)", "torch.optim.Adafactor"),
    # a module PyTorch has imports as in PyTorch; what the program uses from it is named
    ("import torch.distributions; torch.distributions.Beta(1.0, 1.0)", "torch.distributions.Beta"),
    ("from torch.distributions import Beta; Beta(1.0, 1.0)", "torch.distributions.Beta"),
    ("spectrum = torch.fft.fft(w)", "torch.fft.fft"),
    ("import torch.utils.tensorboard", "torch.utils.tensorboard"),
    ("ctx = torch.autograd.graph.allow_mutation_on_saved_tensors()",
     "torch.autograd.graph.allow_mutation_on_saved_tensors"),
])
def test_run_unsupported_feature_is_one_sentence(tmp_path, statement, feature):
    write(tmp_path, "prog.py", f"""\
        import torch

        w = torch.tensor(1.0, requires_grad=True)
        print("before")
        {statement}
        print("after")
    """)
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "before\n"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    # the line of the program that used the feature is named
    assert lines[0].startswith("scalargrad run: prog.py, line 5: stopped: ")
    assert f" {feature} is not supported" in lines[0]


def test_run_unsupported_feature_deep_in_the_program_names_its_line_and_debug_adds_the_traceback(tmp_path):
    write(tmp_path, "prog.py", """\
        import torch

        w = torch.tensor([1.0, 2.0])


        def spectrum(x):
            return torch.fft.fft(x)


        print("before")
        spectrum(w)
    """)
    line = one_line_failure(scalargrad_cli("run", "prog.py", cwd=tmp_path), 3)
    assert line.startswith("scalargrad run: prog.py, line 7: stopped: torch.fft.fft is not supported")
    proc = scalargrad_cli("--debug", "run", "prog.py", cwd=tmp_path)
    assert proc.returncode == 3
    err = proc.stderr.splitlines()
    # the program's frames first, as python shows them (by the absolute path), then the one line as without --debug
    assert err[0] == "Traceback (most recent call last):" and err[-1] == line
    prog = tmp_path / "prog.py"
    assert f'  File "{prog}", line 11, in <module>' in err and f'  File "{prog}", line 7, in spectrum' in err
    assert err[-2].startswith("scalargrad._base.errors.Unsupported: torch.fft.fft is not supported")
    # --debug after the subcommand too
    assert scalargrad_cli("run", "--debug", "prog.py", cwd=tmp_path).stderr == proc.stderr


def test_a_program_asking_for_cuda_fails_as_under_pytorchs_cpu_build(tmp_path):
    # PyTorch's CPU wheel raises AssertionError("Torch not compiled with CUDA enabled") at
    # .cuda(): the program fails there under PyTorch, so it does under scalargrad (status 1,
    # the program's own error), not as a missing feature (status 3)
    write(tmp_path, "prog.py", """\
        import torch

        print(torch.cuda.is_available())
        x = torch.tensor([1.0]).cuda()
    """)
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "False\n")
    err = proc.stderr.splitlines()
    assert err[0] == "Traceback (most recent call last):"
    assert f'  File "{tmp_path / "prog.py"}", line 4, in <module>' in err
    assert err[-1] == "AssertionError: Torch not compiled with CUDA enabled"


def test_no_command_prints_the_usage_with_status_2(tmp_path):
    line = one_line_failure(scalargrad_cli(cwd=tmp_path), 2)
    assert line.startswith("scalargrad: no command given; usage: scalargrad [-h] [--debug] [--version] "
                           "{verify,run,demo} ...")
    assert scalargrad_cli("demo", cwd=tmp_path).stdout.startswith("z = log(x ** q) at x = 5, q = 3\n")


def test_verify_an_unreadable_document_is_one_line_on_stderr(tmp_path):
    (tmp_path / "broken.ipynb").write_text("{not json", encoding="utf-8")
    proc = scalargrad_cli("verify", "broken.ipynb", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "scalargrad verify: broken.ipynb: cannot be read: not a notebook (not valid JSON: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1))"]


def test_verify_with_nothing_to_check_says_so_with_status_2(tmp_path):
    # as -k matching no example: the paths given hold nothing verify can check
    (tmp_path / "empty.md").write_text("# A page\n\nNo code here.\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    line = one_line_failure(scalargrad_cli("verify", "empty.md", cwd=tmp_path), 2)
    assert line == "scalargrad verify: nothing to check: no code cells in empty.md"
    line = one_line_failure(scalargrad_cli("verify", "docs", cwd=tmp_path), 2)
    assert line == "scalargrad verify: nothing to check: no code cells in docs"
    # beside a document that has some, an empty one is a line of the report, not a failure
    (tmp_path / "page.md").write_text("```python\nprint(1 + 1)\n```\n\n```\n2\n```\n", encoding="utf-8")
    proc = scalargrad_cli("verify", "empty.md", "page.md", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "empty.md (markdown, 0 cells)" in proc.stdout and "page.md (markdown, 1 cell)" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("1 cell in 2 documents: 1 reproduced, ")


@pytest.mark.quick_sample  # in process: the quick run's share of this file
def test_counts_are_spelled_in_the_singular_for_one():
    import scalargrad
    from scalargrad import proof_summary, verify
    from scalargrad.symbolic import sympy_check

    x = scalargrad.tensor(2.0, requires_grad=True)
    report = sympy_check(x * x, [x])
    assert "(" in str(report) and " 1 nodes" not in str(report) and " node" in str(report).splitlines()[0]
    assert proof_summary.summarise_checks([report])["summary"] == "1 backward: 1 grad agrees"
    ex = verify.Example(document="d", id="e", program="p.py", title="e", status="document_error", torch_output="",
                        torch_stderr="")
    assert verify.summary([verify.Outcome(ex, "reproduced")]) == (
        "1 example from 1 document: 1 reproduced exactly, 0 not yet supported, 0 regressed; 1 document error "
        "recorded; SymPy disagreements: 0")
    corpus = verify.Example(document="d", id="c", program="c.py", title="c", status="corpus", torch_output="x",
                            torch_stderr="")
    assert verify.summary([verify.Outcome(corpus, "differs")]) == (
        "1 corpus program: 0 reproduced exactly, 0 not yet supported, 1 differs or fails; SymPy disagreements: 0")


ERROR = """\
    import torch


    def fit(x):
        print("fitting")
        loss = x * 2
        loss.backward()


    fit(torch.tensor(1.0))
"""


def test_run_program_error_shows_the_programs_traceback(tmp_path):
    write(tmp_path, "prog.py", ERROR)
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == "fitting\n"
    # (the running Python's own marks under a call, ~~~^^^, which 3.13 prints where 3.11 and 3.12
    # leave them out, are Python's display, not the traceback's content)
    lines = [line for line in proc.stderr.splitlines() if not re.fullmatch(r"\s*[~^]+\s*", line)]
    # as `python3 prog.py` shows it: from the program's first frame, ending with PyTorch's message
    assert lines[0] == "Traceback (most recent call last):"
    assert re.fullmatch(r'  File ".*prog\.py", line 10, in <module>', lines[1]), lines[1]
    assert lines[2] == "    fit(torch.tensor(1.0))"
    assert re.fullmatch(r'  File ".*prog\.py", line 7, in fit', lines[3]), lines[3]
    assert lines[-1] == "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    assert "runpy" not in proc.stderr and "runner.py" not in proc.stderr


def test_run_syntax_error_is_reported_like_python(tmp_path):
    write(tmp_path, "prog.py", "import torch\ndef f():\n# nothing\nprint(1)\n")
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr
    assert re.fullmatch(r'  File ".*prog\.py", line 4', lines[0]), lines[0]
    assert lines[-1] == "IndentationError: expected an indented block after function definition on line 2"


@pytest.mark.parametrize("code, status, stderr", [("0", 0, ""), ("None", 0, ""), ("4", 4, ""),
                                                   ("'giving up'", 1, "giving up\n")])
def test_run_sys_exit_is_the_exit_status(tmp_path, code, status, stderr):
    write(tmp_path, "prog.py", f"import sys\nimport torch\nprint('out')\nsys.exit({code})\nprint('never')\n")
    proc = scalargrad_cli("run", "prog.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (status, "out\n", stderr)


CHECKED = """\
    import sys

    import torch

    print(sys.argv)
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 3 + torch.log(x)
    y.backward()
    print(x.grad)
"""


def test_run_check_reports_sympy_at_exit_and_passes_argv(tmp_path):
    write(tmp_path, "prog.py", CHECKED)
    proc = scalargrad_cli("run", "--check", "--check-report", "proof.md", "prog.py", "alpha", "--beta", "7",
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # python3 prog.py alpha --beta 7 with PyTorch 2.13
    assert proc.stdout == "['prog.py', 'alpha', '--beta', '7']\ntensor(12.5000)\n"
    report = proc.stderr.strip().splitlines()
    assert report[0].startswith("SymPy check: OK, 1 backward pass checked, 1 of 1 gradient elements proved, in ")
    assert report[1] == "  (1 backward: 1 grad agrees)"
    assert report[-1] == "  the full table: proof.md"
    # the derivative SymPy proved, d/dx (x**3 + log x) = 3x**2 + 1/x = 12.5 at x = 2, in the full table
    table = (tmp_path / "proof.md").read_text(encoding="utf-8")
    assert "## backward #1: OK" in table
    assert re.search(r"^\| `x0` \| 12\.5 \| 12\.5 \| ok \| [^|]+ \| `3\*x0\*\*2 \+ 1/x0` \|", table, re.M), table


def test_run_options_after_the_script_belong_to_the_program(tmp_path):
    write(tmp_path, "prog.py", CHECKED)
    proc = scalargrad_cli("run", "prog.py", "--check", "-k", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "['prog.py', '--check', '-k']"
    assert proc.stderr == ""  # no SymPy report: --check went to the program


# ---------------------------------------------------------------- failures: one line, a documented status


def one_line_failure(proc: subprocess.CompletedProcess, status: int) -> str:
    """The one line on stderr of a failed command, checked: that status, no traceback."""
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("scalargrad"), proc.stderr
    return lines[0]


def test_help_documents_every_exit_status(tmp_path):
    from scalargrad.cli import EXIT_STATUS

    for args in (["--help"], ["verify", "--help"], ["run", "--help"]):
        proc = scalargrad_cli(*args, cwd=tmp_path)
        assert proc.returncode == 0 and EXIT_STATUS in proc.stdout, args
    statuses = [line.split()[0] for line in EXIT_STATUS.splitlines()[1:] if line[:4].strip().isdigit()]
    assert statuses == ["0", "1", "2", "3", "4", "5", "130"]


@pytest.mark.parametrize("args, message", [
    (["verify", "--jobs", "x"], "scalargrad verify: argument --jobs: expected a whole number, got 'x'"),
    (["verify", "--jobs", "0"], "scalargrad verify: argument --jobs: must be at least 1, got 0"),
    (["verify", "--bogus"], "scalargrad: unrecognized arguments: --bogus"),
    (["frobnicate"], "scalargrad: argument command: invalid choice: 'frobnicate'"),
    (["verify", "--json", "--markdown"], "scalargrad verify: argument --markdown: not allowed with argument --json"),
    (["verify", "--reference", "no-such-dir"], "scalargrad verify: --reference no-such-dir: no such directory"),
    (["verify", "-k", "no-such-example"], "scalargrad verify: no example id or document contains 'no-such-example'"),
    (["run", "nowhere.py"], "scalargrad run: no such file: nowhere.py"),
    (["run", "."], "scalargrad run: no such file: ."),
])
def test_bad_command_lines_exit_2_with_one_line(tmp_path, args, message):
    assert one_line_failure(scalargrad_cli(*args, cwd=tmp_path), 2).startswith(message)


def test_run_unreadable_script(tmp_path, monkeypatch, capsys):
    # (in-process: as root, no file is unreadable)
    from scalargrad import cli

    script = write(tmp_path, "secret.py", "print(1)\n")
    real_open = open

    def refuse(path, *args, **kw):
        if str(path) == str(script):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kw)

    monkeypatch.setattr("builtins.open", refuse)
    assert cli.main(["run", str(script)]) == 2
    assert capsys.readouterr().err == f"scalargrad run: cannot read {script}: Permission denied\n"


@pytest.mark.parametrize("examples_json, message", [
    ("{not json", "is not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
    ('{"id": "x"}', "must hold a list of examples"),
    ('[{"id": "x"}]', "example 1 has no 'program'"),
    ('[{"program": "x.py"}]', "example 1 has no 'id'"),
    ('[{"id": "x", "program": "x.py"}]', "the program of x is missing"),
    (b"\xff\xfe", "cannot read"),
])
def test_a_broken_catalogue_exits_4_with_one_line(tmp_path, examples_json, message):
    doc = tmp_path / "ref" / "000_doc"
    doc.mkdir(parents=True)
    f = doc / "examples.json"
    f.write_bytes(examples_json if isinstance(examples_json, bytes) else examples_json.encode())
    line = one_line_failure(scalargrad_cli("verify", "--reference", str(tmp_path / "ref"), cwd=tmp_path), 4)
    assert line.startswith(f"scalargrad verify: {f}" if "cannot read" not in message else "scalargrad verify: cannot")
    assert message in line


def test_a_directory_without_a_catalogue_exits_4(tmp_path):
    line = one_line_failure(scalargrad_cli("verify", "--reference", str(tmp_path), cwd=tmp_path), 4)
    assert line == f"scalargrad verify: no reference catalogue in {tmp_path} (expected <document>/examples.json)"


def test_an_installation_without_the_catalogue_exits_4(tmp_path, monkeypatch, capsys):
    # no scalargrad._reference package data and no source tree beside the package
    from scalargrad import cli, verify

    monkeypatch.setattr(verify.importlib.resources, "files", lambda name: (_ for _ in ()).throw(
        ModuleNotFoundError(f"No module named {name!r}")))
    monkeypatch.setattr(verify, "_SOURCE_TREE", str(tmp_path / "reference"))
    assert cli.main(["verify", "-k", "module_code_1"]) == 4
    err = capsys.readouterr().err
    assert err == ("scalargrad verify: cannot find the reference catalogue: this installation of scalargrad has no "
                   "scalargrad._reference package data; reinstall it, or pass --reference DIR\n")


def test_debug_adds_the_traceback(tmp_path):
    ref = str(tmp_path)
    for args in (["--debug", "verify", "--reference", ref], ["verify", "--debug", "--reference", ref]):
        proc = scalargrad_cli(*args, cwd=tmp_path)
        assert proc.returncode == 4
        assert proc.stderr.startswith("Traceback (most recent call last):") and "CatalogueError" in proc.stderr
        assert proc.stderr.splitlines()[-1].startswith("scalargrad verify: no reference catalogue in ")


def test_an_internal_error_is_one_line_with_status_5(monkeypatch, capsys):
    from scalargrad import cli

    monkeypatch.setattr(cli, "demo", lambda: 1 / 0)
    assert cli.main(["demo"]) == 5
    assert capsys.readouterr().err == ("scalargrad: internal error: ZeroDivisionError: division by zero "
                                       "(--debug shows the traceback)\n")
    assert cli.main(["--debug", "demo"]) == 5
    assert "Traceback (most recent call last):" in capsys.readouterr().err


# ---------------------------------------------------------------- the import alias


def _torch_modules() -> dict:
    return {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}


@pytest.mark.quick_sample  # in process: the quick run's share of this file
def test_torch_alias_resolves_torch_to_scalargrad_and_restores_sys_modules():
    import scalargrad
    import scalargrad.nn
    import scalargrad.nn.functional

    before, meta_path = _torch_modules(), list(sys.meta_path)
    with runner.torch_alias():
        import torch
        import torch.nn.functional as F
        from torch import nn

        assert torch is scalargrad and nn is scalargrad.nn and F is scalargrad.nn.functional
        assert sys.modules["torch.nn"] is scalargrad.nn
        import torch.distributions  # a module PyTorch has imports; what is used from it is named

        with pytest.raises(Unsupported) as info:
            torch.distributions.Beta(1.0, 1.0)
        assert info.value.feature == "torch.distributions.Beta"
        with pytest.raises(Unsupported) as info:
            import torch.utils.tensorboard  # outside the walk of PyTorch's names: named at import
        assert info.value.feature == "torch.utils.tensorboard"
    after = _torch_modules()
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)
    assert sys.meta_path == meta_path


def test_torch_alias_restores_sys_modules_after_an_error():
    before, meta_path = _torch_modules(), list(sys.meta_path)
    with pytest.raises(ZeroDivisionError), runner.torch_alias():
        import torch  # noqa: F401

        1 / 0  # noqa: B018
    after = _torch_modules()
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)
    assert sys.meta_path == meta_path


def test_torch_alias_keeps_real_torch_imported_before(torch_ref):
    import torch.nn

    real_nn = torch.nn
    with runner.torch_alias():
        import torch as aliased

        assert aliased is not torch_ref
        assert aliased.__name__ == "scalargrad"
    assert sys.modules["torch"] is torch_ref
    assert sys.modules["torch.nn"] is real_nn
    import torch

    assert torch is torch_ref and torch.nn is real_nn
    assert type(torch.ones(2)).__module__ == "torch"
