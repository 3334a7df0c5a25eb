"""glu on tensors, and its backward.

ATen's CPU kernel computes ``a * (1 / (1 + exp(-b)))`` with its vectorised exp (whose last bit
depends on the build); scalargrad rounds the exact ``a * sigmoid(b)`` once, and the backward's
``sigmoid(b) * grad`` and ``(1 - sigmoid(b)) * sigmoid(b) * a * grad`` each once too."""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._ops import gated as GA
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper
from .views import norm_dim

__all__ = ["glu", "glu_backward"]


def _sigmoid(b: float) -> float:
    if b >= 0:
        return 1.0 / (1.0 + math.exp(-b))
    e = math.exp(b)
    return e / (1.0 + e)


def glu(x: Tensor, dim: int = -1) -> Tensor:
    """``F.glu``: the first half of ``dim`` times the sigmoid of the second."""
    shape = tuple(x._t.shape)
    nd = len(shape)
    if nd == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = norm_dim(dim, nd)
    if shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {shape[d]}")
    dt = x._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"glu on {dt.name} tensors")
    h = shape[d] // 2
    inner = math.prod(shape[d + 1:])
    outer = math.prod(shape[:d])
    pairs = []
    for o in range(outer):
        for j in range(h):
            for i in range(inner):
                a = (o * shape[d] + j) * inner + i
                pairs.append((a, a + h * inner))
    xv = x._val if nd else [x._val]
    r = dt.round
    out = [r(xv[a] * _sigmoid(xv[b])) for a, b in pairs]
    oshape = shape[:d] + (h,) + shape[d + 1:]
    return make(GA.Glu, TensorType(dt, oshape), out, (x,), GA.Gate(dim, shape, pairs))


def glu_backward(g: Tensor, v: Tensor) -> Tensor:
    """glu_backward(grad, self, dim): ``sigmoid(b) * grad`` into ``a``'s place,
    ``(1 - sigmoid(b)) * sigmoid(b) * a * grad`` into ``b``'s, each rounded once."""
    c = v._c
    x = v._in[0]
    dt = x._t.dtype
    r = dt.round
    xv = x._val
    gv = g._val if g._t.ndim else [g._val] * len(c.pairs)
    gx = [0.0] * len(xv)
    for k, (a, b) in enumerate(c.pairs):
        s = _sigmoid(xv[b])
        gx[a] = r(s * gv[k])
        gx[b] = r((1.0 - s) * s * xv[a] * gv[k])
    return leaf(gx, TensorType(dt, c.shape))


def _no_double_backward(g, v):
    raise Unsupported("the double backward of glu (GluBackwardBackward0, create_graph=True)")


helper(glu_backward)
graph_helper("glu_backward", _no_double_backward)
