"""Reductions: sum, mean, max/min (all elements, or along a dimension), argmax/argmin, amax/amin,
logsumexp, trace.

Their values are added in the order of PyTorch's CPU kernels (``_base/kernel_order.py``):
the tensor layer computes them; these declarations hold the derivatives and forms. The node's
``_c`` is a ``Reduced``: the input's shape, the reduced dimensions and ``keepdim`` (and, for
max/min along a dimension, the indices of the picked elements).
"""

from __future__ import annotations

from .float_kernel import helper
from .table import Api, Op, register

__all__ = ["Reduced", "REDUCTIONS", "Logsumexp", "Trace"]


class Reduced:
    """What a reduction's node keeps."""

    __slots__ = ("in_shape", "dims", "keepdim", "numel", "indices", "all", "picked", "raw")

    def __init__(self, in_shape, dims, keepdim: bool, all: bool, indices=None, raw=None) -> None:
        self.in_shape = tuple(in_shape)
        self.dims = tuple(dims)
        self.keepdim = keepdim
        self.all = all  # reduced over every element (the overload without ``dim``)
        n = 1
        for s in in_shape:
            n *= s
        self.numel = n
        self.indices = indices  # max/min along a dim: the indices tensor PyTorch saves
        self.picked = None  # ... and the flat input position of each value
        self.raw = raw  # the arguments as given (``{"dims": (-1,)}``), which PyTorch saves


class Reduction(Op):
    saves, saves_inputs = False, False


@register
class Sum(Reduction):
    """sum() of all elements (SumBackward0) or along dims (SumBackward1): the gradient goes to
    every input element unchanged (expanded)."""

    name = "SumBackward0"
    saved = (("self_sym_sizes", "c.in_shape"),)
    api = Api(method="sum", function="sum")
    backward = staticmethod(lambda k, g, v: (k.sum_backward(g, v._c),))

    @staticmethod
    def forward(r, *args):
        acc = r(0.0)
        for a in args:
            acc = r(acc + a)
        return acc

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args)


@register
class SumDim(Sum):
    name = "SumBackward1"
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("self_sym_sizes", "c.in_shape"))


@register
class Nansum(Reduction):
    """nansum(): sum with nan read as 0 (ATen's cascade_sum, ignoring nan, in sum's order); the
    gradient goes to every element that is not nan (nansum_backward)."""

    name = "NansumBackward0"
    saves_inputs = True
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("self", 0))
    api = Api(method="nansum", function="nansum")
    # grad expanded, times self.isnan().logical_not()
    backward = staticmethod(lambda k, g, v: (k.mul(k.sum_backward(g, v._c), k.a(v) == k.a(v)),))

    @staticmethod
    def forward(r, *args):
        acc = r(0.0)
        for a in args:
            acc = r(acc + (a if a == a else 0.0))
        return acc

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args)


@register
class Mean(Reduction):
    """mean(): sum, then one division by the count; each input element gets grad / count,
    rounded once (mean_backward: sum_backward(grad) / n)."""

    name = "MeanBackward0"
    saved = (("self_sym_numel", "c.numel"), ("self_sym_sizes", "c.in_shape"))
    api = Api(method="mean", function="mean")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        n = c.numel
        if not c.all:
            n = 1
            for d in c.dims if c.in_shape else ():
                n *= c.in_shape[d]
        return (k.div(k.sum_backward(g, c), k.const(float(n))),)

    @staticmethod
    def jvp(k, tangents, v):
        # forward mode: the mean of the tangent (derivatives.yaml's auto_linear), summed, then divided
        c, t = v._c, tangents[0]
        return t.mean() if c.all else t.mean(tuple(c.dims), keepdim=c.keepdim)

    @staticmethod
    def forward(r, *args):
        return r(Sum.forward(r, *args) / len(args))

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args) / len(args)


@register
class MeanDim(Mean):
    name = "MeanBackward1"
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("self_sym_numel", "c.numel"),
             ("self_sym_sizes", "c.in_shape"))


@register
class MaxAll(Reduction):
    """max() of all elements (MaxBackward1): evenly_distribute_backward, ties share the
    gradient equally."""

    name = "MaxBackward1"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("result", "result"), ("self", 0))
    api = Api(method="max", function="max")
    backward = staticmethod(lambda k, g, v: (k.evenly_distribute(g, k.ins(v)[0], k.out(v)),))

    @staticmethod
    def forward(r, *args):
        return max(args)

    @staticmethod
    def sympy(sp, *args):
        return sp.Max(*args)


