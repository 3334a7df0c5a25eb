"""Triangular systems (``linalg.solve_triangular``): one LinalgSolveTriangularBackward0 node over
A and B, X with T X = B (``left``) or X T = B, T the upper or lower triangle of A (its diagonal
taken as ones with ``unitriangular``; the other elements are never read).

Substitution in double (exact sums), each element of X then rounded to the dtype (LAPACK's trsm
adds in its own order: the last bits of PyTorch's are machine-dependent, the tests bound them). The derivative is
FunctionsManual's ``linalg_solve_triangular_backward``: gB solves the transposed system (the
other triangle) with grad, gA = -gB X^T (left) or -X^T gB, kept to the triangle read (without
its diagonal when unitriangular). An element's SymPy form is the solution of the system with
that triangular matrix, of one column (left) or row of B.
"""

from __future__ import annotations

import math
from math import isqrt

from .._base.ieee import div
from .table import Api, Op, register

__all__ = ["triangle", "solve_left", "tri_solve", "tri_solve_grads", "TriangularInfo", "LinalgSolveTriangular",
           "chol_solve", "chol_solve_grads", "chol_inverse", "chol_inverse_grad", "CholeskySolve", "CholeskyInverse",
           "TriangularSolveInfo", "effective", "triangular_solve_grads", "TriangularSolve"]


def triangle(a: list, n: int, upper: bool, unit: bool) -> list:
    """The triangular matrix a system reads from row-major ``a`` (n x n): its upper or lower
    triangle, zeros elsewhere, ones on the diagonal when ``unit``."""
    return [(1.0 if unit else a[i * n + j]) if i == j else (a[i * n + j] if (j > i) == upper else 0.0)
            for i in range(n) for j in range(n)]


def solve_left(t: list, b: list, n: int, k: int, upper: bool) -> list:
    """X (row-major n x k) with T X = B, T triangular (``upper`` or lower), by substitution."""
    x = [0.0] * (n * k)
    rows = range(n - 1, -1, -1) if upper else range(n)
    for j in range(k):
        for i in rows:
            others = range(i + 1, n) if upper else range(i)
            s = b[i * k + j] - math.fsum(t[i * n + q] * x[q * k + j] for q in others)
            x[i * k + j] = div(s, t[i * n + i])
    return x


def _transposed(a: list, rows: int, cols: int) -> list:
    return [a[i * cols + j] for j in range(cols) for i in range(rows)]


def tri_solve(a: list, b: list, n: int, rows: int, cols: int, upper: bool, left: bool, unit: bool) -> list:
    """X (row-major rows x cols, B's shape) with T X = B (``left``) or X T = B."""
    t = triangle(a, n, upper, unit)
    if left:
        return solve_left(t, b, n, cols, upper)
    xt = solve_left(_transposed(t, n, n), _transposed(b, rows, cols), n, rows, not upper)
    return _transposed(xt, n, rows)


def tri_solve_grads(a: list, x: list, g: list, n: int, rows: int, cols: int, upper: bool, left: bool,
                    unit: bool) -> tuple:
    """(gA row-major n x n, gB row-major rows x cols): gB solves the transposed system with g,
    gA = -gB X^T (left) or -X^T gB, kept to the triangle read."""
    at = _transposed(a, n, n)
    gb = tri_solve(at, g, n, rows, cols, not upper, left, unit)
    if left:  # gA[p][q] = -sum_t gB[p][t] X[q][t]
        ga = [-math.fsum(gb[p * cols + t] * x[q * cols + t] for t in range(cols)) for p in range(n) for q in range(n)]
    else:  # gA[p][q] = -sum_t X[t][p] gB[t][q]
        ga = [-math.fsum(x[t * cols + p] * gb[t * cols + q] for t in range(rows)) for p in range(n) for q in range(n)]
    keep = [(p < q if upper else p > q) or (p == q and not unit) for p in range(n) for q in range(n)]
    return [v if k else 0.0 for v, k in zip(ga, keep)], gb


class TriangularInfo:
    """What a triangular-solve node keeps: the flags, the order n and B's matrix shape."""

    __slots__ = ("upper", "left", "unitriangular", "n", "rows", "cols")

    def __init__(self, upper: bool, left: bool, unit: bool, n: int, rows: int, cols: int) -> None:
        self.upper, self.left, self.unitriangular = upper, left, unit
        self.n, self.rows, self.cols = n, rows, cols


