"""Order statistics: ``median`` and ``nanmedian``, of every element or along a dimension, and
``mode`` along a dimension.

PyTorch's CPU kernels (``Sorting.cpp``: ``median_impl``, ``median_with_indices_impl``) take the
lower median, element ``(n - 1) // 2`` in ascending order (``nanmedian``: of the elements that
are not nan). Along a dimension they order the positions by (value, position), a strict order,
so the index given for tied values is the one a stable sort puts there; ``median`` gives the
first nan of a slice holding one. The derivatives are ``derivatives.yaml``'s: of every element,
``evenly_distribute_backward`` (the gradient shared by the elements equal to the result); along
a dimension, ``value_selecting_reduction_backward`` (to the picked index). ``mode``'s kernel
(``TensorCompareKernel.cpp``) sorts (value, position) pairs with ``std::sort`` comparing values
alone, then takes the last position of the first longest run of equal values.
"""

from __future__ import annotations

from itertools import combinations

from .reductions import MaxAll, MaxDim
from .table import Api, register

__all__ = ["MedianAll", "MedianDim", "NanmedianAll", "NanmedianDim", "ModeDim", "MEDIANS"]


@register
class MedianAll(MaxAll):
    """median() of every element (MedianBackward0): ties share the gradient evenly."""

    name = "MedianBackward0"
    api = Api(method="median", function="median")

    @staticmethod
    def forward(r, *args):
        if not args or any(a != a for a in args):
            return float("nan")
        return sorted(args)[(len(args) - 1) // 2]

    @staticmethod
    def sympy(sp, *args):
        """The lower median, order statistic k = (n - 1) // 2: the least, over every choice of
        k + 1 elements, of their maximum (one argument: itself)."""
        if len(args) == 1:
            return args[0]
        k = (len(args) - 1) // 2
        return sp.Min(*[sp.Max(*c) for c in combinations(args, k + 1)])


@register
class NanmedianAll(MedianAll):
    """nanmedian() of every element (NanmedianBackward0): the median of the elements that are
    not nan (nan if every one is)."""

    name = "NanmedianBackward0"
    api = Api(method="nanmedian", function="nanmedian")

    @staticmethod
    def forward(r, *args):
        kept = sorted(a for a in args if a == a)
        return kept[(len(kept) - 1) // 2] if kept else float("nan")


@register
class MedianDim(MaxDim):
    """median(dim) (MedianBackward1): a (values, indices) pair; the gradient goes to the picked
    index of each slice."""

    name = "MedianBackward1"


@register
class NanmedianDim(MaxDim):
    name = "NanmedianBackward1"


@register
class ModeDim(MaxDim):
    """mode(dim) (ModeBackward0): the most frequent value of each slice and an index of it; the
    gradient goes to that index."""

    name = "ModeBackward0"
    api = Api(method="mode", function="mode")


MEDIANS = [MedianAll, NanmedianAll, MedianDim, NanmedianDim, ModeDim]
