"""The LU family (``_tensor/linalg_lu.py``): lu_factor, lu_factor_ex, torch.lu/Tensor.lu, lu_solve
(linalg and the deprecated spellings), lu_unpack, linalg.lu. PyTorch's factors come from LAPACK's
blocked getrf (MKL here), whose last bits are machine-dependent, so the factors are compared with
an exact rational reference (Gaussian elimination in ``fractions`` with getrf's rule: the first
row of largest magnitude), scalargrad's and live PyTorch's each within a bound of its largest
element; the pivots, which that reference fixes, exactly. Gradients (products of triangular
solves, machine-dependent) of the two within 64 n eps of the largest; the suite's SymPy check
proves scalargrad's against Doolittle's factors of P^T A and U^-1 L^-1 P^T b."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from program_outcome import refusal

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

EPS = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}


def _matrix(seed: int, m: int, n: int, dt: str) -> list:
    rnd = random.Random(seed)
    rows = [[rnd.uniform(-2, 2) for _ in range(n)] for _ in range(m)]
    return sg.tensor(rows, dtype=getattr(sg, dt)).tolist()  # the values as the dtype holds them


def _exact_lu(a: list) -> tuple:
    """(packed LU as Fractions, 1-based pivots): getrf's elimination in rationals."""
    m, n = len(a), len(a[0])
    r = [[Fraction(x) for x in row] for row in a]
    piv = []
    for j in range(min(m, n)):
        p = j
        for i in range(j + 1, m):
            if abs(r[i][j]) > abs(r[p][j]):
                p = i
        piv.append(p + 1)
        r[p], r[j] = r[j], r[p]
        if r[j][j] != 0:
            for i in range(j + 1, m):
                r[i][j] /= r[j][j]
                for c in range(j + 1, n):
                    r[i][c] -= r[i][j] * r[j][c]
    return r, piv


def _exact_solve(a: list, b: list) -> list:
    n, k = len(a), len(b[0])
    r = [[Fraction(x) for x in row] + [Fraction(y) for y in brow] for row, brow in zip(a, b)]
    for j in range(n):
        p = max(range(j, n), key=lambda i: abs(r[i][j]))
        r[p], r[j] = r[j], r[p]
        r[j] = [x / r[j][j] for x in r[j]]
        for i in range(n):
            if i != j and r[i][j] != 0:
                f = r[i][j]
                r[i] = [x - f * y for x, y in zip(r[i], r[j])]
    return [row[n:n + k] for row in r]


def _close(have: list, want: list, bound: Fraction, who: str) -> None:
    for x, y in zip(have, want):
        assert abs(Fraction(x) - y) <= bound, (who, x, float(y))


FACTOR_CALLS = [
    ("linalg.lu_factor", lambda L, a: tuple(L.linalg.lu_factor(a))),
    ("linalg.lu_factor_ex", lambda L, a: tuple(L.linalg.lu_factor_ex(a))[:2]),
    ("Tensor.lu", lambda L, a: a.lu()),
    ("torch.lu get_infos", lambda L, a: tuple(L.lu(a, get_infos=True))[:2]),
]


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
@pytest.mark.parametrize("dt", list(EPS))
def test_lu_factor_matches_pytorch(torch_ref, dt):
    """Square matrices of sizes 1 to 4 and a batch of two 3 x 3 (with gradients), a 2 x 3 and a
    3 x 2 (values), each through one of the spellings in turn: pivots exactly the exact
    reference's and PyTorch's; the factors within 8 n eps of the largest exact one; the
    gradients of a weighted sum of both within 64 n eps."""
    eps = EPS[dt]
    shapes = ((1, 1, 0), (2, 2, 0), (3, 3, 0), (4, 4, 0), (3, 3, 2), (2, 3, 0), (3, 2, 0), (2, 2, 3))
    for case, (m, n, batch) in enumerate(shapes):
        call = FACTOR_CALLS[case % len(FACTOR_CALLS)][1]
        mats = [_matrix(100 * m + 10 * n + b, m, n, dt) for b in range(batch or 1)]
        exact = [_exact_lu(a) for a in mats]
        got = []
        for L in (sg, torch_ref):
            a = L.tensor(mats if batch else mats[0], dtype=getattr(L, dt), requires_grad=m == n)
            lu, piv = call(L, a)
            lu_rows = lu.detach().reshape(-1, m, n).tolist()
            pivs = piv.reshape(-1, min(m, n)).tolist()
            for b, (ref, ref_piv) in enumerate(exact):
                assert pivs[b] == ref_piv, (L.__name__, m, n)
                top = max(abs(x) for row in ref for x in row)
                _close([x for row in lu_rows[b] for x in row], [x for row in ref for x in row],
                       top * Fraction(8 * n * eps), L.__name__)
            if m == n:
                node = lu.grad_fn
                facts = (node.name(), node._saved_pivot, node._saved_pivots.tolist(), str(piv.dtype),
                         piv.requires_grad, tuple(lu.shape))
                w = L.arange(1.0, 1.0 + lu.numel(), dtype=getattr(L, dt)).reshape(lu.shape)
                (grad,) = L.autograd.grad((lu * w).sum(), a)
                got.append(facts + (grad.flatten().tolist(),))
        if m == n:
            assert got[0][:-1] == got[1][:-1]
            top = max(abs(x) for x in got[1][-1])
            for p, q in zip(got[0][-1], got[1][-1]):
                assert abs(p - q) <= 64 * n * eps * top, (p, q)


