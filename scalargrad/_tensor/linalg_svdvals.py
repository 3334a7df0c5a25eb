"""``torch.linalg.svdvals``: the singular values of a matrix (or of each in a batch), in
descending order.

Singular values are unique (the vectors are not), but PyTorch's come from LAPACK's gesdd, whose
last bits depend on the processor and the library (a zero singular value of a rank-deficient
matrix comes out as 1e-8 or so). scalargrad computes them machine-independently: mpmath's SVD
(mpmath is SymPy's dependency) at 40 significant digits, each value rounded once to the dtype;
the tests compare with PyTorch within a bound. The gradient (PyTorch's LinalgSvdBackward0, which
needs the singular vectors) is refused by name.
"""

from __future__ import annotations

import math

import mpmath

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .arguments import not_tensor
from .linalg_errors import LinAlgError
from .tensor import Tensor, leaf

__all__ = ["linalg_svdvals"]

_DIGITS = 40


def _singular_values(rows: list, m: int, n: int) -> list:
    """The min(m, n) singular values of the row-major m x n matrix ``rows``, descending."""
    k = min(m, n)
    if not k:
        return []
    with mpmath.workdps(_DIGITS):
        a = mpmath.matrix([[mpmath.mpf(rows[i * n + j]) for j in range(n)] for i in range(m)])
        s = mpmath.svd_r(a, compute_uv=False)
        vals = sorted((float(s[i]) for i in range(k)), reverse=True)
    return vals


def linalg_svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """``torch.linalg.svdvals(A)``: the singular values of each matrix of ``A`` (..., m, n), a
    (..., min(m, n)) tensor of ``A``'s dtype, computed machine-independently (see the module)."""
    if not isinstance(A, Tensor):
        raise not_tensor(A, "linalg_svdvals", "A")
    if out is not None:
        raise Unsupported("torch.linalg.svdvals(out=...)")
    shape = tuple(A._t.shape)
    if len(shape) < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    dt = A._t.dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as input. Got {dt.short}")
    if A._rg and is_grad_enabled():
        raise Unsupported("the gradient of torch.linalg.svdvals (LinalgSvdBackward0, through the singular vectors)")
    vals = A._val
    if any(not math.isfinite(v) for v in vals):
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix contained non-finite "
                          "values.")
    m, n = shape[-2], shape[-1]
    size = m * n
    count = math.prod(shape[:-2])
    out_vals = []
    for b in range(count):
        out_vals.extend(dt.round(v) for v in _singular_values(vals[b * size:(b + 1) * size], m, n))
    return leaf(out_vals, TensorType(dt, shape[:-2] + (min(m, n),)))
