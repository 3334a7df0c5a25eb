"""det (``_tensor/linalg.py``: ``torch.det``, ``Tensor.det``, ``torch.linalg.det``) and cross.
PyTorch's det comes from LAPACK's LU (MKL here), whose order of operations is machine-dependent,
so values and gradients are compared with exact rational references (``fractions``),
scalargrad's and live PyTorch's each within a bound: |det - exact| <= 2 n eps prod_i sum_j |a_ij|
(``python tools/det_bound.py``: the worst of 400 random matrices of sizes 1..6 per dtype was
0.44 n eps prod_i sum_j |a_ij|, PyTorch and scalargrad alike, under each kernel setting); the
gradient, (grad * det) A^-T = grad * cofactors, on diagonally dominant matrices within 8 n eps
of the largest cofactor. Exact figures (node names, saved pivots, PyTorch's zero gradient at a
singular matrix, errors) are compared with PyTorch as they are."""

from __future__ import annotations

import random
import warnings
from fractions import Fraction

import pytest
from program_outcome import described, refusal

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

from faithfulness import exact_det

EPS = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}


def _cofactor(m: list, i: int, j: int) -> Fraction:
    minor = [[x for c, x in enumerate(row) if c != j] for r, row in enumerate(m) if r != i]
    return (-1) ** (i + j) * (exact_det(minor) if minor else Fraction(1))


def _matrix(seed: int, n: int, dt: str, dominant: bool = False) -> list:
    rnd = random.Random(seed)
    m = [[rnd.uniform(-2, 2) + (2 * n if dominant and i == j else 0) for j in range(n)] for i in range(n)]
    return sg.tensor(m, dtype=getattr(sg, dt)).tolist()  # the values as the dtype holds them


def _det_bound(m: list, eps: float) -> float:
    h = 1.0
    for row in m:
        h *= sum(abs(x) for x in row)
    return 2 * len(m) * eps * h


CASES = [(seed, n, dt) for seed, n in ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 3)) for dt in EPS]


@pytest.mark.parametrize("seed, n, dt", CASES)
def test_det_value_within_bound(torch_ref, seed, n, dt):
    m = _matrix(seed, n, dt)
    exact = exact_det(m)
    bound = _det_bound(m, EPS[dt])
    for L in (sg, torch_ref):
        got = L.det(L.tensor(m, dtype=getattr(L, dt))).item()
        assert abs(Fraction(got) - exact) <= Fraction(bound), (L.__name__, got, float(exact))


@pytest.mark.parametrize("seed, n, dt", [c for c in CASES if c[1] <= 4])  # SymPy proves each: small n
def test_det_gradient_within_bound(torch_ref, seed, n, dt):
    m = _matrix(seed, n, dt, dominant=True)
    exact = [[_cofactor(m, i, j) * 3 for j in range(n)] for i in range(n)]  # upstream gradient 3
    scale = max(abs(x) for row in exact for x in row)
    for L in (sg, torch_ref):
        a = L.tensor(m, dtype=getattr(L, dt), requires_grad=True)
        (g,) = L.autograd.grad(L.linalg.det(a) * 3, a)
        for i in range(n):
            for j in range(n):
                assert abs(Fraction(g[i, j].item()) - exact[i][j]) <= scale * Fraction(8 * n * EPS[dt]), L.__name__


def test_batches_and_node(torch_ref):
    """Shapes, node name, the saved pivots (LAPACK's, 1-based int32: the pivot rows are
    unambiguous here) and the saved LU's shape; the batch's values within the bound."""
    rows = [[[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.25, 4.0, 1.0]], [[2.0, 0.0, 1.0], [1.0, 3.0, 0.0], [0.0, 1.0, 5.0]]]
    out = []
    for L in (sg, torch_ref):
        a = L.tensor(rows, requires_grad=True)
        y = L.det(a)
        fn = y.grad_fn
        out.append((fn.name(), tuple(y.shape), fn._saved_pivots.tolist(), str(fn._saved_pivots.dtype),
                    tuple(fn._saved_LU.shape), fn._saved_A is not None, str(y.dtype)))
        for b in range(2):
            assert abs(Fraction(y[b].item()) - exact_det(rows[b])) <= _det_bound(rows[b], EPS["float32"])
    assert out[0][:2] + out[0][3:] == out[1][:2] + out[1][3:]
    assert out[0][2] == out[1][2]
    assert repr(sg.det(sg.zeros(0, 0))) == repr(torch_ref.det(torch_ref.zeros(0, 0)))
    assert repr(sg.ones(2, 3, 3).det()) == repr(torch_ref.ones(2, 3, 3).det())


@pytest.mark.parametrize("m", [[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]],
                               [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]]])
def test_singular_gradient_is_zero(torch_ref, m):
    """PyTorch's (grad * det) A^-T is 0 where det is exactly 0, though the adjugate (the
    derivative) of the rank-(n - 1) matrices here is not: scalargrad gives PyTorch's zeros,
    and its SymPy proof names the convention."""
    got = []
    for L in (sg, torch_ref):
        a = L.tensor(m, dtype=L.float64, requires_grad=True)
        L.det(a).backward()
        got.append(([abs(x) for row in a.grad.tolist() for x in row], L.det(a).item()))
    assert got[0] == got[1]
    assert got[0][0] == [0.0] * len(m) ** 2


