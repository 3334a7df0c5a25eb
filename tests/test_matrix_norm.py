"""``torch.linalg.matrix_norm`` and ``linalg.norm`` of matrices (``_tensor/norms.py``): the
composition (grad_fn chains, shapes, strides), the values and PyTorch's errors against live
PyTorch. The 1/inf orders and 'fro' of small integers are exact on every processor (bit
equality); the singular-value orders (LAPACK's in PyTorch, mpmath's here) within a bound, and
against values known by hand."""

from __future__ import annotations

import math

import pytest
from program_outcome import described

import scalargrad as sg
from scalargrad.errors import Unsupported

from graph_listing import node_chain

INF = math.inf
ORDERS = ["fro", "nuc", INF, -INF, 1, -1, 2, -2]
EXACT = {"fro", INF, -INF, 1, -1}


def _a(L):
    return ((L.arange(24.0) % 7) - 3).reshape(2, 3, 4)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [(-2, -1), (2, 0)])
@pytest.mark.parametrize("ord", ORDERS, ids=str)
def test_as_pytorch(torch_ref, ord, dim, keepdim):
    got = []
    for L in (sg, torch_ref):
        a = _a(L).requires_grad_(ord in EXACT)
        r = L.linalg.matrix_norm(a, ord, dim, keepdim)
        grad = None
        if ord in EXACT:
            (r * (L.arange(r.numel() * 1.0).reshape(r.shape) + 1)).sum().backward()
            grad = a.grad.tolist()
        got.append((tuple(r.shape), r.stride(), r.dtype.itemsize, node_chain(r), grad, r.flatten().tolist()))
    if ord in EXACT:
        assert got[0] == got[1]
    else:
        assert got[0][:5] == got[1][:5]
        for x, y in zip(got[0][5], got[1][5]):  # 8 eps per dimension of the largest value: LAPACK's bound
            assert abs(x - y) <= 8 * 2.0**-23 * 4 * max(abs(y), 1.0), (x, y)


def test_singular_value_orders_by_hand():
    # diag(3, 2) rotated by (0.6, 0.8): singular values 3 and 2
    c, s = 0.6, 0.8
    m = sg.tensor([[3 * c, -2 * s], [3 * s, 2 * c]], dtype=sg.float64)
    assert sg.linalg.matrix_norm(m, 2).item() == pytest.approx(3.0, rel=1e-15)
    assert sg.linalg.matrix_norm(m, -2).item() == pytest.approx(2.0, rel=1e-15)
    assert sg.linalg.matrix_norm(m, "nuc").item() == pytest.approx(5.0, rel=1e-15)
    assert sg.linalg.norm(m, "nuc").item() == pytest.approx(5.0, rel=1e-15)
    with pytest.raises(Unsupported, match="LinalgSvdBackward0"):
        sg.linalg.matrix_norm(m.requires_grad_(), 2)


def test_linalg_norm_of_matrices(torch_ref):
    for L in (sg, torch_ref):
        a = _a(L)
        assert L.linalg.norm(a, INF, dim=(0, 1)).tolist() == [6.0, 6.0, 6.0, 5.0]  # by hand
        assert L.linalg.norm(a[0], 1).item() == 6.0
        assert L.linalg.norm(a[0], -INF).item() == 4.0


ERRORS = {
    "order 3": lambda L: L.linalg.matrix_norm(_a(L), 3),
    "order x": lambda L: L.linalg.matrix_norm(_a(L), "x"),
    "1-d": lambda L: L.linalg.matrix_norm(L.ones(3)),
    "one dim": lambda L: L.linalg.matrix_norm(_a(L), dim=(1,)),
    "same dims": lambda L: L.linalg.matrix_norm(_a(L), dim=(1, 1)),
    "dim range": lambda L: L.linalg.matrix_norm(_a(L), dim=(1, 5)),
    "long": lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.long)),
    "half 2": lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.half), 2),
    "half nuc": lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.half), "nuc"),
    "half 1": lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.half), 1),
    "dtype long": lambda L: L.linalg.matrix_norm(_a(L), dtype=L.long),
    "dtype wider": lambda L: L.linalg.matrix_norm(_a(L), 1, dtype=L.float64),
    "dtype narrower": lambda L: L.linalg.matrix_norm(_a(L).double(), 1, dtype=L.float32),
}


def test_errors_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in ERRORS.items()} == {k: described(f, torch_ref) for k, f in ERRORS.items()}
