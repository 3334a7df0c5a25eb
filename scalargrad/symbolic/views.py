"""The views family's elements (``_ops/shape.py``): every view, copy and reshape is the identity of
an input element in some order; ``cat``/``stack`` join their inputs' elements; fills and copies
into a tensor make constants or another tensor's elements."""

from __future__ import annotations

from .._ops import fill as FI
from .._ops import joins as J
from .._ops import views as S
from .._ops.views import Layout
from .._tensor.operands import positions
from .element_op import Const, Same
from .graph import elements_of, expanded_always


def _same_order(v, vin, vals):
    u = vin[0]
    m = v._c.map if isinstance(v._c, Layout) else None
    return [(Same, None, ((u, j if m is None else m[j]),)) for j in range(len(vals))]


def _join(v, vin, vals):
    """cat/stack: the output's elements, block by block along the joined dimension."""
    d = v._c.dim
    outer = 1
    for s in tuple(vin[0]._t.shape)[:d]:
        outer *= s
    # each input contributes, per block of the dims before ``d``, its elements from ``d`` on
    chunks = []
    for u in vin:
        n = 1
        for s in tuple(u._t.shape)[d:]:
            n *= s
        chunks.append(n)
    spec = []
    for o in range(outer):
        for u, c in zip(vin, chunks):
            spec.extend((Same, None, ((u, o * c + q),)) for q in range(c))
    return spec


def _block_diag(v, vin, vals):
    """block_diag: an element of one input, or a zero (a constant)."""
    return [(Const, vals[j], ()) if p is None else (Same, None, ((vin[p[0]], p[1]),))
            for j, p in enumerate(v._c.map)]


def _masked_fill(v, vin, vals):
    u = vin[0]
    filled = set(v._c.map or ())
    # out of place the input broadcasts to the mask's shape inside the node
    pos = positions(u._t.shape, v._t.shape) if u._t.shape != v._t.shape else range(len(vals))
    return [(Const, vals[j], ((u, pos[j]),)) if j in filled else (Same, None, ((u, pos[j]),))
            for j in range(len(vals))]


def fill(v, vin, vals):
    u = vin[0]
    return [(Const, vals[j], ((u, j),)) for j in range(len(vals))]


def _fill_tensor(v, vin, vals):
    """fill_(value) with a 0-dim tensor: every element is the value."""
    src = vin[1]
    return [(Same, None, ((src, 0),)) for _ in range(len(vals))]


def _copy_into(v, vin, vals):
    old, src = vin
    pos = positions(src._t.shape, v._t.shape)
    return [(Same, None, ((src, pos[j]),)) for j in range(len(vals))]


elements_of(S.Structural, subclasses=True)(_same_order)
elements_of(J.Cat, J.Stack)(_join)
elements_of(J.BlockDiag)(_block_diag)
elements_of(FI.MaskedFill)(_masked_fill)
elements_of(FI.Fill, FI.Zero)(fill)
elements_of(FI.FillTensor)(_fill_tensor)
elements_of(FI.CopyInto)(_copy_into)
expanded_always(FI.Fill, FI.MaskedFill)
