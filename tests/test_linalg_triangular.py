"""``torch.linalg.solve_triangular`` (``_tensor/linalg_triangular.py``): X by substitution in
double, rounded to the dtype, against an exact Fraction solution, against live PyTorch (node, saved
attributes, layout; values and gradients within a bound: LAPACK's trsm is machine-dependent),
the gradient proved by SymPy, and PyTorch's errors."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from program_outcome import described

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

A = [[2.0, 7.0, -1.0], [1.0, 3.0, 9.0], [4.0, 5.0, 6.0]]
B = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
FLAGS = list(itertools.product([False, True], repeat=3))  # upper, left, unitriangular


def _exact(upper, left, unit):
    """X with T X = B (left) or X T = B^T, in Fractions."""
    n = 3
    t = [[Fraction(1) if i == j and unit else Fraction(A[i][j]) if i == j or (j > i) == upper else Fraction(0)
          for j in range(n)] for i in range(n)]
    if not left:
        t = [list(r) for r in zip(*t)]
    b = [[Fraction(x) for x in row] for row in (B if left else [list(r) for r in zip(*B)][::1])]
    b = b if left else [list(r) for r in zip(*b)]  # solve T^T x^T = B columns
    lower = (not upper) if left else upper
    cols = len(b[0])
    x = [[Fraction(0)] * cols for _ in range(n)]
    for j in range(cols):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            others = range(i) if lower else range(i + 1, n)
            x[i][j] = (b[i][j] - sum(t[i][q] * x[q][j] for q in others)) / t[i][i]
    return x if left else [list(r) for r in zip(*x)]


@pytest.mark.parametrize("upper, left, unit", FLAGS)
def test_near_the_exact_solution(upper, left, unit):
    x = sg.linalg.solve_triangular(sg.tensor(A, dtype=sg.float64), sg.tensor(B if left else [list(r) for r in zip(*B)],
                                   dtype=sg.float64), upper=upper, left=left, unitriangular=unit)
    exact = _exact(upper, left, unit)
    for got, want in zip(sum(x.tolist(), []), sum(exact, [])):
        # substitution in double: a few roundings of the largest term per step, n = 3 steps
        assert abs(Fraction(got) - want) <= 3 * 4 * Fraction(2) ** -52 * 100, (got, want)


@pytest.mark.parametrize("upper, left, unit", FLAGS)
def test_as_pytorch_within_a_bound(torch_ref, upper, left, unit):
    res = []
    for L in (sg, torch_ref):
        a = L.tensor(A, requires_grad=True)
        b = L.tensor(B, requires_grad=True)
        x = L.linalg.solve_triangular(a, b if left else b.T, upper=upper, left=left, unitriangular=unit)
        g = x.grad_fn
        meta = (g.name(), x.stride(), tuple(x.shape), g._saved_upper, g._saved_left, g._saved_unitriangular,
                g._saved_self is a)
        (x * L.arange(6.0).reshape(x.shape)).sum().backward()
        res.append((meta, x.flatten().tolist(), a.grad.flatten().tolist(), b.grad.flatten().tolist()))
    assert res[0][0] == res[1][0]
    for ours, theirs in zip(res[0][1:], res[1][1:]):
        top = max(abs(v) for v in theirs) + 1.0
        assert all(abs(p - q) <= 64 * 2.0**-23 * top for p, q in zip(ours, theirs)), (ours, theirs)
        assert [p == 0.0 for p in ours] == [q == 0.0 for q in theirs]  # the triangle kept, exactly


@pytest.mark.parametrize("upper, left, unit", [(False, True, False), (True, False, True)])
def test_gradient_proved_by_sympy(upper, left, unit):
    a = sg.tensor(A, dtype=sg.float64, requires_grad=True)
    b = sg.tensor(B, dtype=sg.float64, requires_grad=True)
    x = sg.linalg.solve_triangular(a, b if left else b.T, upper=upper, left=left, unitriangular=unit)
    assert sympy_check((x * x).sum(), {a: "A", b: "B"}).ok


def test_broadcast_batch_and_refusals(torch_ref):
    for L in (sg, torch_ref):
        x = L.linalg.solve_triangular(L.tensor(A)[None].expand(2, 3, 3), L.tensor(B), upper=True)
        assert tuple(x.shape) == (2, 3, 2) and x.stride() == (6, 1, 3)
    with pytest.raises(Unsupported, match="broadcast batch dimensions"):
        sg.linalg.solve_triangular(sg.ones(2, 3, 3), sg.ones(3, 2, requires_grad=True), upper=True)
    with pytest.raises(Unsupported, match="different dtypes"):
        sg.linalg.solve_triangular(sg.eye(2), sg.ones(2, 1, dtype=sg.float64), upper=True)
    with pytest.raises(Unsupported, match="double backward of linalg.solve_triangular"):
        a = sg.tensor(A, requires_grad=True)
        sg.autograd.grad(sg.linalg.solve_triangular(a, sg.tensor(B), upper=True).sum(), a, create_graph=True)


ERRORS = {
    "no upper": lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(3, 2)),
    "not square": lambda L: L.linalg.solve_triangular(L.ones(2, 3), L.ones(2, 2), upper=True),
    "shapes": lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(2, 2), upper=True),
    "shapes right": lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(3, 2), upper=True, left=False),
    "1-d B": lambda L: L.linalg.solve_triangular(L.eye(3), L.ones(3), upper=True),
    "1-d A": lambda L: L.linalg.solve_triangular(L.ones(3), L.ones(3, 2), upper=True),
    "long": lambda L: L.linalg.solve_triangular(L.eye(3).long(), L.ones(3, 2).long(), upper=True),
    "singular": lambda L: L.linalg.solve_triangular(L.zeros(2, 2), L.ones(2, 1), upper=True),
    "right": lambda L: L.linalg.solve_triangular(L.eye(3) * 2, L.ones(2, 3), upper=True, left=False),
}


def test_errors_as_pytorch(torch_ref):
    got = {k: described(f, sg) for k, f in ERRORS.items()}
    want = {k: described(f, torch_ref) for k, f in ERRORS.items()}
    # a missing keyword-only argument: Python's TypeError words differ from PyTorch's parser's
    assert got.pop("no upper")[0] == want.pop("no upper")[0] == "TypeError"
    assert got == want


# ---------------------------------------------------------------- cholesky_solve, cholesky_inverse

FACTOR = [[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [4.0, 5.0, 6.0]]


def _close(ours: list, theirs: list) -> None:
    top = max(abs(v) for v in theirs) + 1.0
    assert all(abs(p - q) <= 64 * 2.0**-23 * top for p, q in zip(ours, theirs)), (ours, theirs)


@pytest.mark.no_sympy_check  # 3 x 3 systems: SymPy's whole expression takes seconds; proved below on 2 x 2
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_as_pytorch(torch_ref, upper):
    res = []
    for L in (sg, torch_ref):
        f = L.tensor(FACTOR, requires_grad=True)
        b = L.tensor(B, requires_grad=True)
        fx = f.mT if upper else f
        x = L.cholesky_solve(b, fx, upper)
        y = L.cholesky_inverse(fx, upper)
        meta = [(t.grad_fn.name(), t.stride(), t.grad_fn._saved_upper) for t in (x, y)]
        (x * L.arange(6.0).reshape(3, 2)).sum().backward()
        gs = [f.grad.flatten().tolist(), b.grad.flatten().tolist()]
        f.grad = None
        (y * L.arange(9.0).reshape(3, 3)).sum().backward()
        res.append((meta, x.flatten().tolist(), y.flatten().tolist(), *gs, f.grad.flatten().tolist(),
                    b.cholesky_solve(fx, upper=upper).tolist() == x.tolist(),
                    fx.cholesky_inverse(upper).tolist() == y.tolist()))
    assert res[0][0] == res[1][0] and res[0][-2:] == res[1][-2:] == (True, True)
    for ours, theirs in zip(res[0][1:-2], res[1][1:-2]):
        _close(ours, theirs)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradients_proved_by_sympy(upper):
    f = sg.tensor([[2.0, 0.0], [1.5, 3.0]], dtype=sg.float64, requires_grad=True)
    b = sg.tensor([[1.0, -0.5], [2.5, 1.0]], dtype=sg.float64, requires_grad=True)
    fx = f.mT if upper else f
    assert sympy_check((sg.cholesky_solve(b, fx, upper) ** 2).sum(), {f: "L", b: "B"}).ok
    weights = sg.arange(4.0, dtype=sg.float64).reshape(2, 2)
    assert sympy_check((sg.cholesky_inverse(fx, upper) * weights).sum(), {f: "L"}).ok


@pytest.mark.no_sympy_check  # proved below, with its convention
def test_a_full_factor_takes_pytorchs_gradient(torch_ref):
    # numbers in the triangle not read: the value ignores them, PyTorch's gradient does not
    full = [[2.0, 7.0, 0.0], [1.0, 3.0, -2.0], [4.0, 5.0, 6.0]]
    grads = []
    for L in (sg, torch_ref):
        f = L.tensor(full, requires_grad=True)
        y = L.cholesky_inverse(f)
        assert y.tolist() == L.cholesky_inverse(L.tensor(FACTOR)).tolist()
        y.sum().backward()
        grads.append(f.grad.flatten().tolist())
    _close(*grads)
    f = sg.tensor([[2.0, 7.0], [1.0, 3.0]], dtype=sg.float64, requires_grad=True)
    report = sympy_check(sg.cholesky_inverse(f).sum(), {f: "F"})
    assert report.ok and {c.status for c in report.inputs} == {"convention"}


CHOLESKY_ERRORS = {
    "solve not square": lambda L: L.cholesky_solve(L.ones(3, 2), L.ones(2, 3)),
    "solve sizes": lambda L: L.cholesky_solve(L.ones(2, 2), L.tensor(FACTOR)),
    "solve dtypes": lambda L: L.cholesky_solve(L.ones(3, 2), L.tensor(FACTOR).double()),
    "solve 1-d b": lambda L: L.cholesky_solve(L.ones(3), L.tensor(FACTOR)),
    "solve long": lambda L: L.cholesky_solve(L.ones(3, 2).long(), L.tensor(FACTOR).long()),
    "solve singular": lambda L: L.cholesky_solve(L.ones(2, 1), L.zeros(2, 2)),
    "solve batch": lambda L: L.cholesky_solve(L.ones(2, 3, 1), L.eye(2)),
    "inverse not square": lambda L: L.cholesky_inverse(L.ones(2, 3)),
    "inverse 1-d": lambda L: L.cholesky_inverse(L.ones(3)),
    "inverse long": lambda L: L.cholesky_inverse(L.eye(2).long()),
    "inverse singular": lambda L: L.cholesky_inverse(L.zeros(2, 2)),
    "inverse singular batch": lambda L: L.cholesky_inverse(L.zeros(2, 2, 2)),
    "inverse empty": lambda L: L.cholesky_inverse(L.zeros(0, 0)),
}


def test_cholesky_errors_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in CHOLESKY_ERRORS.items()} == \
        {k: described(f, torch_ref) for k, f in CHOLESKY_ERRORS.items()}


# ---------------------------------------------------------------- the deprecated triangular_solve

TRIANGULAR_SOLVE_FLAGS = [(True, False, False), (False, True, True), (False, False, False), (True, True, False)]


@pytest.mark.no_sympy_check  # 3 x 3 systems; proved below on 2 x 2
@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
@pytest.mark.parametrize("upper, transpose, unit", TRIANGULAR_SOLVE_FLAGS)
def test_triangular_solve_as_pytorch(torch_ref, upper, transpose, unit):
    res = []
    for L in (sg, torch_ref):
        a = L.tensor(A, requires_grad=True)
        b = L.tensor(B, requires_grad=True)
        out = L.triangular_solve(b, a, upper, transpose, unit)
        x, clone = out
        g = x.grad_fn
        meta = (type(out).__name__, out._fields if hasattr(out, "_fields") else None, g.name(), g is clone.grad_fn,
                x.stride(), clone.stride(), g._saved_upper, g._saved_transpose, g._saved_unitriangular,
                g._saved_self is b, g._saved_A is a, clone.tolist() == A)
        (x * L.arange(6.0).reshape(3, 2)).sum().backward(retain_graph=True)
        grads = [a.grad.flatten().tolist(), b.grad.flatten().tolist()]
        a.grad = None
        (x.sum() + (clone * 2).sum()).backward()
        res.append((meta, x.flatten().tolist(), *grads, a.grad.flatten().tolist()))
    assert res[0][0] == res[1][0]
    for ours, theirs in zip(res[0][1:], res[1][1:]):
        _close(ours, theirs)


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
@pytest.mark.parametrize("upper, transpose, unit", TRIANGULAR_SOLVE_FLAGS[:2])
def test_triangular_solve_proved_by_sympy(upper, transpose, unit):
    a = sg.tensor([[2.0, 7.0], [1.0, 3.0]], dtype=sg.float64, requires_grad=True)
    b = sg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=sg.float64, requires_grad=True)
    x, clone = sg.triangular_solve(b, a, upper, transpose, unit)
    assert sympy_check((x * x).sum() + (clone * clone).sum(), {a: "A", b: "B"}).ok


def test_triangular_solve_warns_once(recwarn):
    from scalargrad._base.warn_once import forget

    forget("triangular_solve")
    sg.triangular_solve(sg.ones(2, 1), sg.eye(2))
    sg.ones(2, 1).triangular_solve(sg.eye(2))
    texts = [str(w.message) for w in recwarn.list if "triangular_solve" in str(w.message)]
    assert len(texts) == 1 and recwarn.list[-1].filename == __file__
    assert texts[0].startswith("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand")


TRIANGULAR_SOLVE_ERRORS = {
    "not square": lambda L: L.triangular_solve(L.ones(3, 2), L.ones(2, 3)),
    "sizes": lambda L: L.triangular_solve(L.ones(2, 2), L.eye(3)),
    "dtypes": lambda L: L.triangular_solve(L.ones(3, 2), L.eye(3).double()),
    "1-d": lambda L: L.triangular_solve(L.ones(3), L.eye(3)),
    "long": lambda L: L.triangular_solve(L.ones(3, 2).long(), L.eye(3).long()),
}


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
def test_triangular_solve_errors_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in TRIANGULAR_SOLVE_ERRORS.items()} == \
        {k: described(f, torch_ref) for k, f in TRIANGULAR_SOLVE_ERRORS.items()}
