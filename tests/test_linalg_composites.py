"""``torch.linalg``'s composites (``_tensor/linalg_composites.py``) against live PyTorch 2.13:
``matrix_power`` (and ``torch.matrix_power``, ``Tensor.matrix_power``), ``vecdot``, ``solve_ex``,
``tensorinv``, ``tensorsolve``. Each is ATen's composition of other ops, so the node, the shape
and the strides are PyTorch's exactly; values and gradients go through matrix products and LU
solves whose summation order is the machine's BLAS/LAPACK's: within 1e-12 relative in float64
(measured: at most 1e-12 for tensorinv's 24 x 24 inverse, 1e-14 for the rest)."""

from __future__ import annotations

import math
import random

import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported


def _inputs(L, shapes, seed=0):
    rnd = random.Random(seed)
    out = []
    for shape in shapes:
        t = L.tensor([rnd.uniform(-1, 1) for _ in range(math.prod(shape))], dtype=L.float64).reshape(shape)
        out.append(t.requires_grad_(True))
    return out


def _eye(L, n):
    return 3 * L.eye(n, dtype=L.float64)


CASES = {
    "matrix_power_5": (lambda L, A: L.linalg.matrix_power(A + _eye(L, 3), 5), [(3, 3)]),
    "matrix_power_-3": (lambda L, A: L.linalg.matrix_power(A + _eye(L, 3), -3), [(2, 3, 3)]),
    "matrix_power_-1": (lambda L, A: L.linalg.matrix_power(A + _eye(L, 3), n=-1), [(3, 3)]),
    "matrix_power_0": (lambda L, A: L.matrix_power(A, 0), [(2, 3, 3)]),
    "matrix_power_1": (lambda L, A: L.matrix_power(A, 1), [(3, 3)]),
    "matrix_power_2": (lambda L, A: A.matrix_power(2), [(3, 3)]),
    "matrix_power_6": (lambda L, A: A.matrix_power(6), [(2, 2, 2)]),
    "vecdot": (lambda L, x, y: L.linalg.vecdot(x, y, dim=0), [(4, 3), (4, 1)]),
    "vecdot_last": (lambda L, x, y: L.linalg.vecdot(x, y), [(2, 5), (5,)]),
    "solve_ex": (lambda L, A, b: L.linalg.solve_ex(A + _eye(L, 3), b), [(3, 3), (3, 2)]),
    "solve_ex_checked": (lambda L, A, b: L.linalg.solve_ex(A + _eye(L, 3), b, check_errors=True), [(3, 3), (3,)]),
    "tensorinv": (lambda L, A: L.linalg.tensorinv(A, ind=2), [(4, 6, 8, 3)]),
    "tensorinv_1": (lambda L, A: L.linalg.tensorinv(A, 1), [(6, 2, 3)]),
    "tensorsolve": (lambda L, A, b: L.linalg.tensorsolve(A, b), [(2, 3, 6), (2, 3)]),
    "tensorsolve_dims": (lambda L, A, b: L.linalg.tensorsolve(A, b, dims=(0,)), [(6, 2, 3), (2, 3)]),
}


def _run(L, key):
    call, shapes = CASES[key]
    ins = _inputs(L, shapes)
    out = call(L, *ins)
    r, info = (out[0], out[1]) if isinstance(out, tuple) else (out, None)
    grads = L.autograd.grad(r.sum(), ins)
    return r, info, grads


def _flat(t) -> list:
    return [float(v) for v in t.detach().reshape(-1).tolist()]


@pytest.mark.no_sympy_check  # their ops' rules are proved by their own tests; small cases proved below
@pytest.mark.parametrize("key", sorted(CASES))
def test_composites_as_pytorch(torch_ref, key):
    (r, info, grads), (tr, tinfo, tgrads) = _run(sg, key), _run(torch_ref, key)
    assert type(r.grad_fn).__name__ == type(tr.grad_fn).__name__
    assert tuple(r.shape) == tuple(tr.shape) and r.stride() == tr.stride()
    if info is not None:
        assert info.tolist() == tinfo.tolist() and repr(info.dtype) == repr(tinfo.dtype)
    for ours, theirs in [(r, tr), *zip(grads, tgrads)]:
        assert tuple(ours.shape) == tuple(theirs.shape)
        for a, b in zip(_flat(ours), _flat(theirs)):
            assert abs(a - b) <= 1e-12 * max(abs(b), 1.0), (key, a, b)


def test_small_composites_are_proved_by_sympy():
    """The backward through small compositions, which the SymPy check of this test proves."""
    A = sg.tensor([[1.5, 0.5], [0.25, 2.0]], dtype=sg.float64, requires_grad=True)
    x = sg.tensor([0.5, -1.0], dtype=sg.float64, requires_grad=True)
    y = sg.linalg.matrix_power(A, 5).sum() + sg.linalg.vecdot(A, x).sum()
    (g,) = sg.autograd.grad(y, A)
    assert g.shape == (2, 2)


def test_integer_matrix_power_is_exact(torch_ref):
    for L in (sg, torch_ref):
        A = L.tensor([[1, 2], [3, 4]])
        assert L.linalg.matrix_power(A, 7).tolist() == [[30853, 44966], [67449, 98302]]
        assert L.matrix_power(A, 0).tolist() == [[1, 0], [0, 1]]


@pytest.mark.parametrize("call, kind, message", [
    (lambda L: L.linalg.matrix_power(L.ones(2, 3), 2), RuntimeError,
     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda L: L.linalg.matrix_power(L.ones(3), 2), RuntimeError,
     "linalg.matrix_power: The input tensor A must have at least 2 dimensions."),
    (lambda L: L.linalg.matrix_power(L.ones(2, 2, dtype=L.int64), -1), RuntimeError,
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda L: L.linalg.vecdot(L.ones(2, dtype=L.int32), L.ones(2, dtype=L.int32)), RuntimeError,
     "linalg.vecdot: Expected a floating point or complex tensor as input. Got Int"),
    (lambda L: L.linalg.vecdot(L.ones(2), L.ones(2, dtype=L.float64)), RuntimeError,
     "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float and y of type Double "
     "instead"),
    (lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 3), ind=0), RuntimeError,
     "Expected a strictly positive integer for 'ind', but got 0"),
    (lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 3), ind=1), RuntimeError,
     "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 144 != 4"),
    (lambda L: L.linalg.tensorinv(L.zeros(2, 2, 4), ind=2), L_ERR := "LinAlgError",
     "inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is "
     "singular."),
    (lambda L: L.linalg.tensorsolve(L.zeros(2, 3, 5), L.zeros(2, 3)), RuntimeError,
     "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
     "but got 5 != 6"),
    (lambda L: L.linalg.solve_ex(L.zeros(2, 2), L.ones(2), check_errors=True), L_ERR,
     "torch.linalg.solve_ex: The solver failed because the input matrix is singular."),
])
def test_errors_as_pytorch(torch_ref, call, kind, message):
    for L in (sg, torch_ref):
        expected = L.linalg.LinAlgError if kind == L_ERR else kind
        with pytest.raises(expected) as info:
            call(L)
        assert str(info.value) == message


def test_singular_solve_ex_without_checks_is_refused():
    """PyTorch returns LAPACK's partial solve (infs and nans) with info > 0: refused by name."""
    with pytest.raises(Unsupported, match=r"solve_ex\(check_errors=False\) of a singular matrix"):
        sg.linalg.solve_ex(sg.zeros(2, 2), sg.ones(2))
