"""``scalargrad run --check``: a summary a person can read, and the full table only on request
(``--check-report FILE.json`` or ``FILE.md``).

The programs are small and need no PyTorch; their gradients are derived by hand in the comments.
The summary's figures for made-up reports (a mismatch, a hook, a convention, a failed check) are
worked out by hand too.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scalargrad.check_report import SCHEMA, as_json, as_markdown, report_format
from scalargrad.proof_summary import summarise_checks, summarise_proof, ulps
from scalargrad.symbolic import InputCheck, SymbolicReport

REPO = Path(__file__).resolve().parents[1]

# x0 = [1, 2, 3] (float64): d/dx sum(x**3) = 3x**2 = [3, 12, 27];
# w = [0, 4]: d/dw sum(sqrt(w)) = 1 / (2 sqrt(w)) = [inf, 0.25], inf at 0 being PyTorch's convention
# (calculus has no derivative there); stdout as PyTorch 2.13 prints it
PROGRAM = """\
import torch

x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
(x ** 3).sum().backward()
print(x.grad)
w = torch.tensor([0.0, 4.0], dtype=torch.float64, requires_grad=True)
torch.sqrt(w).sum().backward()
print(w.grad)
"""
STDOUT = "tensor([ 3., 12., 27.], dtype=torch.float64)\ntensor([   inf, 0.2500], dtype=torch.float64)\n"


def run_cli(tmp: Path, *args: str, source: str = PROGRAM) -> subprocess.CompletedProcess:
    (tmp / "prog.py").write_text(textwrap.dedent(source), encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env.pop("PYTHONWARNINGS", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "scalargrad", "run", *args, "prog.py"], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=600)


def test_check_prints_a_summary_not_the_table(tmp_path):
    proc = run_cli(tmp_path, "--check")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == STDOUT
    lines = proc.stderr.strip().splitlines()
    assert re.fullmatch(r"SymPy check: OK, 2 backward passes checked, 5 of 5 gradient elements proved, "
                        r"in \d+\.\d s", lines[0]), lines[0]
    assert lines[1] == "  (2 backwards: 4 grads agree, 1 convention)"
    # every value is exact in float64 (inf equals inf): no disagreement at all
    assert lines[2] == "  worst disagreement: none, every gradient element equals SymPy's value"
    assert lines[3] == "  the full table, element by element: --check-report FILE.md (or FILE.json)"
    assert len(lines) == 4  # no row per element
    assert "autograd  SymPy" not in proc.stderr


def test_check_report_json(tmp_path):
    proc = run_cli(tmp_path, "--check-report", "proof.json")  # implies --check
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == STDOUT
    assert proc.stderr.strip().splitlines()[-1] == "  the full table: proof.json"
    rep = json.loads((tmp_path / "proof.json").read_text(encoding="utf-8"))
    assert rep["schema"] == SCHEMA == "scalargrad-check-report/1"
    assert rep["program"] == "prog.py" and rep["ok"] is True
    s = rep["summary"]
    assert (s["backwards"], s["elements"], s["proved"]) == (2, 5, 5)
    assert s["statuses"] == {"ok": 4, "convention": 1}
    assert s["rule_failures"] == 0 and s["check_errors"] == [] and s["mismatches"] == []
    assert s["worst"]["difference"] == 0.0 and s["seconds"] > 0 and s["cpu_seconds"] > 0
    b1, b2 = rep["backwards"]
    assert [b["label"] for b in rep["backwards"]] == ["backward #1", "backward #2"]
    assert (b1["ok"], b1["verified"], b1["dtype"]) == (True, True, "float64")
    assert [(c["name"], c["autograd"], c["sympy"], c["status"]) for c in b1["inputs"]] == \
        [("x0[0]", 3.0, 3.0, "ok"), ("x0[1]", 12.0, 12.0, "ok"), ("x0[2]", 27.0, 27.0, "ok")]
    assert [(c["name"], c["autograd"], c["sympy"], c["status"]) for c in b2["inputs"]] == \
        [("x0[0]", "inf", "inf", "convention"), ("x0[1]", 0.25, 0.25, "ok")]
    assert any(n.startswith("sqrt: PyTorch's derivative at 0 is inf") for n in b2["inputs"][0]["notes"]), \
        b2["inputs"][0]["notes"]
    # whole strategy on these small graphs: d/dx0[1] of sum(x**3) is 3*x0[1]**2
    assert b1["inputs"][1]["expression"] == "3*x0[1]**2"


def test_check_report_markdown(tmp_path):
    proc = run_cli(tmp_path, "--check", "--check-report", "proof.md")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "proof.md").read_text(encoding="utf-8")
    assert text.startswith("# SymPy check of `prog.py`\n")
    assert "SymPy check: OK, 2 backward passes checked, 5 of 5 gradient elements proved" in text
    assert "## backward #1: OK (whole strategy" in text and "## backward #2: OK" in text
    assert "| input | autograd | SymPy | status | tolerance | d/d(input) | at the point |" in text
    assert re.search(r"^\| `x0\[2\]` \| 27\.0 \| 27\.0 \| ok \| [^|]+ \| `3\*x0\[2\]\*\*2` \|", text, re.M)
    assert re.search(r"^\| `x0\[0\]` \| inf \| inf \| convention \|", text, re.M)
    assert "- x0[0]: sqrt: PyTorch's derivative at 0 is inf" in text


def test_check_report_needs_a_known_ending(tmp_path):
    proc = run_cli(tmp_path, "--check-report", "proof.txt")
    assert proc.returncode == 2
    assert proc.stdout == ""  # refused before the program ran
    assert proc.stderr.strip().splitlines() == [
        "scalargrad run: --check-report proof.txt: the file name must end in .json (JSON) or .md (Markdown)"]
    assert report_format("a/b.JSON") == "json" and report_format("x.md") == "markdown"
    assert report_format("x.json.txt") is None


def test_a_hook_that_changes_a_gradient_is_not_proved_and_not_the_worst(tmp_path):
    # y = 3 * x at x = 2: dy/dx = 3, doubled by the hook to 6 on purpose
    source = """\
        import torch
        x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
        x.register_hook(lambda g: g * 2)
        (3 * x).backward()
        print(x.grad)
    """
    proc = run_cli(tmp_path, "--check", source=source)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "tensor(6., dtype=torch.float64)\n"
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("SymPy check: OK, 1 backward pass checked, 0 of 1 gradient elements proved")
    assert lines[1] == "  (1 backward: 0 grads agree, 1 hook)"
    assert not any("worst disagreement" in line for line in lines)


def _check(name, autograd, sympy, status="ok", tolerance=1e-9, notes=()):
    return InputCheck(name, autograd, sympy, status=status, tolerance=tolerance, notes=list(notes))


def made_up_reports() -> list:
    r1 = SymbolicReport([_check("x0[0]", 1.0, 1.0), _check("x0[1]", 1.5, 1.0, "mismatch", 0.25),
                         _check("x1", 0.0, 0.0, "convention")], "local", 5, "float64", label="backward #1",
                        elements=3)
    r2 = SymbolicReport([_check("x0", 6.0, 3.0, "hook"), _check("x1", 2.0, None, "unverifiable"),
                         _check("x2[0, 1]", 0.5 + 2.0**-24, 0.5, "ok", 2.0**-22)], "local", 4, "float32",
                        failures=["MulBackward0 (node 2): d/d(input 0) is 2.0 in autograd, 3.0 by SymPy"],
                        notes=["3 more rule failures not listed"], label="backward #2", elements=3)
    r3 = SymbolicReport([], "none", 0, "-", None, ["the check itself failed: KeyError('x')"], [], "backward #3")
    return [r1, r2, r3]


def test_summary_figures_by_hand():
    s = summarise_proof(made_up_reports(), seconds=1.25)
    assert (s.backwards, s.elements, s.proved, s.ok) == (3, 6, 3, False)
    assert s.statuses == {"ok": 2, "mismatch": 1, "convention": 1, "hook": 1, "unverifiable": 1}
    assert s.rule_failures == 1 + 3  # one listed, three more counted in a note
    assert s.check_errors == ["backward #3: the check itself failed: KeyError('x')"]
    # the worst is the mismatch: |1.5 - 1| = 0.5, twice its tolerance 0.25, 2**51 ulps at 1.0 in float64
    w = s.worst
    assert (w.backward, w.element, w.autograd, w.sympy, w.status) == ("backward #1", "x0[1]", 1.5, 1.0, "mismatch")
    assert (w.difference, w.relative, w.share, w.ulps) == (0.5, 0.5, 2.0, 2.0**51)
    assert s.mismatches == [w]
    lines = s.lines()
    assert lines[0] == ("SymPy check: MISMATCH, 3 backward passes checked, 3 of 6 gradient elements proved, "
                        "in 1.2 s")
    assert lines[1] == "  (3 backwards: 2 grads agree, 1 convention, 1 hook, 1 mismatch, 1 unverifiable)"
    assert lines[2] == ("  worst disagreement: x0[1] in backward #1: autograd 1.5, SymPy 1.0, difference 0.5 "
                        "(2.25e+15 ulps of float64, relative 0.5; 2 times its tolerance 0.25) [mismatch]")
    assert lines[3].startswith("  mismatch: x0[1] in backward #1: autograd 1.5, SymPy 1.0")
    assert lines[4] == ("  rule failure: backward #2: MulBackward0 (node 2): d/d(input 0) is 2.0 in autograd, "
                        "3.0 by SymPy")
    assert lines[5] == "  ... and 3 more rule failures"
    assert lines[6] == "  check failed: backward #3: the check itself failed: KeyError('x')"
    assert len(lines) == 7
    # verify's column is unchanged by all this
    assert summarise_checks(made_up_reports())["summary"] == lines[1].strip()[1:-1]


def test_worst_within_tolerance_in_float32_ulps():
    # 0.5 + 2**-24 against 0.5: float32's spacing at 0.5 is 2**-24, so 1 ulp, a quarter of 2**-22
    s = summarise_proof([made_up_reports()[1]])
    w = s.worst
    assert (w.element, w.ulps, w.share, w.dtype, w.status) == ("x2[0, 1]", 1.0, 0.25, "float32", "ok")
    assert "(1 ulps of float32, relative 1.19e-07; 25% of its tolerance 2.38e-07) [ok]" in s.lines()[2]


def test_ulps():
    assert ulps(2.0**-52, 1.0, "float64") == 1.0
    assert ulps(2.0**-23, 1.0, "float32") == 1.0
    assert ulps(2.0**-23, 1.9, "float32") == 1.0 and ulps(2.0**-23, 2.0, "float32") == 0.5
    # below float32's smallest normal (2**-126) the spacing stays 2**-149
    assert ulps(2.0**-149, 2.0**-140, "float32") == 1.0
    assert ulps(2.0**-149, 0.0, "float32") == 1.0
    assert ulps(1.0, math.inf, "float64") == math.inf and ulps(0.0, math.nan, "float64") == 0.0


def test_reports_write_non_finite_numbers_as_strings_and_escape_markdown():
    r = SymbolicReport([_check("x0", math.inf, math.inf, "convention"), _check("x1", math.nan, math.nan, "ok"),
                        _check("x2", -math.inf, None, "unverifiable")], "whole", 3, "float64",
                       expression="Piecewise((1, x0 > 0), (0, True)) | x1", label="backward #1")
    s = summarise_proof([r], seconds=0.5)
    doc = as_json("p.py", [r], s)
    text = json.dumps(doc, allow_nan=False)  # valid JSON: no NaN or Infinity tokens
    back = json.loads(text)["backwards"][0]["inputs"]
    assert [(c["autograd"], c["sympy"]) for c in back] == [("inf", "inf"), ("nan", "nan"), ("-inf", None)]
    md = as_markdown("p.py", [r], s)
    assert "output = `Piecewise((1, x0 > 0), (0, True)) \\| x1`" in md
    assert re.search(r"^\| `x0` \| inf \| inf \| convention \|", md, re.M)


@pytest.mark.parametrize("strategy", ["whole", "local"])
def test_summary_of_a_real_check_in_process(strategy):
    """summarise_proof on what check_every_backward collects (no subprocess): d/dx sum(x * x) = 2x."""
    import scalargrad as torch
    from scalargrad.symbolic import check_every_backward

    with check_every_backward(strategy=strategy) as log:
        x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64, requires_grad=True)
        (x * x).sum().backward()
    s = summarise_proof(log)
    assert (s.backwards, s.elements, s.proved, s.ok) == (1, 3, 3, True)
    assert [(c.name, c.autograd, c.symbolic) for c in log[0].inputs] == \
        [("x0[0]", 1.0, 1.0), ("x0[1]", -2.5, -2.5), ("x0[2]", 4.0, 4.0)]
    assert s.worst.difference == 0.0
