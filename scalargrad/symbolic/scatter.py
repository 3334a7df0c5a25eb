"""The scatter family's elements (``_ops/scatter.py``): each element of ``scatter``,
``index_add``, ``masked_scatter``... is self's, the src element written there last, or (adding)
self's plus the writes."""

from __future__ import annotations

from .._ops import scatter as W
from .._ops import views as S
from .._tensor.operands import positions
from .element_op import Const, ElementOp, Same
from .embedding import ScaledSumOf
from .graph import elements_of, expanded_always
from .reductions import MaxOf, MeanOf, MinOf, SumOf
from .scans import ProdOf

__all__ = ["LastOf"]


class LastOf(ElementOp):
    """An element written more than once (scatter or index_copy with a repeated index): the
    last write's element. PyTorch's derivative (grad.gather, grad.index_select) gives every
    element written there the gradient, a convention where calculus gives the earlier ones 0."""

    name = "last write"

    @staticmethod
    def sympy(sp, args, c):
        return S.Structural.sympy(sp, args[-1])

    @staticmethod
    def value(vals, c):
        return vals[-1], abs(vals[-1])

    @staticmethod
    def partials(vals, c):
        return [1.0] * len(vals)

    @staticmethod
    def convention(vals, c):
        if len(vals) > 1:
            return (f"{len(vals)} elements are written to one place (a repeated index); PyTorch gives each of them "
                    "that place's gradient (grad.gather / grad.index_select), calculus only the last one", None)
        return None

    @staticmethod
    def sample():
        return [0.75], None


_REDUCED = {"add": SumOf, "sum": SumOf, "multiply": ProdOf, "prod": ProdOf, "mean": MeanOf, "amax": MaxOf,
            "max": MaxOf, "amin": MinOf, "min": MinOf}


def _written(v, vin, vals):
    """scatter, index_add, masked_scatter...: each element is self's, or the src element
    written there last, or (scatter_add, index_add) self's plus the writes times alpha."""
    op = v._op.base
    c = v._c
    old = vin[0]
    src = vin[1] if len(vin) > 1 else None
    at: dict = {}
    for dest, k in c.map:
        at.setdefault(dest, []).append(k)
    alpha = c.raw.get("alpha", 1) if c.raw else 1
    reduce = c.raw.get("reduce") if c.raw else None  # scatter(..., reduce=) and scatter_reduce
    include_self = c.raw.get("include_self", True) if c.raw else True  # scatter_reduce's: self among the terms
    spec = []
    # self's element at each output position (out-of-place masked_scatter broadcasts self)
    out_shape = tuple(v._t.shape)
    mine = positions(c.in_shape, out_shape) if tuple(c.in_shape) != out_shape else range(len(vals))
    for j in range(len(vals)):
        ks = at.get(j)
        if not ks:
            spec.append((Same, None, ((old, mine[j]),)))
        elif reduce is not None:
            if src is None:
                spec.append((Const, vals[j], ((old, mine[j]),)))  # self and a number: its value, a constant
            else:
                mine_in = ((old, mine[j]),) if include_self else ()
                spec.append((_REDUCED[reduce], None, mine_in + tuple((src, k) for k in ks)))
        elif op.accumulate:
            ins = ((old, mine[j]),) + tuple((src, k) for k in ks)
            if alpha == 1:
                spec.append((SumOf, None, ins))
            else:
                spec.append((ScaledSumOf, [1.0] + [float(alpha)] * len(ks), ins))
        elif src is None:
            spec.append((Const, vals[j], ((old, mine[j]),)))
        elif len(set(ks)) == 1:  # index_fill's value, maybe filled in twice: the element is the value
            spec.append((Same, None, ((src, ks[0]),)))
        else:
            spec.append((LastOf, None, tuple((src, k) for k in ks)))
    return spec


elements_of(W.Written, subclasses=True)(_written)
expanded_always(W.Written)
