"""rrelu in training (``_ops/rrelu.py``): each element is its input times its constant slope."""

from __future__ import annotations

from .._ops import rrelu as RR
from .embedding import ScaledSumOf
from .graph import elements_of

__all__ = []


def _rrelu(v, vin, vals):
    (x,) = vin
    return [(ScaledSumOf, [s], ((x, i),)) for i, s in enumerate(v._c.slopes)]


elements_of(RR.RreluTrain)(_rrelu)
elements_of(RR.RreluTrainInplace)(_rrelu)
