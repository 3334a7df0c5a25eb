"""The upsampling family's elements (``_ops/upsampling.py``): a nearest-upsampled element is a copy of
the input element it reads, and its backward as a node sums the gradients of the outputs that copy
each input element; an interpolated element (linear, bilinear, trilinear, bicubic) is a
``WeightedSumOf`` the input elements its taps read, and its backward one of the gradients of the
outputs reading each input element, with the same weights."""

from __future__ import annotations

from .._ops import upsampling as UP
from .element_op import Const, ElementOp, exact_number, fsum
from .graph import elements_of
from .padding import copies, sums_of_copies

__all__ = ["WeightedSumOf"]


class WeightedSumOf(ElementOp):
    """sum of w_k * a_k with the weights ``c`` (floats, as exact numbers): the op table's
    ``Interpolated.sympy``."""

    name = "weighted sum"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return UP.Interpolated.sympy(sp, [exact_number(sp, w) for w in c], *args)

    @staticmethod
    def value(vals, c):
        terms = [a * w for a, w in zip(vals, c)]
        return fsum(terms), fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        return list(c)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], [0.25, -0.0703125, 0.8203125]


def _interpolated(v, vin, vals):
    u = vin[0]
    n_in = 1
    for s in v._c.in_shape:
        n_in *= s
    return [(WeightedSumOf, ws, tuple((u, i) for i in idx)) for idx, ws in UP.products(list(range(n_in)), v._c, None)]


def _interpolated_backward(v, vin, vals):
    g = vin[0]
    readers: dict = {}
    for o, (idx, ws) in enumerate(UP.products(list(range(len(vals))), v._c, None)):
        for i, w in zip(idx, ws):
            readers.setdefault(i, ([], []))
            readers[i][0].append((g, o))
            readers[i][1].append(w)
    return [(WeightedSumOf, readers[i][1], tuple(readers[i][0])) if i in readers else (Const, 0.0, ())
            for i in range(len(vals))]


elements_of(UP.Nearest, subclasses=True)(copies)
elements_of(UP.NearestBackward, subclasses=True)(sums_of_copies)
elements_of(UP.Interpolated, subclasses=True)(_interpolated)
elements_of(UP.InterpolatedBackward, subclasses=True)(_interpolated_backward)
