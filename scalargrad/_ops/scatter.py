"""Write ops: the input with some of its elements replaced by (or added to) other elements:
scatter, scatter_add, index_add, index_copy, index_fill, masked_scatter, and src written into a view
of the input: diagonal_scatter, select_scatter, slice_scatter.

The node's inputs are ``(self, src)`` (``(self,)`` when a number is written); its ``_c`` is a
``Layout`` whose ``map`` lists the writes in the order PyTorch's CPU kernel makes them, as
``(output position, src position)`` pairs (src position -1: the number ``_c.value``). An op
that ``accumulates`` adds each write to the element (times ``alpha``); any other replaces it,
the last write winning. The index (or mask) tensor is ``_c.tensors``, the dim ``_c.dim``.

Derivatives are ``derivatives.yaml``'s, made of the tensor ops they name (``grad.gather(dim,
index)``, ``grad.scatter(dim, index, 0)``, ``grad.index_select(dim, index)``...), which the tensor
kernels provide, so a double backward records PyTorch's nodes. An element's SymPy form is the
input element it ends as, or the sum of the self element and the writes
(``symbolic.scatter``); the op's own ``sympy`` is the identity of the element written last.
"""

from __future__ import annotations

from .table import Api, no_derivative, register
from .views import Structural

__all__ = ["Written", "Scatter", "ScatterValue", "ScatterAdd", "ScatterReduce", "ScatterReduceValue",
           "ScatterReduceInplace", "ScatterReduceValueInplace", "ScatterReduceTwo", "IndexReduce", "IndexAdd",
           "IndexCopy", "IndexFill", "IndexFillTensor", "MaskedScatter", "ViewScatter", "DiagonalScatter",
           "SelectScatter", "SliceScatter", "WRITES"]


class Written(Structural):
    """An op that writes elements of ``src`` (or a number) into a copy of ``self``."""

    saves = True  # the index: freed by a backward without retain_graph, as PyTorch's
    accumulate = False  # the writes add to the element (scatter_add, index_add)
    fills = False  # a number is written: the node's one input is self

    @staticmethod
    def forward(r, a, b=None):
        return a if b is None else b

    @staticmethod
    def sympy(sp, a, b=None):
        return a if b is None else b


def _dim_index(*rest):
    return (("dim", "c.dim"), ("index", "c.tensors")) + rest


@register
class Scatter(Written):
    """``scatter(dim, index, src)``: self: grad.scatter(dim, index, 0); src: grad.gather(dim, index)."""

    name = "ScatterBackward0"
    saved = _dim_index()
    api = Api(method="scatter", inplace="scatter_", function="scatter")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return k.scatter_value(g, c.dim, c.tensors, 0), k.gather_src(g, c.dim, c.tensors, v)


@register
class ScatterValue(Written):
    """``scatter(dim, index, value)``: self: grad.scatter(dim, index, 0)."""

    name = "ScatterBackward1"
    fills = True
    saved = _dim_index()

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return (k.scatter_value(g, c.dim, c.tensors, 0),)


@register
class ScatterAdd(Written):
    """``scatter_add(dim, index, src)``: self: grad; src: grad.gather(dim, index)."""

    name = "ScatterAddBackward0"
    accumulate = True
    saved = _dim_index()
    api = Api(method="scatter_add", inplace="scatter_add_", function="scatter_add")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return g, k.gather_src(g, c.dim, c.tensors, v)


@register
class ScatterReduce(Written):
    """``scatter(dim, index, src, reduce=...)``: PyTorch declares no derivative (a NotImplemented
    node, with an edge for each input that requires grad). ``_c.value`` is the reduction."""

    name = "NotImplemented"
    namespace = "torch::autograd::"
    saves = False
    grad_edges_only = True
    backward = no_derivative("scatter")


@register
class ScatterReduceValue(ScatterReduce):
    fills = True


@register
class ScatterReduceInplace(ScatterReduce):
    """``scatter_(..., reduce=...)``: the in-place overload's own name in the error."""

    backward = no_derivative("scatter_")


@register
class ScatterReduceValueInplace(ScatterReduceInplace):
    fills = True


@register
class ScatterReduceTwo(Written):
    """``scatter_reduce(dim, index, src, reduce, include_self=True)``: self and src get
    FunctionsManual's scatter_reduce_backward (``_tensor/scatter_reduce.py``). ``_c.raw`` holds
    reduce and include_self."""

    name = "ScatterReduceBackward0"
    saves_inputs, saves_output = True, True
    saved = (("dim", "c.dim"), ("include_self", "c.include_self"), ("index", "c.tensors"), ("reduce", "c.reduce"),
             ("result", "result"), ("self", 0), ("src", 1))
    api = Api(method="scatter_reduce", inplace="scatter_reduce_", function="scatter_reduce")
    backward = staticmethod(lambda k, g, v: k.scatter_reduce_backward(g, v))
    jvp = staticmethod(lambda k, tangents, v: k.scatter_reduce_jvp(tangents, v))  # PyTorch's scatter_reduce_jvp


