"""Joins and splits: ``cat``/``stack`` (one node over several inputs, each input's gradient its
slice of the output's) and ``unbind``/``split``/``chunk`` (one node with several outputs)."""

from __future__ import annotations

from .table import Api, register
from .views import Structural

__all__ = ["Cat", "Stack", "Unbind", "Split", "SplitWithSizes"]


@register
class Cat(Structural):
    """``cat``: each input's gradient is its slice of the output's."""

    name = "CatBackward0"
    saved = (("dim", "c.dim"),)
    backward = staticmethod(lambda k, g, v: k.cat_backward(g, v._c))


@register
class Stack(Cat):
    name = "StackBackward0"


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
Unbind.api = Api(method="unbind", function="unbind")
Split.api = Api(method="split", aliases=("chunk",), function=("split", "chunk"))