@register
class LinalgSolveTriangular(Op):
    """linalg.solve_triangular(A, B, upper, left, unitriangular)
    (LinalgSolveTriangularBackward0): inputs (A, B), derivative ``linalg_solve_triangular_backward``."""

    name = "LinalgSolveTriangularBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("left", "c.left"), ("result", "result"), ("self", 0), ("unitriangular", "c.unitriangular"),
             ("upper", "c.upper"))

    @staticmethod
    def backward(k, g, v):
        return k.solve_triangular_backward(g, k.ins(v)[0], k.out(v), v._c)

    @staticmethod
    def forward(r, *args):
        """x of a 1 x 1 system (a, b) (the form's default element)."""
        return div(args[1], args[0])

    @staticmethod
    def sympy(sp, *args, at=0, upper=False, left=True, unit=False):
        """Element ``at`` of x with T x = b (``left``) or x^T T = b^T, for A's n*n elements then b's n."""
        n = isqrt(len(args))
        while n * n + n > len(args):
            n -= 1
        a, b = args[:n * n], sp.Matrix(list(args[n * n:]))
        t = sp.Matrix(n, n, lambda i, j: (1 if unit else a[i * n + j]) if i == j else
                      (a[i * n + j] if (j > i) == upper else 0))
        if not left:
            t = t.T
        return (t.upper_triangular_solve(b) if upper == left else t.lower_triangular_solve(b))[at]


# ---------------------------------------------------------------- through a Cholesky factor
# cholesky_solve(B, L) and cholesky_inverse(L): A = L L^T (``upper``: U^T U) from the factor's
# triangle. PyTorch's derivatives (FunctionsManual's cholesky_solve_backward and
# cholesky_inverse_backward) are those of the same formulas with the factor taken whole: on a
# triangular factor, calculus's; where the other triangle holds numbers, a convention.


def _lower_upper(fac: list, n: int, upper: bool) -> tuple:
    """(T, T^T) with A = T T^T: T the lower factor, or U^T of an upper one (zeros elsewhere)."""
    t = triangle(fac, n, upper, False)
    if upper:
        t = _transposed(t, n, n)
    return t, _transposed(t, n, n)


def chol_solve(fac: list, b: list, n: int, k: int, upper: bool) -> list:
    """X (row-major n x k) with (T T^T) X = B, by two substitutions in double."""
    t, tt = _lower_upper(fac, n, upper)
    return solve_left(tt, solve_left(t, b, n, k, False), n, k, True)


def _mm(a: list, b: list, n: int, k: int, m: int) -> list:
    """a (n x k) @ b (k x m), row-major, each element an exact sum rounded once."""
    return [math.fsum(a[i * k + t] * b[t * m + j] for t in range(k)) for i in range(n) for j in range(m)]


def _factor_grad(fac: list, common: list, n: int, upper: bool) -> list:
    """-(common L) for a lower factor, -(L common) for an upper one, the factor taken whole."""
    prod = _mm(fac, common, n, n, n) if upper else _mm(common, fac, n, n, n)
    return [-x for x in prod]


def chol_solve_grads(fac: list, x: list, g: list, n: int, k: int, upper: bool) -> tuple:
    """(gL, gB): gB = cholesky_solve(g, L), common = gB X^T + X gB^T, gL = -(common L)."""
    gb = chol_solve(fac, g, n, k, upper)
    c = _mm(gb, _transposed(x, n, k), n, k, n)
    common = [c[i * n + j] + c[j * n + i] for i in range(n) for j in range(n)]
    return _factor_grad(fac, common, n, upper), gb


def chol_inverse(fac: list, n: int, upper: bool) -> tuple:
    """((T T^T)^-1 row-major, 0), or (None, k) when the factor's diagonal element k (1-based) is 0."""
    for i in range(n):
        if fac[i * (n + 1)] == 0.0:
            return None, i + 1
    eye = [float(i == j) for i in range(n) for j in range(n)]
    return chol_solve(fac, eye, n, n, upper), 0


def chol_inverse_grad(fac: list, inv: list, g: list, n: int, upper: bool) -> list:
    """gL = -(common L), common = inv (g + g^T) inv."""
    s = [g[i * n + j] + g[j * n + i] for i in range(n) for j in range(n)]
    common = _mm(inv, _mm(s, inv, n, n, n), n, n, n)
    return _factor_grad(fac, common, n, upper)


def _whole(sp, args, n: int, upper: bool):
    f = sp.Matrix(n, n, list(args[:n * n]))
    return f.T * f if upper else f * f.T