@register
class IndexReduce(ScatterReduceTwo):
    """``index_reduce(dim, index, source, reduce, include_self=True)``: index_reduce_backward."""

    name = "IndexReduceBackward0"
    saved = (("dim", "c.dim"), ("include_self", "c.include_self"), ("index", "c.tensors"), ("reduce", "c.reduce"),
             ("result", "result"), ("self", 0), ("source", 1))
    api = Api(method="index_reduce", inplace="index_reduce_", function="index_reduce")
    jvp = None  # PyTorch has no forward-mode AD for it: index_reduce refuses a tangent with its error


@register
class IndexAdd(Written):
    """``index_add(dim, index, source, alpha=)``: self: grad; source: maybe_multiply(
    grad.index_select(dim, index).expand_as(source), alpha) (a 0-dim source: the one slice)."""

    name = "IndexAddBackward0"
    accumulate = True
    saved = (("alpha", "c.alpha"), ("dim", "c.dim"), ("index", "c.tensors"), ("source", 1),
             ("source_dim", "c.source_dim"))
    api = Api(method="index_add", inplace="index_add_", function="index_add")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        part = k.index_select_as(g, c.dim, c.tensors, v._in[1])
        alpha = c.raw["alpha"]
        return g, (part if alpha == 1 else k.mul(part, k.const(alpha)))


@register
class IndexCopy(Written):
    """``index_copy(dim, index, source)``: self: grad.index_fill(dim, index, 0); source:
    grad.index_select(dim, index).expand_as(source)."""

    name = "IndexCopyBackward0"
    saved = (("dim", "c.dim"), ("index", "c.tensors"), ("source", 1), ("source_dim", "c.source_dim"))
    api = Api(method="index_copy", inplace="index_copy_", function="index_copy")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return k.index_fill_zero(g, c.dim, c.tensors), k.index_select_as(g, c.dim, c.tensors, v._in[1])


@register
class IndexFill(Written):
    """``index_fill(dim, index, number)``: self: grad.index_fill(dim, index, 0)."""

    name = "IndexFillBackward0"
    fills = True
    saved = _dim_index()
    api = Api(method="index_fill", inplace="index_fill_", function="index_fill")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return (k.index_fill_zero(g, c.dim, c.tensors),)


@register
class IndexFillTensor(Written):
    """``index_fill(dim, index, value)`` with a 0-dim tensor: self as above; value:
    grad.index_select(dim, unique(index)).sum()."""

    name = "IndexFillBackward1"
    saved = _dim_index()

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return k.index_fill_zero(g, c.dim, c.tensors), k.index_fill_value_backward(g, c.dim, c.tensors)


@register
class MaskedScatter(Written):
    """``masked_scatter(mask, source)``: self: grad.masked_fill(mask, 0); source:
    masked_scatter_backward(grad, mask, source.sizes()) (the gradient's masked elements in
    order, then zeros, in source's shape). ``_c.tensors`` is the mask as given, ``_c.index``
    the mask broadcast to self's shape."""

    name = "MaskedScatterBackward0"
    saved = (("mask", "c.tensors"), ("source_sym_sizes", "in1.shape"))
    api = Api(method="masked_scatter", inplace="masked_scatter_", function="masked_scatter")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        return k.masked_fill_zero(g, c.index), k.masked_scatter_backward(g, c, v._in[1])


class ViewScatter(Written):
    """``src`` written into a view of a copy of self (``_c.raw["args"]``, the view's arguments): self:
    grad.<op>(zeros_like(src), args...); src: the same view of grad. Nothing is saved but numbers."""

    saves = False

    @staticmethod
    def backward(k, g, v):
        return k.view_scatter_zero(g, v), k.view_of_grad(g, v)


@register
class DiagonalScatter(ViewScatter):
    """``diagonal_scatter(src, offset, dim1, dim2)``: src: grad.diagonal(offset, dim1, dim2)."""

    name = "DiagonalScatterBackward0"
    saved = (("dim1", "c.dim1"), ("dim2", "c.dim2"), ("offset", "c.offset"))
    api = Api(method="diagonal_scatter", function="diagonal_scatter")


@register
class SelectScatter(ViewScatter):
    """``select_scatter(src, dim, index)``: src: grad.select(dim, index)."""

    name = "SelectScatterBackward0"
    saved = (("dim", "c.dim"), ("index", "c.index"))
    api = Api(method="select_scatter", function="select_scatter")


@register
class SliceScatter(ViewScatter):
    """``slice_scatter(src, dim, start, end, step)``: src: grad.slice(dim, start, end, step)."""

    name = "SliceScatterBackward0"
    saved = (("dim", "c.dim"), ("end", "c.end"), ("start", "c.start"), ("step", "c.step"))
    api = Api(method="slice_scatter", function="slice_scatter")


WRITES = [Scatter, ScatterValue, ScatterAdd, ScatterReduce, ScatterReduceValue, ScatterReduceInplace,
          ScatterReduceValueInplace, IndexAdd, IndexCopy, IndexFill, IndexFillTensor, MaskedScatter,
          DiagonalScatter, SelectScatter, SliceScatter]
