"""Variance and standard deviation: ``var`` and ``std`` (with ``correction``/``unbiased``, over
every element or along dims).

How PyTorch 2.13's CPU kernels compute them (checked bit for bit against torch, float32 and
float64, lengths 2..39, 100, 257, 1000): a reduction with one output (every element, or dims
leaving one element) takes ``std_var_all_cpu``: the mean as ``mean()`` computes it, in the
dtype, then the squared deviations added in double in order, divided by ``n - correction``,
the root in double, one rounding to the dtype; a reduction with several outputs runs Welford's
update in double along each slice (``WelfordOps``), then the same division and root. The
tensor layer (``_tensor/moments.py``) computes them; these declarations hold
``std_backward``/``var_backward``: ``(2 / (n - correction)) * grad * (self - mean)``, std's
gradient first divided by ``2 * result`` (0 where the result is 0).
"""

from __future__ import annotations

import math

from .._base import ieee
from .float_kernel import helper
from .reductions import Reduced
from .table import Api, Op, register

__all__ = ["Moments", "Var", "Std", "VarMean", "StdMean", "MOMENTS", "variance", "variance_form"]


class Moments(Reduced):
    """A variance's node constant: the reduction (``Reduced``), the correction as PyTorch
    saves it (None when the call gave none) and as the computation uses it."""

    __slots__ = ("correction", "divisor_shift")

    def __init__(self, in_shape, dims, keepdim: bool, all: bool, correction, shift: float,
                 raw=None) -> None:
        super().__init__(in_shape, dims, keepdim, all, raw=raw)
        self.correction = correction
        self.divisor_shift = shift

    def count(self) -> int:
        """The number of elements each output reduces."""
        if self.all or not self.in_shape:
            return self.numel
        n = 1
        for d in self.dims:
            n *= self.in_shape[d]
        return n


def variance(vals: list, shift: float) -> float:
    """sum((x - mean)^2) / (n - shift), exactly enough for the SymPy check's values."""
    n = len(vals)
    if not n:
        return math.nan
    mean = math.fsum(vals) / n
    s = math.fsum((x - mean) ** 2 for x in vals)
    d = n - shift
    if d <= 0:
        return math.nan if s == 0 else math.inf
    return s / d


def variance_form(sp, args, correction):
    """The SymPy form of the variance of ``args``: sum((a - mean)**2) / (n - correction)."""
    n = len(args)
    mean = sp.Add(*args) / n
    return sp.Add(*[(a - mean) ** 2 for a in args]) / (n - sp.nsimplify(correction))


@register
class Var(Op):
    """var (VarBackward0)."""

    name = "VarBackward0"
    saves, saves_inputs = True, True
    saved = (("correction", "c.correction"), ("dim", "c.dims"), ("keepdim", "c.keepdim"), ("self", 0))
    api = Api(method="var", function="var")
    backward = staticmethod(lambda k, g, v: (k.var_backward(g, k.a(v), v._c),))

    @staticmethod
    def forward(r, *args):
        return variance(list(args), 1.0)

    @staticmethod
    def sympy(sp, *args):
        return variance_form(sp, args, 1)


@register
class Std(Op):
    """std (StdBackward0)."""

    name = "StdBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("correction", "c.correction"), ("dim", "c.dims"), ("keepdim", "c.keepdim"), ("result", "result"),
             ("self", 0))
    api = Api(method="std", function="std")
    backward = staticmethod(lambda k, g, v: (k.std_backward(g, k.a(v), k.out(v), v._c),))

    @staticmethod
    def forward(r, *args):
        return math.sqrt(variance(list(args), 1.0))

    @staticmethod
    def sympy(sp, *args):
        return sp.sqrt(Var.sympy(sp, *args))


class PairedMoments(Moments):
    """The constant of var_mean's/std_mean's one node: ``Moments``, its two outputs' types
    (``outputs``, ``outputs_types``), std_mean's first output (``result0``, which its
    backward reads) and the versions of what it saved (``versions``)."""

    __slots__ = ("outputs", "outputs_types", "result0", "versions")


@register
class VarMean(Op):
    """var_mean: one node (VarMeanBackward0) with two outputs, the variance and the mean; the
    node's value holds both outputs' elements, and each output hands its gradient to it
    (``_tensor/linalg_outputs.several_outputs``). Its derivative, var_mean_backward, is var's
    for the first output's gradient plus mean's for the second's (``_tensor/moments``)."""

    name = "VarMeanBackward0"
    saves, saves_inputs = True, True
    saved = (("correction", "c.correction"), ("dim", "c.dims"), ("keepdim", "c.keepdim"), ("self", 0))
    api = Api(function="var_mean")
    backward = staticmethod(lambda k, g, v: (k.var_mean_backward(g, v),))
    forward, sympy = staticmethod(Var.forward), staticmethod(Var.sympy)  # the first output's element is var's


@register
class StdMean(Op):
    """std_mean: one node (StdMeanBackward0); std's gradient reads the first output (``result0``)."""

    name = "StdMeanBackward0"
    saves, saves_inputs = True, True
    saved = (("correction", "c.correction"), ("dim", "c.dims"), ("keepdim", "c.keepdim"), ("result0", "c.result0"),
             ("self", 0))
    api = Api(function="std_mean")
    backward = staticmethod(lambda k, g, v: (k.var_mean_backward(g, v),))
    forward, sympy = staticmethod(Std.forward), staticmethod(Std.sympy)  # the first output's element is std's


MOMENTS = [Var, Std]


# ---------------------------------------------------------------- derivative helpers, on floats


@helper
def var_backward(k, g, x, c):
    """var_backward of a 0-dim input: (2 / (1 - correction)) * grad * (self - self); with no
    degree of freedom left, grad * (nan where self equals its mean, else inf), as PyTorch."""
    if 1.0 - c.divisor_shift <= 0:
        return k.mul(g, k.r(math.nan if x == x else math.inf))
    return k.mul(k.mul(k.r(ieee.div(2.0, 1.0 - c.divisor_shift)), g), k.sub(x, x))


@helper
def std_backward(k, g, x, y, c):
    return var_backward(k, 0.0 if y == 0 else k.div(g, k.mul(y, 2.0)), x, c)
