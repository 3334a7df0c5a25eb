"""The shuffle family's elements (``_ops/shuffle.py``): each output element is a copy of the input
element it reads."""

from __future__ import annotations

from .._ops import shuffle as SH
from .element_op import Same
from .graph import elements_of


def _shuffle(v, vin, vals):
    u = vin[0]
    return [(Same, None, ((u, s),)) for s in v._c.source]


elements_of(*SH.SHUFFLE_OPS)(_shuffle)