def test_sympy_proof_of_two_by_two():
    """The hand derivation: d det / dA = cofactors, [[d, -c], [-b, a]] for [[a, b], [c, d]];
    SymPy proves it from the form ``Matrix.det``, and names the convention at a singular matrix."""
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    y = a.det()
    assert y.item() == 2.0
    (g,) = sg.autograd.grad(y, a)
    assert g.tolist() == [[3.0, -4.0], [-1.0, 2.0]]
    assert sympy_check(a.det(), [a]).ok
    s = sg.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]], requires_grad=True)
    report = sympy_check(s.det(), [s])
    assert report.ok and "the matrix is singular" in str(report)


def _node_names(t) -> list:
    """The names of the graph behind ``t``, breadth first from its grad_fn (None for an edge to
    nothing), each node once."""
    out, seen, todo = [], [], [t.grad_fn]
    while todo:
        f = todo.pop(0)
        if f is None or any(f is s for s in seen):
            continue
        seen.append(f)
        out.append((f.name(), [None if n is None else n.name() for n, _ in f.next_functions]))
        todo.extend(n for n, _ in f.next_functions)
    return out


def _second_order(L, call, mats, dt):
    """(g, the nodes behind it, h): g = d((call(A) * w).sum())/dA under create_graph, h =
    d(sum g^2)/dA, both flat, h None where g does not depend on A."""
    a = L.tensor(mats, dtype=getattr(L, dt)).requires_grad_()
    y = call(L, a)
    w = L.arange(1.0, 1.0 + y.numel(), dtype=getattr(L, dt)).reshape(y.shape) / 4
    (g,) = L.autograd.grad((y * w).sum(), a, create_graph=True)
    h = L.autograd.grad((g * g).sum(), a)[0].flatten().tolist() if g.requires_grad else None
    return g.flatten().tolist(), _node_names(g), h


def _close(p: list, q: list, bound: float) -> None:
    top = max(abs(x) for x in q)
    for x, y in zip(p, q, strict=True):
        assert abs(x - y) <= bound * top, (x, y, bound * top)


DET_CALLS = [("torch.det", lambda L, a: L.det(a)), ("linalg.det", lambda L, a: L.linalg.det(a)),
             ("Tensor.det", lambda L, a: a.det())]


@pytest.mark.parametrize("dt", list(EPS))
@pytest.mark.parametrize("n, batch", [(2, ()), (3, (2,))])
@pytest.mark.parametrize("text, call", DET_CALLS)
def test_det_double_backward_matches_pytorch(torch_ref, text, call, n, batch, dt):
    """Under create_graph det's gradient is FunctionsManual's grad-mode formula, linalg_solve(A^T,
    diag_embed(grad * det)) (LinalgSolveExBackward0 over TransposeBackward0, DiagEmbedBackward0,
    ExpandBackward0, UnsqueezeBackward0, MulBackward0): the nodes exactly PyTorch's; the gradient
    and the second derivative (through linalg.solve's backward) within 32 n eps of the largest
    of live PyTorch's (LAPACK, machine-dependent; measured at most 2.7 n eps on these diagonally
    dominant matrices under ATEN_CPU_CAPABILITY=default/avx2, MKL_CBWR=COMPATIBLE and none);
    test_det_double_backward_sympy proves scalargrad's second derivative."""
    mats = [_matrix(11 * n + b, n, dt, dominant=True) for b in range(2 if batch else 1)]
    mats = mats if batch else mats[0]
    (g0, names0, h0), (g1, names1, h1) = (_second_order(L, call, mats, dt) for L in (sg, torch_ref))
    assert names0 == names1
    _close(g0, g1, 32 * n * EPS[dt])
    _close(h0, h1, 32 * n * EPS[dt])


def test_det_double_backward_of_one_by_one_matrices(torch_ref):
    """det of a 1 x 1 matrix is its element: PyTorch's gradient is the incoming one, unsqueezed
    and expanded (no node over A: no second derivative), exactly, even at 0 (scalargrad used to
    give (grad * a) / a, 0.1 * 3 / 3 = 0.10000000000000002, and 0 at a = 0)."""
    for mats in ([[3.0]], [[[0.0]], [[0.7]]]):
        got = []
        for L in (sg, torch_ref):
            a = L.tensor(mats, dtype=L.float64, requires_grad=True)
            y = L.linalg.det(a)
            v = L.full(y.shape, 0.1, dtype=L.float64, requires_grad=True)
            (g,) = L.autograd.grad(y, a, v, create_graph=True)
            (plain,) = L.autograd.grad(L.linalg.det(a), a, v.detach())
            # sum g^2 does not reach A: the second backward raises (PyTorch's error)
            second = described(lambda M, g=g, a=a: M.autograd.grad((g.detach() * g).sum(), a)[0], L)
            got.append((g.tolist(), g.stride(), _node_names(g), plain.tolist(), plain.stride(), second))
        assert got[0] == got[1]
        assert got[0][3] == ([[0.1]] if mats == [[3.0]] else [[[0.1]], [[0.1]]])
        assert got[0][5][0] == "RuntimeError"


@pytest.mark.parametrize("m", [[[1.0, 2.0], [2.0, 4.0]], [[[2.0, 1.0], [0.5, 3.0]], [[1e-9, 0.0], [0.0, 1e-9]]]])
def test_det_double_backward_near_singular_refused(m):
    """Where |det| < 100 eps PyTorch's grad-mode formula differentiates an SVD (LinalgSvdBackward0,
    CumprodBackward0...): scalargrad refuses it by name, the first backward unchanged."""
    a = sg.tensor(m, dtype=sg.float64, requires_grad=True)
    with pytest.raises(Unsupported, match="double backward of det at a matrix whose .det. is below 100 eps"):
        sg.autograd.grad(sg.det(a).sum(), a, create_graph=True)
    assert sg.autograd.grad(sg.det(a).sum(), a)[0].shape == a.shape


