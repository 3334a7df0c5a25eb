"""The indexing family's elements (``_tensor/indexing.py``): an indexed assignment's element is the
old one, the assigned element written there last, or the assigned number; the backward of
select/slice/index as a node (double backward) holds zeros but where the gradient lands."""

from __future__ import annotations

from .._ops.indexing import IndexPut, Scatter
from .._tensor.operands import positions
from .element_op import Const, Same
from .graph import elements_of, expanded_always
from .reductions import SumOf


def _index_put(v, vin, vals):
    layout = v._c
    old = vin[0]
    assigned: dict = {}
    for k, p in enumerate(layout.map):
        assigned[p] = k  # the last write wins
    if len(vin) > 1:
        src = vin[1]
        pos = positions(src._t.shape, tuple(layout.sizes))
    spec = []
    for j in range(len(vals)):
        k = assigned.get(j)
        if k is None:
            spec.append((Same, None, ((old, j),)))
        elif len(vin) > 1:
            spec.append((Same, None, ((src, pos[k]),)))
        else:
            spec.append((Const, vals[j], ((old, j),)))
    return spec


def _scatter(v, vin, vals):
    """The backward of select/slice/index as a node (double backward): zeros but where the
    gradient lands, its sum there."""
    g = vin[0]
    at: dict = {}
    for k, p in enumerate(v._c.map):
        at.setdefault(p, []).append(k)
    spec = []
    for j in range(len(vals)):
        ks = at.get(j)
        if not ks:
            spec.append((Const, vals[j], ()))
        elif len(ks) == 1:
            spec.append((Same, None, ((g, ks[0]),)))
        else:
            spec.append((SumOf, None, tuple((g, k) for k in ks)))
    return spec


elements_of(IndexPut, subclasses=True)(_index_put)
elements_of(Scatter, subclasses=True)(_scatter)
expanded_always(IndexPut)
