"""The fuzzer's expression graphs as property tests that need no PyTorch (issue 14).

Hypothesis draws the seed of a smooth graph program (``gen_graphs.generate_graph(...,
smooth=True)``: differentiable ops on ordinary numbers, leaves that require grad, one
``autograd.grad``). scalargrad runs it as the fuzzer does; its gradients must equal the
derivatives of the same program text evaluated as a real function in mpmath at 200 bits
(central differences, ``tests/fuzz/mpbackend.py``), and SymPy must agree with autograd on
every input (``sympy_check``). Points near a kink, outside a domain or with huge values are
discarded: there the three legitimately part.
"""

from __future__ import annotations

import contextlib
import math
import signal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scalargrad
from scalargrad.symbolic import sympy_check
from tests.fuzz.gen_graphs import generate_graph
from tests.fuzz.interpreter import run_program
from tests.fuzz.mpbackend import BIG, Reject, derivatives

# derandomize: the same 100 programs on every run, so that CI's verdict does not depend on a
# draw (a Python 3.12 run of the suite once reported an error here that no rerun reproduced)
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[
    HealthCheck.filter_too_much, HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


class _TooLong(BaseException):
    """sympy_check ran out of time (a BaseException: sympy_check reports Exceptions itself)."""


@contextlib.contextmanager
def _time_limit(seconds: float):
    def stop(signum, frame):
        raise _TooLong

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _finite(outcome) -> bool:
    for rec in outcome.records:
        obs = rec.obs
        if isinstance(obs, dict) and obs.get("val"):
            for v in obs["val"]:
                x = float.fromhex(v) if isinstance(v, str) and v != "nan" else math.nan
                if not (math.isfinite(x) and abs(x) < BIG):
                    return False
    return True


def _run_smooth(seed: int, with_grad: bool = True):
    """(program, namespace) of smooth graph program ``seed``, or reject the example; without
    its closing ``autograd.grad`` (which frees the graph) unless ``with_grad``."""
    program = generate_graph(seed, 0, smooth=True)
    if not with_grad:
        program = program.without({len(program.steps) - 1})
    ns: dict = {}
    out = run_program(program, scalargrad, namespace=ns)
    assume(out.error is None and _finite(out))
    return program, ns


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_fuzz_graph_gradients_match_mpmath(seed):
    program, ns = _run_smooth(seed)
    inputs = program.meta["inputs"]
    grads = ns[program.meta["grads"]]
    try:
        exact = derivatives(program, {n: ns[n].item() for n in inputs})
    except Reject:
        assume(False)
    float32 = any(ns[n].dtype == scalargrad.float32 for n in inputs)
    tol = 2e-3 if float32 else 1e-7  # float32: the rounding of each forward value
    for name, g in zip(inputs, grads):
        want = exact[name]
        assume(abs(want) < BIG)
        if g is None:  # not used by the output: its derivative is exactly 0
            assert want == 0.0, f"{name}: autograd says unused, mpmath gives {want!r}\n{program.source()}"
        else:
            assert g.item() == pytest.approx(want, rel=tol, abs=tol), f"{name}\n{program.source()}"


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_fuzz_graph_gradients_match_sympy(seed):
    program, ns = _run_smooth(seed, with_grad=False)
    try:  # the same points as the mpmath test: away from kinks and domain edges
        derivatives(program, {n: ns[n].item() for n in program.meta["inputs"]})
    except Reject:
        assume(False)
    y = ns[program.meta["output"]]
    leaves = [ns[n] for n in program.meta["inputs"]]
    try:
        with _time_limit(5):
            report = sympy_check(y, leaves)
    except _TooLong:  # the known hang below (TRIAGE.md, sympy-check-hangs): not this test's subject
        assume(False)
    assert report.ok, f"{report}\n{program.source()}"


# Two faults of scalargrad's SymPy check that the property tests found (tests/fuzz/TRIAGE.md);
# the generator keeps away from them until they are fixed, these tests then pass.


def test_clamp_with_min_above_max_proves():
    x = scalargrad.tensor(0.87, requires_grad=True)
    y = scalargrad.clamp(x, 1.52, -1.484)
    assert y.item() == pytest.approx(-1.484)  # PyTorch: min(max(x, 1.52), -1.484), the max bound
    report = sympy_check(y, [x])
    assert report.ok, str(report)


def test_sympy_check_of_a_clamp_to_a_float_power_finishes():
    x = scalargrad.tensor(1.884, requires_grad=True)
    y = scalargrad.clamp(x, min=1.065) ** -0.227883
    try:
        with _time_limit(5):
            report = sympy_check(y, [x])
    except _TooLong:
        pytest.fail("sympy_check ran for more than 5 s")
    assert report.ok, str(report)