def test_det_double_backward_sympy():
    """SymPy proves the second derivative of create_graph's graph (its nodes' forms: the solve's
    ``Matrix.LUsolve``, det's ``Matrix.det``...) at a 2 x 2 and a 3 x 3 matrix."""
    for m in ([[2.0, 1.0], [0.5, 3.0]], [[2.0, 1.0, 0.25], [0.5, 3.0, 1.0], [0.125, 0.5, 1.5]]):
        a = sg.tensor(m, dtype=sg.float64, requires_grad=True)
        (g,) = sg.autograd.grad(sg.det(a) * 0.75, a, create_graph=True)
        assert sympy_check((g * g).sum(), [a]).ok


@pytest.mark.parametrize("text, call", [
    ("vector", lambda L: L.det(L.zeros(3))),
    ("not square", lambda L: L.linalg.det(L.zeros(2, 3))),
    ("integer", lambda L: L.zeros(2, 2, dtype=L.long).det()),
    ("not a tensor", lambda L: L.linalg.det([[1.0]])),
    ("det not a tensor", lambda L: L.det([[1.0]])),
])
def test_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


# ---------------------------------------------------------------- cross

def _cross_exact(a: list, b: list) -> list:
    fa, fb = [Fraction(x) for x in a], [Fraction(x) for x in b]
    return [fa[1] * fb[2] - fa[2] * fb[1], fa[2] * fb[0] - fa[0] * fb[2], fa[0] * fb[1] - fa[1] * fb[0]]


CROSS_CALLS = [
    ("linalg.cross", (4, 3), (4, 3), lambda L, a, b: L.linalg.cross(a, b)),
    ("linalg.cross dim=0 broadcast", (3, 1), (3, 5), lambda L, a, b: L.linalg.cross(a, b, dim=0)),
    ("Tensor.cross dim=-2", (2, 3, 2), (1, 3, 2), lambda L, a, b: a.cross(b, dim=-2)),
    ("torch.cross dim=1", (2, 3), (2, 3), lambda L, a, b: L.cross(a, b, dim=1)),
]


@pytest.mark.parametrize("dt", list(EPS))
@pytest.mark.parametrize("text, sa, sb, call", CROSS_CALLS)
def test_cross_matches_pytorch(torch_ref, text, sa, sb, call, dt):
    """Shapes, node names and saved dims exactly; the values and gradients (crosses again)
    within the bound of rounded or fused products: eps (|a_j b_k| + |a_k b_j|) of the exact
    value, which scalargrad (products exact in double, rounded once) meets at 0.5 eps."""
    rnd = random.Random(len(text))
    na, nb = 1, 1
    for s in sa:
        na *= s
    for s in sb:
        nb *= s
    av = [rnd.uniform(-3, 3) for _ in range(na)]
    bv = [rnd.uniform(-3, 3) for _ in range(nb)]
    got = []
    for L in (sg, torch_ref):
        a = L.tensor(av, dtype=getattr(L, dt)).reshape(sa).requires_grad_()
        b = L.tensor(bv, dtype=getattr(L, dt)).reshape(sb).requires_grad_()
        y = call(L, a, b)
        ga, gb = L.autograd.grad(y.sum(), [a, b])
        got.append((tuple(y.shape), y.grad_fn.name(), y.grad_fn._saved_dim, str(y.dtype),
                    y.detach().flatten().tolist(), ga.flatten().tolist(), gb.flatten().tolist()))
    assert got[0][:4] == got[1][:4]
    for x, z in zip(got[0][4:], got[1][4:]):  # each within 2 eps (a bound on both) of the other
        for p, q in zip(x, z):
            assert abs(p - q) <= 2 * EPS[dt] * 4 * 18, (p, q)


def test_cross_exact_values():
    """scalargrad's element is the exact a_j b_k - a_k b_j rounded once (checked exactly)."""
    rnd = random.Random(5)
    for _ in range(50):
        a = sg.tensor([rnd.uniform(-3, 3) for _ in range(3)])
        b = sg.tensor([rnd.uniform(-3, 3) for _ in range(3)])
        got = sg.linalg.cross(a, b).tolist()
        exact = _cross_exact(a.tolist(), b.tolist())
        assert got == [sg.tensor(float(e)).item() for e in exact]  # float32 of the exact value


def test_cross_default_dim_warns_once(torch_ref, recwarn):
    """torch.cross without dim: the first dimension of size 3, and PyTorch's deprecation warning
    once per process (TORCH_WARN_ONCE), pointing at the program's line."""
    from scalargrad._base.warn_once import forget

    forget("cross_no_dim")
    a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    b = [[0.5, -1.0], [2.0, 1.0], [1.0, 0.0]]
    y = sg.cross(sg.tensor(a), sg.tensor(b))
    sg.tensor(a).cross(sg.tensor(b))
    texts = [str(w.message) for w in recwarn.list if "torch.cross" in str(w.message)]
    assert len(texts) == 1 and recwarn.list[0].filename == __file__
    assert y.tolist() == torch_ref.cross(torch_ref.tensor(a), torch_ref.tensor(b), dim=0).tolist()
    assert texts[0].startswith("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass")


@pytest.mark.parametrize("text, call", [
    ("no size 3", lambda L: L.cross(L.zeros(2, 4), L.zeros(2, 4))),
    ("length", lambda L: L.linalg.cross(L.zeros(2, 4), L.zeros(2, 4))),
    ("broadcast", lambda L: L.linalg.cross(L.zeros(2, 3), L.zeros(4, 3))),
    ("dtypes", lambda L: L.linalg.cross(L.zeros(2, 3), L.zeros(2, 3, dtype=L.float64))),
    ("ndims", lambda L: L.linalg.cross(L.zeros(2, 3), L.zeros(3))),
])
@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim")
def test_cross_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


