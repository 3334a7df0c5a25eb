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
           "cholesky_grad", "LinalgInvEx", "inverse_of", "inverse_grad", "LinalgSlogdet", "slogdet_of"]


class DetFactors:
    """What a det node keeps: its LU factors and LAPACK's 1-based pivots, as tensors
    (PyTorch's ``_saved_LU``, ``_saved_pivots``), and its matrix size."""

    __slots__ = ("result1", "result2", "n")

    def __init__(self, lu, pivots, n: int) -> None:
        self.result1 = lu
        self.result2 = pivots
        self.n = n


def lu_factor(a: list, n: int) -> tuple:
    """getrf's unblocked algorithm on a row-major n x n matrix of floats, in double: (LU
    row-major, 1-based pivots, number of row swaps). A zero pivot column is left as it is."""
    m = [list(a[i * n:(i + 1) * n]) for i in range(n)]
    piv, swaps = [], 0
    for j in range(n):
        p = j
        for i in range(j + 1, n):
            if abs(m[i][j]) > abs(m[p][j]):
                p = i
        piv.append(p + 1)
        if p != j:
            m[p], m[j] = m[j], m[p]
            swaps += 1
        d = m[j][j]
        if d != 0.0:
            inv = 1.0 / d  # getf2 scales the column by the pivot's reciprocal
            for i in range(j + 1, n):
                f = m[i][j] * inv
                m[i][j] = f
                if f != 0.0:
                    row, top = m[i], m[j]
                    for c in range(j + 1, n):
                        row[c] -= f * top[c]
    return [x for row in m for x in row], piv, swaps


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


LINALG = [LinalgDet, LinalgCross, LinalgCholeskyEx, Cholesky, LinalgInvEx, LinalgSlogdet]