@register
class MinAll(MaxAll):
    name = "MinBackward1"
    api = Api(method="min", function="min")

    @staticmethod
    def forward(r, *args):
        return min(args)

    @staticmethod
    def sympy(sp, *args):
        return sp.Min(*args)


@register
class MaxDim(Reduction):
    """max(dim) (MaxBackward0): a (values, indices) pair; the gradient goes to the picked
    element of each slice (value_selecting_reduction_backward)."""

    name = "MaxBackward0"
    saves = True  # the indices: freed by a backward without retain_graph, as PyTorch's
    saved = (("dim", "c.dim"), ("indices", "c.indices"), ("keepdim", "c.keepdim"),
             ("self_sym_sizes", "c.in_shape"))
    backward = staticmethod(lambda k, g, v: (k.value_selecting_backward(g, v._c),))
    forward = staticmethod(lambda r, a: a)
    sympy = staticmethod(lambda sp, a: a)


@register
class MinDim(MaxDim):
    name = "MinBackward0"


@register
class Amax(Reduction):
    """amax(dim, keepdim) (AmaxBackward0): the gradient is shared evenly by the elements equal to
    their slice's maximum (scale_grad_by_count: grad / count * mask)."""

    name = "AmaxBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("result", "result"), ("self", 0))
    api = Api(method="amax", function="amax")

    @staticmethod
    def backward(k, g, v):
        if k.bulk:
            return (k.amax_backward(g, k.ins(v)[0], k.out(v), v._c),)
        # one element: it is its own maximum, unless it is nan (mask 0: grad / 0 * 0 is nan)
        x, y = k.ins(v)[0], k.out(v)
        return (g if x == y else k.mul(k.div(g, 0.0), 0.0),)

    @staticmethod
    def forward(r, *args):
        return MaxAll.forward(r, *args)

    @staticmethod
    def sympy(sp, *args):
        return sp.Max(*args)


@register
class Amin(Amax):
    name = "AminBackward0"
    api = Api(method="amin", function="amin")

    @staticmethod
    def forward(r, *args):
        return MinAll.forward(r, *args)

    @staticmethod
    def sympy(sp, *args):
        return sp.Min(*args)


@register
class Logsumexp(Reduction):
    """logsumexp(dim, keepdim) (LogsumexpBackward0): ``log(sum(exp(x)))`` over ``dim``, computed as
    ATen's ``logsumexp_out_impl`` does (the tensor layer: the maxima taken out first). Its
    derivative is derivatives.yaml's ``logsumexp_backward``: ``grad * (self - result).exp()``,
    grad and result first given back the reduced dims (``unsqueeze_multiple``) unless keepdim."""

    name = "LogsumexpBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("result", "result"), ("self", 0))
    api = Api(method="logsumexp", function="logsumexp")

    @staticmethod
    def backward(k, g, v):
        c = v._c
        g, y = k.restore_reduced(g, c), k.restore_reduced(k.out(v), c)
        return (k.mul(g, k.exp(k.sub(k.a(v), y))),)

    @staticmethod
    def sympy(sp, *args):
        """One result element, the reduced slice's elements ``args``."""
        return sp.log(sp.Add(*[sp.exp(a) for a in args]))


@register
class Trace(Reduction):
    """trace() of a matrix (TraceBackward0): the sum of its diagonal, added in order in double
    (ATen's ``trace_cpu``, its accumulator ``acc_type``), rounded once; ``trace_backward`` puts
    the gradient on the diagonal (index_fill of zeros, viewed as the matrix)."""

    name = "TraceBackward0"
    saved = (("self_sym_sizes", "c.in_shape"),)
    api = Api(method="trace", function="trace")
    backward = staticmethod(lambda k, g, v: (k.trace_backward(g, v._c),))

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args)


REDUCTIONS = [Sum, SumDim, Mean, MeanDim, MaxAll, MinAll, MaxDim, MinDim, Amax, Amin, Logsumexp, Trace]


# ---------------------------------------------------------------- derivative helpers, on floats


@helper
def sum_to(g, shape):
    # at::sum_to to a 0-dim shape is a sum, which starts at +0.0: -0.0 becomes +0.0
    return g + 0.0


@helper
def sum_backward(g, c):
    return g


@helper
def evenly_distribute(g, x, y):
    return g


@helper
def restore_reduced(g, c):
    """``unsqueeze_multiple`` of a reduction's gradient or result: a 0-dim input has no dims."""
    return g
