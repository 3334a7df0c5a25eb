"""The reductions family's elements (``_ops/reductions.py``): sums, means and the extremes of a
tensor or along dimensions, each element a ``SumOf``/``MeanOf``/``MaxOf``/``MinOf`` of its group
(``amax``/``amin`` too; ``max(dim)``/``min(dim)`` pick one element; ``trace`` a sum of the
diagonal)."""

from __future__ import annotations

import math

from .._ops import reductions as R
from .._tensor.reductions import group_index
from .element_op import ElementOp, Same, fsum
from .graph import elements_of

__all__ = ["SumOf", "NansumOf", "MeanOf", "MaxOf", "MinOf", "reduction"]


class SumOf(ElementOp):
    """A sum of input elements (``sum``): the op table's ``Sum.sympy``."""

    name = "sum"

    @staticmethod
    def sympy(sp, args, c):
        return R.Sum.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        return fsum(vals), fsum([abs(x) for x in vals])

    @staticmethod
    def partials(vals, c):
        return [1.0] * len(vals)


class NansumOf(ElementOp):
    """A sum of input elements with nan read as 0 (``nansum``): the op table's ``Nansum.sympy``
    over the elements that are not nan."""

    name = "nansum"

    @staticmethod
    def sympy(sp, args, c):
        return R.Nansum.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        kept = [x for x in vals if x == x]
        return fsum(kept), fsum([abs(x) for x in kept])

    @staticmethod
    def partials(vals, c):
        return [1.0 if x == x else 0.0 for x in vals]


class MeanOf(ElementOp):
    """A mean of input elements (``mean``): the op table's ``Mean.sympy``."""

    name = "mean"

    @staticmethod
    def sympy(sp, args, c):
        return R.Mean.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        n = len(vals)
        if not n:
            return math.nan, 0.0
        return fsum(vals) / n, fsum([abs(x) for x in vals]) / n

    @staticmethod
    def partials(vals, c):
        n = len(vals)
        return [1.0 / n] * n


def _extreme(vals, largest: bool) -> tuple:
    """(value, positions reaching it) of max/min, nan winning as in PyTorch."""
    nans = [i for i, x in enumerate(vals) if x != x]
    if nans:
        return math.nan, nans
    best = max(vals) if largest else min(vals)
    return best, [i for i, x in enumerate(vals) if x == best]


class MaxOf(ElementOp):
    """max() of every input element: the op table's ``MaxAll.sympy``; PyTorch shares the
    gradient evenly among tied maxima (evenly_distribute_backward)."""

    name = "max"
    largest = True

    @classmethod
    def sympy(cls, sp, args, c):
        return (R.MaxAll if cls.largest else R.MinAll).sympy(sp, *args)

    @classmethod
    def value(cls, vals, c):
        v, _ = _extreme(vals, cls.largest)
        return v, abs(v) if v == v else 0.0

    @classmethod
    def partials(cls, vals, c):
        _, at = _extreme(vals, cls.largest)
        share = 1.0 / len(at)
        out = [0.0] * len(vals)
        for i in at:
            out[i] = share
        return out

    @classmethod
    def convention(cls, vals, c):
        _, at = _extreme(vals, cls.largest)
        if len(at) > 1:
            word = "max" if cls.largest else "min"
            return (f"{word}(): {len(at)} elements reach the {word}imum (no derivative there); PyTorch shares the "
                    "gradient evenly among them (evenly_distribute_backward)", None)
        return None


class MinOf(MaxOf):
    """min() of every input element: the op table's ``MinAll.sympy``."""

    name = "min"
    largest = False


def _exp_shifted(vals) -> tuple:
    """(max, exp(x_i - max), their exact sum): logsumexp without overflow."""
    m = max(vals)
    e = [math.exp(x - m) for x in vals]
    return m, e, fsum(e)


class LogsumexpOf(ElementOp):
    """A logsumexp of input elements (``logsumexp``): the op table's ``Logsumexp.sympy``; its
    partials are the group's softmax weights, ``exp(x_i - y)``."""

    name = "logsumexp"

    @staticmethod
    def sympy(sp, args, c):
        return R.Logsumexp.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return math.nan, 0.0
        m, _, s = _exp_shifted(vals)
        ls = math.log(s)
        return m + ls, abs(m) + abs(ls) + 1.0

    @staticmethod
    def partials(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _exp_shifted(vals)
        return [x / s for x in e]

    @staticmethod
    def partial_scales(vals, c):
        """exp(x_i - y) carries the rounding of x_i - y: relative to |x_i| + |y|."""
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        m, e, s = _exp_shifted(vals)
        y = m + math.log(s)
        return [x / s * (1.0 + abs(v) + abs(y)) for x, v in zip(e, vals)]


def reduction(elem_op):
    """The build of a reduction node whose every output element is ``elem_op`` of its group."""

    def build(v, vin, vals):
        c = v._c
        u = vin[0]
        n_in = c.numel
        if c.all or not u._t.ndim:
            groups = [list(range(n_in))]
        else:
            groups = [[] for _ in range(len(vals))]
            for i, o in enumerate(group_index(tuple(c.in_shape), tuple(c.dims))):
                groups[o].append(i)
        return [(elem_op, None, tuple((u, i) for i in g)) for g in groups]

    return build


def _max_all(elem_op):
    def build(v, vin, vals):
        u = vin[0]
        return [(elem_op, None, tuple((u, i) for i in range(u._t.numel)))]

    return build


def _max_dim(v, vin, vals):
    picked = v._c.picked
    return [(Same, None, ((vin[0], picked[j]),)) for j in range(len(vals))]


elements_of(R.Sum, R.SumDim)(reduction(SumOf))
elements_of(R.Nansum)(reduction(NansumOf))
elements_of(R.Mean, R.MeanDim)(reduction(MeanOf))
elements_of(R.Amax)(reduction(MaxOf))
elements_of(R.Amin)(reduction(MinOf))
elements_of(R.Logsumexp)(reduction(LogsumexpOf))
elements_of(R.MaxAll)(_max_all(MaxOf))
elements_of(R.MinAll)(_max_all(MinOf))
elements_of(R.MaxDim, R.MinDim)(_max_dim)


@elements_of(R.Trace)
def _trace(v, vin, vals):
    return [(SumOf, None, tuple((vin[0], i) for i in v._c.picked))]
