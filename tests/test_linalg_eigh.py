"""``torch.linalg.eigvalsh`` and ``torch.linalg.matrix_rank`` (``_tensor/linalg_eigh.py``):
eigenvalues by mpmath at 40 digits rounded once, against values known by hand exactly, against
an mpmath reference at 60 digits, and against live PyTorch's LAPACK within the backward-stable
bound; the gradient V diag(grad) V^T (LinalgEighBackward0) against PyTorch's within a bound and
SymPy; ranks and errors as PyTorch's."""

from __future__ import annotations

import math

import mpmath
import pytest
from program_outcome import described

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

SYMMETRIC = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]
NONSYMMETRIC = [[2.0, 1.0, 0.0], [5.0, 3.0, 1.0], [0.0, 1.0, 4.0]]  # lower triangle: [[2,5,0],[5,3,1],[0,1,4]]


def test_by_hand():
    # [[2, 1], [1, 2]]: 1 and 3; diag: itself sorted; the upper triangle read with UPLO='U'
    assert sg.linalg.eigvalsh(sg.tensor([[2.0, 1.0], [1.0, 2.0]])).tolist() == [1.0, 3.0]
    assert sg.linalg.eigvalsh(sg.tensor([[5.0, 0.0], [0.0, -2.0]])).tolist() == [-2.0, 5.0]
    assert sg.linalg.eigvalsh(sg.tensor([[2.0, 9.0], [1.0, 2.0]])).tolist() == [1.0, 3.0]
    assert sg.linalg.eigvalsh(sg.tensor([[2.0, 1.0], [9.0, 2.0]]), UPLO="U").tolist() == [1.0, 3.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rounded_once_from_a_60_digit_reference(dtype):
    dt = getattr(sg, dtype)
    got = sg.linalg.eigvalsh(sg.tensor(NONSYMMETRIC, dtype=dt)).tolist()
    lower = [[NONSYMMETRIC[max(i, j)][min(i, j)] for j in range(3)] for i in range(3)]
    with mpmath.workdps(60):
        e, _ = mpmath.eigsy(mpmath.matrix(lower))
        ref = sorted(e[k] for k in range(3))
        for x, y in zip(got, ref):
            assert x == float(sg.tensor(float(y), dtype=dt).item())  # correctly rounded


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradient_within_the_bound_of_lapack(torch_ref, dtype, uplo):
    res = []
    for L in (sg, torch_ref):
        a = L.tensor([NONSYMMETRIC, SYMMETRIC], dtype=getattr(L, dtype), requires_grad=True)
        e = L.linalg.eigvalsh(a, UPLO=uplo)
        saved = tuple(e.grad_fn._saved_eigenvectors.shape)
        (e * L.tensor([1.0, 2.0, 3.0], dtype=e.dtype)).sum().backward()
        res.append((e.grad_fn.name(), tuple(e.shape), e.stride(), saved, e.flatten().tolist(),
                    a.grad.flatten().tolist()))
    assert res[0][:4] == res[1][:4]
    eps = 2.0**-23 if dtype == "float32" else 2.0**-52
    for x, y in zip(res[0][4], res[1][4]):  # LAPACK's: a few eps of the largest eigenvalue per dimension
        assert abs(x - y) <= 8 * 3 * eps * 8.0, (x, y)
    for x, y in zip(res[0][5], res[1][5]):  # V diag(g) V^T, |g| <= 3, V orthonormal
        assert abs(x - y) <= 8 * 3 * eps * 3.0 * 4, (x, y)


def test_gradient_proved_by_sympy():
    a = sg.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    assert sympy_check((sg.linalg.eigvalsh(a) * sg.tensor([1.0, 2.0])).sum(), {a: "A"}).ok
    b = sg.tensor(NONSYMMETRIC, dtype=sg.float64, requires_grad=True)
    report = sympy_check((sg.linalg.eigvalsh(b) * sg.tensor([1.0, 2.0, 3.0], dtype=sg.float64)).sum(), {b: "B"})
    assert report.ok and {c.status for c in report.inputs} == {"convention"}


def test_no_node_without_grad_and_refusals():
    a = sg.tensor(SYMMETRIC, requires_grad=True)
    with sg.no_grad():
        assert sg.linalg.eigvalsh(a).grad_fn is None
    with pytest.raises(Unsupported, match="double backward of linalg.eigvalsh"):
        sg.autograd.grad(sg.linalg.eigvalsh(a).sum(), a, create_graph=True)
    with pytest.raises(Unsupported, match="nan or an infinity"):
        sg.linalg.eigvalsh(sg.tensor([[math.nan, 1.0], [1.0, 1.0]]))
    with pytest.raises(Unsupported, match="linalg.eigh"):
        sg.linalg.eigh  # noqa: B018


RANKS = {
    "default": lambda L, m: L.linalg.matrix_rank(m),
    "hermitian": lambda L, m: L.linalg.matrix_rank(m, hermitian=True),
    "atol": lambda L, m: L.linalg.matrix_rank(m, atol=1.0),
    "rtol": lambda L, m: L.linalg.matrix_rank(m, rtol=0.5),
    "tol": lambda L, m: L.linalg.matrix_rank(m, 2.0),
    "tol tensor": lambda L, m: L.linalg.matrix_rank(m, tol=L.tensor(2.0)),
    "both tensors": lambda L, m: L.linalg.matrix_rank(m, atol=L.tensor(0.5), rtol=L.tensor(0.1)),
    "batch": lambda L, m: L.linalg.matrix_rank(L.ones(2, 3, 4)),
    "identity": lambda L, m: L.linalg.matrix_rank(L.eye(4, dtype=L.float64)),
    "empty": lambda L, m: L.linalg.matrix_rank(L.zeros(0, 3)),
    "empty batch": lambda L, m: L.linalg.matrix_rank(L.zeros(2, 0, 3)),
    "grad": lambda L, m: L.linalg.matrix_rank(L.ones(2, 3, 3, requires_grad=True)),
    "1-d": lambda L, m: L.linalg.matrix_rank(L.ones(3)),
    "long": lambda L, m: L.linalg.matrix_rank(L.ones(2, 2, dtype=L.long)),
    "hermitian wide": lambda L, m: L.linalg.matrix_rank(L.ones(2, 3), hermitian=True),
    "eigvalsh wide": lambda L, m: L.linalg.eigvalsh(L.ones(2, 3)),
    "eigvalsh 1-d": lambda L, m: L.linalg.eigvalsh(L.ones(3)),
    "eigvalsh long": lambda L, m: L.linalg.eigvalsh(L.ones(2, 2, dtype=L.long)),
    "eigvalsh half": lambda L, m: L.linalg.eigvalsh(L.ones(2, 2, dtype=L.half)),
    "eigvalsh uplo": lambda L, m: L.linalg.eigvalsh(L.ones(2, 2), "X"),
    "eigvalsh empty": lambda L, m: L.linalg.eigvalsh(L.zeros(2, 0, 0)),
}


def test_ranks_and_errors_as_pytorch(torch_ref):
    # a rank-2 matrix: its third singular value is 0, or LAPACK's rounding noise (about 1e-7),
    # far below the default tolerance (3 eps * 8.4, about 3e-6) and every one given
    def outcomes(L):
        return {k: described(lambda L, f=f: f(L, L.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])), L)
                for k, f in RANKS.items()}

    assert outcomes(sg) == outcomes(torch_ref)
