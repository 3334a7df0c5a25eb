"""Linear algebra: the determinant (``linalg.det``, ``det``) of a square matrix or a batch, and
the cross product of 3-vectors (``linalg.cross``, ``cross``), and (sign, log|det|) (``slogdet``,
``linalg.slogdet``, ``logdet``) from the same LU.

PyTorch computes it from LAPACK's LU factorisation with partial pivoting (``getrf``: at each
column the first row holding the largest magnitude becomes the pivot, rows swapped, L unit
lower), of A^T (what it saves for the backward): det = (-1)^(row swaps) * the product of U's
diagonal. LAPACK's blocked kernels (MKL,
OpenBLAS) add in their own order, so PyTorch's last bits are machine-dependent; scalargrad runs
the unblocked algorithm in double and rounds once. The derivative is ``linalg_det_backward``:
``A.grad = (grad * det) * A^-T``, the inverse taken through the LU (``lu_solve`` with
``adjoint``). At an exactly singular matrix det is 0, so PyTorch's gradient is 0 there, where
calculus gives the adjugate (nonzero for rank n - 1): the proof reports it as PyTorch's
convention. An element of the result is the determinant of its matrix's n*n elements: its SymPy
form is ``Matrix(n, n, args).det()``.
"""

from __future__ import annotations

from math import isqrt, log

from .._base.ieee import div
from .table import Api, Op, register

__all__ = ["LinalgDet", "LinalgCross", "LINALG", "CrossDim", "lu_factor", "transposed", "det_of", "inverse_transpose",
           "DetFactors", "LinalgCholeskyEx", "Cholesky", "CholeskyInfo", "cholesky_lower",
           "cholesky_grad", "LinalgInvEx", "inverse_of", "inverse_grad", "LinalgSlogdet", "slogdet_of",
           "permutation", "transposed_rect", "lu_solve_of", "LinalgLuFactorEx", "lu_factor_grad", "LinalgLuSolve",
           "lu_solve_grads", "LuFactors", "LinalgSolveEx"]


class DetFactors:
    """What a det node keeps: its LU factors and LAPACK's 1-based pivots, as tensors
    (PyTorch's ``_saved_LU``, ``_saved_pivots``), and its matrix size."""

    __slots__ = ("result1", "result2", "n")

    def __init__(self, lu, pivots, n: int) -> None:
        self.result1 = lu
        self.result2 = pivots
        self.n = n


def lu_factor(a: list, n: int, m: int | None = None) -> tuple:
    """getrf's unblocked algorithm on a row-major m x n matrix (m = n by default) of floats, in
    double: (LU row-major, 1-based pivots, number of row swaps). At column j the pivot is the
    first row holding the largest magnitude (idamax); a zero pivot column is left as it is."""
    m = n if m is None else m
    rows = [list(a[i * n:(i + 1) * n]) for i in range(m)]
    piv, swaps = [], 0
    for j in range(min(m, n)):
        p = j
        for i in range(j + 1, m):
            if abs(rows[i][j]) > abs(rows[p][j]):
                p = i
        piv.append(p + 1)
        if p != j:
            rows[p], rows[j] = rows[j], rows[p]
            swaps += 1
        d = rows[j][j]
        if d != 0.0:
            inv = 1.0 / d  # getf2 scales the column by the pivot's reciprocal
            for i in range(j + 1, m):
                f = rows[i][j] * inv
                rows[i][j] = f
                if f != 0.0:
                    row, top = rows[i], rows[j]
                    for c in range(j + 1, n):
                        row[c] -= f * top[c]
    return [x for row in rows for x in row], piv, swaps


def transposed_rect(a: list, m: int, n: int) -> list:
    """A row-major m x n matrix's transpose (n x m), row-major."""
    return [a[c * n + r] for r in range(n) for c in range(m)]


def transposed(a: list, n: int) -> list:
    """A row-major n x n matrix's transpose, row-major."""
    return [a[c * n + r] for r in range(n) for c in range(n)]


def det_of(a: list, n: int) -> float:
    """The determinant of a row-major n x n matrix as PyTorch's ``linalg_det`` takes it: the
    signed product of the diagonal of the LU of A^T (the factorisation it saves, ``_saved_LU``)."""
    lu, _, swaps = lu_factor(transposed(a, n), n)
    d = -1.0 if swaps % 2 else 1.0
    for i in range(n):
        d *= lu[i * (n + 1)]
    return d


