"""The pooling family's elements (``_ops/pooling.py``): max pooling picks one element per window,
average pooling is a ``WindowMeanOf`` its window, and its backward spreads each gradient over the
window that read it (``WindowSpreadOf``)."""

from __future__ import annotations

from .._ops import pooling as PO
from .element_op import Const, ElementOp, Same, fsum
from .graph import elements_of

__all__ = ["WindowMeanOf", "WindowSpreadOf"]


class WindowMeanOf(ElementOp):
    """An element of avg_pool2d: its window's sum over the divisor ``c`` (an int), the op
    table's ``AvgPool2d.sympy``."""

    name = "window mean"
    c_kind = "number"

    @staticmethod
    def sympy(sp, args, c):
        return PO.AvgPool2d.sympy(sp, c, *args)

    @staticmethod
    def value(vals, c):
        return fsum(vals) / c, fsum([abs(x) for x in vals]) / c

    @staticmethod
    def partials(vals, c):
        return [1.0 / c] * len(vals)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 4


class WindowSpreadOf(ElementOp):
    """An element of avg_pool2d's backward: the gradients of the windows that read it, each over
    its window's divisor (``c``, a list of ints), the op table's ``AvgPool2dBackward.sympy``."""

    name = "window spread"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return PO.AvgPool2dBackward.sympy(sp, *[z for a, d in zip(args, c) for z in (a, sp.Integer(d))])

    @staticmethod
    def value(vals, c):
        terms = [a / d for a, d in zip(vals, c)]
        return fsum(terms), fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        return [1.0 / d for d in c]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], [4, 2, 3]


def _max_pool(v, vin, vals):
    u = vin[0]
    return [(Same, None, ((u, p),)) for p in v._c.picked]


def _avg_pool(v, vin, vals):
    u = vin[0]
    return [(WindowMeanOf, d, tuple((u, i) for i in window)) for window, d in zip(v._c.windows, v._c.divisors)]


def _avg_pool_backward(v, vin, vals):
    g = vin[0]
    readers: dict = {}
    for o, window in enumerate(v._c.windows):
        for i in window:
            readers.setdefault(i, []).append(o)
    divisors = v._c.divisors
    spec = []
    for i in range(len(vals)):
        outs = readers.get(i)
        if not outs:
            spec.append((Const, 0.0, ()))
        else:
            spec.append((WindowSpreadOf, [divisors[o] for o in outs], tuple((g, o) for o in outs)))
    return spec


elements_of(PO.MaxPool2d, PO.AdaptiveMaxPool2d, subclasses=True)(_max_pool)
elements_of(PO.AvgPool2d, PO.AdaptiveAvgPool2d, subclasses=True)(_avg_pool)
elements_of(PO.AvgPool2dBackward, PO.AdaptiveAvgPool2dBackward, subclasses=True)(_avg_pool_backward)


def _unpool(v, vin, vals):
    """max_unpool: each output element the input element written there last, or zero."""
    x = vin[0]
    last = {at: k for k, at in enumerate(v._c.map)}
    return [(Same, None, ((x, last[j]),)) if j in last else (Const, vals[j], ()) for j in range(len(vals))]


elements_of(PO.MaxUnpool, subclasses=True)(_unpool)
