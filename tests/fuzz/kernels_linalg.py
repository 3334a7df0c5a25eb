"""The kernel rule's entries for LAPACK (``kernels.py``): cholesky, inverse, det and the solves
their backward passes call.

MKL's LAPACK is the processor's: under ``MKL_CBWR=COMPATIBLE`` its Cholesky factor of a matrix
whose factor is exactly representable is off by an ulp, and the signs of the zeros of an inverse
or a triangular solve follow its blocking. The rule writes, into each call, the exact result of
the call's own operands (mpmath at 200 bits, rounded once to the dtype), and the check accepts
a value equal to it, either sign of zero alike: the newer family (``gen_newer.py``) builds its
matrices so that every factor, inverse and gradient is exact, so both libraries must reach the
exact value, and nothing but the sign of a zero is left to the kernel. PyTorch's own values are
reported against a bound of 64 n eps max(1, |exact|).
"""

from __future__ import annotations

import math

import mpmath

from . import libm
from .kernels import Kernel

__all__ = ["linalg_kernels"]


def _mats(t) -> list:
    """The (batch of) matrices of ``t`` as mpmath matrices."""
    x = t.detach().double()
    n, m = x.shape[-2:]
    return [mpmath.matrix(r) for r in x.reshape(-1, n, m).tolist()]


def _lower_symmetric(a):
    n = a.rows
    return mpmath.matrix([[a[max(i, j), min(i, j)] for j in range(n)] for i in range(n)])


def _cholesky(args, kwargs) -> list:
    upper = kwargs.get("upper", args[1] if len(args) > 1 else False)
    out = []
    for a in _mats(args[0]):
        low = mpmath.cholesky(_lower_symmetric(a))
        out.append(low.T if upper else low)
    return out


def _inverse(args, kwargs) -> list:
    return [mpmath.inverse(a) for a in _mats(args[0])]


def _det(args, kwargs) -> list:
    return [mpmath.matrix([[mpmath.det(a)]]) for a in _mats(args[0])]


def _solve_triangular(args, kwargs) -> list:
    upper, left = kwargs["upper"], kwargs.get("left", True)
    unit = kwargs.get("unitriangular", False)
    out = []
    for a, b in zip(_mats(args[0]), _mats(args[1])):
        n = a.rows
        t = mpmath.matrix([[(1 if unit else a[i, j]) if i == j else
                            (a[i, j] if (j > i) == upper else 0) for j in range(n)] for i in range(n)])
        out.append(mpmath.inverse(t) * b if left else b * mpmath.inverse(t))
    return out


def _lu_solve(args, kwargs) -> list:
    left, adjoint = kwargs.get("left", True), kwargs.get("adjoint", False)
    pivots = args[1].reshape(-1, args[1].shape[-1]).tolist()
    out = []
    for lu, piv, b in zip(_mats(args[0]), pivots, _mats(args[2])):
        n = lu.rows
        low = mpmath.matrix([[1 if i == j else (lu[i, j] if j < i else 0) for j in range(n)] for i in range(n)])
        up = mpmath.matrix([[lu[i, j] if j >= i else 0 for j in range(n)] for i in range(n)])
        perm = list(range(n))
        for i, p in enumerate(piv):  # LAPACK's row interchanges, 1-based, in order
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        p = mpmath.matrix([[1 if perm[i] == j else 0 for j in range(n)] for i in range(n)])
        a = p.T * low * up
        a = a.T if adjoint else a
        out.append(mpmath.inverse(a) * b if left else b * mpmath.inverse(a))
    return out


_LAST: dict = {}


def _exact(name, fn, args, kwargs, dt: str) -> list:
    import torch

    key = (name, dt, tuple(tuple(a.reshape(-1).tolist()) for a in args if isinstance(a, torch.Tensor)),
           repr(sorted(kwargs.items())))
    if key not in _LAST:
        _LAST.clear()
        with mpmath.workprec(200):
            _LAST[key] = [libm.round_to(v, dt) for m in fn(args, kwargs) for v in m]
    return _LAST[key]


def _kernel(name: str, fn) -> Kernel:
    def sg_values(sg, args, kwargs):
        return [_exact(name, fn, args, kwargs, str(args[0].dtype).replace("torch.", ""))]

    def check(args, kwargs, k, i, value, dt, shape):
        return value == _exact(name, fn, args, kwargs, dt)[i]  # either sign of zero

    def bound(args, kwargs, k, i, value, dt, shape):
        ref = _exact(name, fn, args, kwargs, dt)[i]
        n = args[0].shape[-1]
        return not math.isnan(value) and abs(value - ref) <= 64 * n * libm.ulp(1.0, dt) * max(1.0, abs(ref))

    return Kernel(name, sg_values, check, torch_check=bound)


def linalg_kernels(torch) -> dict:
    """{ATen op overload: (Kernel, "out")} for the LAPACK kernels the newer family calls."""
    aten = torch.ops.aten
    return {aten.cholesky.default: (_kernel("cholesky", _cholesky), "out"),
            aten.linalg_cholesky_ex.default: (_kernel("cholesky", _cholesky), "out"),
            aten.linalg_inv_ex.default: (_kernel("inverse", _inverse), "out"),
            aten._linalg_det.default: (_kernel("det", _det), "out"),
            aten.linalg_solve_triangular.default: (_kernel("solve_triangular", _solve_triangular), "out"),
            aten.linalg_lu_solve.default: (_kernel("lu_solve", _lu_solve), "out")}
