"""The selection family's elements (``_ops/selection.py``): each element of a pick (``gather``,
``index_select``, ``take``...) is the input element it picks, or 0 where it picks none."""

from __future__ import annotations

from .._ops import selection as SE
from .element_op import Const, Same
from .graph import elements_of


def _picked(v, vin, vals):
    u = vin[0]
    return [(Same, None, ((u, i),)) if i >= 0 else (Const, 0.0, ()) for i in v._c.map]


elements_of(SE.Picked, subclasses=True)(_picked)