def inverse_transpose(a: list, n: int, scale: float) -> list:
    """``scale * A^-T`` row-major: A^T X = scale I solved through the LU of A^T as LAPACK's
    getrs does (the row interchanges, L forward, U back), skipping zero right-hand sides as
    BLAS's trsm does: with scale 0 it is 0 even where A is singular, PyTorch's det gradient at
    a singular matrix."""
    lu, piv, _ = lu_factor(transposed(a, n), n)
    cols = []
    for k in range(n):
        y = [scale if i == k else 0.0 for i in range(n)]
        for i in range(n):  # the interchanges, first to last
            p = piv[i] - 1
            y[i], y[p] = y[p], y[i]
        for j in range(n):  # L y' = y, unit lower triangular
            if y[j] != 0.0:
                for i in range(j + 1, n):
                    y[i] -= lu[i * n + j] * y[j]
        for j in range(n - 1, -1, -1):  # U x = y'
            if y[j] != 0.0:
                y[j] = div(y[j], lu[j * (n + 1)])
                for i in range(j):
                    y[i] -= lu[i * n + j] * y[j]
        cols.append(y)
    return [cols[c][r] for r in range(n) for c in range(n)]


@register
class LinalgDet(Op):
    """det of each n x n matrix (LinalgDetBackward0); inputs (A,)."""

    name = "LinalgDetBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("A", 0), ("LU", "c.result1"), ("pivots", "c.result2"), ("result", "result"))
    api = Api(method="det", function="det")

    @staticmethod
    def backward(k, g, v):
        # linalg_det_backward: lu_solve(LU, pivots, (grad * det) I, adjoint=True)
        return (k.linalg_det_backward(g, k.ins(v)[0], k.out(v), v._c),)

    @staticmethod
    def forward(r, *args):
        return det_of(list(args), isqrt(len(args)))

    @staticmethod
    def sympy(sp, *args):
        n = isqrt(len(args))
        return sp.Matrix(n, n, list(args)).det(method="berkowitz") if n else sp.Integer(1)



class CrossDim:
    """What a cross node keeps: the dimension (``dim``, in [0, ndim)) and as given (``raw``,
    which PyTorch saves)."""

    __slots__ = ("dim", "raw")

    def __init__(self, dim: int, given: int) -> None:
        self.dim = dim
        self.raw = {"dim": given}


@register
class LinalgCross(Op):
    """cross(self, other, dim) (LinalgCrossBackward0): (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)
    along ``dim``, each element from its two products exact in double, rounded once (ATen's
    kernel rounds the products or fuses one by processor: the tests bound it). Its derivative
    is derivatives.yaml's, crosses again: self: cross(other, grad); other: cross(grad, self)."""

    name = "LinalgCrossBackward0"
    saved = (("dim", "c.dim"), ("other", 1, (0,)), ("self", 0, (1,)))
    api = Api(method="cross", function="cross")

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        return k.linalg_cross_grad(b, g, v._c.dim), k.linalg_cross_grad(g, a, v._c.dim)

    @staticmethod
    def forward(r, p, q, s, t):
        """One element, p q - s t, from the elements (a_i, b_j, a_j, b_i)."""
        return p * q - s * t

    @staticmethod
    def sympy(sp, p, q, s, t):
        return p * q - s * t


def cholesky_lower(a: list, n: int):
    """potrf's factor of the lower triangle of a row-major n x n matrix, in double: (L
    row-major, 0), or (None, k) when the leading minor of order k is not positive-definite."""
    lo = [0.0] * (n * n)
    for j in range(n):
        d = a[j * n + j] - sum(lo[j * n + t] ** 2 for t in range(j))
        if not d > 0.0:  # also nan
            return None, j + 1
        ljj = d ** 0.5
        lo[j * n + j] = ljj
        for i in range(j + 1, n):
            lo[i * n + j] = (a[i * n + j] - sum(lo[i * n + t] * lo[j * n + t] for t in range(j))) / ljj
    return lo, 0


