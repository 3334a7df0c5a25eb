"""Fills: ``fill_``/``zero_`` (with a number or a 0-dim tensor), ``copy_`` and ``masked_fill``:
ops that overwrite elements with a value, whose old values then get no gradient."""

from __future__ import annotations

import math

from .float_kernel import helper
from .table import Api, Op, register
from .views import Structural

__all__ = ["CopyInto", "Fill", "Zero", "FillTensor", "MaskedFill"]


@register
class CopyInto(Structural):
    """``copy_(src)`` on a tensor in a graph: its old values no longer matter; ``src``'s
    gradient is the tensor's (in src's dtype, summed to its shape by the engine)."""

    name = "CopyBackwards"
    namespace = "torch::autograd::"
    backward = staticmethod(lambda k, g, v: (k.zero(g), k.to_dtype(g, v._c.in_dtype)))

    @staticmethod
    def forward(r, a, b):
        return b

    @staticmethod
    def sympy(sp, a, b):
        return b


@register
class Fill(Structural):
    """``fill_``/``zero_`` on a tensor in a graph: every element becomes the value
    (``_c.value``); the old values no longer matter."""

    name = "FillBackward2"
    backward = staticmethod(lambda k, g, v: (k.zero(g),))

    @staticmethod
    def sympy(sp, a, value=0):
        return sp.Integer(0) * a + value


@register
class Zero(Fill):
    name = "ZeroBackward0"


@register
class FillTensor(Structural):
    """``fill_(value)`` with a 0-dim tensor: inputs (old tensor, value); the value's gradient
    is the sum of the tensor's (the engine sums it to the value's shape)."""

    name = "FillBackward3"
    backward = staticmethod(lambda k, g, v: (k.zero(g), g))

    @staticmethod
    def forward(r, a, b):
        return b

    @staticmethod
    def sympy(sp, a, b):
        return b


@register
class MaskedFill(Op):
    """``masked_fill(mask, number)`` and masked assignment ``x[mask] = number``: the filled
    positions get no gradient."""

    name = "MaskedFillBackward0"
    saved = (("mask", "c.tensors"),)
    saves_inputs = False
    backward = staticmethod(lambda k, g, v: (k.masked_zero(g, v._c),))
    forward = staticmethod(lambda r, a: a)

    @staticmethod
    def sympy(sp, a, filled: bool = False, value=0):
        # an element of the mask is the value; any other is the input's element
        return sp.Integer(0) * a + value if filled else a


MaskedFill.api = Api(method="masked_fill", inplace="masked_fill_", function="masked_fill")


@helper
def masked_zero(g, layout):
    """masked_fill's backward on a 0-dim node: zero where the mask held."""
    return 0.0 if layout.map else g


@helper
def zero_where_inf(x):
    """``x.masked_fill(x.isinf(), 0)`` on a number."""
    return 0.0 if x in (math.inf, -math.inf) else x
