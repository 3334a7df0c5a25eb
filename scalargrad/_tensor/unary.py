"""The unary family's derivative helpers on tensors (``_ops/unary.py`` has their float twins):
tanh_backward, sigmoid_backward and threshold_backward are ops of their own (nodes under
create_graph), and ``sgn`` is ``self.sgn()``."""

from __future__ import annotations

from .._ops import unary as UN
from .elementwise import elementwise, unary
from .tensor_kernel import helper

__all__ = ["tanh_backward", "sigmoid_backward", "threshold_backward", "sgn"]


@helper
def tanh_backward(g, y):
    return elementwise(UN.TanhBackward, (g, y))


@helper
def sigmoid_backward(g, y):
    return elementwise(UN.SigmoidBackward, (g, y))


@helper
def threshold_backward(g, y, threshold):
    return elementwise(UN.ThresholdBackward, (g, y), threshold)


@helper
def sgn(x):
    # self.sgn(): a node of its own (SgnBackward0, derivative 0), so that abs's gradient
    # stays connected to x under create_graph, as in PyTorch
    return unary(UN.Sgn, x)
