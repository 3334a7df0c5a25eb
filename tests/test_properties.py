"""Property tests: on random expression DAGs over every op of ``SCALAR_DERIVATIVES``, autograd,
SymPy (``sympy_check``) and central finite differences agree, and so does PyTorch.

A program is a list of steps; each applies one op to earlier values (so nodes are shared)
and keeps the result. Ops with a restricted domain get their argument through a smooth map
into it (``log(a*a + 0.5)``), and examples whose values sit near a kink (relu, abs, clamp,
minimum, maximum), overflow, or are ill-conditioned are rejected: there the three methods
legitimately part.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scalargrad
from scalargrad._ops import SCALAR_DERIVATIVES
from scalargrad._ops import arithmetic as AR
from scalargrad._ops import comparison as CM
from scalargrad._ops import unary as UN
from scalargrad.symbolic import sympy_check

KINK = 1e-3  # keep this far from non-differentiable points
BIG = 1e4  # reject values beyond this magnitude


class Reject(Exception):
    """The example leaves the smooth domain (mapped to hypothesis.assume)."""


def _away(x: float, kink: float = 0.0) -> None:
    if abs(x.item() - kink) < KINK:
        raise Reject


def _pos(a):
    return a * a + 0.5


# name -> (catalogue op, arity, constants to draw from, build(lib, args, const))
def _clamp(lib, a, c):
    _away(a, c[0])
    _away(a, c[1])
    return lib.clamp(a, c[0], c[1])


def _clamp_min(lib, a, c):
    _away(a, c)
    return a.clamp_min(c)


def _clamp_max(lib, a, c):
    _away(a, c)
    return lib.clamp_max(a, c)


def _relu(lib, a):
    _away(a)
    return lib.relu(a)


def _abs(lib, a):
    _away(a)
    return a.abs()


def _minimum(lib, a, b):
    _away(a, b.item())
    return lib.minimum(a, b)


def _maximum(lib, a, b):
    _away(a, b.item())
    return lib.maximum(a, b)


def _fmin(lib, a, b):
    _away(a, b.item())
    return lib.fmin(a, b)


def _fmax(lib, a, b):
    _away(a, b.item())
    return lib.fmax(a, b)


STEPS = {
    "add": (AR.Add, 2, None, lambda lib, a, b: a + b),
    "sub": (AR.Sub, 2, None, lambda lib, a, b: a - b),
    "mul": (AR.Mul, 2, None, lambda lib, a, b: a * b),
    "div": (AR.Div, 2, None, lambda lib, a, b: a / _pos(b)),
    "pow": (AR.Pow, 2, None, lambda lib, a, b: _pos(a) ** b.tanh()),
    "minimum": (CM.Minimum, 2, None, _minimum),
    "maximum": (CM.Maximum, 2, None, _maximum),
    "fmin": (CM.Fmin, 2, None, _fmin),
    "fmax": (CM.Fmax, 2, None, _fmax),
    # a non-negative integer exponent: PyTorch's gradient is the integer power 2**other, 0 below zero
    "ldexp": (AR.Ldexp, 1, [0, 1, 3], lambda lib, a, c: lib.ldexp(a, lib.tensor(c))),
    "addc": (AR.AddC, 1, [0.5, -1.25, 3.0], lambda lib, a, c: a + c),
    "subc": (AR.SubC, 1, [0.5, 2.0], lambda lib, a, c: a - c),
    "rsubc": (AR.RSubC, 1, [1.0, -0.75], lambda lib, a, c: c - a),
    "mulc": (AR.MulC, 1, [0.5, -3.0, 1.1], lambda lib, a, c: a * c),
    "divc": (AR.DivC, 1, [3.0, -0.7], lambda lib, a, c: a / c),
    "powc": (AR.PowC, 1, [2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.5], lambda lib, a, c: _pos(a) ** c),
    "rpowc": (AR.RPowC, 1, [2.0, 0.5, 3.0], lambda lib, a, c: c ** a.tanh()),
    "reciprocal": (UN.Reciprocal, 1, None, lambda lib, a: _pos(a).reciprocal()),
    "clamp": (CM.Clamp, 1, [(-0.5, 0.5), (0.0, 2.0)], _clamp),
    "clamp_min": (CM.ClampMin, 1, [-0.5, 0.25], _clamp_min),
    "clamp_max": (CM.ClampMax, 1, [0.5, -0.25], _clamp_max),
    "neg": (UN.Neg, 1, None, lambda lib, a: -a),
    "log": (UN.Log, 1, None, lambda lib, a: _pos(a).log()),
    "exp": (UN.Exp, 1, None, lambda lib, a: a.tanh().exp()),
    "log1p": (UN.Log1p, 1, None, lambda lib, a: _pos(a).log1p()),
    "expm1": (UN.Expm1, 1, None, lambda lib, a: a.tanh().expm1()),
    "sqrt": (UN.Sqrt, 1, None, lambda lib, a: _pos(a).sqrt()),
    "rsqrt": (UN.Rsqrt, 1, None, lambda lib, a: _pos(a).rsqrt()),
    "tanh": (UN.Tanh, 1, None, lambda lib, a: a.tanh()),
    "sigmoid": (UN.Sigmoid, 1, None, lambda lib, a: a.sigmoid()),
    "relu": (UN.Relu, 1, None, _relu),
    "abs": (UN.Abs, 1, None, _abs),
    "sin": (UN.Sin, 1, None, lambda lib, a: a.sin()),
    "cos": (UN.Cos, 1, None, lambda lib, a: a.cos()),
}
ARITH = ["add", "sub", "mul", "addc", "subc", "rsubc", "mulc", "divc", "neg"]


def test_the_programs_cover_every_catalogue_op():
    assert {s[0] for s in STEPS.values()} == set(SCALAR_DERIVATIVES)


@st.composite
def programs(draw, names=tuple(STEPS), max_steps=8):
    n_in = draw(st.integers(1, 3))
    inputs = [draw(st.floats(-2.0, 2.0, allow_nan=False).map(lambda x: round(x, 3))) for _ in range(n_in)]
    steps = []
    for k in range(draw(st.integers(1, max_steps))):
        name = draw(st.sampled_from(names))
        _, arity, consts, _ = STEPS[name]
        avail = n_in + k
        # favour recent values so graphs get deep, yet any earlier value may be shared
        args = [draw(st.integers(0, avail - 1)) for _ in range(arity)]
        const = draw(st.sampled_from(consts)) if consts else None
        steps.append((name, args, const))
    # the output mixes the last value with a few others so several paths meet
    tail = draw(st.lists(st.integers(0, n_in + len(steps) - 1), max_size=2))
    return inputs, steps, tail


def run(program, lib, dtype):
    """Build the program with ``lib`` (scalargrad or torch); returns (leaves, output)."""
    inputs, steps, tail = program
    leaves = [lib.tensor(x, dtype=dtype, requires_grad=True) for x in inputs]
    vals = list(leaves)
    for name, args, const in steps:
        build = STEPS[name][3]
        a = [vals[i] for i in args]
        out = build(lib, *a, const) if const is not None else build(lib, *a)
        if not abs(out.item()) < BIG:
            raise Reject
        vals.append(out)
    y = vals[-1]
    for i in tail:
        y = y + vals[i] * 0.5
    return leaves, y


def build_or_reject(program, lib, dtype):
    try:
        return run(program, lib, dtype)
    except Reject:
        assume(False)


def central_differences(program, leaves, dtype) -> list:
    """d(output)/d(leaf) by central differences, in float64."""
    out = []
    base = [x.item() for x in leaves]
    for i, x in enumerate(base):
        h = 1e-6 * max(1.0, abs(x))
        vals = []
        for sign in (1, -1):
            p = (list(base), program[1], program[2])
            p[0][i] = x + sign * h
            try:
                vals.append(run(p, scalargrad, scalargrad.float64)[1].item())
            except Reject:
                assume(False)
        out.append((vals[0] - vals[1]) / (2 * h))
    return out


def _grads(y, leaves) -> list:
    got = scalargrad.autograd.grad(y, leaves, retain_graph=True, allow_unused=True)
    return [0.0 if g is None else g.item() for g in got]


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[
    HealthCheck.filter_too_much, HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(programs(), st.sampled_from(["float64", "float32"]))
def test_autograd_sympy_and_finite_differences_agree(program, dtype_name):
    dtype = getattr(scalargrad, dtype_name)
    leaves, y = build_or_reject(program, scalargrad, dtype)
    assume(y.requires_grad)
    grads = _grads(y, leaves)
    assume(all(abs(g) < BIG for g in grads))
    report = sympy_check(y, leaves)
    assert report.ok and report.verified, str(report)
    fd = central_differences(program, leaves, dtype)
    tol = 1e-5 if dtype_name == "float64" else 2e-3  # float32: rounding of the forward values
    for g, f in zip(grads, fd):
        assert g == pytest.approx(f, rel=tol, abs=tol), str(report)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                 HealthCheck.too_slow])
@given(programs(max_steps=40))
def test_local_and_whole_strategies_agree_on_deeper_graphs(program):
    leaves, y = build_or_reject(program, scalargrad, scalargrad.float32)
    assume(y.requires_grad)
    assume(all(abs(g) < BIG for g in _grads(y, leaves)))
    whole = sympy_check(y, leaves)
    # graphs with a kink of a kink go local by themselves (SymPy would try to solve inequalities)
    assume(whole.strategy == "whole")
    local = sympy_check(y, leaves, strategy="local")
    assert whole.ok and local.ok, str(whole) + "\n" + str(local)
    for w, c in zip(whole.inputs, local.inputs):
        assert w.status == c.status
        assert c.symbolic == pytest.approx(w.symbolic, rel=1e-3, abs=1e-3)


@SETTINGS
@given(programs(names=tuple(ARITH), max_steps=10))
def test_float32_arithmetic_graphs_match_pytorch_exactly(torch_ref, program):
    leaves, y = build_or_reject(program, scalargrad, scalargrad.float32)
    assume(y.requires_grad)
    tleaves, ty = build_or_reject(program, torch_ref, torch_ref.float32)
    tgrads = torch_ref.autograd.grad(ty, tleaves, allow_unused=True)
    expected = [0.0 if g is None else g.item() for g in tgrads]
    assert y.item() == ty.item()
    assert _grads(y, leaves) == expected
    assert sympy_check(y, leaves).ok


@SETTINGS
@given(programs(), st.sampled_from(["float64", "float32"]))
def test_any_graph_matches_pytorch_closely(torch_ref, program, dtype_name):
    leaves, y = build_or_reject(program, scalargrad, getattr(scalargrad, dtype_name))
    assume(y.requires_grad)
    tleaves, ty = build_or_reject(program, torch_ref, getattr(torch_ref, dtype_name))
    tgrads = torch_ref.autograd.grad(ty, tleaves, allow_unused=True)
    expected = [0.0 if g is None else g.item() for g in tgrads]
    tol = 1e-12 if dtype_name == "float64" else 1e-4
    got = _grads(y, leaves)
    assert got == pytest.approx(expected, rel=tol, abs=tol)
    assert math.isclose(y.item(), ty.item(), rel_tol=tol, abs_tol=tol)
