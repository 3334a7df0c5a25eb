"""``nn.functional.embedding``, ``embedding_bag`` and ``one_hot`` (re-exported by ``nn.functional``)."""

from __future__ import annotations

import math
import warnings

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import no_grad
from .._tensor import embedding as EMB
from .._tensor.factories import as_tensor, zeros
from .._tensor.joins import stack
from .._tensor.storage import write
from .._tensor.tensor import Tensor, leaf

__all__ = ["embedding", "embedding_bag", "one_hot"]


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


def _bags(input: Tensor, offsets, per_sample_weights, include_last_offset: bool) -> tuple:
    """F.embedding_bag's checks of the bags, in PyTorch's order and words: (indices, [(start, end)], weights)."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        n = input.size(1)
        spans = [(b * n, b * n + n) for b in range(input.size(0))]
        return input.reshape(-1), spans, None if per_sample_weights is None else per_sample_weights.reshape(-1)
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = [int(o) for o in offsets.tolist()]
    if starts and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}\n[ torch.LongTensor{{}} ]")
    if starts and starts[-1] > input.size(0):
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {input.size(0)} but got "
                           f"offsets[-1] of {starts[-1]}")
    ends = starts[1:] + ([] if include_last_offset else [input.size(0)])
    return input, list(zip(starts, ends)), per_sample_weights


def _short_last_bag(mode: str, spans: list, length: int, padding_idx) -> list:
    """ATen with ``include_last_offset`` and offsets[-1] short of the input's end: the last bag sums
    up to offsets[-1], but a mean divides by the elements up to the end and a max runs to the end."""
    if not spans or spans[-1][1] == length or mode == "sum":
        return spans
    if padding_idx is not None:
        raise Unsupported("embedding_bag(include_last_offset=True, padding_idx=...) with offsets[-1] short of the "
                          "input's length", "PyTorch's kernel reads past offsets[-1] there")
    start, end = spans[-1]
    return spans[:-1] + [(start, length if mode == "max" else end)]


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sum, mean or max of each bag of ``weight``'s rows: bags are the rows of a 2-D ``input``, or
    the runs of a 1-D ``input`` starting at ``offsets``; rows at ``padding_idx`` are left out, an empty
    bag gives zeros. Composed of ``embedding`` and reductions, stacked (``StackBackward0``, where
    PyTorch has one node, ``EmbeddingBagBackward0``)."""
    if weight.dtype is dtypes.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    flat, spans, psw = _bags(input, offsets, per_sample_weights, include_last_offset)
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _renorm(weight, flat, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if sparse:
        raise Unsupported("embedding_bag(sparse=True)", "scalargrad has no sparse gradients")
    pad = None if padding_idx is None else padding_idx % weight.size(0)
    ids = [int(i) for i in flat.tolist()]
    out = []
    spans = _short_last_bag(mode, spans, len(ids), pad) if include_last_offset else spans
    for b, (start, end) in enumerate(spans):
        keep = [k for k in range(start, end) if ids[k] != pad]
        if not keep:
            out.append(zeros(weight.size(1), dtype=weight.dtype))
            continue
        rows = embedding(as_tensor([ids[k] for k in keep], dtype=dtypes.int64), weight,
                         scale_grad_by_freq=scale_grad_by_freq)
        if psw is not None:
            rows = rows * psw.index_select(0, as_tensor(keep, dtype=dtypes.int64)).unsqueeze(1)
        if mode == "max":
            out.append(rows.max(0).values)
        else:
            total = rows.sum(0)
            short = include_last_offset and b == len(spans) - 1 and end != len(ids)
            count = len(ids) - start if short else len(keep)
            out.append(total / count if mode == "mean" else total)
    if not out:
        return zeros(0, weight.size(1), dtype=weight.dtype)
    return stack(out, 0)
