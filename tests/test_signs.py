"""copysign, heaviside (``_ops/signs.py``) and hypot (``_ops/angles.py``) against live PyTorch
2.13 and mpmath: copysign and heaviside are exact (bit for bit, signed zeros and nan included),
hypot correctly rounded in float32 (PyTorch's C or SLEEF hypot: within 1 ulp of it); gradients,
node names, the number overload, dtype promotion and PyTorch's refusals."""

from __future__ import annotations

import math
import random

import mpmath
import pytest

import scalargrad as sg

from faithfulness import f32, ulps

A = [1.5, -2.0, 0.0, -0.0, math.inf, -math.inf, math.nan, 3.25, -1e-40]
B = [-1.0, 2.0, -0.0, 0.0, -3.0, 1.0, -math.nan, math.nan, 0.5]


def _run(L, dtype):
    dt = getattr(L, dtype)
    a = L.tensor(A, dtype=dt, requires_grad=True)
    b = L.tensor(B, dtype=dt, requires_grad=True)
    c = L.copysign(a, b)
    cn = a.copysign(-2.0)
    h = L.heaviside(a.detach(), b.detach())
    hv = L.heaviside(a, L.tensor([0.5], dtype=dt, requires_grad=True))
    ga, gb = L.autograd.grad((c * L.arange(1.0, 10.0, dtype=dt)).sum(), (a, b))
    (gn,) = L.autograd.grad(cn.sum(), a)
    try:
        hv.sum().backward()
        err = None
    except RuntimeError as e:
        err = str(e)
    ints = (str(L.copysign(L.tensor([3, 4]), L.tensor([-1, 3])).dtype), L.copysign(L.tensor([3, 4]), -1).tolist(),
            L.heaviside(L.tensor([3, 0, -2]), L.tensor([7])).tolist())
    z = L.tensor([1.0, -2.0], dtype=dt)
    z.copysign_(L.tensor([-1.0, -1.0], dtype=dt))
    return ([repr(v) for v in c.tolist()], [repr(v) for v in cn.tolist()], [repr(v) for v in h.tolist()],
            [repr(v) for v in ga.tolist()], [repr(v) for v in gb.tolist()], [repr(v) for v in gn.tolist()],
            c.grad_fn.name(), cn.grad_fn.name(), hv.grad_fn.name(), len(hv.grad_fn.next_functions), err, ints,
            z.tolist(), z._version)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_copysign_and_heaviside_are_torchs(torch_ref, dtype):
    assert _run(sg, dtype) == _run(torch_ref, dtype)


def test_refusals_are_torchs(torch_ref):
    def run(L):
        out = []
        for f in (lambda: L.heaviside(L.tensor([1.0]), L.tensor([1])), lambda: L.hypot(L.tensor([3]), L.tensor([4]))):
            try:
                f()
                out.append(None)
            except RuntimeError as e:  # NotImplementedError too
                out.append((type(e).__name__, str(e)))
        return out

    assert run(sg) == run(torch_ref)


def test_heaviside_names_its_operand_values_and_takes_no_number(torch_ref):
    """PyTorch names heaviside's second operand ``values`` (keyword and messages) and, as for
    atan2's ``other``, takes a tensor there, never a Python number."""
    def run(L):
        x, v, out = L.tensor([1.0, 0.0, -1.0]), L.tensor(0.5), []
        for f in (lambda: L.heaviside(x, values=v), lambda: x.heaviside(values=v),
                  lambda: x.clone().heaviside_(values=v), lambda: L.heaviside(x, 0.5), lambda: x.heaviside(0.5),
                  lambda: x.heaviside(other=v),
                  lambda: L.heaviside(x, other=v), lambda: x.heaviside(), lambda: L.atan2(x, 2.0),
                  lambda: x.atan2(2.0), lambda: x.clone().atan2_(2.0)):
            try:
                out.append(f().tolist())
            except TypeError as e:
                out.append(str(e))
        return out

    assert run(sg) == run(torch_ref)


def _hypot_args(dtype):
    rnd = random.Random(5)
    r = f32 if dtype == "float32" else float
    xs = [r(rnd.uniform(-50, 50)) for _ in range(200)] + [0.0, -0.0, math.inf, math.nan, -math.inf, 1e30, 3.0]
    ys = [r(rnd.uniform(-50, 50)) for _ in range(200)] + [-0.0, 0.0, math.nan, -math.inf, 2.0, 1e30, 4.0]
    return xs, ys


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hypot(torch_ref, dtype):
    xs, ys = _hypot_args(dtype)
    out = []
    for L in (sg, torch_ref):
        dt = getattr(L, dtype)
        a = L.tensor(xs, dtype=dt, requires_grad=True)
        b = L.tensor(ys, dtype=dt, requires_grad=True)
        y = L.hypot(a, b)
        ga, gb = L.autograd.grad(y.sum(), (a, b))
        z = L.tensor([3.0, 5.0], dtype=dt)
        z.hypot_(L.tensor([4.0, 12.0], dtype=dt))
        out.append((y.tolist(), ga.tolist(), gb.tolist(), y.grad_fn.name(), z.tolist()))
    mine, live = out
    assert mine[3:] == live[3:]
    for got, want in zip(mine[:3], live[:3]):
        for a, b in zip(got, want):
            assert repr(a) == repr(b) if (not math.isfinite(b) or b == 0) else ulps(a, b, dtype) <= 2
    # scalargrad's float32 values: the correctly rounded hypot
    for x, y, v in zip(xs[:200], ys[:200], mine[0]):
        want = float(mpmath.hypot(mpmath.mpf(x), mpmath.mpf(y)))
        assert ulps(v, f32(want) if dtype == "float32" else want, dtype) <= (0 if dtype == "float32" else 1)
