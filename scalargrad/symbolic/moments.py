"""The moments family's elements (``_ops/moments.py``): each element of ``var``/``std`` is a
``MomentOf`` of its group; var_mean's/std_mean's node holds its first output's ``MomentOf``
elements, then its second's ``MeanOf``."""

from __future__ import annotations

import math

from .._base import ieee
from .._ops import moments as MO
from .element_op import ElementOp, fsum
from .graph import elements_of
from .reductions import MeanOf, reduction

__all__ = ["MomentOf"]


class MomentOf(ElementOp):
    """The variance (``c`` = (shift, False)) or standard deviation ((shift, True)) of input
    elements: the op table's form of the variance with the correction ``shift``, its root for std."""

    name = "moment"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        shift, root = c
        var = MO.variance_form(sp, args, shift)
        return sp.sqrt(var) if root else var

    @staticmethod
    def value(vals, c):
        shift, root = c
        v = MO.variance(list(vals), shift)
        v = math.sqrt(v) if root and v == v and v >= 0 else v
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        shift, root = c
        n = len(vals)
        mean = fsum(vals) / n
        # no more elements than the correction (one, for std): 0/0, nan, as PyTorch's gradient
        d = [ieee.div(2.0 * (x - mean), n - shift) for x in vals]
        if root:
            s = ieee.sqrt(MO.variance(list(vals), shift))
            return [0.0 if s == 0 else ieee.div(x, 2.0 * s) for x in d]
        return d

    @staticmethod
    def partial_scales(vals, c):
        """x - mean cancels where x is near the mean (the mean itself rounded in the dtype):
        the rounding errors are relative to |x| + |mean|."""
        shift, root = c
        n = len(vals)
        mean = fsum(vals) / n
        d = [ieee.div(2.0 * (abs(x) + abs(mean)), abs(n - shift)) for x in vals]
        if root:
            s = ieee.sqrt(MO.variance(list(vals), shift))
            return [0.0 if s == 0 else ieee.div(x, 2.0 * s) for x in d]
        return d

    @staticmethod
    def convention(vals, c):
        if c[1] and MO.variance(list(vals), c[0]) == 0:
            return ("std: PyTorch takes the gradient 0 where the standard deviation is 0 (calculus: no "
                    "derivative there)", None)
        return None

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], (1.0, True)


def _moment(v, vin, vals):
    c = (v._c.divisor_shift, v._op.base is MO.Std)
    return [(MomentOf, c, spec[2]) for spec in reduction(MomentOf)(v, vin, vals)]


elements_of(MO.Var, MO.Std)(_moment)


def _moment_and_mean(v, vin, vals):
    c = (v._c.divisor_shift, v._op.base is MO.StdMean)
    groups = reduction(MomentOf)(v, vin, vals[:len(vals) // 2])
    return [(MomentOf, c, spec[2]) for spec in groups] + [(MeanOf, None, spec[2]) for spec in groups]


elements_of(MO.VarMean, MO.StdMean)(_moment_and_mean)
