"""Triangular systems on tensors (``_ops/linalg_triangular.py``): ``torch.linalg.solve_triangular``
(LinalgSolveTriangularBackward0), each X computed by substitution in double, rounded to the dtype.
Batch dimensions broadcast; refused by name: the gradient of an input whose batch dimensions were
broadcast, A and B of different dtypes, double backwards."""

from __future__ import annotations

import math

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.layout import column_major_strides
from .._ops import linalg_triangular as TS
from .operands import broadcast_shapes, positions
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper
from .views import expand

__all__ = ["solve_triangular"]


def _matrices(x: Tensor, batch: tuple) -> list:
    """The row-major matrices of ``x`` with its batch dimensions broadcast to ``batch``."""
    shape = tuple(x._t.shape)
    size = shape[-1] * shape[-2]
    own = shape[:-2]
    vals = x._val
    return [vals[p * size:(p + 1) * size] for p in positions(own, batch)] if batch else [vals]


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None) -> Tensor:
    """``torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)``: X with
    T X = B (``left``) or X T = B, T the ``upper`` or lower triangle of each n x n matrix of A
    (ones on its diagonal with ``unitriangular``). X is column-major, as LAPACK writes it."""
    for pos, (arg, x) in enumerate((("A", A), ("B", B)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"linalg_solve_triangular(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if out is not None:
        raise Unsupported("torch.linalg.solve_triangular(out=...)")
    for arg, x in (("A", A), ("B", B)):
        if x._t.ndim < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {arg} must have at least 2 dimensions.")
    n, m = A._t.shape[-2:]
    if n != m:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are {n} by {m} "
                           "matrices")
    rows, cols = B._t.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})")
    dt = A._t.dtype
    if not dt.is_floating_point or dt.itemsize < 4:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{dt.short}'")
    if B._t.dtype is not dt:  # PyTorch's result then has A's dtype, B cast unrecorded: not followed
        raise Unsupported("linalg.solve_triangular of A and B of different dtypes")
    batch = broadcast_shapes(tuple(A._t.shape[:-2]), tuple(B._t.shape[:-2]))
    if is_grad_enabled() and any(x._rg and tuple(x._t.shape[:-2]) != batch for x in (A, B)):
        raise Unsupported("the gradient of linalg.solve_triangular with broadcast batch dimensions")
    if tuple(A._t.shape[:-2]) != batch:
        A = expand(A, *(batch + (n, n)))
    if tuple(B._t.shape[:-2]) != batch:
        B = expand(B, *(batch + (rows, cols)))
    out_vals = []
    for a, b in zip(_matrices(A, batch), _matrices(B, batch)):
        out_vals.extend(dt.round(x) for x in TS.tri_solve(a, b, n, rows, cols, upper, left, unitriangular))
    shape = batch + (rows, cols)
    c = TS.TriangularInfo(bool(upper), bool(left), bool(unitriangular), n, rows, cols)
    return make(TS.LinalgSolveTriangular, TensorType(dt, shape, column_major_strides(shape)), out_vals, (A, B), c)


@helper
def solve_triangular_backward(g, a: Tensor, x: Tensor, c) -> tuple:
    """(gA, gB) per system, in double from A, X and grad, rounded once."""
    dt = x._t.dtype
    n, rows, cols = c.n, c.rows, c.cols
    gv = g._val if isinstance(g, Tensor) else [g]
    av, xv = a._val, x._val
    ga, gb = [], []
    for b in range(math.prod(x._t.shape[:-2])):
        sa, sx = slice(b * n * n, (b + 1) * n * n), slice(b * rows * cols, (b + 1) * rows * cols)
        pa, pb = TS.tri_solve_grads(av[sa], xv[sx], gv[sx], n, rows, cols, c.upper, c.left, c.unitriangular)
        ga.extend(dt.round(v) for v in pa)
        gb.extend(dt.round(v) for v in pb)
    return leaf(ga, TensorType(dt, tuple(a._t.shape))), leaf(gb, TensorType(dt, tuple(x._t.shape)))


def _no_double_backward(g, a, x, c):
    raise Unsupported("the double backward of linalg.solve_triangular (create_graph=True through "
                      "LinalgSolveTriangularBackward0)")


graph_helper("solve_triangular_backward", _no_double_backward)