def cholesky_grad(lo: list, gl: list, n: int) -> list:
    """FunctionsManual's ``cholesky_backward`` for the lower factor L and its gradient: with
    phi = tril(L^T gL), its diagonal halved, gA = L^-T phi L^-1, returned symmetrised,
    (gA + gA^T) / 2, row-major, in double."""
    inv = [0.0] * (n * n)  # L^-1, lower triangular, by forward substitution
    for c in range(n):
        for i in range(c, n):
            s = (1.0 if i == c else 0.0) - sum(lo[i * n + t] * inv[t * n + c] for t in range(c, i))
            inv[i * n + c] = div(s, lo[i * n + i])
    phi = [0.0] * (n * n)
    for i in range(n):
        for j in range(i + 1):
            v = sum(lo[t * n + i] * gl[t * n + j] for t in range(n))
            phi[i * n + j] = v * 0.5 if i == j else v
    left = [sum(inv[t * n + i] * phi[t * n + j] for t in range(n)) for i in range(n) for j in range(n)]
    ga = [sum(left[i * n + t] * inv[t * n + j] for t in range(n)) for i in range(n) for j in range(n)]
    return [(ga[i * n + j] + ga[j * n + i]) * 0.5 for i in range(n) for j in range(n)]


class CholeskyInfo:
    """What a cholesky node keeps: ``upper`` and the matrix size."""

    __slots__ = ("upper", "n")

    def __init__(self, upper: bool, n: int) -> None:
        self.upper = upper
        self.n = n


@register
class LinalgCholeskyEx(Op):
    """linalg.cholesky(A, upper) (LinalgCholeskyExBackward0): the factor of A's lower triangle
    (upper: its transpose). Derivative: ``cholesky_backward(grad, upper, L)``, symmetrised, so
    A_ij and A_ji share it. An element's SymPy form is the factor of (A + A^T) / 2, whose
    partials are that symmetrised gradient."""

    name = "LinalgCholeskyExBackward0"
    saves, saves_output = True, True
    saved = (("L", "result"), ("upper", "c.upper"))
    api = Api(method="cholesky", function="cholesky")
    backward = staticmethod(lambda k, g, v: (k.cholesky_backward(g, k.out(v), v._c),))

    @staticmethod
    def forward(r, *args):
        """The factor's first element, sqrt(A_00) (the form's default element)."""
        return args[0] ** 0.5

    @staticmethod
    def sympy(sp, *args, at=(0, 0), upper=False):
        n = isqrt(len(args))
        a = sp.Matrix(n, n, list(args))
        lo = ((a + a.T) / 2).cholesky(hermitian=False)
        i, j = at
        return lo[j, i] if upper else lo[i, j]


@register
class Cholesky(LinalgCholeskyEx):
    name = "CholeskyBackward0"
    saved = (("result", "result"), ("upper", "c.upper"))


def inverse_of(a: list, n: int) -> tuple:
    """(A^-1 row-major, 0) through the LU of A, in double, or (None, k) when U's diagonal element
    k (1-based) is exactly zero: getrf's info, which PyTorch reports as singular."""
    lu, _, _ = lu_factor(a, n)
    for k in range(n):
        if lu[k * (n + 1)] == 0.0:
            return None, k + 1
    return inverse_transpose(transposed(a, n), n, 1.0), 0


def inverse_grad(inv: list, g: list, n: int) -> list:
    """derivatives.yaml's linalg_inv_ex: -A^-T grad A^-T, row-major, in double."""
    left = [sum(inv[t * n + i] * g[t * n + j] for t in range(n)) for i in range(n) for j in range(n)]
    return [-sum(left[i * n + t] * inv[j * n + t] for t in range(n)) for i in range(n) for j in range(n)]


@register
class LinalgInvEx(Op):
    """linalg.inv(A), inverse(A) (LinalgInvExBackward0): A^-1 per matrix, through A's LU.
    Derivative: -inverse^T @ grad @ inverse^T. An element's SymPy form is ``Matrix.inv()``'s."""

    name = "LinalgInvExBackward0"
    saves, saves_output = True, True
    saved = (("inverse", "result"),)
    api = Api(method="inverse", function="inverse")
    backward = staticmethod(lambda k, g, v: (k.linalg_inv_backward(g, k.out(v), v._c),))

    @staticmethod
    def forward(r, *args):
        """The inverse's first element (the form's default element)."""
        inv, _ = inverse_of(list(args), isqrt(len(args)))
        return inv[0] if inv is not None else float("nan")

    @staticmethod
    def sympy(sp, *args, at=(0, 0)):
        n = isqrt(len(args))
        return sp.Matrix(n, n, list(args)).inv(method="LU")[at[0], at[1]]