# ---------------------------------------------------------------- cholesky

def _spd(seed: int, n: int, batch: tuple = ()) -> list:
    """Well-conditioned symmetric positive-definite matrices: B B^T + n I."""
    rnd = random.Random(seed)
    count = 1
    for s in batch:
        count *= s
    out = []
    for _ in range(count):
        b = [[rnd.uniform(-1, 1) for _ in range(n)] for _ in range(n)]
        out.append([[sum(b[i][t] * b[j][t] for t in range(n)) + (n if i == j else 0) for j in range(n)]
                    for i in range(n)])
    return out


def _mp_cholesky(m: list) -> list:
    import mpmath

    with mpmath.workdps(50):
        lo = mpmath.cholesky(mpmath.matrix(m))
        return [[float(lo[i, j]) for j in range(len(m))] for i in range(len(m))]


CHOLESKY_CALLS = [
    ("linalg.cholesky", lambda L, a: L.linalg.cholesky(a)),
    ("linalg.cholesky upper", lambda L, a: L.linalg.cholesky(a, upper=True)),
    ("Tensor.cholesky", lambda L, a: a.cholesky()),
    ("torch.cholesky upper", lambda L, a: L.cholesky(a, upper=True)),
]


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("dt", list(EPS))
@pytest.mark.parametrize("n, batch", [(1, ()), (2, ()), (3, ()), (3, (2,))])
@pytest.mark.parametrize("text, call", CHOLESKY_CALLS)
def test_cholesky_matches_pytorch(torch_ref, text, call, n, batch, dt):
    """Node names and saved upper exactly; the factor within 4 n eps of its largest element of
    mpmath's (50 digits), for scalargrad and live PyTorch (LAPACK's potrf, machine-dependent);
    the gradients of the two within 32 n eps of the largest (the suite's SymPy check proves
    scalargrad's against the derivative of the factor of (A + A^T) / 2)."""
    mats = _spd(n * 10 + len(batch), n, batch)
    eps = EPS[dt]
    got = []
    for L in (sg, torch_ref):
        a = L.tensor(mats if batch else mats[0], dtype=getattr(L, dt)).requires_grad_()
        y = call(L, a)
        w = L.arange(1.0, 1.0 + y.numel(), dtype=getattr(L, dt)).reshape(y.shape)
        (g,) = L.autograd.grad((y * w).sum(), a)
        got.append((y.grad_fn.name(), y.grad_fn._saved_upper, tuple(y.shape), y.detach().flatten().tolist(),
                    g.flatten().tolist()))
        upper = "upper" in text
        for b, m in enumerate(mats):
            ref = _mp_cholesky(sg.tensor(m, dtype=getattr(sg, dt)).tolist())
            top = max(abs(x) for row in ref for x in row)
            for i in range(n):
                for j in range(n):
                    want = ref[j][i] if upper else ref[i][j]
                    have = got[-1][3][b * n * n + i * n + j]
                    assert abs(have - want) <= 4 * n * eps * top, (L.__name__, i, j, have, want)
    assert got[0][:3] == got[1][:3]
    top = max(abs(x) for x in got[1][4])
    for p, q in zip(got[0][4], got[1][4]):
        assert abs(p - q) <= 32 * n * eps * top, (p, q)


def test_cholesky_reads_the_lower_triangle_and_warns_once(torch_ref, recwarn):
    from scalargrad._base.warn_once import forget

    forget("torch_cholesky")
    m = [[4.0, 100.0], [2.0, 5.0]]  # the upper element is never read
    assert sg.linalg.cholesky(sg.tensor(m)).tolist() == [[2.0, 0.0], [1.0, 2.0]]
    sg.cholesky(sg.tensor(m))
    sg.tensor(m).cholesky()
    texts = [str(w.message) for w in recwarn.list if "torch.cholesky" in str(w.message)]
    assert len(texts) == 1 and recwarn.list[-1].filename == __file__
    assert texts[0].startswith("torch.cholesky is deprecated in favor of torch.linalg.cholesky")


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("text, call", [
    ("not positive-definite", lambda L: L.linalg.cholesky(L.tensor([[1.0, 2.0], [2.0, 1.0]]))),
    ("lower read", lambda L: L.linalg.cholesky(L.tensor([[1.0, 5.0], [-7.0, 4.0]]))),
    ("order 1", lambda L: L.cholesky(L.tensor([[-1.0]]))),
    ("batch", lambda L: L.linalg.cholesky(L.tensor([[[1.0]], [[-1.0]]]))),
    ("nan", lambda L: L.linalg.cholesky(L.tensor([[float("nan")]]))),
    ("not square", lambda L: L.linalg.cholesky(L.zeros(2, 3))),
    ("vector", lambda L: L.linalg.cholesky(L.zeros(3))),
    ("integer", lambda L: L.linalg.cholesky(L.eye(2, dtype=L.long))),
])
def test_cholesky_errors(torch_ref, text, call):
    got = []
    for L in (sg, torch_ref):
        with pytest.raises(RuntimeError) as e:
            call(L)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert got[0] == got[1]
    if "positive" in got[1][1]:
        assert isinstance(e.value, torch_ref.linalg.LinAlgError)


