"""tests/kernel_record.py: which live tests CI runs again under other kernel sets.

The selection leaves a test out only when every PyTorch op it called is in the list of ops whose
result is the same on every processor. The list is checked here against PyTorch itself: a
battery of those ops, on edge and random values of both dtypes and lengths around every vector
width, gives the same bits in child interpreters under each setting CI uses as in this one; and
the op that must differ (``add`` with alpha, fused by the vector kernels) does differ, so the
comparison can fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernel_record import (
    NEEDS_FMA_SETTING,
    BackwardDigest,
    Recording,
    Selection,
    _draws_afresh,
    exact,
    reasons_to_rerun,
)

TESTS = Path(__file__).resolve().parent
SETTINGS = ("ATEN_CPU_CAPABILITY=default", "ATEN_CPU_CAPABILITY=avx2", "MKL_CBWR=COMPATIBLE")

# every listed arithmetic op, as bits: run here and in a child under each setting
_BATTERY = r'''
import json, math, random, sys
import torch
rng = random.Random(7)
edges = [0.0, -0.0, 1.0, -1.0, 2.0 ** -149, 2.0 ** -126, 3.4e38, -3.4e38, math.inf, -math.inf, math.nan, 0.1, 1 / 3]
out = {}
for dt, bits in ((torch.float32, torch.int32), (torch.float64, torch.int64)):
    for n in (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 67):
        draw = lambda r: [rng.choice(edges) if rng.random() < 0.2 else rng.uniform(-r, r) for _ in range(n)]
        a, b = torch.tensor(draw(50), dtype=dt), torch.tensor(draw(5), dtype=dt)
        s = rng.uniform(-3, 3)
        results = {
            "mul": a * b, "div": a / b, "add": a + b, "sub": a - b, "rsub": torch.rsub(a, b), "mul_s": a * s,
            "div_s": a / s, "add_s": a + s, "sub_s": a - s, "reciprocal": a.reciprocal(),
            "round": a.round(), "floor": a.floor(), "ceil": a.ceil(), "trunc": a.trunc(), "abs": a.abs(),
            "neg": -a, "clamp": a.clamp(-1.5, 2.5), "maximum": torch.maximum(a, b), "minimum": torch.minimum(a, b),
            "relu": torch.relu(a), "sign": a.sign(), "half": a.half().to(dt), "bfloat16": a.bfloat16().to(dt),
            "float": a.float().to(dt), "where": torch.where(a > b, a, b), "max": a.max().reshape(1),
            "alpha": torch.add(a, b, alpha=s),
        }
        for name, r in results.items():
            # the bits, and any nan as None (which nan comes out is allowed to differ: kernel_record.py)
            out[f"{dt}/{n}/{name}"] = [None if v != v else b for v, b in zip(r.tolist(), r.view(bits).tolist())]
json.dump(out, sys.stdout)
'''


def _battery(env: dict) -> dict:
    proc = subprocess.run([sys.executable, "-c", _BATTERY], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.slow  # four interpreters importing PyTorch
def test_the_listed_ops_give_the_same_bits_under_every_setting():
    torch = pytest.importorskip("torch")  # not live_torch: it runs PyTorch in children, once
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ATEN_CPU_CAPABILITY", "MKL_CBWR"))}
    here = _battery(base)
    fuses_here = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
    for setting in SETTINGS:
        name, value = setting.split("=")
        there = _battery({**base, name: value})
        differs = sorted({k.rsplit("/", 1)[1] for k in here if here[k] != there[k]})
        # add with alpha is not listed: ATen's vector code fuses it, its generic code does not
        assert differs == (["alpha"] if fuses_here and setting == "ATEN_CPU_CAPABILITY=default" else []), setting


def test_the_record_names_ops_with_what_makes_them_kernel_dependent(torch_ref):
    torch = torch_ref
    x = torch.tensor([0.5, 1.5, -2.0], requires_grad=True)
    with Recording(torch) as record:
        y = (x * 2 + 1).view(3)
        torch.add(y, y, alpha=3)
        y.detach().round(decimals=1)
        torch.zeros(3).index_put_((torch.tensor([0]),), torch.tensor([1.0]), accumulate=True)
        torch.tensor([1, 2]).cumsum(0)  # integers only: nothing to record
        (torch.tensor([1, 2]) == torch.tensor([1, 3])).sum()
        torch.tensor([1, 4]).sqrt()  # computed in float32
        torch.tensor([1, 2]).prod(dtype=torch.float64)
        torch.tensor([1, 2]) * 0.5
        y.exp().sum().backward()
        with record.label("fixture"):
            torch.tensor([1.0, 2.0]).sqrt()
    ops = record.ops
    assert {"aten::exp", "aten::sum", "aten::add(alpha)", "aten::round(decimals)", "aten::sqrt"} <= ops
    assert {"aten::index_put_(accumulate)", "aten::mul", "aten::view"} <= ops and "aten::add" in ops
    assert list(record.within) == ["fixture"] and "aten::sqrt" in record.within["fixture"]
    assert not record.within["fixture"] & {"aten::exp", "aten::sum", "aten::mul"}
    assert "aten::cumsum" not in ops
    with Recording(torch) as integers:
        torch.tensor([1, 2]).cumsum(0)
        (torch.tensor([1, 2]) == torch.tensor([1, 3])).sum()
    assert all(exact(op) for op in integers.ops) and "aten::eq" in integers.ops, integers.ops
    assert "aten::prod" in ops and "aten::mul" in ops  # with a dtype, with a float
    # neither a node nor an op without a kernel of its own (to, reshape: their ops are recorded)
    assert not [n for n in ops if "Backward" in n or n in ("aten::to", "aten::reshape")]
    assert not exact("aten::exp") and not exact("aten::add(alpha)") and not exact("aten::mm")
    assert exact("aten::mul") and exact("aten::view") and exact("aten::max") and exact("aten::add")
    assert not exact("aten::round(decimals)") and not exact("aten::index_put_(accumulate)")


def test_the_record_leaves_what_pytorch_runs_as_it_is(torch_ref):
    # a TorchDispatchMode folds this product into mm (test_einsum compares the graph); the
    # profiler does not, and sees the composite's ops: matmul's mm, not bmm
    torch = torch_ref
    a = torch.ones(1, 2, 3, requires_grad=True)
    plain = type((a @ torch.ones(3, 4)).grad_fn).__name__
    with Recording(torch) as record:
        recorded = type((a @ torch.ones(3, 4)).grad_fn).__name__
    assert recorded == plain
    assert "aten::mm" in record.ops or "aten::bmm" in record.ops


def _entry(**changes) -> dict:
    return {"completed": True, "hypothesis": False, "escaped": [], "fma": False,
            "ops": ["aten::mul", "aten::view", "aten::_local_scalar_dense"], **changes}


def test_a_test_is_left_out_only_with_nothing_that_can_differ():
    for setting in SETTINGS:
        assert reasons_to_rerun(_entry(), setting) == []
        assert reasons_to_rerun(None, setting) == ["not in the record"]
        assert reasons_to_rerun(_entry(ops=["aten::mul", "aten::mm"]), setting) == ["calls aten::mm"]
        assert reasons_to_rerun(_entry(completed=False), setting) == ["did not complete in the recorded run"]
        assert reasons_to_rerun(_entry(hypothesis=True), setting) == [
            "hypothesis draws other examples each run (not derandomized)"]
        assert reasons_to_rerun(_entry(escaped=["started a subprocess"]), setting) == ["started a subprocess"]
        # scalargrad's fused multiply-adds are rounded product-first only under the generic kernels
        assert bool(reasons_to_rerun(_entry(fma=True), setting)) == (setting == NEEDS_FMA_SETTING)


def test_only_a_hypothesis_test_that_is_not_derandomized_draws_afresh():
    # a derandomized test (CI's "ci" profile, or derandomize=True) draws from a seed hashed from
    # its code, without an example database: the same examples in the main run and each rerun
    from types import SimpleNamespace

    from hypothesis import given, seed, settings
    from hypothesis import strategies as st

    def drawn(**options):
        @settings(max_examples=1, deadline=None, **options)
        @given(st.integers())
        def test(x):
            pass

        return test

    item = SimpleNamespace
    assert not _draws_afresh(item(obj=drawn(derandomize=True)))
    assert _draws_afresh(item(obj=drawn(derandomize=False, database=None)))
    assert _draws_afresh(item(obj=seed(5)(drawn(derandomize=True))))  # a seed of its own: not judged here
    assert not _draws_afresh(item(obj=lambda: None)) and not _draws_afresh(item())  # not a hypothesis test
    # the suite's live tests, as CI runs them (CI is set: Hypothesis loads its "ci" profile)
    if os.environ.get("CI"):
        import test_float32_conformance

        assert not _draws_afresh(item(obj=test_float32_conformance.test_tensor_op_tensor_is_bit_equal))


def test_a_rerun_proves_again_unless_the_main_run_proved_the_same_computation(tmp_path):
    # a test marked scalargrad_side_takes_no_torch_value computes in a rerun what the main run
    # computed and proved, unless scalargrad's fused multiply-adds are rounded product-first there
    from types import SimpleNamespace

    record = tmp_path / "record.json"
    proved = {"scalargrad_digest": "3:0123"}
    tests = {"t::plain": _entry(**proved), "t::fma": _entry(fma=True, **proved),
             "t::skipped": _entry(completed=False, **proved), "t::undigested": _entry()}
    record.write_text(json.dumps({"collection": {"ops": [], "escaped": []}, "tests": tests}), encoding="utf-8")

    def item(nodeid, marked=True):
        marker = object() if marked else None
        return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: marker
                               if name == "scalargrad_side_takes_no_torch_value" else None)

    for setting in SETTINGS:
        selection = Selection(str(record), setting)
        assert selection.proved_in_the_main_run(item("t::plain"))
        assert not selection.proved_in_the_main_run(item("t::plain", marked=False))
        assert selection.proved_in_the_main_run(item("t::fma")) == (setting != NEEDS_FMA_SETTING)
        assert not selection.proved_in_the_main_run(item("t::skipped"))
        assert not selection.proved_in_the_main_run(item("t::new"))  # not in the record
        assert not selection.proved_in_the_main_run(item("t::undigested"))  # nothing to check the rerun against
        assert selection.main_run_digest(item("t::plain")) == "3:0123"
    # the digest: the values of the backward calls the SymPy fixture proves, and only those
    import scalargrad

    def digest(x0, limit=3, calls=1):
        with BackwardDigest(limit).observing() as d:
            for _ in range(calls):
                x = scalargrad.tensor([x0, 2.0], requires_grad=True)
                (x * x).sum().backward()
        return d.hexdigest()

    assert digest(1.5) == digest(1.5) != digest(1.5000001)
    assert digest(0.0) != digest(-0.0)  # the same root value: the leaf's sign tells them apart
    assert digest(1.5, limit=1, calls=2) == digest(1.5, limit=1, calls=1)


@pytest.mark.slow  # two pytest runs in child interpreters
def test_a_rerun_leaves_out_the_recorded_kernel_independent_tests(tmp_path):
    # a live test file, recorded, then rerun under a setting: only the one calling exp runs again
    pytest.importorskip("torch")
    (tmp_path / "test_two.py").write_text(
        "def test_moves(torch_ref):\n    assert torch_ref.tensor([1.0, 2.0]).flip(0).tolist() == [2.0, 1.0]\n\n"
        "def test_exp(torch_ref):\n    assert torch_ref.tensor([0.0]).exp().item() == 1.0\n", encoding="utf-8")
    record = tmp_path / "record.json"

    def run(*args):
        # the suite's conftest, loaded as a plugin: its live_torch marker, its options
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS.parent)])}
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                               "-m", "live_torch", "test_two.py", *args],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)

    first = run(f"--kernel-record={record}")
    assert first.returncode == 0, first.stdout + first.stderr
    tests = json.loads(record.read_text())["tests"]
    assert sorted(tests) == ["test_two.py::test_exp", "test_two.py::test_moves"]
    again = run(f"--kernel-rerun={record}", "--kernel-setting=MKL_CBWR=COMPATIBLE", "--collect-only")
    assert again.returncode == 0, again.stdout + again.stderr
    assert [line for line in again.stdout.splitlines() if "::" in line] == ["test_two.py::test_exp"]
    assert "1 live tests left out" in again.stdout


def test_scalargrad_neither_imports_torch_nor_reads_the_kernel_settings():
    # why CI's reruns may reuse the main run's `scalargrad run` outputs (test_run_conformance's
    # SCALARGRAD_RUN_CACHE): scalargrad computes the same under every kernel setting. The one
    # import of torch judges documents on PyTorch itself (execute.py, alias_torch=False), never
    # under `scalargrad run`
    import re

    imports, reads = [], []
    root = TESTS.parent / "scalargrad"
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if re.search(r"^\s*(import torch\b|from torch\b)", text, re.MULTILINE):
            imports.append(path.relative_to(root).as_posix())
        if re.search(r"(environ|getenv)[^\n]*(ATEN_|MKL_)|get_cpu_capability", text):
            reads.append(path.name)
    assert imports == ["documents/execute.py"] and reads == []