def slogdet_of(a: list, n: int) -> tuple:
    """(sign, log|det|) of a row-major n x n matrix as ``linalg_slogdet`` takes them from the LU of
    A^T (what it saves): sign = (-1)^(row swaps) * prod sgn(u_ii) (-0.0 at a singular matrix with
    an odd number of swaps, as PyTorch's), log|det| = sum log|u_ii| in double (-inf at a zero
    pivot); with the LU factors and pivots."""
    lu, piv, swaps = lu_factor(transposed(a, n), n)
    sign = -1.0 if swaps % 2 else 1.0
    s, logs = 1.0, 0.0
    for i in range(n):
        u = lu[i * (n + 1)]
        s *= 1.0 if u > 0 else (-1.0 if u < 0 else (u if u != u else 0.0))
        logs += log(abs(u)) if u != 0.0 else float("-inf")
    return sign * s, logs, lu, piv


@register
class LinalgSlogdet(Op):
    """linalg.slogdet(A) (LinalgSlogdetBackward0): one node with two outputs, (sign, log|det|),
    neither a view. Derivative (``slogdet_backward``, real A): only log|det|'s gradient reaches A,
    ``grad_logabsdet * A^-T`` through the LU (``lu_solve`` with ``adjoint``); sign's is
    ignored, and a gradient of sign alone gives A none. log|det|'s SymPy form is
    ``log(Abs(Matrix.det()))``, sign's ``sign(Matrix.det())`` (derivative 0 off the singular set)."""

    name = "LinalgSlogdetBackward0"
    saves, saves_inputs = True, True
    saved = (("A", 0), ("LU", "c.result1"), ("pivots", "c.result2"), ("sign", "c.sign"))
    api = Api(method="slogdet", function="slogdet")

    @staticmethod
    def backward(k, g, v):
        return (k.slogdet_backward(g, k.ins(v)[0], v._c),)

    @staticmethod
    def forward(r, *args):
        """log|det| (the form's default element)."""
        return slogdet_of(list(args), isqrt(len(args)))[1]

    @staticmethod
    def sympy(sp, *args, sign=False):
        n = isqrt(len(args))
        d = sp.Matrix(n, n, list(args)).det(method="berkowitz") if n else sp.Integer(1)
        return sp.sign(d) if sign else sp.log(sp.Abs(d))


def permutation(piv: list, m: int) -> list:
    """The rows of A that LU's rows come from (P^T A = L U, P[perm[i], i] = 1): LAPACK's 1-based
    interchanges applied in order to 0..m-1."""
    perm = list(range(m))
    for i, p in enumerate(piv):
        perm[i], perm[p - 1] = perm[p - 1], perm[i]
    return perm


def _tri_solve(lu: list, n: int, y: list, unit_lower: bool, transpose: bool) -> None:
    """Solve, in place, L y' = y (unit lower, L's part of ``lu``) or U y' = y (upper), or their
    transposes, as getrs's trsm does (skipping zero right-hand sides)."""
    if unit_lower != transpose:  # L y = y or U^T y = y: forward
        for j in range(n):
            if not unit_lower:
                y[j] = div(y[j], lu[j * (n + 1)])
            if y[j] != 0.0:
                for i in range(j + 1, n):
                    y[i] -= (lu[j * n + i] if transpose else lu[i * n + j]) * y[j]
    else:  # U y = y or L^T y = y: backward
        for j in range(n - 1, -1, -1):
            if not unit_lower:
                y[j] = div(y[j], lu[j * (n + 1)])
            if y[j] != 0.0:
                for i in range(j):
                    y[i] -= (lu[j * n + i] if transpose else lu[i * n + j]) * y[j]


