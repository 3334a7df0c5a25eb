"""Joins and splits: ``cat``/``stack``/``block_diag`` (one node over several inputs, each input's
gradient its slice of the output's) and ``unbind``/``split``/``chunk`` (one node with several outputs)."""

from __future__ import annotations

from .table import Api, register
from .views import Structural

__all__ = ["Cat", "Stack", "BlockDiag", "Unbind", "Split", "SplitWithSizes"]


@register
class Cat(Structural):
    """``cat``: each input's gradient is its slice of the output's."""

    name = "CatBackward0"
    saved = (("dim", "c.dim"),)
    backward = staticmethod(lambda k, g, v: k.cat_backward(g, v._c))
    jvp = staticmethod(lambda k, tangents, v: k.cat_jvp(tangents, v))  # the tangents joined, exactly


@register
class Stack(Cat):
    name = "StackBackward0"


@register
class BlockDiag(Structural):
    """``block_diag``: block_diag_backward, each input's block of the gradient (``grad.slice(0,
    ...).slice(1, ...)``, squeezed back for a 0-dim input, zeros for an empty 1-D one). ``_c.map``:
    for each output element, ``(input, element)`` or None (a zero)."""

    name = "BlockDiagBackward0"
    backward = staticmethod(lambda k, g, v: k.block_diag_backward(g, v._c))


@register
class Unbind(Structural):
    """``unbind``/``split``/``chunk``: one node with several outputs; its gradient is the list
    of the outputs' (None where an output got none)."""

    name = "UnbindBackward0"
    saved = (("dim", "c.dim"),)
    backward = staticmethod(lambda k, g, v: (k.unbind_backward(g, v._c),))


@register
class Split(Unbind):
    name = "SplitBackward0"
    saved = (("dim", "c.dim"), ("self_sym_sizes", "c.in_shape"), ("split_size", "c.index"))


@register
class SplitWithSizes(Unbind):
    name = "SplitWithSizesBackward0"
    saved = (("dim", "c.dim"), ("self_sym_sizes", "c.in_shape"), ("split_sizes", "c.split_sizes"))


Cat.api = Api(function=("cat", "concat", "concatenate"))
Stack.api = Api(function="stack")
BlockDiag.api = Api(function="block_diag")
Unbind.api = Api(method="unbind", function="unbind")
Split.api = Api(method="split", aliases=("chunk",), function=("split", "chunk"))
