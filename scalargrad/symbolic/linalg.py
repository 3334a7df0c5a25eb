"""The linalg family's elements (``_ops/linalg.py``): a determinant is made of its matrix's
n*n elements; its partials are PyTorch's ``(det * A^-T)``, the cofactors, except at an exactly
singular matrix, where PyTorch's are 0 and calculus's the adjugate (a convention the report
names when they differ)."""

from __future__ import annotations

from math import isqrt

from .._ops import linalg as LA
from .._ops import linalg_eigh as EH
from .._ops import linalg_qr as QR
from .._tensor.operands import positions
from .element_op import ElementOp
from .graph import elements_of

__all__ = ["DetOf", "CrossOf", "CholeskyOf", "InvOf", "LogAbsDetOf", "SignDetOf", "LuFactorOf", "LuSolveOf", "QrOf",
           "SolveOf", "EigvalshOf"]


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


class LuFactorOf(ElementOp):
    """Element (i, j) of the packed LU factors of an n x n matrix (c = (i, j, rows): the row order
    getrf chose at the point, fixed): the op table's form, Doolittle on P^T A; its partials are
    linalg_lu_backward's for a unit gradient at (i, j)."""

    name = "lu_factor"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        i, j, perm = c
        return LA.LinalgLuFactorEx.sympy(sp, *args, at=(i, j), perm=list(perm))

    @staticmethod
    def value(vals, c):
        n = isqrt(len(vals))
        x = LA.lu_factor(vals, n)[0][c[0] * n + c[1]]
        return x, abs(x) + 1.0

    @staticmethod
    def partials(vals, c):
        n = isqrt(len(vals))
        lu, piv, _ = LA.lu_factor(vals, n)
        g = [0.0] * (n * n)
        g[c[0] * n + c[1]] = 1.0
        return LA.lu_factor_grad(lu, piv, g, n)

    @staticmethod
    def sample():
        return [2.0, 1.0, 4.0, 3.0], (1, 1, (1, 0))


