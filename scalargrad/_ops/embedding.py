"""embedding: rows of a weight picked by indices, and the backward that adds the gradient's rows
back into a weight-shaped gradient (``embedding_dense_backward``).

The node's ``_c`` is an ``EmbeddingRows``: the flat indices, the weight's shape, padding_idx,
scale_grad_by_freq, and the indices tensor PyTorch saves. The tensor layer computes the values
(``_tensor/embedding.py``).
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["EmbeddingRows", "Embedding", "EmbeddingDenseBackward", "EMBEDDING_OPS"]


class EmbeddingRows:
    """What an embedding node keeps."""

    __slots__ = ("rows", "num_weights", "dim", "padding_idx", "scale_grad_by_freq", "sparse", "indices")

    def __init__(self, rows, num_weights: int, dim: int, padding_idx: int, scale_grad_by_freq: bool, sparse: bool,
                 indices) -> None:
        self.rows = rows  # the index of each picked row, in order
        self.num_weights = num_weights
        self.dim = dim
        self.padding_idx = padding_idx  # -1: none
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        self.indices = indices

    @property
    def padding_idx_saved(self) -> int:
        """PyTorch shows the saved SymInt as an unsigned 64-bit number (-1 is 18446744073709551615)."""
        return self.padding_idx % (1 << 64)


@register
class Embedding(Op):
    """embedding(weight, indices): output row i is weight row indices[i]."""

    name, saves_inputs = "EmbeddingBackward0", False
    saved = (("indices", "c.indices"), ("padding_idx", "c.padding_idx_saved"),
             ("scale_grad_by_freq", "c.scale_grad_by_freq"), ("sparse", "c.sparse"),
             ("weight_sym_argsize_0", "c.num_weights"))
    # weight: embedding_backward(grad, indices, weight.sym_size(0), padding_idx, scale_grad_by_freq, sparse)
    backward = staticmethod(lambda k, g, v: (k.embedding_backward(g, v._c),))

    @staticmethod
    def sympy(sp, a):
        return a  # each output element is one weight element


@register
class EmbeddingDenseBackward(Op):
    """embedding_dense_backward(grad, indices, ...): each weight row gets the sum of the gradient
    rows that picked it (each scaled by 1 / its count with scale_grad_by_freq), in index order;
    the padding row gets none."""

    name, saves_inputs = "EmbeddingDenseBackwardBackward0", False
    saved = (("indices", "c.indices"), ("padding_idx", "c.padding_idx_saved"))
    # grad_output: embedding_dense_double_backward(grad, indices, padding_idx): the picked rows
    backward = staticmethod(lambda k, g, v: (k.embedding_double_backward(g, v._c),))

    @staticmethod
    def sympy(sp, *picked_and_scales):
        """Sum of picked gradient elements, each times its scale (pairs (g, s))."""
        return sp.Add(*[g * s for g, s in zip(picked_and_scales[0::2], picked_and_scales[1::2])])


EMBEDDING_OPS = [Embedding, EmbeddingDenseBackward]
