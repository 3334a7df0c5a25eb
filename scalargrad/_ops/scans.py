"""Products and running totals along a dimension: ``prod`` (of every element, or along a dim),
``cumsum``, ``cumprod``, and ``flip`` (the reversal their derivatives use).

How PyTorch 2.13's CPU kernels round (checked against torch, float32, lengths 1..69, 100, 257,
1000): ``cumsum``/``cumprod`` accumulate in double (``acc_type<float, /*is_cuda=*/false>``)
and round each output; ``prod`` multiplies in the dtype, sequentially, except a contiguous
reduction of at least 32 float32 (16 float64) elements, which ``binary_kernel_reduce_vec``
runs in four 8-lane (4-lane) vector accumulators before a tail loop. The tensor layer
(``_tensor/scans.py``) computes the values; these declarations hold the derivatives:

* prod: ``grad * result / self`` with no zero in the input, else the product of the others
  (``prod_safe_zeros_backward``: exclusive cumulative products from both sides);
* cumsum: the reversed cumulative sum of the gradient (``cumsum_backward``);
* cumprod: ``reversed_cumsum(result * grad) / self`` with no zero in the input; the products
  of the others where there is one (``cumprod_backward``);
* flip: the gradient flipped back;
* logcumsumexp: ``logcumsumexp_backward``'s exponentials of reversed log-cumulative sums of the
  gradient's positive and negative parts (on tensors: each step a node under create_graph);
* rot90: the gradient rotated back (``grad.rot90(-k, dims)``).
"""

from __future__ import annotations

from .float_kernel import helper
from .reductions import Reduced
from .table import Api, Op, register
from .views import Structural

__all__ = ["Along", "Prod", "ProdDim", "Cumsum", "Cumprod", "Flip", "Rot90", "Logcumsumexp", "SCANS"]


class Along(Reduced):
    """A scan's or a prod's node constant: the reduction (``Reduced``) and the dim."""

    __slots__ = ("dim",)

    def __init__(self, in_shape, dims, keepdim: bool, all: bool, dim=None, raw=None) -> None:
        super().__init__(in_shape, dims, keepdim, all, raw=raw)
        self.dim = dim


@register
class Prod(Op):
    """prod() of every element (ProdBackward0)."""

    name = "ProdBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("result", "result"), ("self", 0))
    api = Api(method="prod", function="prod")
    backward = staticmethod(lambda k, g, v: (k.prod_backward(g, k.a(v), k.out(v), v._c),))

    @staticmethod
    def forward(r, *args):
        acc = 1.0
        for a in args:
            acc = r(acc * a)
        return acc

    @staticmethod
    def sympy(sp, *args):
        return sp.Mul(*args)


@register
class ProdDim(Prod):
    """prod(dim, keepdim) (ProdBackward1)."""

    name = "ProdBackward1"
    saved = (("dim", "c.dim"), ("keepdim", "c.keepdim"), ("result", "result"), ("self", 0))


@register
class Cumsum(Op):
    """cumsum(dim) (CumsumBackward0): output i is the sum of inputs 0..i along dim."""

    name, saves, saves_inputs = "CumsumBackward0", False, False
    saved = (("dim", "c.dim"),)
    api = Api(method="cumsum", inplace="cumsum_", function="cumsum")
    backward = staticmethod(lambda k, g, v: (k.cumsum_backward(g, v._c),))
    forward = staticmethod(lambda r, a: a)
    sympy = staticmethod(lambda sp, a: a)


@register
class Cumprod(Op):
    """cumprod(dim) (CumprodBackward0): output i is the product of inputs 0..i along dim."""

    name = "CumprodBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("dim", "c.dim"), ("result", "result"), ("self", 0))
    api = Api(method="cumprod", inplace="cumprod_", function="cumprod")
    backward = staticmethod(lambda k, g, v: (k.cumprod_backward(g, k.a(v), k.out(v), v._c),))
    forward = staticmethod(lambda r, a: a)
    sympy = staticmethod(lambda sp, a: a)


@register
class Flip(Structural):
    """flip(dims) (FlipBackward0): a copy with the elements reversed along dims (``_c.map``)."""

    name = "FlipBackward0"
    saved = (("dims", "c.dims"),)
    api = Api(method="flip", function="flip")
    backward = staticmethod(lambda k, g, v: (k.flip(g, v._c.dims),))


@register
class Logcumsumexp(Op):
    """logcumsumexp(dim) (LogcumsumexpBackward0): output i is log(sum(exp(inputs 0..i)))."""

    name = "LogcumsumexpBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("dim", "c.dim"), ("result", "result"), ("self", 0))
    api = Api(method="logcumsumexp", function="logcumsumexp")
    backward = staticmethod(lambda k, g, v: (k.logcumsumexp_backward(g, k.a(v), k.out(v), v._c),))
    forward = staticmethod(lambda r, a: a)
    sympy = staticmethod(lambda sp, a: a)


@register
class Rot90(Structural):
    """rot90(k, dims) (Rot90Backward0): a copy rotated by k quarter turns in the plane of dims
    (``_c.map``); PyTorch saves k as the unsigned 64-bit number its binding prints (-1: 2**64 - 1)."""

    name = "Rot90Backward0"
    saved = (("dims", "c.dims"), ("k", "c.value"))
    api = Api(method="rot90", function="rot90")
    backward = staticmethod(lambda k, g, v: (k.rot90(g, -v._c.raw["k"], v._c.dims),))


SCANS = [Prod, ProdDim, Cumsum, Cumprod, Flip, Rot90, Logcumsumexp]


# ---------------------------------------------------------------- derivative helpers, on floats
# a 0-dim input: prod, cumsum and cumprod are the identity, and so are their derivatives


@helper
def prod_backward(g, x, y, c):
    return g


@helper
def cumsum_backward(g, c):
    return g


@helper
def cumprod_backward(g, x, y, c):
    return g


@helper
def logcumsumexp_backward(g, x, y, c):
    return g
