"""softmax and log_softmax along a dimension, and their backward, as ATen's CPU kernels compute them.

The slices along ``dim`` are computed one by one, as ``SoftMaxKernel.cpp`` does, each step
rounded to the dtype:

* forward: ``m = max(slice)``, ``e = exp(x - m)``, ``s`` = the sum of ``e`` in order; softmax is
  ``e * (1 / s)`` along the last dimension (``_vec_softmax_lastdim``) and ``e / s`` along another
  (``_vec_softmax``); log_softmax is ``(x - m) - log(s)``;
* backward: softmax's ``(g - s) * y`` with ``s`` the sum of the rounded products ``g * y`` along
  the last dimension and a chain of fused multiply-adds along another; log_softmax's
  ``g - exp(y) * s`` (one fused multiply-add) with ``s`` the sum of ``g``.

The sums are in order, as ATen's vectorised reductions add slices shorter than a vector (8
float32 lanes with AVX2, 16 with AVX512) and as its kernels for an inner dimension do; longer
last-dimension slices are added lane by lane in PyTorch, which depends on the processor.
Measured against PyTorch 2.13 (AVX512): the backward of softmax is bit for bit (IEEE only) for
slices along another dimension and last-dimension slices shorter than 8; exp makes the rest
machine-dependent (tests/test_nn_activations.py).
"""

from __future__ import annotations

from .._base import ieee
from .._base.dtypes import TensorType
from .._base.kernel_order import fma
from .._ops import softmax as SM
from .._ops.softmax import Along
from .tensor import Tensor, make
from .views import norm_dim, to_dtype

__all__ = ["softmax", "backward_data", "slices"]


def slices(shape: tuple, d: int) -> list:
    """The flat (row-major) indices of each slice of ``shape`` along dimension ``d``."""
    if not shape:
        return [[0]]
    size = shape[d]
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    outer = 1
    for s in shape[:d]:
        outer *= s
    return [[o * size * inner + k * inner + i for k in range(size)] for o in range(outer) for i in range(inner)]


def _kernel_name(log: bool, last: bool) -> str:
    return ("log_" if log else "") + ("softmax_lastdim_kernel_impl" if last else "softmax_kernel_impl")


def softmax(x: Tensor, dim: int, log: bool = False, dtype=None) -> Tensor:
    """``x.softmax(dim)`` (``log``: ``x.log_softmax(dim)``); ``dtype`` converts the input first."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{'log_' if log else ''}softmax(): argument 'dim' must be int, not {type(dim).__name__}")
    if dtype is not None and dtype is not x._t.dtype:
        x = to_dtype(x, dtype)
    nd = x._t.ndim
    d = norm_dim(dim, nd) if nd else norm_dim(dim, 1)
    shape = tuple(x._t.shape)
    last = not nd or d == nd - 1
    dt = x._t.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{_kernel_name(log, last)}\" not implemented for '{dt.short}'")
    r = dt.round
    vals = x._val if nd else [x._val]
    out = [0.0] * len(vals)
    for idx in slices(shape, d if nd else 0):
        if not idx:  # a slice along a dimension of size 0: nothing to normalise
            continue
        row = [vals[i] for i in idx]
        m = _max(row)
        shifted = [r(a - m) for a in row]
        e = [r(ieee.exp(a)) for a in shifted]
        s = _sum(e, r)
        if log:
            ls = r(ieee.log(s))
            ys = [r(a - ls) for a in shifted]
        elif last:
            inv = r(ieee.div(1.0, s))
            ys = [r(a * inv) for a in e]
        else:
            ys = [r(ieee.div(a, s)) for a in e]
        for i, y in zip(idx, ys):
            out[i] = y
    op = SM.LogSoftmax if log else SM.Softmax
    return make(op, TensorType(dt, shape), out if nd else out[0], (x,), Along(d if nd else 0, shape, dim))


def _max(row: list) -> float:
    m = row[0]
    for a in row:
        if a != a:
            return a  # ATen's vectorised maximum propagates nan
        if a > m:
            m = a
    return m


def _sum(xs: list, r) -> float:
    s = r(0.0)
    for a in xs:
        s = r(s + a)
    return s


def backward_data(g: Tensor, y: Tensor, c: Along, log: bool) -> Tensor:
    """``_softmax_backward_data(g, y, dim)`` (``log``: ``_log_softmax_backward_data``): a node of
    its own when grad mode is on (double backward)."""
    dt = y._t.dtype
    shape = tuple(y._t.shape)
    if g._t.dtype is not dt:
        g = to_dtype(g, dt)
    gv = g._val if g._t.ndim else [g._val]
    yv = y._val if y._t.ndim else [y._val]
    if tuple(g._t.shape) != shape:  # a 0-dim gradient of a one-element result
        gv = gv * len(yv)
    r = dt.round
    f32 = dt.name == "float32"
    nd = len(shape)
    last = not nd or c.dim == nd - 1
    out = [0.0] * len(yv)
    for idx in slices(shape, c.dim):
        gs = [gv[i] for i in idx]
        ys = [yv[i] for i in idx]
        if log:
            s = _sum(gs, r)
            vals = [fma(-r(ieee.exp(b)), s, a, f32) if f32 or dt.name == "float64" else r(a - ieee.exp(b) * s)
                    for a, b in zip(gs, ys)]
        else:
            if last:
                s = _sum([r(a * b) for a, b in zip(gs, ys)], r)
            else:
                s = r(0.0)
                for a, b in zip(gs, ys):
                    s = fma(a, b, s, f32) if f32 or dt.name == "float64" else r(s + a * b)
            vals = [r(r(a - s) * b) for a, b in zip(gs, ys)]
        for i, v in zip(idx, vals):
            out[i] = v
    op = SM.LogSoftmaxBackwardData if log else SM.SoftmaxBackwardData
    return make(op, TensorType(dt, shape), out if nd else out[0], (g, y), c)


