"""The linalg family's elements (``_ops/linalg.py``): a determinant is made of its matrix's
n*n elements; its partials are PyTorch's ``(det * A^-T)``, the cofactors, except at an exactly
singular matrix, where PyTorch's are 0 and calculus's the adjugate (a convention the report
names when they differ)."""

from __future__ import annotations

from math import isqrt

from .._ops import linalg as LA
from .._tensor.operands import positions
from .element_op import ElementOp
from .graph import elements_of

__all__ = ["DetOf", "CrossOf", "CholeskyOf", "InvOf", "LogAbsDetOf", "SignDetOf"]


def _pytorch_partials(vals: list) -> list:
    n = isqrt(len(vals))
    return LA.inverse_transpose(vals, n, LA.det_of(vals, n))


class DetOf(ElementOp):
    """The determinant of an n x n matrix, its elements row-major: the op table's form."""

    name = "det"

    @staticmethod
    def sympy(sp, args, c):
        return LA.LinalgDet.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        n = isqrt(len(vals))
        d = LA.det_of(vals, n)
        # the rounding of LU's products is relative to the product of the rows' magnitudes
        scale = 1.0
        for i in range(n):
            scale *= sum(abs(x) for x in vals[i * n:(i + 1) * n])
        return d, scale

    @staticmethod
    def partials(vals, c):
        return _pytorch_partials(vals)

    @staticmethod
    def convention(vals, c):
        n = isqrt(len(vals))
        if n > 1 and LA.det_of(vals, n) == 0.0:
            return ("det(): the matrix is singular; PyTorch's gradient (grad * det) * A^-T is 0 there, where "
                    "calculus gives the adjugate (0 only for rank below n - 1)", None)
        return None

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5, 0.5, -2.0, 1.0, 3.0, -0.5], None


@elements_of(LA.LinalgDet)
def _det(v, vin, vals):
    u = vin[0]
    n = v._c.n
    size = n * n
    count = len(vals) if isinstance(vals, list) else 1
    return [(DetOf, None, tuple((u, b * size + i) for i in range(size))) for b in range(count)]


class CrossOf(ElementOp):
    """One element of a cross product, a_j b_k - a_k b_j, from (a_j, b_k, a_k, b_j): the op
    table's form."""

    name = "cross"

    @staticmethod
    def sympy(sp, args, c):
        return LA.LinalgCross.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        p, q, s, t = vals
        return p * q - s * t, abs(p * q) + abs(s * t)

    @staticmethod
    def partials(vals, c):
        p, q, s, t = vals
        return [q, p, -t, -s]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5], None