SOLVE_CALLS = [
    ("linalg.lu_solve", lambda L, lu, piv, b: L.linalg.lu_solve(lu, piv, b)),
    ("Tensor.lu_solve", lambda L, lu, piv, b: b.lu_solve(lu, piv)),
    ("torch.lu_solve", lambda L, lu, piv, b: L.lu_solve(b, lu, piv)),
]


@pytest.mark.filterwarnings("ignore:torch.lu_solve is deprecated")
@pytest.mark.parametrize("dt", list(EPS))
def test_lu_solve_matches_pytorch(torch_ref, dt):
    """X = A^-1 B through lu_factor for n = 1, 2 (k = 2 columns) and a batch of two 3 x 3, each
    through one of the spellings in turn: within 16 n eps of the exact solution's largest element (diagonally
    dominant A), for both; the node, its saved flags and edges exactly; the gradients for A
    (through LU) and B within 64 n eps."""
    eps = EPS[dt]
    for case, (n, batch) in enumerate(((1, 0), (2, 0), (3, 2))):
        call = SOLVE_CALLS[case % len(SOLVE_CALLS)][1]
        mats = [[[x + (2 * n if i == j else 0) for j, x in enumerate(row)]
                 for i, row in enumerate(_matrix(7 * n + b, n, n, dt))] for b in range(batch or 1)]
        mats = [sg.tensor(a, dtype=getattr(sg, dt)).tolist() for a in mats]
        rhs = [_matrix(3 * n + b, n, 2, dt) for b in range(batch or 1)]
        got = []
        for L in (sg, torch_ref):
            a = L.tensor(mats if batch else mats[0], dtype=getattr(L, dt), requires_grad=True)
            b = L.tensor(rhs if batch else rhs[0], dtype=getattr(L, dt), requires_grad=True)
            lu, piv = L.linalg.lu_factor(a)
            x = call(L, lu, piv, b)
            xs = x.detach().reshape(-1, n, 2).tolist()
            for q in range(batch or 1):
                ref = _exact_solve(mats[q], rhs[q])
                top = max(abs(v) for row in ref for v in row)
                _close([v for row in xs[q] for v in row], [v for row in ref for v in row],
                       top * Fraction(16 * n * eps), L.__name__)
            w = L.arange(1.0, 1.0 + x.numel(), dtype=getattr(L, dt)).reshape(x.shape)
            ga, gb = L.autograd.grad((x * w).sum(), [a, b])
            fn = x.grad_fn
            got.append((fn.name(), fn._saved_left, fn._saved_adjoint, [f[0].name() for f in fn.next_functions],
                        ga.flatten().tolist() + gb.flatten().tolist()))
        assert got[0][:-1] == got[1][:-1]
        top = max(abs(v) for v in got[1][-1])
        for p, q in zip(got[0][-1], got[1][-1]):
            assert abs(p - q) <= 64 * n * eps * top, (n, p, q)


def test_lu_solve_adjoint_and_right(torch_ref):
    """left=False and adjoint=True (values only: their gradients are refused by name): A^T X = B,
    X A = B, X A^T = B within 16 n eps of the exact solution."""
    a = _matrix(5, 3, 3, "float64")
    a = [[x + (6 if i == j else 0) for j, x in enumerate(row)] for i, row in enumerate(a)]
    bcol, brow = _matrix(6, 3, 2, "float64"), _matrix(7, 2, 3, "float64")
    at = [list(r) for r in zip(*a)]

    def tr(m):
        return [list(r) for r in zip(*m)]

    cases = [(dict(adjoint=True), bcol, _exact_solve(at, bcol)),
             (dict(left=False), brow, tr(_exact_solve(at, tr(brow)))),
             (dict(left=False, adjoint=True), brow, tr(_exact_solve(a, tr(brow))))]
    for kw, b, ref in cases:
        for L in (sg, torch_ref):
            lu, piv = L.linalg.lu_factor(L.tensor(a, dtype=L.float64))
            x = L.linalg.lu_solve(lu, piv, L.tensor(b, dtype=L.float64), **kw).tolist()
            top = max(abs(v) for row in ref for v in row)
            _close([v for row in x for v in row], [v for row in ref for v in row], top * Fraction(48 * EPS["float64"]),
                   (L.__name__, kw))


