"""The scans family's elements (``_ops/scans.py``): ``prod`` is a ``ProdOf`` of its group; each
element of ``cumsum``/``cumprod`` the sum/product of its slice up to it."""

from __future__ import annotations

from .._base.layout import slices
from .._ops import scans as SC
from .element_op import ElementOp
from .graph import elements_of
from .reductions import LogsumexpOf, SumOf, reduction

__all__ = ["ProdOf"]


class ProdOf(ElementOp):
    """A product of input elements (``prod``, ``cumprod``): the op table's ``Prod.sympy``;
    each partial is the product of the other elements."""

    name = "prod"

    @staticmethod
    def sympy(sp, args, c):
        return SC.Prod.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        p = 1.0
        for x in vals:
            p *= x
        return p, abs(p)

    @staticmethod
    def partials(vals, c):
        out = []
        for i in range(len(vals)):
            p = 1.0
            for j, x in enumerate(vals):
                if j != i:
                    p *= x
            out.append(p)
        return out


def _prod(v, vin, vals):
    return [(ProdOf, None, spec[2]) for spec in reduction(ProdOf)(v, vin, vals)]


def _scan(elem_op):
    def build(v, vin, vals):
        u = vin[0]
        spec = [None] * len(vals)
        shape = tuple(v._c.in_shape)
        for s in (slices(shape, v._c.dim) if shape else [[0]]):
            for k, i in enumerate(s):
                spec[i] = (elem_op, None, tuple((u, j) for j in s[:k + 1]))
        return spec

    return build


elements_of(SC.Prod, SC.ProdDim)(_prod)
elements_of(SC.Cumsum)(_scan(SumOf))
elements_of(SC.Cumprod)(_scan(ProdOf))
elements_of(SC.Logcumsumexp)(_scan(LogsumexpOf))