@elements_of(LA.LinalgLuFactorEx)
def _lu_factor(v, vin, vals):
    u = vin[0]
    n = v._c.n
    size = n * n
    count = len(vals) // size if size else 0
    pv = v._c.pivots._val
    out = []
    for b in range(count):
        perm = tuple(LA.permutation(pv[b * n:(b + 1) * n], n))
        out.extend((LuFactorOf, (r // n, r % n, perm), tuple((u, b * size + i) for i in range(size)))
                   for r in range(size))
    return out


class LuSolveOf(ElementOp):
    """Element i of one column of X = A^-1 B (c = (i, pivots)), from the packed factors (n*n) and
    that column of B (n): the op table's form, U^-1 L^-1 P^T b; its partials are
    linalg_lu_solve's (LU: linalg_lu_solve_LU, B: lu_solve with adjoint) for a unit gradient."""

    name = "lu_solve"
    c_kind = "object"

    @staticmethod
    def _split(vals):
        n = isqrt(len(vals))
        while n * n + n > len(vals):
            n -= 1
        return list(vals[:n * n]), list(vals[n * n:]), n

    @staticmethod
    def sympy(sp, args, c):
        i, piv = c
        n = len(piv)
        return LA.LinalgLuSolve.sympy(sp, *args, at=i, perm=LA.permutation(list(piv), n))

    @staticmethod
    def value(vals, c):
        lu, b, n = LuSolveOf._split(vals)
        x = LA.lu_solve_of(lu, list(c[1]), b, n, 1)[c[0]]
        return x, abs(x) + 1.0

    @staticmethod
    def partials(vals, c):
        lu, b, n = LuSolveOf._split(vals)
        piv = list(c[1])
        x = LA.lu_solve_of(lu, piv, b, n, 1)
        g = [0.0] * n
        g[c[0]] = 1.0
        glu, gb = LA.lu_solve_grads(lu, piv, x, g, n, 1)
        return glu + gb

    @staticmethod
    def sample():
        return [3.0, -1.0, 0.5, 2.5, 1.0, -2.0], (1, (2, 2))


@elements_of(LA.LinalgLuSolve)
def _lu_solve(v, vin, vals):
    lu, b = vin
    c = v._c
    n, k = c.n, c.k
    pv = c.pivots._val
    out = []
    for m in range(len(vals) // (n * k) if n * k else 0):
        piv = tuple(pv[m * n:(m + 1) * n])
        for r in range(n * k):
            i, j = divmod(r, k)
            srcs = (tuple((lu, m * n * n + t) for t in range(n * n))
                    + tuple((b, m * n * k + t * k + j) for t in range(n)))
            out.append((LuSolveOf, (i, piv), srcs))
    return out


class QrOf(ElementOp):
    """Element (i, j) of Q or R of an m x n matrix, m >= n (c = (which, i, j, m, signs): R's
    diagonal signs at the point): the op table's form, Gram-Schmidt with those signs; its
    partials are linalg_qr_backward's for a unit gradient there."""

    name = "qr"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        which, i, j, m, signs = c
        return QR.LinalgQr.sympy(sp, *args, at=(which, i, j), m=m, signs=list(signs))

    @staticmethod
    def _factors(vals, c):
        m = c[3]
        n = len(vals) // m
        q, r, _ = QR.householder_qr(vals, m, n, "reduced")
        return q, r, m, n

    @staticmethod
    def value(vals, c):
        q, r, m, n = QrOf._factors(vals, c)
        x = q[c[1] * n + c[2]] if c[0] == "Q" else r[c[1] * n + c[2]]
        return x, abs(x) + 1.0

    @staticmethod
    def partials(vals, c):
        q, r, m, n = QrOf._factors(vals, c)
        gq, gr = [0.0] * (m * n), [0.0] * (n * n)
        (gq if c[0] == "Q" else gr)[c[1] * n + c[2]] = 1.0
        return QR.qr_grad(q, r, gq, gr, m, n)

    @staticmethod
    def sample():
        return [3.0, 0.5, 4.0, 5.0], ("Q", 1, 1, 2, (-1.0, 1.0))


@elements_of(QR.LinalgQr)
def _qr(v, vin, vals):
    """The node's value holds every matrix's Q, then every matrix's R (m >= n: reduced, or
    complete square)."""
    u = vin[0]
    c = v._c
    m, n = c.m, c.n
    count = len(c.signs)
    shapes = [tuple(t.shape[-2:]) if t.ndim >= 2 else (0, 0) for t in c.outputs_types]
    out = []
    for which, (rows, cols) in zip(("Q", "R"), shapes):
        for b in range(count):
            src = tuple((u, b * m * n + t) for t in range(m * n))
            out.extend((QrOf, (which, e // cols, e % cols, m, tuple(c.signs[b])), src) for e in range(rows * cols))
    return out


class SolveOf(ElementOp):
    """Element i of one column x of X with A X = B (c = i), from A's n*n elements and that column
    of B: the op table's form, ``Matrix.LUsolve``; partials linalg_solve_backward's for a unit
    gradient: gA = -(A^-T e_i) x^T, gb = A^-T e_i."""

    name = "solve"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return LA.LinalgSolveEx.sympy(sp, *args, at=c)

    @staticmethod
    def _solve(vals):
        lu_vals, b, n = LuSolveOf._split(vals)
        lu, piv, _ = LA.lu_factor(lu_vals, n)
        return lu, piv, b, n

    @staticmethod
    def value(vals, c):
        lu, piv, b, n = SolveOf._solve(vals)
        x = LA.lu_solve_of(lu, piv, b, n, 1)[c]
        return x, abs(x) + 1.0

    @staticmethod
    def partials(vals, c):
        lu, piv, b, n = SolveOf._solve(vals)
        x = LA.lu_solve_of(lu, piv, b, n, 1)
        e = [0.0] * n
        e[c] = 1.0
        gb = LA.lu_solve_of(lu, piv, e, n, 1, adjoint=True)
        return [-gb[i] * x[j] for i in range(n) for j in range(n)] + gb

    @staticmethod
    def sample():
        return [2.0, 1.0, 4.0, 3.0, 1.0, -1.0], 1


@elements_of(LA.LinalgSolveEx)
def _solve(v, vin, vals):
    a, b = vin
    c = v._c
    n, k = c.n, c.k
    out = []
    for m in range(len(vals) // (n * k) if n * k else 0):
        for r in range(n * k):
            i, j = divmod(r, k)
            srcs = (tuple((a, m * n * n + t) for t in range(n * n))
                    + tuple((b, m * n * k + t * k + j) for t in range(n)))
            out.append((SolveOf, i, srcs))
    return out


class EigvalshOf(ElementOp):
    """Eigenvalue k (ascending) of the symmetric matrix A's lower (``upper``: upper) triangle
    spells (c = (k, upper)). The op table's form is the eigenvalue of (A + A^T) / 2, equal to
    it on symmetric matrices, whose partials v_i v_j (v the k-th eigenvector) are PyTorch's
    ``V diag(grad) V^T`` for a unit gradient at k, on A_ij and A_ji alike. Where A is not
    symmetric PyTorch's gradient is that same matrix, a convention: calculus on the triangle
    read gives 2 v_i v_j on it and 0 on the other."""

    name = "eigvalsh"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return EH.LinalgEigh.sympy(sp, *args, at=c[0])

    @staticmethod
    def value(vals, c):
        n = isqrt(len(vals))
        e, _ = EH.symmetric_eigen(vals, n, c[1])
        return e[c[0]], max(abs(x) for x in e) + 1.0

    @staticmethod
    def partials(vals, c):
        n = isqrt(len(vals))
        _, v = EH.symmetric_eigen(vals, n, c[1])
        g = [0.0] * n
        g[c[0]] = 1.0
        return EH.eigh_grad(v, g, n)

    @staticmethod
    def convention(vals, c):
        n = isqrt(len(vals))
        if any(vals[i * n + j] != vals[j * n + i] for i in range(n) for j in range(i)):
            return ("eigvalsh(): A is not symmetric; PyTorch's gradient V diag(grad) V^T treats it as symmetric "
                    "(A_ij and A_ji share v_i v_j), where calculus on the triangle read gives 2 v_i v_j there and 0 "
                    "on the other", None)
        return None

    @staticmethod
    def sample():
        return [2.0, 0.75, 0.75, -1.0], (1, False)


@elements_of(EH.LinalgEigh)
def _eigvalsh(v, vin, vals):
    u = vin[0]
    n, upper = v._c.n, v._c.upper
    size = n * n
    return [(EigvalshOf, (e % n, upper), tuple((u, (e // n) * size + i) for i in range(size)))
            for e in range(len(vals))]

