"""The triangular family's elements (``_ops/linalg_triangular.py``): an element of
``linalg.solve_triangular``'s X is the solution of one column's (left) or row's system with
the triangle read; an element of ``cholesky_solve``'s X one column's solution with L L^T, of
``cholesky_inverse`` an element of (L L^T)^-1. PyTorch's derivatives of the last two take the
factor whole: calculus's on a triangular factor, a convention (named in the report) where the
other triangle holds numbers."""

from __future__ import annotations

from math import isqrt

from .._ops import linalg_triangular as TS
from .element_op import ElementOp, Same
from .graph import elements_of

__all__ = ["TriangularSolveOf", "CholeskySolveOf", "CholeskyInverseOf"]


class TriangularSolveOf(ElementOp):
    """Element ``at`` of one column x of X with T X = B (left), or of one row with X T = B, from
    A's n*n elements and that column (row) of B (c = (at, upper, left, unitriangular)): the op
    table's form; partials linalg_solve_triangular_backward's for a unit gradient at ``at``."""

    name = "solve_triangular"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        at, upper, left, unit = c
        return TS.LinalgSolveTriangular.sympy(sp, *args, at=at, upper=upper, left=left, unit=unit)

    @staticmethod
    def _solve(vals, c):
        _, upper, left, unit = c
        n = isqrt(len(vals))
        while n * n + n > len(vals):
            n -= 1
        a, b = vals[:n * n], vals[n * n:]
        shape = (n, 1) if left else (1, n)
        return a, TS.tri_solve(a, b, n, *shape, upper, left, unit), n, shape

    @staticmethod
    def value(vals, c):
        _, x, _, _ = TriangularSolveOf._solve(vals, c)
        return x[c[0]], max(abs(v) for v in x) + 1.0

    @staticmethod
    def partials(vals, c):
        at, upper, left, unit = c
        a, x, n, shape = TriangularSolveOf._solve(vals, c)
        g = [0.0] * n
        g[at] = 1.0
        ga, gb = TS.tri_solve_grads(a, x, g, n, *shape, upper, left, unit)
        return ga + gb

    @staticmethod
    def sample():
        return [2.0, 0.5, -1.0, 1.5, 3.0, 0.25, 0.75, -2.0, 4.0, 1.0, -0.5, 2.5], (1, False, True, False)