def test_lu_unpack_and_linalg_lu(torch_ref):
    """P exactly, L and U within the factors' bound, for square, wide and tall matrices and a
    batch; what unpack_data/unpack_pivots leave empty, as PyTorch prints it."""
    for shape in ((3, 3), (2, 3), (3, 2), (2, 3, 3)):
        vals = torch_ref.rand(*shape, generator=torch_ref.Generator().manual_seed(len(shape) + shape[-1]))
        data = vals.tolist()
        got = []
        for L in (sg, torch_ref):
            a = L.tensor(data)
            P, Lo, U = L.lu_unpack(*L.linalg.lu_factor(a))
            P2, Lo2, U2 = L.linalg.lu(a)
            assert P.tolist() == P2.tolist() and Lo.tolist() == Lo2.tolist() and U.tolist() == U2.tolist()
            got.append((P.tolist(), tuple(Lo.shape), tuple(U.shape), (P @ Lo @ U - a).abs().max().item(),
                        [x for row in Lo.reshape(-1, Lo.shape[-1]).tolist() for x in row],
                        type(L.linalg.lu(a)).__name__))
        assert got[0][:3] == got[1][:3] and got[0][5] == got[1][5] == "linalg_lu"
        assert got[0][3] <= 8 * EPS["float32"] * 4 and got[1][3] <= 8 * EPS["float32"] * 4
        for p, q in zip(got[0][4], got[1][4]):
            assert abs(p - q) <= 16 * EPS["float32"] * 4
    texts = []
    for L in (sg, torch_ref):
        lu, piv = L.linalg.lu_factor(L.eye(2))
        texts.append((repr(L.lu_unpack(lu, piv, unpack_data=False)), repr(L.lu_unpack(lu, piv, unpack_pivots=False)),
                      repr(L.linalg.lu_factor(L.zeros(0, 0))), repr(L.linalg.lu_factor_ex(L.zeros(2, 0, 3)))))
    assert texts[0] == texts[1]


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
def test_exact_figures_singular_and_warnings(torch_ref, recwarn):
    """What is the same on every machine: a singular matrix's factors (exact here), info,
    lu_factor's error naming the zero pivot (in a batch too), torch.lu's silence about it; the
    deprecation warnings once each, at the program's line."""
    from scalargrad._base.warn_once import forget

    forget("torch_lu", "torch_lu_solve")
    s = [[1.0, 2.0], [2.0, 4.0]]
    got = []
    for L in (sg, torch_ref):
        out = [repr(L.linalg.lu_factor_ex(L.tensor(s))), repr(L.tensor(s).lu())]
        for a in (L.tensor(s), L.stack([L.eye(2), L.tensor(s)])):
            with pytest.raises(RuntimeError) as e:
                L.linalg.lu_factor(a)
            out.append(str(e.value))
        got.append(out)
    assert got[0] == got[1]
    forget("torch_lu", "torch_lu_solve")
    recwarn.clear()
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]])
    lu, piv = a.lu()
    sg.lu(a)
    b = sg.ones(2, 1)
    b.lu_solve(lu, piv)
    sg.lu_solve(b, lu, piv)
    texts = [str(w.message) for w in recwarn.list]
    assert len(texts) == 2 and all(w.filename == __file__ for w in recwarn.list)
    assert texts[0].startswith("torch.lu is deprecated in favor of torch.linalg.lu_factor")
    assert texts[1].startswith("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will")


