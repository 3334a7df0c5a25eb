"""The unary family's ops added for real programs (issue 23): ``rsqrt``. Values and gradients
bit for bit against PyTorch 2.13 (``rsqrt`` is ``1 / std::sqrt(x)`` in every CPU kernel, scalar
and vectorised, so IEEE on every machine) and the gradient proved by SymPy."""

from __future__ import annotations

import math
import struct

import pytest

import scalargrad
from scalargrad.symbolic import sympy_check

# normal, subnormal, huge, zeros of both signs, negative, inf, nan: a float32 and float64 grid
VALUES = [4.0, 2.0, 0.3, 1e-3, 7.5e4, 3.4e38, 1e-40, 1e-45, 0.0, -0.0, -1.0, math.inf, math.nan,
          *[1.0 + i / 37.0 for i in range(40)], *[10.0 ** (i / 3.0) for i in range(-60, 60)]]


def _bits(xs: list, dtype: str) -> list:
    """Each number's bits; a nan as "nan" (its sign is the processor's: x86's sqrt(-1) is -nan)."""
    fmt = "f" if dtype == "float32" else "d"
    return ["nan" if x != x else struct.pack(fmt, x) for x in xs]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsqrt_values_and_gradient_are_pytorchs_bit_for_bit(torch_ref, dtype):
    grads = [(-1.0) ** i * (0.5 + i / 7.0) for i in range(len(VALUES))]
    out = {}
    for lib in (scalargrad, torch_ref):
        x = lib.tensor(VALUES, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.rsqrt(x)
        y.backward(lib.tensor(grads, dtype=getattr(lib, dtype)))
        z = lib.tensor(VALUES, dtype=getattr(lib, dtype))
        assert z.rsqrt_() is z
        out[lib] = (y.grad_fn.name(), y.tolist(), x.grad.tolist(), z.tolist())
    ours, theirs = out[scalargrad], out[torch_ref]
    assert ours[0] == theirs[0] == "RsqrtBackward0"
    for a, b in zip(ours[1:], theirs[1:]):
        assert _bits(a, dtype) == _bits(b, dtype)


def test_rsqrt_double_backward_is_pytorchs(torch_ref):
    names = {}
    for lib in (scalargrad, torch_ref):
        x = lib.tensor([0.3, 2.0, 5.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.rsqrt(x).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        names[lib] = (g.grad_fn.name(), [f[0] and f[0].name() for f in g.grad_fn.next_functions], h.tolist())
    assert names[scalargrad] == names[torch_ref]


def test_rsqrt_gradient_is_proved_by_sympy():
    x = scalargrad.tensor([[0.25, 2.0], [3.0, 7.5]], requires_grad=True)
    report = sympy_check((x.rsqrt() * scalargrad.tensor([1.0, -2.0])).sum(), {x: "x"})
    assert report.ok and report.verified, str(report)
    # d/dx (c / sqrt(x)) = -c / (2 x^1.5): at x = 0.25, c = 1, -4; at x = 2, c = -2, 2^-1.5
    assert report["x[0, 0]"].expression == "-1/(2*x[0, 0]**(3/2))"
    assert report["x[0, 1]"].expression == "x[0, 1]**(-3/2)"
    assert [(r.status, float(r.symbolic)) for r in (report["x[0, 0]"], report["x[0, 1]"])] == \
        [("ok", -4.0), ("ok", pytest.approx(2.0 ** -1.5, rel=1e-7))]
