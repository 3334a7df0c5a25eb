"""The medians family's elements (``_ops/medians.py``). median() of every element is made of
the elements equal to the result (the nans, for a nan result): near the point the median is one
of them, and elsewhere its partials are 0. Being equal, they are written as their maximum, and
share the gradient evenly, as PyTorch's evenly_distribute_backward does (a convention where
ties leave no derivative). median(dim) picks one element per slice."""

from __future__ import annotations

from .._ops import medians as M
from .graph import elements_of
from .reductions import MaxOf, _max_dim

__all__ = ["MedianOf"]


class MedianOf(MaxOf):
    """The elements equal to a median: their common value (``MaxOf``'s form, value and
    partials), with the median's convention note."""

    name = "median"

    @classmethod
    def convention(cls, vals, c):
        if len(vals) > 1:
            return (f"median(): {len(vals)} elements equal the median (no derivative there); PyTorch shares the "
                    "gradient evenly among them (evenly_distribute_backward)", None)
        return None


@elements_of(M.MedianAll, M.NanmedianAll)
def _median_all(v, vin, vals):
    u = vin[0]
    xs = u._val if u._t.ndim else [u._val]
    y = vals[0] if isinstance(vals, list) else vals
    at = [i for i, x in enumerate(xs) if x != x] if y != y else [i for i, x in enumerate(xs) if x == y]
    return [(MedianOf, None, tuple((u, i) for i in at))]


elements_of(M.MedianDim, M.NanmedianDim, M.ModeDim)(_max_dim)