def test_sympy_proof_of_two_by_two():
    """The hand derivation: A = [[2, 1], [4, 3]], getrf takes row 2 first: u11 = a21, u12 = a22,
    l21 = a11 / a21, u22 = a12 - a11 a22 / a21, so d(sum of LU)/dA = [[1/a21 - a22/a21, 1],
    [1 - a11/a21^2 + a11 a22/a21^2, 1 - a11/a21]] = [[-0.5, 1], [1.25, 0.5]]; and lu_solve's
    X = A^-1 b proved through both nodes."""
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    lu, piv = sg.linalg.lu_factor(a)
    assert lu.tolist() == [[4.0, 3.0], [0.5, -0.5]] and piv.tolist() == [2, 2]
    (g,) = sg.autograd.grad(lu.sum(), a)
    assert g.tolist() == [[-0.5, 1.0], [1.25, 0.5]]
    assert sympy_check(sg.linalg.lu_factor(a)[0].sum(), [a]).ok
    b = sg.tensor([[1.0], [-1.0]], requires_grad=True)
    x = sg.linalg.lu_solve(*sg.linalg.lu_factor(a), b)
    assert x.tolist() == [[2.0], [-3.0]]
    assert sympy_check(x.sum(), [a, b]).ok


@pytest.mark.parametrize("text, call", [
    ("rectangular gradient", lambda: sg.linalg.lu_factor(sg.ones(2, 3, requires_grad=True))),
    ("lu_unpack gradient", lambda: sg.lu_unpack(*sg.linalg.lu_factor(sg.eye(2).requires_grad_()))),
    ("linalg.lu gradient", lambda: sg.linalg.lu(sg.eye(2).requires_grad_())),
    ("adjoint gradient", lambda: sg.linalg.lu_solve(*sg.linalg.lu_factor(sg.eye(2)), sg.ones(2, 1).requires_grad_(),
                                                    adjoint=True)),
])
def test_refused_by_name(text, call):
    with pytest.raises(Unsupported):
        call()


def test_double_backward_refused():
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    with pytest.raises(Unsupported, match="double backward of the LU family"):
        sg.autograd.grad(sg.linalg.lu_factor(a)[0].sum(), a, create_graph=True)


@pytest.mark.parametrize("text, call", [
    ("vector", lambda L: L.linalg.lu_factor(L.zeros(3))),
    ("integer", lambda L: L.linalg.lu_factor(L.zeros(2, 2, dtype=L.long))),
    ("no pivoting", lambda L: L.linalg.lu_factor(L.eye(2), pivot=False)),
    ("not a tensor", lambda L: L.linalg.lu_factor([[1.0]])),
    ("Tensor.lu vector", lambda L: L.zeros(3).lu()),
    ("solve shapes", lambda L: L.linalg.lu_solve(L.eye(2), L.tensor([1, 2], dtype=L.int32), L.zeros(3, 1))),
    ("solve B vector", lambda L: L.linalg.lu_solve(L.eye(2), L.tensor([1, 2], dtype=L.int32), L.zeros(2))),
    ("solve pivots dtype", lambda L: L.linalg.lu_solve(L.eye(2), L.tensor([1, 2]), L.zeros(2, 1))),
    ("solve not square", lambda L: L.linalg.lu_solve(L.zeros(2, 3), L.tensor([1, 2], dtype=L.int32), L.zeros(2, 1))),
    ("solve dtypes", lambda L: L.linalg.lu_solve(L.eye(2), L.tensor([1, 2], dtype=L.int32),
                                                 L.zeros(2, 1, dtype=L.float64))),
    ("unpack pivots dtype", lambda L: L.lu_unpack(L.eye(2), L.tensor([1, 2]))),
])
@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
def test_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


# ---------------------------------------------------------------- linalg.solve

@pytest.mark.no_sympy_check  # 3 x 3 systems take SymPy long: proved on 2 x 2 below and on SolveOf's sample
@pytest.mark.parametrize("dt", list(EPS))
def test_solve_matches_pytorch(torch_ref, dt):
    """linalg.solve for a vector, a matrix right-hand side and a batch: X within 16 n eps of the
    exact solution's largest element (diagonally dominant A), scalargrad's and PyTorch's; the
    node, its saved left and pivots exactly; the gradients for A and B within 64 n eps."""
    eps = EPS[dt]
    for n, k, batch in ((2, 0, 0), (3, 2, 0), (2, 1, 2)):
        mats = [[[x + (2 * n if i == j else 0) for j, x in enumerate(row)]
                 for i, row in enumerate(_matrix(11 * n + b, n, n, dt))] for b in range(batch or 1)]
        mats = [sg.tensor(a, dtype=getattr(sg, dt)).tolist() for a in mats]
        rhs = [_matrix(13 * n + b, n, k or 1, dt) for b in range(batch or 1)]
        bvals = [[row[0] for row in r] for r in rhs] if not k else rhs
        got = []
        for L in (sg, torch_ref):
            a = L.tensor(mats if batch else mats[0], dtype=getattr(L, dt), requires_grad=True)
            b = L.tensor(bvals if batch else bvals[0], dtype=getattr(L, dt), requires_grad=True)
            x = L.linalg.solve(a, b)
            xs = x.detach().reshape(-1, n * (k or 1)).tolist()
            for q in range(batch or 1):
                ref = [v for row in _exact_solve(mats[q], rhs[q]) for v in row]
                top = max(abs(v) for v in ref)
                _close(xs[q], ref, top * Fraction(16 * n * eps), L.__name__)
            fn = x.grad_fn
            facts = (fn.name(), fn._saved_left, fn._saved_pivots.tolist(), tuple(x.shape))
            w = L.arange(1.0, 1.0 + x.numel(), dtype=getattr(L, dt)).reshape(x.shape)
            ga, gb = L.autograd.grad((x * w).sum(), [a, b])
            got.append(facts + (ga.flatten().tolist() + gb.flatten().tolist(),))
        assert got[0][:-1] == got[1][:-1]
        top = max(abs(v) for v in got[1][-1])
        for p, q in zip(got[0][-1], got[1][-1]):
            assert abs(p - q) <= 64 * n * eps * top, (n, p, q)


