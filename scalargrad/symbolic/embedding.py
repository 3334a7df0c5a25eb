"""The embedding family's elements (``_ops/embedding.py``): each output element is one weight
element (``EmbeddingPickOf`` where PyTorch's derivative is a convention); each element of the
dense backward is the sum of the gradients of its picks (``ScaledSumOf`` when scaled by frequency)."""

from __future__ import annotations

from .._ops import embedding as EM
from .element_op import Const, ElementOp, Same, exact_number, fsum
from .graph import elements_of
from .reductions import SumOf

__all__ = ["EmbeddingPickOf", "ScaledSumOf"]


class EmbeddingPickOf(ElementOp):
    """An element of embedding's output: one weight element (the identity form). PyTorch's
    backward departs from calculus twice, as conventions: the padding row gets no gradient,
    and with scale_grad_by_freq each pick's gradient is divided by its row's count. ``c`` is
    (scale, padded)."""

    name = "embedding"
    c_kind = "object"
    variadic = False

    @staticmethod
    def sympy(sp, args, c):
        return EM.Embedding.sympy(sp, args[0])

    @staticmethod
    def value(vals, c):
        return vals[0], abs(vals[0])

    @staticmethod
    def partials(vals, c):
        scale, padded = c
        return [0.0 if padded else scale]

    @staticmethod
    def convention(vals, c):
        scale, padded = c
        if padded:
            return ("embedding: PyTorch gives the padding_idx row no gradient", None)
        if scale != 1.0:
            return (f"embedding: scale_grad_by_freq divides the gradient of each pick of a row by the row's count "
                    f"(here x{scale:g})", None)
        return None

    @staticmethod
    def sample():
        return [0.75], (1.0, False)


class ScaledSumOf(ElementOp):
    """A sum of input elements each times its scale (``c``, a list): embedding's backward with
    scale_grad_by_freq, the op table's ``EmbeddingDenseBackward.sympy``."""

    name = "scaled sum"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return EM.EmbeddingDenseBackward.sympy(sp, *[z for a, w in zip(args, c) for z in (a, exact_number(sp, w))])

    @staticmethod
    def value(vals, c):
        terms = [a * w for a, w in zip(vals, c)]
        return fsum(terms), fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        return list(c)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], [1.0, 0.5, 0.25]


def _embedding(v, vin, vals):
    w = vin[0]
    c = v._c
    counts: dict = {}
    for k in c.rows:
        counts[k] = counts.get(k, 0) + 1
    spec = []
    for k in c.rows:
        scale = 1.0 / counts[k] if c.scale_grad_by_freq else 1.0
        if k == c.padding_idx or scale != 1.0:
            spec.extend((EmbeddingPickOf, (scale, k == c.padding_idx), ((w, k * c.dim + j),)) for j in range(c.dim))
        else:
            spec.extend((Same, None, ((w, k * c.dim + j),)) for j in range(c.dim))
    return spec


def _embedding_backward(v, vin, vals):
    g = vin[0]
    c = v._c
    counts: dict = {}
    for k in c.rows:
        counts[k] = counts.get(k, 0) + 1
    sources: dict = {}
    for i, k in enumerate(c.rows):
        if k != c.padding_idx:
            sources.setdefault(k, []).append(i)
    spec = []
    for k in range(c.num_weights):
        rows = sources.get(k)
        for j in range(c.dim):
            if not rows:
                spec.append((Const, 0.0, ()))
            elif c.scale_grad_by_freq:
                spec.append((ScaledSumOf, [1.0 / counts[k]] * len(rows), tuple((g, i * c.dim + j) for i in rows)))
            elif len(rows) == 1:
                spec.append((Same, None, ((g, rows[0] * c.dim + j),)))
            else:
                spec.append((SumOf, None, tuple((g, i * c.dim + j) for i in rows)))
    return spec


elements_of(EM.Embedding)(_embedding)
elements_of(EM.EmbeddingDenseBackward)(_embedding_backward)
