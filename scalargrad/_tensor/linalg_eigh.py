"""``torch.linalg.eigvalsh`` and ``torch.linalg.matrix_rank``: the eigenvalues of symmetric
matrices (``_ops/linalg_eigh.py``: mpmath's Jacobi method at 40 digits, rounded once, the same
on every machine; LinalgEighBackward0) and the rank, counted from singular values (or, with
``hermitian``, the eigenvalues' magnitudes) above the tolerance, as ATen composes it.

``linalg.eigh`` (the eigenvectors, whose signs LAPACK picks by processor-dependent arithmetic)
is not provided: it raises ``Unsupported`` by name, as every missing linalg function does.
"""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import no_grad
from .._ops import linalg_eigh as EH
from .arguments import not_tensor
from .linalg_svdvals import linalg_svdvals
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["eigvalsh", "matrix_rank"]


def _check_square(A: Tensor, what: str) -> None:
    if A._t.ndim < 2:
        raise RuntimeError(f"{what}: The input tensor A must have at least 2 dimensions.")
    m, n = A._t.shape[-2:]
    if m != n:
        raise RuntimeError(f"{what}: A must be batches of square matrices, but they are {m} by {n} matrices")


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """``torch.linalg.eigvalsh(A, UPLO='L')``: the eigenvalues, ascending, of each symmetric
    matrix of ``A`` (..., n, n) as its ``UPLO`` triangle spells it; a LinalgEighBackward0 node
    under grad. A matrix with a nan or an infinity is refused by name (LAPACK's result there is
    unspecified)."""
    if not isinstance(A, Tensor):
        raise not_tensor(A, "linalg_eigvalsh", "A")
    if out is not None:
        raise Unsupported("torch.linalg.eigvalsh(out=...)")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_square(A, "linalg.eigh")
    dt = A._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{dt.short}\'')
    shape = tuple(A._t.shape)
    n = shape[-1]
    vals = A._val
    if any(not math.isfinite(v) for v in vals):
        raise Unsupported("linalg.eigvalsh of a matrix with a nan or an infinity (LAPACK's result there is "
                          "unspecified)")
    count = math.prod(shape[:-2])
    size = n * n
    values, vectors = [], []
    for b in range(count):
        e, v = EH.symmetric_eigen(vals[b * size:(b + 1) * size], n, UPLO == "U")
        values.extend(dt.round(x) for x in e)
        vectors.append(v)
    t = TensorType(dt, shape[:-1])
    c = EH.EighInfo(n, UPLO == "U", vectors)
    y = make(EH.LinalgEigh, t, values, (A,), c)
    if y.grad_fn is not None:  # PyTorch computes the eigenvectors only for the gradient
        c.V = leaf([dt.round(x) for v in vectors for x in v], TensorType(dt, shape))
    return y


@helper
def eigh_backward(g, c) -> Tensor:
    """``V diag(grad) V^T`` per matrix, from the eigenvectors in double, rounded once."""
    n = c.n
    dt = c.V._t.dtype
    gs = g._val if isinstance(g, Tensor) else g
    gs = gs if isinstance(gs, list) else [gs]
    out = []
    for b, vecs in enumerate(c.vectors):
        out.extend(dt.round(x) for x in EH.eigh_grad(vecs, gs[b * n:(b + 1) * n], n))
    return leaf(out, TensorType(dt, tuple(c.V._t.shape)))


def _no_eigh_double_backward(g, c):
    raise Unsupported("the double backward of linalg.eigvalsh (create_graph=True through LinalgEighBackward0)")


graph_helper("eigh_backward", _no_eigh_double_backward)


_EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}


def _tolerance(x, name: str):
    """A tolerance given as a number or a 0-dim real tensor, as a float (None stays None)."""
    if x is None:
        return None
    if isinstance(x, Tensor):
        if x._t.ndim:
            raise Unsupported(f"torch.linalg.matrix_rank with a tensor {name} of dimensions (broadcast tolerances)")
        return float(x.item())
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"linalg_matrix_rank(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return float(x)


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None) -> Tensor:
    """``torch.linalg.matrix_rank(A, *, atol=None, rtol=None, hermitian=False)`` (and the older
    ``(A, tol, hermitian=False)``, tol an absolute tolerance): per matrix, the number of singular
    values (``hermitian``: |eigenvalues| of the lower triangle's symmetric matrix) above
    max(atol, rtol * the largest), rtol by default eps * max(m, n) unless atol > 0; int64. An
    empty matrix has rank 0."""
    if not isinstance(A, Tensor):
        raise not_tensor(A, "linalg_matrix_rank", "input")
    if out is not None:
        raise Unsupported("torch.linalg.matrix_rank(out=...)")
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg_matrix_rank() received an invalid combination of arguments (tol with atol or "
                            "rtol)")
        atol, rtol = tol, 0.0
    atol, rtol = _tolerance(atol, "atol"), _tolerance(rtol, "rtol")
    if A._t.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    dt = A._t.dtype
    if dt.name not in _EPS:
        raise RuntimeError("This function doesn't handle types other than float and double")
    shape = tuple(A._t.shape)
    m, n = shape[-2:]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else _EPS[dt.name] * max(m, n)
    atol = 0.0 if atol is None else atol
    batch = shape[:-2]
    if not A._t.numel:
        return leaf([0] * math.prod(batch) if batch else 0, TensorType(dtypes.int64, batch))
    with no_grad():  # the rank has no gradient: no node for the values it counts
        s = eigvalsh(A) if hermitian else linalg_svdvals(A)
    k = s._t.shape[-1]
    vals = [abs(v) for v in s._val]
    r = dt.round
    ranks = []
    for b in range(len(vals) // k):
        row = vals[b * k:(b + 1) * k]
        cut = max(r(atol), r(r(rtol) * max(row)))
        ranks.append(sum(1 for v in row if v > cut))
    return leaf(ranks if batch else ranks[0], TensorType(dtypes.int64, batch))
