"""Views (view, reshape, squeeze, transpose, permute, select, slice, expand...) and copies
(clone, to); the ``Layout`` and ``Structural`` base every op that moves elements shares (joins,
indexing, fills, scatter, selection, scans).

Every output element of these ops is one input element (or a sum of them, for the backward of
expand): their SymPy form is the identity. What an op needs to say how its output's elements
map to its input's is kept in the node's ``_c``, a ``Layout``: the input's shape and dtype,
and for the ops that reorder or pick elements the flat input index of each output element
(``map``), besides the parameters PyTorch exposes as saved attributes (``_saved_dim``...).
"""

from __future__ import annotations

from .float_kernel import helper
from .table import Api, Op, register

__all__ = ["Layout", "Structural"]


class Layout:
    """What a shape op's node keeps: the input's shape and dtype, the flat input index of each
    output element when the op reorders or picks elements (``map``), and PyTorch's saved
    parameters."""

    __slots__ = ("in_shape", "in_dtype", "map", "perm", "dim", "index", "start", "end", "step", "dims",
                 "sizes", "split_sizes", "outputs", "value", "raw", "tensors", "prev", "fn", "error", "saved_out")

    def __init__(self, in_shape, in_dtype=None, map=None, **params) -> None:  # the index map
        self.in_shape = tuple(in_shape)
        self.in_dtype = in_dtype
        self.map = map
        for name in ("perm", "dim", "index", "start", "end", "step", "dims", "sizes", "split_sizes", "outputs",
                     "value", "raw", "tensors", "prev", "fn", "error"):
            setattr(self, name, params.get(name))
        # raw: the arguments as the caller gave them ({"dim": -1}), which PyTorch saves where the
        # computation needs them normalised; tensors: saved tensors (a mask, index tensors);
        # prev: a regenerated view's older version; fn: the in-place op a CopySlices node replays;
        # saved_out: [view, version, name] when fn saved its result, the view (inplace.rebase_view)
        self.saved_out = None


class Structural(Op):
    """An op whose elements are copies or sums of input elements."""

    saves, saves_inputs = False, False

    @staticmethod
    def forward(r, a):
        return a

    @staticmethod
    def sympy(sp, a):
        return a


def _reshape_back(k, g, v):
    return (k.reshape(g, v._c.in_shape),)


def _view_back(k, g, v):
    return (k.view_back(g, v._c.in_shape),)  # a ViewBackward0 under create_graph even for the same shape


def _same_order(cls_name: str, name: str, saved=(("self_sym_sizes", "c.in_shape"),), api=None, back=_reshape_back):
    """A view or copy that keeps the elements' order: its backward reshapes the gradient
    (``grad.reshape(sizes)`` for view, _reshape_alias and _unsafe_view: ``_view_back``)."""
    return type(cls_name, (Structural,), {
        "name": name, "saved": saved, "api": api, "backward": staticmethod(back)})


def _unsqueeze_to(k, g, v):
    """PyTorch's unsqueeze_to for squeeze's backward: the gradient unsqueezed (UnsqueezeBackward0
    under create_graph) at each squeezed dim of size 1, in order."""
    c = v._c
    shape = c.in_shape
    nd = len(shape)
    if v._op.name in ("SqueezeBackward0", "SqueezeBackward3"):
        dims = range(nd)
    else:
        given = c.dims if c.dims is not None else (c.dim,)
        dims = sorted({d % nd for d in given}) if nd else ()
    for d in dims:
        if shape[d] == 1:
            g = k.unsqueeze(g, d)
    return (g,)


def _unsqueeze_back(k, g, v):
    return (k.squeeze(g, v._c.dim),)  # squeeze.dim: SqueezeBackward1 under create_graph


def _squeezed(cls_name: str, name: str, saved=(("self_sym_sizes", "c.in_shape"),), backward=_unsqueeze_to):
    return type(cls_name, (Structural,), {"name": name, "saved": saved, "api": None,
                                          "backward": staticmethod(backward)})


View = register(_same_order("View", "ViewBackward0", back=_view_back))
Reshape = register(_same_order("Reshape", "ReshapeAliasBackward0", back=_view_back))
UnsafeView = register(_same_order("UnsafeView", "UnsafeViewBackward0", back=_view_back))
Squeeze = register(_squeezed("Squeeze", "SqueezeBackward0"))
_DIM_SIZES = (("dim", "c.dim"), ("self_sym_sizes", "c.in_shape"))
SqueezeDim = register(_squeezed("SqueezeDim", "SqueezeBackward1", _DIM_SIZES))
SqueezeDims = register(_squeezed("SqueezeDims", "SqueezeBackward2", (("dim", "c.dims"),
                                                                ("self_sym_sizes", "c.in_shape"))))
SqueezeInplace = register(_squeezed("SqueezeInplace", "SqueezeBackward4", _DIM_SIZES))
Unsqueeze = register(_squeezed("Unsqueeze", "UnsqueezeBackward0", (("dim", "c.dim"),), _unsqueeze_back))
# the in-place spellings (squeeze_, unsqueeze_, t_, transpose_) are nodes of their own in PyTorch
SqueezeInplaceAll = register(_squeezed("SqueezeInplaceAll", "SqueezeBackward3"))
SqueezeInplaceDims = register(_squeezed("SqueezeInplaceDims", "SqueezeBackward5",
                                        (("dim", "c.dims"), ("self_sym_sizes", "c.in_shape"))))
