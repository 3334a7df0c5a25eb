"""``nn.functional.embedding`` and ``one_hot`` (re-exported by ``nn.functional``)."""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import no_grad
from .._tensor import embedding as EMB
from .._tensor.storage import write
from .._tensor.tensor import Tensor, leaf

__all__ = ["embedding", "one_hot"]


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` picked by the indices ``input`` (an EmbeddingBackward0 node); the
    padding row gets no gradient; ``max_norm`` renormalises the picked rows in place first."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise Unsupported("embedding(sparse=True)", "scalargrad has no sparse gradients")
    if max_norm is not None:
        _renorm(weight, input, max_norm, norm_type)
    return EMB.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _renorm(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """``torch.embedding_renorm_``: each picked row whose norm exceeds max_norm is scaled by
    max_norm / (norm + 1e-7), in place, outside the graph."""
    dt = weight._t.dtype
    num, dim = weight._t.shape
    vals = list(weight._val)
    rows = sorted({int(i) % num for i in (indices._val if indices._t.ndim else [indices._val])})
    for k in rows:
        row = vals[k * dim:(k + 1) * dim]
        norm = _norm(row, norm_type)
        if norm > max_norm:
            scale = dt.round(max_norm / (norm + 1e-7))
            vals[k * dim:(k + 1) * dim] = [dt.round(x * scale) for x in row]
    with no_grad():
        write(weight, vals)


def _norm(row: list, p: float) -> float:
    if p == math.inf:
        return max(abs(x) for x in row)
    if p == 0:
        return float(sum(1 for x in row if x != 0))
    if p == 1:
        return math.fsum(abs(x) for x in row)
    if p == 2:
        return math.sqrt(math.fsum(x * x for x in row))
    return math.fsum(abs(x) ** p for x in row) ** (1.0 / p)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """A LongTensor of ``tensor``'s shape plus a last dimension of ``num_classes``: 1 at each index."""
    if not isinstance(tensor, Tensor) or tensor._t.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    vals = tensor._val if tensor._t.ndim else [tensor._val]
    if num_classes == -1:
        if not vals:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = max(vals) + 1
    if any(v < 0 for v in vals):
        raise RuntimeError("Class values must be non-negative.")
    if any(v >= num_classes for v in vals):
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = [1 if j == v else 0 for v in vals for j in range(num_classes)]
    return leaf(out, TensorType(dtypes.int64, tuple(tensor._t.shape) + (num_classes,)))
