"""Advanced indexing: ``t[index]`` with integer tensors, lists or bool masks (a copy,
IndexBackward0) and assignment through an index (``index_put_``: IndexPutBackward0, or
CopySlices where the assignment writes through a view); the tensor layer resolves the index
(``_tensor/indexing.py``)."""

from __future__ import annotations

from .float_kernel import helper
from .table import register
from .views import Structural

__all__ = ["Index", "IndexPut", "CopySlices", "Scatter", "ScatterWithSelf", "scatter_class"]


@register
class Index(Structural):
    """Advanced indexing (integer tensors, lists, boolean masks): picks elements, maybe the same
    one twice; the gradient is added back into zeros in index order (index_put_ accumulate)."""

    name = "IndexBackward0"
    saves = True  # the indices: freed by a backward without retain_graph, as PyTorch's
    saved = (("indices", "c.tensors"), ("self_sym_sizes", "c.in_shape"))
    backward = staticmethod(lambda k, g, v: (k.index_backward(g, v._c),))


@register
class IndexPut(Structural):
    """``t[index] = value`` on a tensor in a graph: inputs (old t, value); the old values'
    gradient is zero at the assigned positions; the value gets the gradient there."""

    name = "IndexPutBackward0"
    saves = True  # the indices: freed by a backward without retain_graph, as PyTorch's
    saved = (("accumulate", "false"), ("indices", "c.tensors"))

    @staticmethod
    def backward(k, g, v):
        if k.bulk:
            return k.index_put_backward(g, v._c)
        # a 0-dim tensor: its one element was assigned (or, through a False mask, nothing was)
        hit = bool(v._c.map)
        return (0.0 if hit else g), (g if hit else 0.0)

    @staticmethod
    def forward(r, a, b=None):
        return b

    @staticmethod
    def sympy(sp, a, b=None, assigned: bool = True):
        # an assigned element is the value's (a number when the value is one); any other is a's
        return (b if b is not None else sp.Integer(0) * a) if assigned else a


@register
class CopySlices(IndexPut):
    name = "CopySlices"
    namespace = "torch::autograd::"
    saves = False  # a copy into a view saves nothing: a second backward goes through
    saved = ()

    @staticmethod
    def backward(k, g, v):
        grads = IndexPut.backward(k, g, v)
        if k.bulk:  # the base's part in the base's strides (_tensor/indexing.in_base_layout)
            grads = (k.in_base_layout(grads[0], v._t),) + tuple(grads[1:])
        return grads


class Scatter(Structural):
    """zeros of the input's shape with the gradient at ``map``'s positions (added in order
    when ``accumulate``): the backward of select/slice/index, differentiable itself."""

    name = "SliceBackwardBackward0"
    backward = staticmethod(lambda k, g, v: (k.gather_positions(g, v._c.map, v._c.sizes),))


class ScatterWithSelf(Scatter):
    """``Scatter`` with a second input, the forward's input, that only gives the shape: its
    gradient is zeros (max pooling's backward, ``self: zeros_like(self)``)."""

    backward = staticmethod(lambda k, g, v: (k.gather_positions(g, v._c.map, v._c.sizes), k.zero(k.ins(v)[1])))


_scatter_classes: dict = {}


def scatter_class(name: str, with_self: bool = False) -> type:
    """The ``Scatter`` op printed as ``name`` (SelectBackwardBackward0, IndexBackwardBackward0...);
    ``with_self``: the ``ScatterWithSelf`` form."""
    cls = _scatter_classes.get((name, with_self))
    if cls is None:
        cls = _scatter_classes[name, with_self] = type(name.replace("Backward", ""),
                                                       (ScatterWithSelf if with_self else Scatter,), {"name": name})
    return cls


# ---------------------------------------------------------------- derivative helpers, on floats
# on a 0-dim node (its one element is position 0)


@helper
def scatter(g, layout, name=None, into_zeros=False):
    return g


@helper
def index_backward(g, layout):
    # index_put_ with accumulate adds the gradient into zeros: -0.0 arrives as +0.0
    return g + 0.0