UnsqueezeInplace = register(_squeezed("UnsqueezeInplace", "UnsqueezeBackward1", (("dim", "c.dim"),),
                                      _unsqueeze_back))
Alias = register(_same_order("Alias", "AliasBackward0", ()))
Clone = register(_same_order("Clone", "CloneBackward0", ()))
# as_strided_ restriding a result in place without moving an element (adaptive_avg_pool2d to 1x1 of a
# channels-last input): the gradient passes unchanged
AsStridedInplace = register(_same_order("AsStridedInplace", "AsStridedBackward1", ()))
Copy = register(_same_order("Copy", "CopyBackwards", ()))  # AccumulateGrad copies a first grad kept with create_graph
Copy.namespace = "torch::autograd::"


@register
class ToCopy(Structural):
    """``to(dtype)``: the gradient goes back in the input's dtype."""

    name = "ToCopyBackward0"
    backward = staticmethod(lambda k, g, v: (k.to_dtype(g, v._c.in_dtype),))


@register
class Permute(Structural):
    name = "PermuteBackward0"
    saved = (("dims", "c.perm"),)  # as given (layout.raw), negative dims included
    backward = staticmethod(lambda k, g, v: (k.permute(g, _inverse(v._c.perm)),))


@register
class Transpose(Permute):
    name = "TransposeBackward0"
    saved = (("dim0", "c.dim"), ("dim1", "c.index"))
    backward = staticmethod(lambda k, g, v: (k.transpose(g, v._c.dim, v._c.index),))


@register
class T(Permute):
    name = "TBackward0"
    saved = ()
    backward = staticmethod(lambda k, g, v: (k.t(g),))


@register
class TransposeInplace(Transpose):
    name = "TransposeBackward1"


@register
class TInplace(T):
    name = "TBackward1"


def _inverse(perm) -> tuple:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


@register
class Select(Structural):
    """An injective pick of input elements (select, slice, unbind's outputs, narrow): the
    gradient goes back into zeros at the picked positions."""

    name = "SelectBackward0"
    saved = (("dim", "c.dim"), ("index", "c.index"), ("self_sym_sizes", "c.in_shape"))
    # select_backward and slice_backward copy the gradient into new zeros, even when the view
    # kept every element: contiguous, and a node of their own under create_graph
    backward = staticmethod(lambda k, g, v: (k.scatter(g, v._c, v._op.name[:-1] + "Backward0", True),))


@register
class Slice(Select):
    name = "SliceBackward0"
    saved = (("dim", "c.dim"), ("end", "c.end"), ("self_sym_sizes", "c.in_shape"), ("start", "c.start"),
             ("step", "c.step"))


@register
class AsStrided(Select):
    """A view whose memory changed in place since it was made: PyTorch regenerates its grad_fn
    as AsStridedBackward0 over its base's current history. Its gradient goes to the base's
    elements it sits on (added up where it sits on one twice, as an expanded view does); its
    older version, which the nodes made before the change consumed, is ``_c.prev``."""

    name = "AsStridedBackward0"
    saved = (("size", "c.size"), ("storage_offset", "c.storage_offset"), ("stride", "c.stride"))
    older_in_c = True

    @staticmethod
    def backward(k, g, v):
        c = v._c
        if c.error is not None:  # an output of unbind/split: PyTorch refuses to use it
            raise RuntimeError(c.error)
        if not k.bulk:  # a 0-dim view of a 0-dim base
            return (g,)
        if len(set(c.map)) != len(c.map):
            return (k.index_backward(g, c),)
        return (k.scatter(g, c),)


@register
class Expand(Structural):
    """A broadcast view: each input element lands on several positions; its gradient is their
    sum, added in the order of PyTorch's sum kernel (``sum_to``)."""

    name = "ExpandBackward0"
    saved = (("self_sym_sizes", "c.in_shape"),)
    backward = staticmethod(lambda k, g, v: (k.sum_to(g, v._c.in_shape),))


# spellings are bound by the tensor layer (their argument parsing is per op); recorded here
# so the spelling test finds every one
View.api = Api(method="view")
Reshape.api = Api(method="reshape", function="reshape")
Squeeze.api = Api(method="squeeze", inplace="squeeze_", function="squeeze")
Unsqueeze.api = Api(method="unsqueeze", inplace="unsqueeze_", function="unsqueeze")
Clone.api = Api(method="clone", function="clone")
Permute.api = Api(method="permute", aliases=("movedim", "moveaxis"), function=("permute", "movedim", "moveaxis"))
Transpose.api = Api(method="transpose", aliases=("swapaxes", "swapdims"), inplace="transpose_",
                    function=("transpose", "swapaxes", "swapdims"))
T.api = Api(method="t", inplace="t_", function="t")
Expand.api = Api(method="expand", aliases=("expand_as",))
Select.api = Api(method="select", function="select")
Slice.api = Api(method="narrow", function="narrow")


# ---------------------------------------------------------------- derivative helpers, on floats
# on a 0-dim node every shape op is the identity


@helper
def reshape(g, shape):
    return g


@helper
def view_back(g, shape):
    return g


@helper
def permute(g, perm):
    return g


@helper
def squeeze(g, dim=None):
    return g


@helper
def unsqueeze(g, dim):
    return g


@helper
def t(g):
    return g


@helper
def transpose(g, dim0, dim1):
    return g


@helper
def to_dtype(g, dt):
    return dt.round(g)
