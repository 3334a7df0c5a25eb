"""Selection ops: each output element is one input element (or a zero): gather, index_select,
masked_select, take, sort, topk, kthvalue, tril/triu, diagonal/diag, repeat, roll.

The node's ``_c`` is a ``Layout`` whose ``map`` gives, for each output element, the flat index
of the input element it copies (-1: a zero, as tril/triu and diag write). The derivative of all
of them is the same: the gradient put back at those indices of the input's shape, zeros
elsewhere (PyTorch's gather_backward, index_select_backward, masked_select_backward,
value_selecting_reduction_backward...), which the kernels' ``pick_backward`` computes;
``backward_name`` is the node a double backward sees. ``adds_into_zeros``: PyTorch adds the
gradient into zeros (scatter_add, index_add, put, a sum: -0.0 arrives as +0.0) rather than
writing it (scatter, masked_scatter, a roll or a triangle of the gradient: -0.0 stays). Their
SymPy form is the identity (a copy) or 0.
"""

from __future__ import annotations

from .float_kernel import helper
from .table import Api, register
from .views import Layout, Structural

__all__ = ["Picked", "Gather", "IndexSelect", "MaskedSelect", "Take", "Sort", "SortStable", "Topk", "Kthvalue",
           "Tril", "Triu", "Diagonal", "NarrowCopy", "DiagonalCopy", "DiagEmbed", "Repeat", "Roll", "Unfold",
           "MaskedScatterGrad", "Cummax", "Cummin", "SELECTION"]


class Picked(Structural):
    """An op whose output elements are input elements at ``_c.map`` (-1: zero)."""

    backward_name = "IndexBackwardBackward0"
    adds_into_zeros = False


# the double backward ops of the selection ops whose backward adds the gradient into zeros
_ADDING = ("ScatterAddBackward0", "IndexAddBackward0", "PutBackward0", "SumBackward1", "UnfoldBackwardBackward0")


def _picked(cls_name: str, name: str, saved: tuple, api: Api | None, backward_name: str, saves: bool = False,
            backward=None):
    adds = backward_name in _ADDING

    def picked_backward(k, g, v):
        return (k.pick_backward(g, v._c, backward_name, adds),)

    backward = backward or picked_backward
    return register(type(cls_name, (Picked,), {"name": name, "saved": saved, "api": api,
                                               "backward_name": backward_name, "saves": saves,
                                               "adds_into_zeros": adds, "saves_inputs": False,
                                               "backward": staticmethod(backward)}))


_SIZES = ("self_sym_sizes", "c.in_shape")
Gather = _picked("Gather", "GatherBackward0", (("dim", "c.dim"), ("index", "c.tensors"), ("self", 0),
                                               ("sparse_grad", "false")),
                 Api(method="gather", function="gather"), "ScatterAddBackward0", saves=True)
IndexSelect = _picked("IndexSelect", "IndexSelectBackward0", (("dim", "c.dim"), ("index", "c.tensors"), _SIZES),
                      Api(method="index_select", function="index_select"), "IndexAddBackward0", saves=True)
MaskedSelect = _picked("MaskedSelect", "MaskedSelectBackward0", (("mask", "c.tensors"), ("self", 0)),
                       Api(method="masked_select", function="masked_select"), "MaskedScatterBackward0", saves=True)
Take = _picked("Take", "TakeBackward0", (("index", "c.tensors"), ("self", 0)), Api(method="take", function="take"),
               "PutBackward0", saves=True)
Sort = _picked("Sort", "SortBackward0", (("dim", "c.dim"), ("indices", "c.tensors"), _SIZES),
               Api(method="sort", function="sort"), "ValueSelectingReductionBackwardBackward0", saves=True)
# sort(stable=...) is the sort.stable overload: its node is SortBackward1
SortStable = _picked("SortStable", "SortBackward1", Sort.saved, None, "ValueSelectingReductionBackwardBackward0",
                     saves=True)
Topk = _picked("Topk", "TopkBackward0", (("dim", "c.dim"), ("indices", "c.tensors"), _SIZES),
               Api(method="topk", function="topk"), "ValueSelectingReductionBackwardBackward0", saves=True)
Kthvalue = _picked("Kthvalue", "KthvalueBackward0", (("dim", "c.dim"), ("indices", "c.tensors"),
                                                     ("keepdim", "c.keepdim"), _SIZES),
                   Api(method="kthvalue", function="kthvalue"), "ValueSelectingReductionBackwardBackward0", saves=True)