def lu_solve_of(lu: list, piv: list, b: list, n: int, k: int, adjoint: bool = False) -> list:
    """X with A X = B (A^T X = B when ``adjoint``), A = P L U from getrf's ``lu`` and pivots, B
    row-major n x k: getrs in double, column by column."""
    cols = []
    for c in range(k):
        y = [b[i * k + c] for i in range(n)]
        if not adjoint:
            for i, p in enumerate(piv):  # the interchanges, first to last
                y[i], y[p - 1] = y[p - 1], y[i]
            _tri_solve(lu, n, y, True, False)
            _tri_solve(lu, n, y, False, False)
        else:
            _tri_solve(lu, n, y, False, True)
            _tri_solve(lu, n, y, True, True)
            for i in range(len(piv) - 1, -1, -1):  # the interchanges, last to first
                p = piv[i] - 1
                y[i], y[p] = y[p], y[i]
        cols.append(y)
    return [cols[c][r] for r in range(n) for c in range(k)]


def _mat(a: list, b: list, n: int, ta: bool = False, tb: bool = False) -> list:
    """op(a) @ op(b) of row-major n x n matrices, in double."""
    return [sum((a[t * n + i] if ta else a[i * n + t]) * (b[j * n + t] if tb else b[t * n + j]) for t in range(n))
            for i in range(n) for j in range(n)]


def _solve_columns(lu: list, n: int, g: list, unit_lower: bool, transpose: bool) -> list:
    """T^-1 G (T L or U, or its transpose) of a row-major n x n G, column by column."""
    cols = []
    for c in range(n):
        y = [g[i * n + c] for i in range(n)]
        _tri_solve(lu, n, y, unit_lower, transpose)
        cols.append(y)
    return [cols[c][r] for r in range(n) for c in range(n)]


def lu_factor_grad(lu: list, piv: list, glu: list, n: int) -> list:
    """FunctionsManual's ``linalg_lu_backward`` (square, pivoting) for the packed factors' gradient:
    gA = P L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T, gL = tril(gLU, -1), gU = triu(gLU)."""
    low = [lu[i * n + j] if j < i else (1.0 if i == j else 0.0) for i in range(n) for j in range(n)]
    up = [lu[i * n + j] if j >= i else 0.0 for i in range(n) for j in range(n)]
    gl = [glu[i * n + j] if j < i else 0.0 for i in range(n) for j in range(n)]
    gu = [glu[i * n + j] if j >= i else 0.0 for i in range(n) for j in range(n)]
    a = _mat(low, gl, n, ta=True)
    b = _mat(gu, up, n, tb=True)
    phi = [a[i * n + j] if j < i else b[i * n + j] for i in range(n) for j in range(n)]
    # phi U^-T = (U^-1 phi^T)^T, then L^-T of that
    right = transposed(_solve_columns(lu, n, transposed(phi, n), False, False), n)
    core = _solve_columns(lu, n, right, True, True)
    perm = permutation(piv, n)
    out = [0.0] * (n * n)
    for i in range(n):
        out[perm[i] * n:(perm[i] + 1) * n] = core[i * n:(i + 1) * n]
    return out


def lu_solve_grads(lu: list, piv: list, x: list, gx: list, n: int, k: int) -> tuple:
    """derivatives.yaml's linalg_lu_solve (left, not adjoint): (gLU, gB) with gB = A^-T gX
    (lu_solve with adjoint) and, through gR = -U^-T gX X^T, gLU = tril(L^-T gR U^T, -1) + triu(gR)."""
    gb = lu_solve_of(lu, piv, gx, n, k, adjoint=True)
    gxx = [-sum(gx[i * k + t] * x[j * k + t] for t in range(k)) for i in range(n) for j in range(n)]
    gr = _solve_columns(lu, n, gxx, False, True)
    up = [lu[i * n + j] if j >= i else 0.0 for i in range(n) for j in range(n)]
    gl = _solve_columns(lu, n, _mat(gr, up, n, tb=True), True, True)
    return [gl[i * n + j] if j < i else gr[i * n + j] for i in range(n) for j in range(n)], gb


class LuFactors:
    """What an LU node keeps: the pivots (a tensor, ``_saved_pivots``), ``pivot`` and the
    matrix's rows and columns."""

    __slots__ = ("pivots", "pivot", "m", "n", "versions")

    def __init__(self, pivots, m: int, n: int) -> None:
        self.pivots = pivots
        self.pivot = True
        self.m = m
        self.n = n


