"""atan2/arctan2 (``_ops/angles.py``): values are a transcendental kernel (compared with
PyTorch within 1 ulp in float32, with mpmath's correctly rounded value exactly), the gradient
PyTorch's atan2_backward (IEEE steps: bit for bit), 0 at the origin."""

from __future__ import annotations

import random
import struct

import mpmath
import pytest

import scalargrad as sg


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_values_are_correctly_rounded():
    rnd = random.Random(1)
    for _ in range(200):
        a, b = f32(rnd.uniform(-5, 5)), f32(rnd.uniform(-5, 5))
        want = f32(float(mpmath.atan2(mpmath.mpf(a), mpmath.mpf(b))))
        assert sg.atan2(sg.tensor(a), sg.tensor(b)).item() == want


def test_gradient_by_hand():
    x = sg.tensor([3.0], dtype=sg.float64, requires_grad=True)
    o = sg.tensor([4.0], dtype=sg.float64, requires_grad=True)
    gx, go = sg.autograd.grad(sg.atan2(x, o).sum(), (x, o))
    assert gx.tolist() == [4 / 25] and go.tolist() == [-3 / 25]


@pytest.mark.no_sympy_check  # the origin has no derivative: PyTorch's masked 0 (signed) is its own
def test_gradient_at_the_origin_is_zero(torch_ref):
    for L in (sg, torch_ref):
        x = L.tensor([0.0, -0.0], requires_grad=True)
        o = L.tensor([0.0, 0.0], requires_grad=True)
        gx, go = L.autograd.grad(L.atan2(x, o).sum(), (x, o))
        assert [str(v) for v in gx.tolist() + go.tolist()] == ["0.0", "0.0", "-0.0", "0.0"]


def _run(L, dtype):
    rnd = random.Random(4)
    a = [f32(rnd.uniform(-3, 3)) for _ in range(40)] + [1.0, -1.0]
    b = [f32(rnd.uniform(-3, 3)) for _ in range(40)] + [-0.0, 0.0]
    x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=True)
    o = L.tensor(b, dtype=getattr(L, dtype), requires_grad=True)
    y = x.arctan2(o)
    gx, go = L.autograd.grad((y * y).sum(), (x, o), create_graph=True)
    (h,) = L.autograd.grad(gx.sum(), x)
    fn = y.grad_fn
    z = L.tensor([1.0, 2.0])
    z.atan2_(L.tensor([1.0, -1.0]))
    return (fn.name(), [type(n).__name__ for n, _ in fn.next_functions], y.tolist(), gx.tolist(), go.tolist(),
            h.tolist(), z._version, str(L.tensor([1, 2]).atan2(L.tensor([3, 4])).dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2_is_torchs(torch_ref, dtype):
    ours, theirs = _run(sg, dtype), _run(torch_ref, dtype)
    assert ours[:2] == theirs[:2] and ours[6:] == theirs[6:]
    for mine, live in zip(ours[2:6], theirs[2:6]):
        assert [v != v for v in mine] == [v != v for v in live]  # nan at the same places (the origin)
        mine = [v for v in mine if v == v]
        live = [v for v in live if v == v]
        # atan2 itself within 1 ulp: squares and products of it within a few
        assert mine == pytest.approx(live, rel=2e-6 if dtype == "float32" else 1e-14, abs=1e-12)
