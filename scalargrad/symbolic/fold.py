"""The sliding-blocks family's elements (``_ops/fold.py``): an im2col element copies the image
element it reads (or is the padding's 0); a col2im element sums the column elements added into
it. Both read ``source`` (column element -> image position) as padding's copies do."""

from __future__ import annotations

from .._ops import fold as FO
from .element_op import Const, Same
from .graph import elements_of
from .reductions import SumOf

__all__ = []


def _im2col(v, vin, vals):
    u = vin[0]
    return [(Const, 0.0, ()) if s < 0 else (Same, None, ((u, s),)) for s in v._c.source]


def _col2im(v, vin, vals):
    g = vin[0]
    readers: dict = {}
    for o, s in enumerate(v._c.source):
        if s >= 0:
            readers.setdefault(s, []).append(o)
    spec = []
    for i in range(len(vals)):
        outs = readers.get(i)
        if not outs:
            spec.append((Const, 0.0, ()))
        elif len(outs) == 1:
            spec.append((Same, None, ((g, outs[0]),)))
        else:
            spec.append((SumOf, None, tuple((g, o) for o in outs)))
    return spec


elements_of(FO.Im2Col)(_im2col)
elements_of(FO.Col2Im)(_col2im)