@register
class LinalgLuFactorEx(Op):
    """linalg.lu_factor(A) (LinalgLuFactorExBackward0): getrf's packed factors of each matrix,
    L's strict lower part and U's upper one (the pivots are an integer output). Derivative
    ``lu_factor_ex_backward``: linalg_lu_backward of (tril(grad, -1), triu(grad)). An element's
    SymPy form is Doolittle's factor of P^T A, the row order fixed at the point."""

    name = "LinalgLuFactorExBackward0"
    saves, saves_inputs, saves_output = True, False, True
    saved = (("LU", "result"), ("pivot", "c.pivot"), ("pivots", "c.pivots"))
    api = Api(method="lu", function="lu")
    backward = staticmethod(lambda k, g, v: (k.lu_factor_backward(g, k.out(v), v._c),))

    @staticmethod
    def forward(r, *args):
        """The factor's first element (the form's default element)."""
        return lu_factor(list(args), isqrt(len(args)))[0][0]

    @staticmethod
    def sympy(sp, *args, at=(0, 0), perm=None):
        n = isqrt(len(args))
        perm = perm or list(range(n))
        a = [[args[perm[i] * n + j] for j in range(n)] for i in range(n)]
        for j in range(n):  # Doolittle, no interchanges
            for i in range(j + 1, n):
                f = a[i][j] / a[j][j]
                a[i][j] = f
                for c in range(j + 1, n):
                    a[i][c] = a[i][c] - f * a[j][c]
        return a[at[0]][at[1]]


@register
class LinalgLuSolve(Op):
    """linalg.lu_solve(LU, pivots, B) (LinalgLuSolveBackward0): X = A^-1 B for A = P L U, by
    getrs. Inputs (LU, B); derivatives.yaml: LU: linalg_lu_solve_LU, B: lu_solve with adjoint.
    An element's SymPy form is U^-1 L^-1 P^T b of its column b."""

    name = "LinalgLuSolveBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("LU", 0), ("adjoint", "c.adjoint"), ("left", "c.left"), ("pivots", "c.pivots"),
             ("result", "result"))
    api = Api(method="lu_solve", function="lu_solve")

    @staticmethod
    def backward(k, g, v):
        return k.lu_solve_backward(g, k.ins(v)[0], k.out(v), v._c)

    @staticmethod
    def forward(r, *args):
        """X[0] of a 1 x 1 system (lu, b) (the form's default element)."""
        return div(args[1], args[0])

    @staticmethod
    def sympy(sp, *args, at=0, perm=None):
        """Element ``at`` of X for the packed factors (n*n) then one column of B (n)."""
        n = isqrt(len(args))
        while n * n + n > len(args):
            n -= 1
        lu, b = args[:n * n], args[n * n:]
        perm = perm or list(range(n))
        low = sp.Matrix(n, n, lambda i, j: lu[i * n + j] if j < i else (1 if i == j else 0))
        up = sp.Matrix(n, n, lambda i, j: lu[i * n + j] if j >= i else 0)
        y = low.lower_triangular_solve(sp.Matrix([b[perm[i]] for i in range(n)]))
        return up.upper_triangular_solve(y)[at]


@register
class LinalgSolveEx(Op):
    """linalg.solve(A, B) (LinalgSolveExBackward0): X = A^-1 B through A's LU (getrf, getrs).
    Inputs (A, B); derivative ``linalg_solve_backward`` (left): gB = A^-T gX (lu_solve with
    adjoint), gA = -gB X^T. An element's SymPy form is ``Matrix.LUsolve``'s of its column."""

    name = "LinalgSolveExBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("A", 0), ("LU", "c.LU"), ("left", "c.left"), ("pivots", "c.pivots"), ("result", "result"))
    api = Api(function=())

    @staticmethod
    def backward(k, g, v):
        return k.linalg_solve_backward(g, k.out(v), v._c)

    @staticmethod
    def forward(r, *args):
        """x of a 1 x 1 system (a, b) (the form's default element)."""
        return div(args[1], args[0])

    @staticmethod
    def sympy(sp, *args, at=0):
        """Element ``at`` of x with A x = b, for A's n*n elements then b's n."""
        n = isqrt(len(args))
        while n * n + n > len(args):
            n -= 1
        return sp.Matrix(n, n, list(args[:n * n])).LUsolve(sp.Matrix(list(args[n * n:])))[at]


LINALG = [LinalgDet, LinalgCross, LinalgCholeskyEx, Cholesky, LinalgInvEx, LinalgSlogdet, LinalgLuFactorEx,
          LinalgLuSolve, LinalgSolveEx]
