"""nn.Bilinear and F.bilinear: y_k = sum_ij x1_i A_kij x2_j + b_k.

Parameters (drawn after ``manual_seed``), repr, state dict, grad_fn names, shapes and errors are
compared with live PyTorch bit for bit. The values are sums of products (MKL in PyTorch): each of
scalargrad's and PyTorch's must lie within the classical bound of any order of additions (Higham's
gamma_n, ``faithfulness.product_error_bound``, with the product x1_i A_kij counted as one more rounding)
of the exact value (``Fraction``), as must the gradients.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import scalargrad

from faithfulness import product_error_bound


def _case(L, shape1=(5, 2), shape2=(5, 3), bias=True, seed=7):
    L.manual_seed(seed)
    m = L.nn.Bilinear(shape1[-1], shape2[-1], 4, bias=bias)
    x1 = L.randn(*shape1, requires_grad=True)
    x2 = L.randn(*shape2, requires_grad=True)
    return m, x1, x2, m(x1, x2)


def _exact(m, x1, x2, bias):
    """Each output element: its exact value and its bound, over the flattened batch."""
    w = m.weight.tolist()
    a, b = x1.reshape(-1, x1.shape[-1]).tolist(), x2.reshape(-1, x2.shape[-1]).tolist()
    out = []
    for r1, r2 in zip(a, b):
        for k, wk in enumerate(w):
            terms = [(r1[i] * wk[i][j], r2[j]) for i in range(len(r1)) for j in range(len(r2))]
            exact = sum((Fraction(r1[i]) * Fraction(wk[i][j]) * Fraction(r2[j]) for i in range(len(r1))
                         for j in range(len(r2))), Fraction(0))
            bound = 2 * product_error_bound(*zip(*terms)) if terms else 0.0
            if bias:
                exact += Fraction(m.bias.tolist()[k])
                bound += 2.0**-24 * abs(float(exact))
            out.append((exact, bound))
    return out


@pytest.mark.parametrize("shape1,shape2,bias", [((5, 2), (5, 3), True), ((2, 3, 2), (2, 3, 3), False),
                                                ((2,), (3,), True)])
def test_bilinear_values_lie_within_the_bound_of_the_exact_value(shape1, shape2, bias):
    m, x1, x2, y = _case(scalargrad, shape1, shape2, bias)
    assert list(y.shape) == [*shape1[:-1], 4]
    for got, (exact, bound) in zip(y.reshape(-1).tolist(), _exact(m, x1, x2, bias)):
        assert abs(Fraction(got) - exact) <= Fraction(bound)


def test_bilinear_gradients_are_the_exact_derivatives_within_the_bound():
    m, x1, x2, y = _case(scalargrad, (3, 2), (3, 3), True)
    g1, g2, gw = scalargrad.autograd.grad(y.sum(), [x1, x2, m.weight])
    w, a, b = m.weight.tolist(), x1.tolist(), x2.tolist()
    for n in range(3):
        for i in range(2):  # d/dx1_i = sum_kj A_kij x2_j
            terms = [(w[k][i][j], b[n][j]) for k in range(4) for j in range(3)]
            exact = sum((Fraction(p) * Fraction(q) for p, q in terms), Fraction(0))
            assert abs(Fraction(g1[n, i].item()) - exact) <= Fraction(2 * product_error_bound(*zip(*terms)))
        for j in range(3):
            terms = [(a[n][i], w[k][i][j]) for k in range(4) for i in range(2)]
            exact = sum((Fraction(p) * Fraction(q) for p, q in terms), Fraction(0))
            assert abs(Fraction(g2[n, j].item()) - exact) <= Fraction(2 * product_error_bound(*zip(*terms)))
    for k in range(4):  # d/dA_kij = sum_n x1_ni x2_nj
        for i in range(2):
            for j in range(3):
                terms = [(a[n][i], b[n][j]) for n in range(3)]
                exact = sum((Fraction(p) * Fraction(q) for p, q in terms), Fraction(0))
                assert abs(Fraction(gw[k, i, j].item()) - exact) <= Fraction(2 * product_error_bound(*zip(*terms)))


@pytest.mark.live_torch
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_is_pytorchs(torch_ref, bias):
    got = []
    for L in (scalargrad, torch_ref):
        m, x1, x2, y = _case(L, bias=bias)
        y1 = m(x1[0], x2[0])
        got.append((repr(m), list(m.state_dict()), [v.reshape(-1).tolist() for v in m.state_dict().values()],
                    type(y.grad_fn).__name__, type(y1.grad_fn).__name__, list(y.shape), list(y1.shape)))
    assert got[0] == got[1]
    m, x1, x2, y = _case(torch_ref, bias=bias)
    for got, (exact, bound) in zip(y.reshape(-1).tolist(), _exact(m, x1, x2, bias)):
        assert abs(Fraction(got) - exact) <= Fraction(bound)


def _errors(L) -> list:
    F = L.nn.functional
    rows = []
    for a, b, w, bias in [((5, 2), (4, 3), (4, 2, 3), None), ((5, 2), (5, 3), (4, 3, 3), None),
                          ((5, 2), (5, 3), (4, 2, 4), None), ((5, 2), (5, 3), (4, 2, 3), (3,)),
                          ((2,), (5, 3), (4, 2, 3), None)]:
        try:
            F.bilinear(L.zeros(*a), L.zeros(*b), L.zeros(*w), None if bias is None else L.zeros(*bias))
        except RuntimeError as e:
            rows.append(str(e))
    try:
        L.nn.Bilinear(0, 2, 3)
    except ValueError as e:
        rows.append(str(e))
    return rows


@pytest.mark.live_torch
def test_bilinear_errors_are_pytorchs(torch_ref):
    ours = _errors(scalargrad)
    assert ours == _errors(torch_ref) and len(ours) == 6
