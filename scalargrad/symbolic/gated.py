"""The gated family's elements (``_ops/gated.py``): each element of glu is a ``GluOf`` its two
input elements ``a`` and ``b``: ``a * sigmoid(b)``."""

from __future__ import annotations

import math

from .._ops import gated as GA
from .element_op import ElementOp
from .graph import elements_of

__all__ = ["GluOf"]


def _sigmoid(b: float) -> float:
    return 1.0 / (1.0 + math.exp(-b)) if b >= 0 else math.exp(b) / (1.0 + math.exp(b))


class GluOf(ElementOp):
    """``a * sigmoid(b)`` (the op table's ``Glu.sympy``)."""

    name = "glu"

    @staticmethod
    def sympy(sp, args, c):
        return GA.Glu.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        a, b = vals
        v = a * _sigmoid(b)
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        a, b = vals
        s = _sigmoid(b)
        return [s, (1.0 - s) * s * a]

    @staticmethod
    def sample():
        return [0.75, -1.25], None


def _glu(v, vin, vals):
    (x,) = vin
    return [(GluOf, None, ((x, a), (x, b))) for a, b in v._c.pairs]


elements_of(GA.Glu)(_glu)