@register
class CholeskySolve(Op):
    """cholesky_solve(B, L, upper) (CholeskySolveBackward0): inputs (B, L)."""

    name = "CholeskySolveBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("input2", 1), ("result", "result"), ("self", 0), ("upper", "c.upper"))
    api = Api(method="cholesky_solve", function="cholesky_solve")

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        return k.cholesky_solve_backward(g, ins[1], k.out(v), v._c)

    @staticmethod
    def forward(r, *args):
        """x of a 1 x 1 system (l, b): b / l^2 (the form's default element)."""
        return div(args[1], args[0] * args[0])

    @staticmethod
    def sympy(sp, *args, at=0, upper=False):
        """Element ``at`` of x with (L L^T) x = b (L taken whole), for L's n*n elements then b's n."""
        n = isqrt(len(args))
        while n * n + n > len(args):
            n -= 1
        return _whole(sp, args, n, upper).LUsolve(sp.Matrix(list(args[n * n:])))[at]


@register
class CholeskyInverse(Op):
    """cholesky_inverse(L, upper) (CholeskyInverseBackward0)."""

    name = "CholeskyInverseBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("result", "result"), ("self", 0), ("upper", "c.upper"))
    api = Api(method="cholesky_inverse", function="cholesky_inverse")
    backward = staticmethod(lambda k, g, v: (k.cholesky_inverse_backward(g, k.ins(v)[0], k.out(v), v._c),))

    @staticmethod
    def forward(r, *args):
        """1 / l^2 of a 1 x 1 factor (the form's default element)."""
        return div(1.0, args[0] * args[0])

    @staticmethod
    def sympy(sp, *args, at=(0, 0), upper=False):
        """Element ``at`` of (L L^T)^-1, L taken whole."""
        n = isqrt(len(args))
        return _whole(sp, args, n, upper).inv()[at[0], at[1]]


# ---------------------------------------------------------------- the deprecated triangular_solve
# triangular_solve(b, A, upper, transpose, unitriangular): (solution, cloned_coefficient), one
# node; with ``transpose`` the system is T^T X = b, the same as solve_triangular's with A^T and
# the other triangle. The clone's gradient is added to A's.


class TriangularSolveInfo(TriangularInfo):
    """A triangular_solve node's: the flags, sizes, outputs' types and the solution output."""

    __slots__ = ("transpose", "outputs", "outputs_types", "solution", "versions")

    def __init__(self, upper: bool, transpose: bool, unit: bool, n: int, cols: int) -> None:
        super().__init__(upper, True, unit, n, n, cols)
        self.transpose = transpose
        self.outputs = self.outputs_types = self.solution = None


def effective(a: list, n: int, upper: bool, transpose: bool) -> tuple:
    """(the matrix, its triangle's upper flag) of the left system triangular_solve solves."""
    return (_transposed(a, n, n), not upper) if transpose else (a, upper)


def triangular_solve_grads(a: list, x: list, gx, gm, n: int, k: int, upper: bool, transpose: bool,
                           unit: bool) -> tuple:
    """(gb, gA) of triangular_solve_backward: gx (the solution's gradient) or gm (the clone's)
    may be None."""
    if gx is None:
        ga, gb = [0.0] * (n * n), [0.0] * (n * k)
    else:
        m, up = effective(a, n, upper, transpose)
        ga, gb = tri_solve_grads(m, x, gx, n, n, k, up, True, unit)
        if transpose:
            ga = _transposed(ga, n, n)
    if gm is not None:
        ga = [p + q for p, q in zip(ga, gm)]
    return gb, ga


@register
class TriangularSolve(Op):
    """triangular_solve(b, A, upper, transpose, unitriangular) (TriangularSolveBackward0): inputs
    (b, A), outputs (solution, cloned_coefficient)."""

    name = "TriangularSolveBackward0"
    saves, saves_inputs = True, True
    saved = (("A", 1), ("self", 0), ("solution", "c.solution"), ("transpose", "c.transpose"),
             ("unitriangular", "c.unitriangular"), ("upper", "c.upper"))
    api = Api(method="triangular_solve", function="triangular_solve")

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        return k.triangular_solve_backward(g, ins[1], v._c)

    @staticmethod
    def forward(r, *args):
        """x of a 1 x 1 system (a, b) (the form's default element)."""
        return div(args[1], args[0])

    @staticmethod
    def sympy(sp, *args, at=0, upper=True, transpose=False, unit=False):
        """Element ``at`` of x with T x = b (``transpose``: T^T x = b), for A's n*n elements then b's n."""
        n = isqrt(len(args))
        while n * n + n > len(args):
            n -= 1
        a = list(args[:n * n])
        if transpose:
            a = [a[j * n + i] for i in range(n) for j in range(n)]
            upper = not upper
        return LinalgSolveTriangular.sympy(sp, *a, *args[n * n:], at=at, upper=upper, left=True, unit=unit)
