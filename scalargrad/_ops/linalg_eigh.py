"""The symmetric eigenproblem (``linalg.eigvalsh``): one LinalgEighBackward0 node whose value is
the eigenvalues, ascending, of the symmetric matrix one triangle of A spells (UPLO 'L': the
lower, as LAPACK's syevd reads it).

PyTorch's come from LAPACK, whose last bits depend on the processor and the library; here they
come from mpmath's Jacobi method at 40 significant digits (mpmath is SymPy's dependency), each
rounded once to the dtype, the same on every machine. The derivative (FunctionsManual's
``linalg_eig_backward``, hermitian, eigenvalues alone) is ``V diag(grad) V^T``: a full
symmetric matrix whatever triangle was read, so A_ij and A_ji share it. An element's SymPy
form is therefore the eigenvalue of (A + A^T) / 2, whose partials are that gradient (closed form
for 1 x 1 and 2 x 2 matrices, the sizes the proof samples).
"""

from __future__ import annotations

import math
from math import isqrt

import mpmath

from .table import Op, register

__all__ = ["symmetric_eigen", "eigh_grad", "EighInfo", "LinalgEigh"]

_DIGITS = 40


def symmetric_eigen(vals: list, n: int, upper: bool = False) -> tuple:
    """(eigenvalues ascending, eigenvectors row-major with one eigenvector per column), in double,
    of the symmetric n x n matrix the lower (``upper``: upper) triangle of row-major ``vals``
    spells."""
    if not n:
        return [], []

    def element(i, j):
        if (i >= j) != upper or i == j:
            return vals[i * n + j]
        return vals[j * n + i]

    with mpmath.workdps(_DIGITS):
        a = mpmath.matrix([[mpmath.mpf(element(i, j)) for j in range(n)] for i in range(n)])
        e, q = mpmath.eigsy(a)
        order = sorted(range(n), key=lambda k: e[k])
        values = [float(e[k]) for k in order]
        vectors = [float(q[i, k]) for i in range(n) for k in order]
    return values, vectors


def eigh_grad(vectors: list, g: list, n: int) -> list:
    """``V diag(g) V^T`` row-major (derivatives.yaml's linalg_eigh with the eigenvalues'
    gradient alone), each element an exact sum rounded once to double."""
    return [math.fsum(vectors[i * n + k] * g[k] * vectors[j * n + k] for k in range(n))
            for i in range(n) for j in range(n)]


class EighInfo:
    """What an eigh node keeps: the order ``n``, ``upper`` (UPLO 'U'), each matrix's eigenvectors
    in double, and the eigenvectors tensor (``_saved_eigenvectors``)."""

    __slots__ = ("n", "upper", "vectors", "V")

    def __init__(self, n: int, upper: bool, vectors: list) -> None:
        self.n, self.upper, self.vectors, self.V = n, upper, vectors, None


@register
class LinalgEigh(Op):
    """linalg.eigvalsh(A, UPLO) (LinalgEighBackward0): the eigenvalues of each symmetric matrix,
    ascending. Derivative: ``V diag(grad) V^T``."""

    name = "LinalgEighBackward0"
    saves, saves_inputs, saves_output = True, False, True
    saved = (("eigenvalues", "result"), ("eigenvectors", "c.V"))
    backward = staticmethod(lambda k, g, v: (k.eigh_backward(g, v._c),))

    @staticmethod
    def forward(r, *args):
        """The smallest eigenvalue of the symmetric part (the form's default element)."""
        n = isqrt(len(args))
        sym = [(args[i * n + j] + args[j * n + i]) * 0.5 for i in range(n) for j in range(n)]
        return symmetric_eigen(sym, n)[0][0]

    @staticmethod
    def sympy(sp, *args, at=0):
        """Eigenvalue ``at`` (ascending) of (A + A^T) / 2, A's elements row-major; 1 x 1 and 2 x 2."""
        n = isqrt(len(args))
        if n == 1:
            return args[0]
        if n != 2:
            raise NotImplementedError("the SymPy form of an eigenvalue: 1 x 1 and 2 x 2 matrices")
        a, d, b = args[0], args[3], (args[1] + args[2]) / 2
        root = sp.sqrt(((a - d) / 2) ** 2 + b ** 2)
        return (a + d) / 2 + (root if at else -root)
