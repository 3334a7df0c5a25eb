"""The padding family's elements (``_ops/padding.py``): a padded element is a copy of the input
element it reads or the fill value; the backward of reflection/replication padding as a node
(double backward) sums, at each input position, the gradients of the outputs that copy it."""

from __future__ import annotations

from .._ops import padding as PD
from .element_op import Const, Same
from .graph import elements_of
from .reductions import SumOf

__all__ = ["copies", "sums_of_copies"]


def copies(v, vin, vals):
    """Output ``o`` copies input element ``v._c.source[o]`` (a negative source: the fill value)."""
    u = vin[0]
    return [(Const, vals[o], ()) if s < 0 else (Same, None, ((u, s),)) for o, s in enumerate(v._c.source)]


def sums_of_copies(v, vin, vals):
    """Each input position sums the gradients of the outputs that copied it (``v._c.source``)."""
    g = vin[0]
    readers: dict = {}
    for o, s in enumerate(v._c.source):
        readers.setdefault(s, []).append(o)
    spec = []
    for i in range(len(vals)):
        outs = readers.get(i)
        if not outs:
            spec.append((Const, vals[i], ()))
        elif len(outs) == 1:
            spec.append((Same, None, ((g, outs[0]),)))
        else:
            spec.append((SumOf, None, tuple((g, o) for o in outs)))
    return spec


elements_of(PD.ConstantPadNd)(copies)
elements_of(PD.Pad, subclasses=True)(copies)
elements_of(PD.PadBackward, subclasses=True)(sums_of_copies)
