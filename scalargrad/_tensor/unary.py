"""The unary family's derivative helpers on tensors (``_ops/unary.py`` has their float twins):
tanh_backward, sigmoid_backward and threshold_backward are ops of their own (nodes under
create_graph), ``sgn`` is ``self.sgn()`` and ``pow_number`` ``self.pow(number)``."""

from __future__ import annotations

from .._ops import arithmetic as AR
from .._ops import unary as UN
from .elementwise import elementwise, unary, with_number
from .operands import laid_out
from .tensor_kernel import helper

__all__ = ["tanh_backward", "sigmoid_backward", "threshold_backward", "pow_number", "sgn"]


@helper
def tanh_backward(g, y):
    return elementwise(UN.TanhBackward, (g, y))


@helper
def sigmoid_backward(g, y):
    return elementwise(UN.SigmoidBackward, (g, y))


@helper
def threshold_backward(g, y, threshold):
    r = elementwise(UN.ThresholdBackward, (g, y), threshold)
    if r._t.ndim and not (g._t.contiguous and y._t.contiguous):
        # ATen's iterator takes self before grad (TORCH_META_FUNC(threshold_backward)): where
        # their layouts differ, the result follows self's (relu of a transposed view)
        r._t = laid_out(r._t.dtype, r._t.shape, (y._t, g._t))
    return r


@helper
def pow_number(x, e):
    # x.pow(e) for a number e: a node of its own (PowBackward0) under create_graph
    return with_number(AR.PowC, x, e)


@helper
def sgn(x):
    # self.sgn(): a node of its own (SgnBackward0, derivative 0), so that abs's gradient
    # stays connected to x under create_graph, as in PyTorch
    return unary(UN.Sgn, x)