@pytest.mark.parametrize("shape", [(2, 2), (2, 1), (2, 0), (2, 2, 3), (2, 2, 1)])
def test_solve_matrix_results_are_column_major(torch_ref, shape):
    """A matrix right-hand side's X is written by LAPACK's getrs: column-major matrices in a
    row-major batch (x.stride() (1, n)), as PyTorch's; exact data (4 I), the same everywhere."""
    seen = []
    for L in (sg, torch_ref):
        a = (L.eye(2) * 4).expand(*shape[:-2], 2, 2).clone()
        x = L.linalg.solve(a, L.arange(1.0, 1.0 + L.zeros(shape).numel()).reshape(shape))
        seen.append((x.stride(), x.tolist()))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("text, call", [
    ("singular", lambda L: L.linalg.solve(L.tensor([[1.0, 2.0], [2.0, 4.0]]), L.ones(2))),
    ("shapes", lambda L: L.linalg.solve(L.eye(2), L.ones(3))),
    ("not square", lambda L: L.linalg.solve(L.zeros(2, 3), L.ones(2))),
    ("dtypes", lambda L: L.linalg.solve(L.eye(2), L.ones(2, dtype=L.float64))),
    ("A not a tensor", lambda L: L.linalg.solve([[1.0]], L.ones(1))),
    ("B not a tensor", lambda L: L.linalg.solve(L.eye(2), [1.0])),
    ("integer", lambda L: L.linalg.solve(L.eye(2, dtype=L.long), L.ones(2, dtype=L.long))),
])
def test_solve_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


def test_solve_sympy_proof_of_two_by_two():
    """[[2, 1], [4, 3]] x = (1, -1): x = (2, -3) by hand; gB = A^-T w, gA = -gB x^T for the
    weights w = (1, 2): A^-T = [[1.5, -2], [-0.5, 1]], gB = (-2.5, 1.5), gA = [[5, -7.5],
    [-3, 4.5]]; SymPy proves them from ``Matrix.LUsolve``."""
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    b = sg.tensor([1.0, -1.0], requires_grad=True)
    x = sg.linalg.solve(a, b)
    assert x.tolist() == [2.0, -3.0]
    ga, gb = sg.autograd.grad((x * sg.tensor([1.0, 2.0])).sum(), [a, b])
    assert ga.tolist() == [[5.0, -7.5], [-3.0, 4.5]] and gb.tolist() == [-2.5, 1.5]
    assert sympy_check((sg.linalg.solve(a, b) * sg.tensor([1.0, 2.0])).sum(), [a, b]).ok


def test_saved_pivots_changed_in_place(torch_ref):
    """lu_factor and lu_solve save the pivots: changed in place, the backward raises PyTorch's
    version error (the gradient would otherwise follow other rows)."""
    got = []
    for L in (sg, torch_ref):
        out = []
        a = L.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
        lu, piv = L.linalg.lu_factor(a)
        piv.add_(0)
        with pytest.raises(RuntimeError) as e:
            lu.sum().backward()
        out.append(str(e.value).split(" Hint")[0])
        lu, piv = L.linalg.lu_factor(a.detach())
        b = L.ones(2, 1, requires_grad=True)
        x = L.linalg.lu_solve(lu, piv, b)
        piv.add_(0)
        with pytest.raises(RuntimeError) as e:
            x.sum().backward()
        out.append(str(e.value).split(" Hint")[0])
        got.append(out)
    assert got[0] == got[1]
