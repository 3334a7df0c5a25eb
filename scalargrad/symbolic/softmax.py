"""The softmax family's elements (``_ops/softmax.py``): each element of softmax / log_softmax reads
its slice along the node's dimension, each element of their backward-data ops the (grad_output,
output) pairs of its slice. Each is the op table's form of one element, which also gives its
partial derivatives (``derived``): the family's calculus is written once, in ``_ops/softmax.py``."""

from __future__ import annotations

import math

from .._base.layout import slices
from .._ops import softmax as SM
from .._tensor.operands import positions
from .derived import FormElementOp
from .element_op import Const
from .graph import elements_of

__all__ = ["SoftmaxOf", "LogSoftmaxOf", "SoftmaxBackwardOf", "LogSoftmaxBackwardOf"]


def _rotation(n: int, c: int) -> list:
    """The slice's positions with element ``c`` first: the op table's softmax forms take the
    element first, then the rest of its slice."""
    return [c] + [i for i in range(n) if i != c]


def _pairs(n: int, c: int) -> list:
    """The positions of (g_0..g_k-1, y_0..y_k-1) as the backward-data forms take them: the
    element's (g, y), then the others' pairs."""
    k = n // 2
    return [j + half for j in _rotation(k, c) for half in (0, k)]


class _SliceElement(FormElementOp, listed=False):
    """An element of one of the family's ops: the form takes the element's own arguments first,
    then the rest of its slice's; ``width`` arguments per position (softmax's ``a``; the
    backward-data ops' ``g`` and ``y``), the inputs being each kind's slice in turn.

    PyTorch's kernels compute every element of a slice from the slice's rounded values (the
    saved output, the sums along the slice), so the rounding of the element's own term reaches
    the gradient of every input of its slice: each partial's scale (what the bulk backward's
    rounding is relative to) includes the scale of the element's own argument of its kind."""

    width = 1

    @classmethod
    def partial_scales(cls, vals, c) -> list:
        scales = super().partial_scales(vals, c)
        n = len(vals) // cls.width
        own = [scales[k * n + c] for k in range(cls.width)]
        return [s if i % n == c else s + own[i // n] for i, s in enumerate(scales)]


class SoftmaxOf(_SliceElement):
    """Element ``c`` of a softmax slice, inputs the slice: the op table's ``Softmax.sympy``."""

    name = "softmax"
    op = SM.Softmax
    arrange = staticmethod(_rotation)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 1


class LogSoftmaxOf(_SliceElement):
    """Element ``c`` of a log_softmax slice: the op table's ``LogSoftmax.sympy``."""

    name = "log_softmax"
    op = SM.LogSoftmax
    arrange = staticmethod(_rotation)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 1


class SoftmaxBackwardOf(_SliceElement):
    """Element ``c`` of ``_softmax_backward_data``, inputs (g_0..g_n-1, y_0..y_n-1) of its slice:
    ``(g_c - sum g_i y_i) y_c``, the op table's ``SoftmaxBackwardData.sympy``."""

    name = "softmax_backward_data"
    width = 2
    op = SM.SoftmaxBackwardData
    arrange = staticmethod(_pairs)

    @staticmethod
    def sample():
        return [0.5, -1.0, 2.0, 0.25, 0.5, 0.25], 1


class LogSoftmaxBackwardOf(_SliceElement):
    """Element ``c`` of ``_log_softmax_backward_data``: ``g_c - exp(y_c) sum g_i``, the op table's
    ``LogSoftmaxBackwardData.sympy``."""

    name = "log_softmax_backward_data"
    width = 2
    op = SM.LogSoftmaxBackwardData
    arrange = staticmethod(_pairs)

    @staticmethod
    def sample():
        return [0.5, -1.0, 2.0, -1.5, -0.5, -2.0], 1


def _along(elem_op):
    """softmax/log_softmax: each output element reads its slice along the node's dimension."""

    def build(v, vin, vals):
        u = vin[0]
        spec = [None] * len(vals)
        for idx in slices(v._c.shape, v._c.dim):
            srcs = tuple((u, i) for i in idx)
            for j, p in enumerate(idx):
                spec[p] = (elem_op, j, srcs)
        return spec

    return build


def _safe_along(v, vin, vals):
    """_safe_softmax: softmax's elements, the constant 0 on a slice of -inf whole."""
    u = vin[0]
    xs = u._val if u._t.ndim else [u._val]
    spec = _along(SoftmaxOf)(v, vin, vals)
    for idx in slices(v._c.shape, v._c.dim):
        if idx and all(xs[i] == -math.inf for i in idx):
            for p in idx:
                spec[p] = (Const, 0.0, ())
    return spec


def _along_backward(elem_op):
    """The backward-data ops: each element reads the (grad_output, output) pairs of its slice."""

    def build(v, vin, vals):
        g, y = vin
        gpos = positions(g._t.shape, v._t.shape)
        spec = [None] * len(vals)
        for idx in slices(v._c.shape, v._c.dim):
            srcs = tuple((g, gpos[i]) for i in idx) + tuple((y, i) for i in idx)
            for j, p in enumerate(idx):
                spec[p] = (elem_op, j, srcs)
        return spec

    return build


elements_of(SM.Softmax)(_along(SoftmaxOf))
elements_of(SM.SafeSoftmax)(_safe_along)
elements_of(SM.LogSoftmax)(_along(LogSoftmaxOf))
elements_of(SM.SoftmaxBackwardData)(_along_backward(SoftmaxBackwardOf))
elements_of(SM.LogSoftmaxBackwardData)(_along_backward(LogSoftmaxBackwardOf))