def test_cholesky_linalg_error_class():
    with pytest.raises(sg.linalg.LinAlgError, match="leading minor of order 2"):
        sg.linalg.cholesky(sg.tensor([[1.0, 2.0], [2.0, 1.0]]))
    assert issubclass(sg.linalg.LinAlgError, RuntimeError)


def test_cholesky_double_backward_refused():
    a = sg.tensor([[4.0, 2.0], [2.0, 5.0]], requires_grad=True)
    with pytest.raises(Unsupported, match="double backward of cholesky"):
        sg.autograd.grad(sg.linalg.cholesky(a).sum(), a, create_graph=True)


# ---------------------------------------------------------------- inverse

def _exact_inverse(m: list) -> list:
    n = len(m)
    a = [[Fraction(x) for x in row] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for j in range(n):
        p = next(i for i in range(j, n) if a[i][j] != 0)
        a[p], a[j] = a[j], a[p]
        piv = a[j][j]
        a[j] = [x / piv for x in a[j]]
        for i in range(n):
            if i != j and a[i][j] != 0:
                f = a[i][j]
                a[i] = [x - f * y for x, y in zip(a[i], a[j])]
    return [row[n:] for row in a]


@pytest.mark.parametrize("dt", list(EPS))
@pytest.mark.parametrize("n, batch", [(1, ()), (2, ()), (3, ()), (2, (2,))])  # SymPy proves each: small n
@pytest.mark.parametrize("text, call", [
    ("torch.inverse", lambda L, a: L.inverse(a)),
    ("linalg.inv", lambda L, a: L.linalg.inv(a)),
    ("Tensor.inverse", lambda L, a: a.inverse()),
])
def test_inverse_matches_pytorch(torch_ref, text, call, n, batch, dt):
    """Node name, saved inverse exactly as the result; values within 8 n eps of the largest
    element of the exact rational inverse (diagonally dominant matrices: well conditioned),
    scalargrad's and live PyTorch's (LAPACK, machine-dependent); the gradients, -A^-T grad A^-T
    (products, machine-dependent), of the two within 32 n eps of the largest; the suite's SymPy
    check proves scalargrad's against ``Matrix.inv``."""
    count = 2 if batch else 1
    mats = [_matrix(7 * n + b, n, dt, dominant=True) for b in range(count)]
    eps = EPS[dt]
    got = []
    for L in (sg, torch_ref):
        a = L.tensor(mats if batch else mats[0], dtype=getattr(L, dt)).requires_grad_()
        y = call(L, a)
        saved = y.grad_fn._saved_inverse.tolist() == y.tolist()
        w = L.arange(1.0, 1.0 + y.numel(), dtype=getattr(L, dt)).reshape(y.shape)
        (g,) = L.autograd.grad((y * w).sum(), a)
        got.append((y.grad_fn.name(), tuple(y.shape), saved, y.detach().flatten().tolist(), g.flatten().tolist()))
        for b, m in enumerate(mats):
            ref = _exact_inverse(m)
            top = max(abs(x) for row in ref for x in row)
            for i in range(n):
                for j in range(n):
                    have = got[-1][3][b * n * n + i * n + j]
                    assert abs(Fraction(have) - ref[i][j]) <= top * Fraction(8 * n * eps), (L.__name__, have)
    assert got[0][:3] == got[1][:3]
    top = max(abs(x) for x in got[1][4])
    for p, q in zip(got[0][4], got[1][4]):
        assert abs(p - q) <= 32 * n * eps * top, (p, q)


@pytest.mark.parametrize("text, call", [
    ("singular", lambda L: L.inverse(L.tensor([[1.0, 2.0], [2.0, 4.0]]))),
    ("batch singular", lambda L: L.linalg.inv(L.tensor([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]))),
    ("not square", lambda L: L.linalg.inv(L.zeros(2, 3))),
    ("vector", lambda L: L.inverse(L.zeros(3))),
    ("integer", lambda L: L.eye(2, dtype=L.long).inverse()),
    ("not a tensor", lambda L: L.inverse([[1.0]])),
    ("linalg not a tensor", lambda L: L.linalg.inv([[1.0]])),
])
def test_inverse_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


def test_inverse_hand_figures():
    """[[2, 1], [4, 3]]^-1 = [[1.5, -0.5], [-2, 1]] (det 2), exact in float32."""
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    assert sg.inverse(a).tolist() == [[1.5, -0.5], [-2.0, 1.0]]
    assert repr(sg.inverse(sg.zeros(0, 0))) == "tensor([], size=(0, 0))"


_INV_CALLS = {"torch.inverse": lambda L, a: L.inverse(a), "linalg.inv": lambda L, a: L.linalg.inv(a),
              "Tensor.inverse": lambda L, a: a.inverse()}
# each spelling at a 2 x 2 matrix; torch.inverse also at 1 x 1, a batch, and 3 x 3 (the suite's SymPy
# check of the second derivative takes seconds there: float64 alone)
_INV_DOUBLE = [(text, 2, (), dt) for text in _INV_CALLS for dt in EPS] + [
    ("torch.inverse", n, batch, dt) for n, batch in ((1, ()), (2, (2,))) for dt in EPS] + [
    ("torch.inverse", 3, (), "float64")]


@pytest.mark.parametrize("text, n, batch, dt", _INV_DOUBLE)
def test_inverse_double_backward_matches_pytorch(torch_ref, text, n, batch, dt):
    """Under create_graph inverse's gradient is derivatives.yaml's -inverse^H @ (grad @
    inverse^H) as tensor ops (NegBackward0, MmBackward0 or BmmBackward0 and their views,
    TransposeBackward0): the nodes exactly PyTorch's; the gradient and the second derivative
    within 32 n eps of the largest of live PyTorch's (LAPACK and products, machine-dependent;
    measured at most 2.8 n eps on these diagonally dominant matrices under
    ATEN_CPU_CAPABILITY=default/avx2, MKL_CBWR=COMPATIBLE and none); test_inverse_double_backward_sympy
    proves scalargrad's second derivative."""
    mats = [_matrix(13 * n + b, n, dt, dominant=True) for b in range(2 if batch else 1)]
    mats = mats if batch else mats[0]
    call = _INV_CALLS[text]
    (g0, names0, h0), (g1, names1, h1) = (_second_order(L, call, mats, dt) for L in (sg, torch_ref))
    assert names0 == names1
    _close(g0, g1, 32 * n * EPS[dt])
    _close(h0, h1, 32 * n * EPS[dt])


def test_inverse_backward_rounds_as_pytorch_products(torch_ref):
    """inverse's first-order backward is derivatives.yaml's two products, each rounded to float32
    (PyTorch's mm), not one product in double rounded once: the double backward reaches the
    node's first-order backward again (fuzzer newer:9719:36, newer:10061:269, one ulp apart).
    Diagonal matrices keep every dot product a single multiplication (its other terms +-0), so
    the bits are machine-independent and compared exactly (signs of zero aside)."""
    got = []
    for L in (sg, torch_ref):
        a = L.tensor([[3.0, 0.0], [0.0, 7.0]], requires_grad=True)
        w = L.tensor([[0.1, 0.0], [0.0, 2.9]])
        y = L.linalg.inv(a)
        (g1,) = L.autograd.grad((y * w).sum(), a, retain_graph=True)
        (g,) = L.autograd.grad((y * w).sum(), a, create_graph=True)
        (g * g).sum().backward()
        got.append((g1.tolist(), g.tolist(), a.grad.tolist()))
    assert got[0] == got[1]


_INV_EX_CASES = {
    "singular": lambda L: L.linalg.inv_ex(L.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "zero": lambda L: L.linalg.inv_ex(L.zeros(2, 2)),
    "singular 3x3": lambda L: L.linalg.inv_ex(L.tensor([[2.0, 1.0, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])),
    "batch": lambda L: L.linalg.inv_ex(L.tensor([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 4.0]]],
                                               dtype=L.float64)),
    "grad": lambda L: L.linalg.inv_ex(L.tensor([[2.0, 1.0], [0.0, 4.0]], requires_grad=True)),
    "checked": lambda L: L.linalg.inv_ex(L.tensor([[2.0, 1.0], [0.0, 4.0]]), check_errors=True),
    "checked singular": lambda L: L.linalg.inv_ex(L.tensor([[[2.0, 0.0], [0.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]]]),
                                                  check_errors=True),
    "not square": lambda L: L.linalg.inv_ex(L.zeros(2, 3)),
    "not a tensor": lambda L: L.linalg.inv_ex([[1.0]]),
    "empty": lambda L: L.linalg.inv_ex(L.zeros(0, 0)),
}


@pytest.mark.parametrize("text", list(_INV_EX_CASES))
def test_inv_ex_matches_pytorch(torch_ref, text):
    """``linalg.inv_ex``: (inverse, info) as PyTorch prints them, the inverse linalg.inv's node;
    a singular matrix's inverse getrs's solve through the zero pivot (infs and nans: exact
    operands, the same bits on every processor); PyTorch's errors with check_errors."""
    got = []
    for L in (sg, torch_ref):
        try:
            got.append(repr(_INV_EX_CASES[text](L)))
        except Exception as e:
            got.append(f"{type(e).__name__}: {e}")
    assert got[0] == got[1]


def test_inverse_double_backward_sympy():
    """SymPy proves the second derivative of create_graph's graph (``Matrix.inv``'s form, the
    products', the negation's) at a 2 x 2 matrix, without live PyTorch too."""
    for m in ([[2.0, 1.0], [4.0, 3.0]],):
        a = sg.tensor(m, dtype=sg.float64, requires_grad=True)
        y = sg.inverse(a)
        (g,) = sg.autograd.grad((y * sg.arange(1.0, 1.0 + y.numel(), dtype=sg.float64).reshape(y.shape)).sum(), a,
                                create_graph=True)
        assert sympy_check((g * g).sum(), [a]).ok


# ---------------------------------------------------------------- slogdet, logdet

def _exact_log_abs_det(m: list) -> tuple:
    """(sign, log|det|) of the float matrix ``m``: the exact rational determinant, its log by
    mpmath at 40 digits."""
    import mpmath

    d = exact_det(m)
    with mpmath.workdps(40):
        return (d > 0) - (d < 0), float(mpmath.log(abs(mpmath.mpf(d.numerator) / d.denominator)))


SLOGDET_CALLS = [
    ("linalg.slogdet", lambda L, a: L.linalg.slogdet(a)),
    ("torch.slogdet", lambda L, a: L.slogdet(a)),
    ("Tensor.slogdet", lambda L, a: a.slogdet()),
]


@pytest.mark.parametrize("dt", list(EPS))
@pytest.mark.parametrize("text, call", SLOGDET_CALLS)
def test_slogdet_matches_pytorch(torch_ref, text, call, dt):
    """One batch of matrices of sizes 1 to 4 (both signs of det) per call: sign exactly; log|det|
    within 4 n eps (1 + H / |det|) of mpmath's log of the exact determinant (H = prod_i sum_j
    |a_ij|, det's bound; PyTorch's float32 logs and sum are machine-dependent), scalargrad's and
    live PyTorch's; the gradient g A^-T = g cofactors / det of both within 8 n eps of the largest
    exact element (diagonally dominant matrices); the node, its saved values, the return type."""
    eps = EPS[dt]
    for n in (1, 2, 3, 4):
        mats = [_matrix(40 + 3 * n + b, n, dt, dominant=b == 0) for b in range(2)]
        mats[1][0] = [-x for x in mats[1][0]]  # a row negated: det's sign flips (either sign, by the draw)
        exact = [_exact_log_abs_det(m) for m in mats]
        grads = [[[_cofactor(m, i, j) * 2 / exact_det(m) for j in range(n)] for i in range(n)] for m in mats]
        for L in (sg, torch_ref):
            a = L.tensor(mats, dtype=getattr(L, dt), requires_grad=True)
            res = call(L, a)
            sign, la = res
            assert type(res).__name__ == ("linalg_slogdet" if text == "linalg.slogdet" else "slogdet")
            assert res.sign is sign and res.logabsdet is la
            fn = la.grad_fn
            assert (fn.name(), sign.grad_fn is fn, sign.output_nr, la.output_nr) == ("LinalgSlogdetBackward0", True,
                                                                                    0, 1)
            assert fn._saved_sign.tolist() == sign.tolist() and tuple(fn._saved_LU.shape) == (2, n, n)
            assert str(fn._saved_pivots.dtype).endswith("int32") and fn._saved_A is not None
            (g,) = L.autograd.grad(la.sum() * 2, a)
            for b, m in enumerate(mats):
                h = 1.0
                for row in m:
                    h *= sum(abs(x) for x in row)
                want_sign, want_log = exact[b]
                assert sign[b].item() == want_sign, L.__name__
                bound = 4 * n * eps * (1 + h / abs(float(exact_det(m))))
                assert abs(la[b].item() - want_log) <= bound, (L.__name__, n, la[b].item(), want_log)
                top = max(abs(x) for row in grads[b] for x in row)
                for i in range(n):
                    for j in range(n):
                        err = abs(Fraction(g[b, i, j].item()) - grads[b][i][j])
                        assert err <= top * Fraction(8 * n * eps), (L.__name__, n, b, i, j)


def test_slogdet_and_logdet_exact_figures(torch_ref):
    """What is the same on every machine, compared with PyTorch as printed: a singular matrix
    (sign -0. after one row swap, log|det| -inf), the empty matrix, logdet's nan for a negative
    determinant and its WhereBackward0 over slogdet's second output, a gradient of sign alone
    (none reaches A), and the node of a batch."""
    got = []
    for L in (sg, torch_ref):
        out = [repr(L.linalg.slogdet(L.tensor([[1.0, 2.0], [2.0, 4.0]]))), repr(L.slogdet(L.zeros(0, 0))),
               repr(L.logdet(L.tensor([[2.0, 1.0], [4.0, -3.0]]))), repr(L.logdet(L.eye(3, dtype=L.float64))),
               repr(L.logdet(L.zeros(2, 2)))]
        a = L.tensor([[2.0, 1.0], [4.0, -3.0]], requires_grad=True)
        y = L.logdet(a)
        nf = y.grad_fn.next_functions
        out.append((repr(y), y.grad_fn.name(), nf[0], nf[1][0].name(), nf[1][1]))
        s, _ = L.slogdet(a)
        s.sum().backward()
        out.append(a.grad)
        b = L.tensor([[[3.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)
        s, la = L.linalg.slogdet(b)
        out.append((repr(s), la.grad_fn._saved_pivots.tolist(), la.grad_fn._saved_LU.tolist(),
                    la.grad_fn.next_functions[0][0].name()))
        got.append(out)
    assert got[0] == got[1]


def test_slogdet_sympy_proof_of_two_by_two():
    """The hand derivation: d log|det| / dA = A^-T = cofactors / det: for [[2, 1], [4, -3]] (det
    -10), [[-3, -4], [-1, 2]] / -10; SymPy proves it from ``log(Abs(Matrix.det()))``, and
    logdet's through the where."""
    a = sg.tensor([[2.0, 1.0], [4.0, -3.0]], dtype=sg.float64, requires_grad=True)
    s, la = sg.linalg.slogdet(a)
    assert s.item() == -1.0
    (g,) = sg.autograd.grad(la, a)
    assert g.tolist() == [[0.3, 0.4], [0.1, -0.2]]
    s, la = sg.slogdet(a)
    assert sympy_check(la * 3 + s, [a]).ok
    b = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    assert sympy_check(sg.logdet(b), [b]).ok


def test_slogdet_double_backward_refused():
    a = sg.tensor([[2.0, 1.0], [4.0, 3.0]], requires_grad=True)
    with pytest.raises(Unsupported, match="double backward of slogdet"):
        sg.autograd.grad(sg.logdet(a), a, create_graph=True)


@pytest.mark.parametrize("text, call", [
    ("vector", lambda L: L.linalg.slogdet(L.zeros(3))),
    ("not square", lambda L: L.linalg.slogdet(L.zeros(2, 3))),
    ("integer", lambda L: L.slogdet(L.zeros(2, 2, dtype=L.long))),
    ("logdet not square", lambda L: L.logdet(L.zeros(2, 3))),
    ("logdet integer", lambda L: L.zeros(2, 2, dtype=L.long).logdet()),
    ("not a tensor", lambda L: L.linalg.slogdet([[1.0]])),
    ("slogdet not a tensor", lambda L: L.slogdet([[1.0]])),
    ("logdet not a tensor", lambda L: L.logdet([[1.0]])),
])
def test_slogdet_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


@pytest.mark.parametrize("call", [lambda: sg.svd(sg.eye(2)), lambda: sg.eye(2).svd(), lambda: sg.linalg.svd(sg.eye(2))])
def test_svd_refused_with_its_reason(call):
    """svd's singular vectors carry LAPACK's signs, which scalargrad cannot reproduce: refused,
    naming that reason, rather than returning U and V that may silently differ."""
    with pytest.raises(Unsupported, match="signs of the singular vectors"):
        call()


_LAPACK_CALLS = {"inverse": lambda L, a: L.linalg.inv(a), "cholesky": lambda L, a: L.linalg.cholesky(a),
                 "cholesky upper": lambda L, a: L.cholesky(a, upper=True), "det": lambda L, a: L.det(a),
                 "slogdet": lambda L, a: L.linalg.slogdet(a).logabsdet, "logdet": lambda L, a: a.logdet()}


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3, 3), (2, 1, 1), (1, 2, 2), (2, 1, 2, 2), (0, 2, 2),
                                   (2, 0, 0)])
@pytest.mark.parametrize("name", list(_LAPACK_CALLS))
def test_lapack_layouts(torch_ref, shape, name):
    """Results and gradients LAPACK writes are column-major matrices in row-major batches, as
    PyTorch's (``inv(a).stride()`` is (1, n), cholesky's and det's gradients too; inverse's
    gradient, two matrix products, is row-major): layout decides a later sum's order and
    ``.view``'s success. Exact data (4 I: dyadic factors and gradients), the same on every
    processor; an empty batch of empty matrices has a determinant of 1 each (scalargrad used to
    count one matrix there)."""
    seen = []
    for L in (sg, torch_ref):
        a = (L.eye(shape[-1]) * 4).expand(*shape).clone().requires_grad_()
        r = _LAPACK_CALLS[name](L, a)
        w = L.arange(1, r.numel() + 1, dtype=r.dtype).reshape(r.shape)
        g = L.autograd.grad((r * w).sum(), a)[0] if r.numel() else None
        # (an empty gradient's strides follow ATen's allocations, not a rule: left out)
        seen.append((tuple(r.shape), r.stride(), r.tolist(), None if g is None else
                     (g.stride() if g.numel() else None, g.tolist())))
    assert seen[0] == seen[1]


def _empty_cholesky(L, shape, upper):
    a = L.zeros(shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.cholesky's deprecation
        r = L.cholesky(a, upper=upper)
    return r, L.autograd.grad(r.sum(), a)[0]


@pytest.mark.parametrize("shape", [(0, 2, 2), (2, 0, 0), (0, 2, 3), (3, 0), (0,)])
@pytest.mark.parametrize("upper", [False, True])
def test_deprecated_cholesky_of_empty_tensors(torch_ref, shape, upper):
    """``torch.cholesky`` returns ``empty_like(input)`` (row-major) for an empty input before any
    check, a non-matrix included; the backward then fails in ATen's words where the shape is not
    a batch of square matrices."""
    assert described(lambda L: _empty_cholesky(L, shape, upper), sg) == \
        described(lambda L: _empty_cholesky(L, shape, upper), torch_ref)
    assert repr(sg.cholesky(sg.zeros(0, 2, 2, dtype=sg.long))) == repr(torch_ref.cholesky(
        torch_ref.zeros(0, 2, 2, dtype=torch_ref.long)))


_SPD = [[4.0, 2.0], [2.0, 5.0]]  # L = [[2, 0], [1, 2]]: exact on every processor
_CHOLESKY_EX = [
    lambda L: L.linalg.cholesky_ex(L.tensor(_SPD, requires_grad=True)),
    lambda L: L.linalg.cholesky_ex(L.tensor(_SPD, requires_grad=True), upper=True),
    lambda L: L.linalg.cholesky_ex(L.tensor(_SPD, dtype=L.float64).expand(2, 2, 2)),
    lambda L: L.linalg.cholesky_ex(L.tensor([[4.0, 2.0], [2.0, 1.0]]), check_errors=True),
    lambda L: L.linalg.cholesky_ex(L.tensor([_SPD, [[1.0, 2.0], [2.0, 1.0]]]), check_errors=True),
    lambda L: L.linalg.cholesky_ex(L.zeros(3, 1)),
    lambda L: L.linalg.cholesky_ex(L.zeros(2, 2, dtype=L.long)),
    lambda L: L.linalg.cholesky_ex([[1.0]]),
    lambda L: L.linalg.cholesky_ex(L.zeros(0, 2, 2)),
    lambda L: L.linalg.cholesky_ex(L.zeros(2, 0, 0)),
    lambda L: L.autograd.grad((L.linalg.cholesky_ex(_a := L.tensor(_SPD, requires_grad=True)).L
                               * L.tensor([[1.0, 2.0], [3.0, 4.0]])).sum(), _a),
]


@pytest.mark.parametrize("call", _CHOLESKY_EX)
def test_cholesky_ex(torch_ref, call):
    """linalg.cholesky_ex: (L, info) as PyTorch's return type, L linalg.cholesky's node and
    layout, info int32 zeros; check_errors raises LinAlgError in cholesky_ex's words."""
    assert described(call, sg) == described(call, torch_ref)


def test_cholesky_ex_partial_factor_refused():
    """Without check_errors PyTorch returns LAPACK's partial factor of a matrix that is not
    positive-definite (its order of updates): refused by name, not guessed."""
    with pytest.raises(Unsupported, match="cholesky_ex of a matrix that is not positive-definite"):
        sg.linalg.cholesky_ex(sg.tensor([[1.0, 2.0], [2.0, 1.0]]))