@elements_of(TS.LinalgSolveTriangular)
def _solve_triangular(v, vin, vals):
    a, b = vin
    c = v._c
    n, rows, cols = c.n, c.rows, c.cols
    out = []
    for m in range(len(vals) // (rows * cols) if rows * cols else 0):
        for r in range(rows * cols):
            i, j = divmod(r, cols)
            if c.left:  # column j of B
                line = tuple((b, m * rows * cols + t * cols + j) for t in range(n))
            else:  # row i of B
                line = tuple((b, m * rows * cols + i * cols + t) for t in range(n))
            srcs = tuple((a, m * n * n + t) for t in range(n * n)) + line
            out.append((TriangularSolveOf, (i if c.left else j, c.upper, c.left, c.unitriangular), srcs))
    return out



def _other_triangle_note(vals, n: int, upper: bool, what: str):
    if any(vals[i * n + j] != 0.0 for i in range(n) for j in range(n) if (j > i) != upper and i != j):
        return (f"{what}: the factor's other triangle holds numbers; PyTorch's gradient is that of the formula "
                "with the factor taken whole, where calculus on the triangle read differs", None)
    return None


class CholeskySolveOf(ElementOp):
    """Element ``at`` of one column x of X with (L L^T) x = b, from L's n*n elements and that
    column of B (c = (at, upper)): the op table's form (L taken whole); partials PyTorch's
    cholesky_solve_backward for a unit gradient at ``at``."""

    name = "cholesky_solve"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return TS.CholeskySolve.sympy(sp, *args, at=c[0], upper=c[1])

    @staticmethod
    def _split(vals):
        n = isqrt(len(vals))
        while n * n + n > len(vals):
            n -= 1
        return vals[:n * n], vals[n * n:], n

    @staticmethod
    def value(vals, c):
        fac, b, n = CholeskySolveOf._split(vals)
        x = TS.chol_solve(fac, b, n, 1, c[1])
        return x[c[0]], max(abs(v) for v in x) + 1.0

    @staticmethod
    def partials(vals, c):
        fac, b, n = CholeskySolveOf._split(vals)
        x = TS.chol_solve(fac, b, n, 1, c[1])
        g = [0.0] * n
        g[c[0]] = 1.0
        gl, gb = TS.chol_solve_grads(fac, x, g, n, 1, c[1])
        return gl + gb

    @staticmethod
    def convention(vals, c):
        fac, _, n = CholeskySolveOf._split(vals)
        return _other_triangle_note(fac, n, c[1], "cholesky_solve")

    @staticmethod
    def sample():
        return [2.0, 0.0, 1.5, 3.0, 1.0, -0.5], (1, False)


@elements_of(TS.CholeskySolve)
def _cholesky_solve(v, vin, vals):
    b, fac = vin
    c = v._c
    n, k = c.n, c.cols
    out = []
    for m in range(len(vals) // (n * k) if n * k else 0):
        for r in range(n * k):
            i, j = divmod(r, k)
            srcs = (tuple((fac, m * n * n + t) for t in range(n * n))
                    + tuple((b, m * n * k + t * k + j) for t in range(n)))
            out.append((CholeskySolveOf, (i, c.upper), srcs))
    return out


class CholeskyInverseOf(ElementOp):
    """Element (i, j) of (L L^T)^-1 (c = (i, j, upper)): the op table's form (L taken whole);
    partials PyTorch's cholesky_inverse_backward for a unit gradient at (i, j)."""

    name = "cholesky_inverse"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return TS.CholeskyInverse.sympy(sp, *args, at=(c[0], c[1]), upper=c[2])

    @staticmethod
    def value(vals, c):
        n = isqrt(len(vals))
        inv, _ = TS.chol_inverse(vals, n, c[2])
        return inv[c[0] * n + c[1]], max(abs(v) for v in inv) + 1.0

    @staticmethod
    def partials(vals, c):
        n = isqrt(len(vals))
        inv, _ = TS.chol_inverse(vals, n, c[2])
        g = [0.0] * (n * n)
        g[c[0] * n + c[1]] = 1.0
        return TS.chol_inverse_grad(vals, inv, g, n, c[2])

    @staticmethod
    def convention(vals, c):
        return _other_triangle_note(vals, isqrt(len(vals)), c[2], "cholesky_inverse")

    @staticmethod
    def sample():
        return [2.0, 0.5, 0.0, 3.0], (0, 1, True)


@elements_of(TS.CholeskyInverse)
def _cholesky_inverse(v, vin, vals):
    u = vin[0]
    n, upper = v._c.n, v._c.upper
    size = n * n
    return [(CholeskyInverseOf, (r // n, r % n, upper), tuple((u, (e // size) * size + t) for t in range(size)))
            for e in range(len(vals)) for r in (e % size,)]


@elements_of(TS.TriangularSolve)
def _triangular_solve(v, vin, vals):
    """The node's value holds every solution's elements, then every clone's: a solution element
    is solve_triangular's of A (transposed, the other triangle, with ``transpose``) and a
    column of b; a clone element is A's own."""
    b, a = vin
    c = v._c
    n, k = c.n, c.cols
    count = len(vals) // (n * k + n * n) if n else 0
    up = (not c.upper) if c.transpose else c.upper
    out = []
    for m in range(count):
        mat = tuple((a, m * n * n + ((t % n) * n + t // n if c.transpose else t)) for t in range(n * n))
        for r in range(n * k):
            i, j = divmod(r, k)
            srcs = mat + tuple((b, m * n * k + t * k + j) for t in range(n))
            out.append((TriangularSolveOf, (i, up, True, c.unitriangular), srcs))
    out.extend((Same, None, ((a, e),)) for e in range(count * n * n))
    return out