def _narrow_copy_backward(k, g, v):
    """slice_backward_wrapper(grad, sizes, dim, start, start + length, 1), the gradient written into
    zeros, with ``start`` as the caller gave it: ATen's slice wraps a negative start and a
    non-negative end separately, so a window ending at or past 0 from a negative start slices
    nothing, and copying the gradient into it fails (or, for length 1, broadcasts it away):
    PyTorch's outcomes, kept."""
    c = v._c
    start, length = c.raw["start"], c.raw["length"]
    if start < 0 <= start + length and length > 0:
        if length > 1:
            raise RuntimeError(f"The size of tensor a (0) must match the size of tensor b ({length}) at "
                               f"non-singleton dimension {c.raw['dim'] % len(c.in_shape)}")
        c = Layout(c.in_shape, c.in_dtype, map=[-1] * len(c.map))  # nothing written: zeros
    return (k.pick_backward(g, c, "SliceBackwardBackward0", False),)


NarrowCopy = _picked("NarrowCopy", "NarrowCopyBackward0", (("dim", "c.dim"), ("length", "c.length"), _SIZES,
                                                         ("start", "c.start")),
                     Api(method="narrow_copy", function="narrow_copy"), "SliceBackwardBackward0",
                     backward=_narrow_copy_backward)
Tril = _picked("Tril", "TrilBackward0", (("diagonal", "c.diagonal"),), Api(method="tril", inplace="tril_",
                                                                           function="tril"), "TrilBackward0")
Triu = _picked("Triu", "TriuBackward0", (("diagonal", "c.diagonal"),), Api(method="triu", inplace="triu_",
                                                                           function="triu"), "TriuBackward0")
Diagonal = _picked("Diagonal", "DiagonalBackward0", (("dim1", "c.dim1"), ("dim2", "c.dim2"), ("offset", "c.offset"),
                                                     _SIZES),
                   Api(method="diagonal", function="diagonal"), "DiagonalBackwardBackward0")
# torch.diag of a matrix goes through diagonal_copy, whose node PyTorch names so
DiagonalCopy = _picked("DiagonalCopy", "DiagonalBackward0_copy", Diagonal.saved, None, "DiagonalBackwardBackward0")
DiagEmbed = _picked("DiagEmbed", "DiagEmbedBackward0", (("dim1", "c.dim1"), ("dim2", "c.dim2"), ("offset", "c.offset")),
                    Api(method="diag_embed", function="diag_embed"), "DiagonalBackward0")
Repeat = _picked("Repeat", "RepeatBackward0", (("repeats", "c.repeats"), _SIZES), Api(method="repeat"),
                 "SumBackward1")
# Tensor.unfold: a view of overlapping windows; unfold_backward adds each window's gradient into zeros
Unfold = _picked("Unfold", "UnfoldBackward0", (("dimension", "c.dimension"), _SIZES, ("size", "c.size"),
                                                ("step", "c.step")),
                 Api(method="unfold"), "UnfoldBackwardBackward0")
Roll = _picked("Roll", "RollBackward0", (("dims", "c.dims"), ("shifts", "c.shifts")),
               Api(method="roll", function="roll"), "RollBackward0")

# cummax/cummin: each output the running extreme's element; cummaxmin_backward adds into zeros
Cummax = _picked("Cummax", "CummaxBackward0", (("dim", "c.dim"), ("indices", "c.tensors"), ("self", 0)),
                 Api(method="cummax", function="cummax"), "ScatterAddBackward0", saves=True)
Cummin = _picked("Cummin", "CumminBackward0", Cummax.saved, Api(method="cummin", function="cummin"),
                 "ScatterAddBackward0", saves=True)

# masked_scatter's source gradient (masked_scatter_backward): the gradient's masked elements, then zeros
MaskedScatterGrad = _picked("MaskedScatterGrad", "MaskedScatterBackwardBackward0", (("mask", "c.tensors"),), None,
                            "MaskedScatterBackward0", saves=True)

SELECTION = [Gather, IndexSelect, MaskedSelect, Take, Sort, SortStable, Topk, Kthvalue, Tril, Triu, Diagonal,
             DiagonalCopy, DiagEmbed, Repeat, Roll, Unfold, MaskedScatterGrad, Cummax, Cummin]


# ---------------------------------------------------------------- derivative helpers, on floats


@helper
def pick_backward(g, layout, name, adds_into_zeros):
    """A selection op on a 0-dim input: the element itself (added into a zero, or not), or a zero."""
    if layout.map != [0]:
        return 0.0
    return g + 0.0 if adds_into_zeros else g
