"""embedding and its backward on tensors, as ATen's CPU kernels compute them.

The forward copies rows (``index_select``). The backward (``embedding_dense_backward_cpu``)
starts from zeros and adds, for each index in order but the padding ones, the gradient's row
into the picked weight row: ``add_(grad_row, alpha=scale)``, a plain addition for scale 1 and
one fused multiply-add per element for scale_grad_by_freq's ``1 / count``.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.kernel_order import fma
from .._ops import embedding as EM
from .fill import masked_fill
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper

__all__ = ["embedding", "dense_backward", "double_backward"]


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)``."""
    if indices._t.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead (while checking arguments for embedding)")
    if weight._t.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    num, dim = weight._t.shape
    rows = [int(i) for i in (indices._val if indices._t.ndim else [indices._val])]
    for i in rows:
        if not -num <= i < num:
            raise IndexError("index out of range in self")
    rows = [i % num if num else i for i in rows]
    wv = weight._val
    vals = [wv[i * dim + j] for i in rows for j in range(dim)]
    shape = tuple(indices._t.shape) + (dim,)
    c = EM.EmbeddingRows(rows, num, dim, padding_idx, bool(scale_grad_by_freq), bool(sparse), indices)
    return make(EM.Embedding, TensorType(weight._t.dtype, shape), vals, (weight,), c)


def dense_backward(g: Tensor, c: EM.EmbeddingRows) -> Tensor:
    """The weight's gradient: a node of its own under create_graph."""
    dt = g._t.dtype
    r = dt.round
    f32 = dt is dtypes.float32
    fused = f32 or dt is dtypes.float64
    dim = c.dim
    gv = g._val if g._t.ndim else [g._val]
    out = [0.0] * (c.num_weights * dim)
    counts: dict = {}
    if c.scale_grad_by_freq:
        for k in c.rows:
            counts[k] = counts.get(k, 0) + 1
    for i, k in enumerate(c.rows):
        if k == c.padding_idx:
            continue
        base, src = k * dim, i * dim
        if c.scale_grad_by_freq and counts[k] != 1:
            scale = r(1.0 / counts[k])
            for j in range(dim):
                out[base + j] = fma(gv[src + j], scale, out[base + j], f32) if fused else \
                    r(out[base + j] + scale * gv[src + j])
        else:
            for j in range(dim):
                out[base + j] = r(out[base + j] + gv[src + j])
    return make(EM.EmbeddingDenseBackward, TensorType(dt, (c.num_weights, dim)), out, (g,), c)


def double_backward(gg: Tensor, c: EM.EmbeddingRows) -> Tensor:
    """embedding_dense_double_backward: the picked rows of ``gg``, zero at the padding index."""
    y = embedding(gg, c.indices, c.padding_idx)
    if c.padding_idx >= 0 and c.padding_idx in c.rows:
        mask = [k == c.padding_idx for k in c.rows for _ in range(c.dim)]
        y = masked_fill(y, leaf(mask, TensorType(dtypes.bool, tuple(y._t.shape))), 0.0, False)
    return y


helper(dense_backward, name="embedding_backward")
helper(double_backward, name="embedding_double_backward")
