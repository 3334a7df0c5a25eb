"""QR (``linalg.qr``, ``qr``): LAPACK's Householder factorisation, one node with outputs Q and R.

geqr2 in double: at column j, dlarfg makes the reflector H = I - tau v v^T (v_0 = 1) that maps
the column's trailing part x = (alpha, x') onto (beta, 0), beta = -sign(alpha) |x|, tau = (beta -
alpha) / beta, v' = x' / (alpha - beta); where x' is zero, tau = 0 and R's diagonal element keeps
alpha's sign (the last of a square matrix's, always). Q = H_1 ... H_k by org2r, whose column
scalings by -tau give PyTorch's -0.0 where tau is 0. So R's diagonal signs are LAPACK's, the
same on every machine wherever no alpha is within rounding of 0; LAPACK's blocked kernels add in
their own order (the tests bound the last bits).

The derivative (FunctionsManual's ``linalg_qr_backward``, m >= n, reduced, or complete square):
with M = gR R^T - Q^T gQ, gA = [gQ + Q copyltu(triu(M))] R^-T, copyltu(X) = X + X^T with the
diagonal once. An element's SymPy form is Gram-Schmidt's factor with the column signs of R's
diagonal at the point.
"""

from __future__ import annotations

from math import copysign, hypot

from .._base.ieee import div
from .table import Api, Op, register

__all__ = ["householder_qr", "qr_grad", "LinalgQr", "QrInfo"]


def _larf(a: list, v: list, tau: float, i: int, c0: int, m: int, n: int) -> None:
    """dlarf from the left: rows i.., columns c0..n-1 of ``a`` (rows of lists) times H = I - tau v v^T."""
    if tau == 0.0:
        return
    for c in range(c0, n):
        w = 0.0
        for r in range(i, m):
            w += a[r][c] * v[r - i]
        t = -tau * w
        for r in range(i, m):
            a[r][c] += v[r - i] * t


def householder_qr(vals: list, m: int, n: int, mode: str) -> tuple:
    """(Q row-major m x kq or [], R row-major kr x n, the signs of R's diagonal): geqr2 then org2r,
    in double; kq = kr = min(m, n) (reduced), m (complete); mode "r": no Q."""
    a = [list(vals[r * n:(r + 1) * n]) for r in range(m)]
    k = min(m, n)
    taus = []
    for i in range(k):
        alpha = a[i][i]
        xnorm = 0.0
        for r in range(i + 1, m):
            xnorm = hypot(xnorm, a[r][i])
        if m - i <= 1 or xnorm == 0.0:
            tau = 0.0
        else:
            beta = -copysign(hypot(alpha, xnorm), alpha)
            tau = (beta - alpha) / beta
            scale = 1.0 / (alpha - beta)
            for r in range(i + 1, m):
                a[r][i] *= scale
            a[i][i] = beta
        taus.append(tau)
        if i < n - 1:
            keep = a[i][i]
            a[i][i] = 1.0
            _larf(a, [a[r][i] for r in range(i, m)], tau, i, i + 1, m, n)
            a[i][i] = keep
    kr = m if mode == "complete" else k
    r_out = [a[r][c] if c >= r else 0.0 for r in range(kr) for c in range(n)]
    signs = [copysign(1.0, a[i][i]) for i in range(k)]
    if mode == "r":
        return [], r_out, signs
    kq = m if mode == "complete" else k
    q = [[a[r][c] if c < k else 0.0 for c in range(kq)] for r in range(m)]
    for j in range(k, kq):  # org2r: the columns past the reflectors start as the unit matrix's
        for r in range(m):
            q[r][j] = 1.0 if r == j else 0.0
    for i in range(k - 1, -1, -1):
        if i < kq - 1:
            q[i][i] = 1.0
            _larf(q, [q[r][i] for r in range(i, m)], taus[i], i, i + 1, m, kq)
        if i < m - 1:
            for r in range(i + 1, m):
                q[r][i] *= -taus[i]
        q[i][i] = 1.0 - taus[i]
        for r in range(i):
            q[r][i] = 0.0
    return [x for row in q for x in row], r_out, signs


def qr_grad(q: list, r: list, gq: list, gr: list, m: int, n: int) -> list:
    """linalg_qr_backward for m >= n (Q m x n, R n x n), row-major, in double: gA = [gQ + Q
    copyltu(triu(M))] R^-T, M = gR R^T - Q^T gQ."""
    mm = [sum(gr[i * n + t] * r[j * n + t] for t in range(n)) - sum(q[t * n + i] * gq[t * n + j] for t in range(m))
          for i in range(n) for j in range(n)]
    c = [mm[i * n + j] if j >= i else mm[j * n + i] for i in range(n) for j in range(n)]
    b = [gq[i * n + j] + sum(q[i * n + t] * c[t * n + j] for t in range(n)) for i in range(m) for j in range(n)]
    out = []
    for i in range(m):  # row i of gA: x R^T = b_i, (x R^T)_j = sum_{t >= j} x_t R_jt: back substitution
        x = [0.0] * n
        for j in range(n - 1, -1, -1):
            s = b[i * n + j] - sum(x[t] * r[j * n + t] for t in range(j + 1, n))
            x[j] = div(s, r[j * n + j])
        out.extend(x)
    return out


class QrInfo:
    """What a qr node keeps: ``mode``, the sizes, R's diagonal signs per matrix, the outputs'
    types, and Q and R (``_saved_Q``, ``_saved_R``) once made."""

    __slots__ = ("mode", "m", "n", "signs", "outputs", "outputs_types", "Q", "R", "versions")

    def __init__(self, mode: str, m: int, n: int, signs: list) -> None:
        self.mode, self.m, self.n, self.signs = mode, m, n, signs


@register
class LinalgQr(Op):
    """linalg.qr(A, mode) (LinalgQrBackward0): one node with outputs Q and R; derivative
    ``linalg_qr_backward`` (mode "r" and complete tall matrices: PyTorch's errors)."""

    name = "LinalgQrBackward0"
    saves, saves_inputs = True, False
    saved = (("Q", "c.Q"), ("R", "c.R"), ("mode", "c.mode"))
    api = Api(method="qr", function="qr")

    @staticmethod
    def backward(k, g, v):
        return (k.qr_backward(g, v._c),)

    @staticmethod
    def forward(r, *args):
        """R[0, 0] of a column (the form's default element): minus its norm."""
        return -hypot(*args)

    @staticmethod
    def sympy(sp, *args, at=("R", 0, 0), m=None, signs=None):
        """Element ``at`` of Q or R by Gram-Schmidt on the columns of the m x n matrix ``args``
        (m >= n), column i's sign ``signs[i]``."""
        m = m or len(args)
        n = len(args) // m
        a = sp.Matrix(m, n, list(args))
        signs = signs or [-1] * n
        qs, rr = [], sp.zeros(n, n)
        for j in range(n):
            w = a[:, j]
            for i, qi in enumerate(qs):
                rr[i, j] = (qi.T * a[:, j])[0]
                w = w - rr[i, j] * qi
            rr[j, j] = signs[j] * sp.sqrt((w.T * w)[0])
            qs.append(w / rr[j, j])
        which, i, j = at
        return qs[j][i] if which == "Q" else rr[i, j]