@elements_of(LA.LinalgCross)
def _cross(v, vin, vals):
    a, b = vin
    shape = tuple(v._t.shape)
    d = v._c.dim
    pa, pb = positions(tuple(a._t.shape), shape), positions(tuple(b._t.shape), shape)
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    out = []
    for o in range(len(pa)):
        i = (o // inner) % 3
        base = o - i * inner
        j, k = base + ((i + 1) % 3) * inner, base + ((i + 2) % 3) * inner
        out.append((CrossOf, None, ((a, pa[j]), (b, pb[k]), (a, pa[k]), (b, pb[j]))))
    return out


class CholeskyOf(ElementOp):
    """Element (i, j) of the Cholesky factor of an n x n matrix (c = (i, j, upper)): the op
    table's form, the factor of (A + A^T) / 2, whose partials are PyTorch's symmetrised
    cholesky_backward for a unit gradient at (i, j)."""

    name = "cholesky"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        i, j, upper = c
        return LA.LinalgCholeskyEx.sympy(sp, *args, at=(i, j), upper=upper)

    @staticmethod
    def _lower(vals):
        n = isqrt(len(vals))
        sym = [(vals[r * n + q] + vals[q * n + r]) * 0.5 for r in range(n) for q in range(n)]
        return LA.cholesky_lower(sym, n)[0], n

    @staticmethod
    def value(vals, c):
        i, j, upper = c
        lo, n = CholeskyOf._lower(vals)
        x = lo[j * n + i] if upper else lo[i * n + j]
        return x, abs(x) + 1.0

    @staticmethod
    def partials(vals, c):
        i, j, upper = c
        lo, n = CholeskyOf._lower(vals)
        gl = [0.0] * (n * n)
        gl[j * n + i if upper else i * n + j] = 1.0  # U[i, j] is L[j, i]
        return LA.cholesky_grad(lo, gl, n)

    @staticmethod
    def sample():
        return [4.0, 2.0, 0.5, 2.0, 5.0, 1.0, 0.5, 1.0, 3.0], (2, 1, False)


@elements_of(LA.LinalgCholeskyEx, LA.Cholesky)
def _cholesky(v, vin, vals):
    u = vin[0]
    n, upper = v._c.n, v._c.upper
    size = n * n
    count = len(vals) // size if size else 0
    return [(CholeskyOf, (r // n, r % n, upper), tuple((u, b * size + i) for i in range(size)))
            for b in range(count) for r in range(size)]


class InvOf(ElementOp):
    """Element (i, j) of a matrix's inverse (c = (i, j)): the op table's form; its partials,
    -inv_ik inv_lj for A_kl, are the backward's for a unit gradient at (i, j)."""

    name = "inverse"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return LA.LinalgInvEx.sympy(sp, *args, at=c)

    @staticmethod
    def value(vals, c):
        n = isqrt(len(vals))
        inv, _ = LA.inverse_of(vals, n)
        x = inv[c[0] * n + c[1]]
        return x, abs(x) + 1.0

    @staticmethod
    def partials(vals, c):
        n = isqrt(len(vals))
        inv, _ = LA.inverse_of(vals, n)
        g = [0.0] * (n * n)
        g[c[0] * n + c[1]] = 1.0
        return LA.inverse_grad(inv, g, n)

    @staticmethod
    def sample():
        return [2.0, 1.0, 0.5, 4.0, 3.0, 1.0, 0.25, 1.5, 5.0], (2, 0)


@elements_of(LA.LinalgInvEx)
def _inverse(v, vin, vals):
    u = vin[0]
    n = v._c
    size = n * n
    count = len(vals) // size if size else 0
    return [(InvOf, (r // n, r % n), tuple((u, b * size + i) for i in range(size)))
            for b in range(count) for r in range(size)]


class LogAbsDetOf(ElementOp):
    """log|det| of an n x n matrix, its elements row-major: the op table's form; its partials are
    slogdet_backward's for a unit gradient, A^-T (through the LU, as PyTorch's)."""

    name = "slogdet"

    @staticmethod
    def sympy(sp, args, c):
        return LA.LinalgSlogdet.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        n = isqrt(len(vals))
        return LA.slogdet_of(vals, n)[1], 1.0  # a sum of n logs: relative to 1 (n is small)

    @staticmethod
    def partials(vals, c):
        n = isqrt(len(vals))
        return LA.inverse_transpose(vals, n, 1.0)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5], None


class SignDetOf(ElementOp):
    """The sign of the determinant: the op table's form; its partials are 0 (PyTorch's slogdet
    passes no gradient from sign to A)."""

    name = "slogdet sign"

    @staticmethod
    def sympy(sp, args, c):
        return LA.LinalgSlogdet.sympy(sp, *args, sign=True)

    @staticmethod
    def value(vals, c):
        return LA.slogdet_of(vals, isqrt(len(vals)))[0], 1.0

    @staticmethod
    def partials(vals, c):
        return [0.0] * len(vals)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5], None


@elements_of(LA.LinalgSlogdet)
def _slogdet(v, vin, vals):
    """The node's value holds the signs, then the log|det|s; each output picks its half."""
    u = vin[0]
    n = v._c.n
    size = n * n
    count = len(vals) // 2
    return [(SignDetOf if j < count else LogAbsDetOf, None, tuple((u, (j % count) * size + i) for i in range(size)))
            for j in range(len(vals))]
