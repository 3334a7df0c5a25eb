"""softmax and log_softmax along a dimension on tensors (``_ops/softmax.py``): the slices along
``dim`` are computed one by one, as ``SoftMaxKernel.cpp`` does, by the op table's
``forward_slice`` and ``backward_slice`` (the one place the arithmetic is written, with how
PyTorch rounds it). Measured against PyTorch 2.13 (AVX512): the backward of softmax is bit for
bit (IEEE only) for slices along another dimension and last-dimension slices shorter than 8; exp
makes the rest machine-dependent (tests/test_activations.py).
"""

from __future__ import annotations

import math

from .._base.dtypes import TensorType
from .._base.layout import slices
from .._ops import softmax as SM
from .._ops.softmax import Along, backward_slice, forward_slice
from .reductions import sum as tsum
from .tensor import Tensor, make
from .tensor_kernel import helper
from .views import norm_dim, to_dtype

__all__ = ["softmax", "backward_data", "install"]


def _kernel_name(log: bool, last: bool) -> str:
    return ("log_" if log else "") + ("softmax_lastdim_kernel_impl" if last else "softmax_kernel_impl")


def softmax(x: Tensor, dim: int, log: bool = False, dtype=None, safe: bool = False) -> Tensor:
    """``x.softmax(dim)`` (``log``: ``x.log_softmax(dim)``; ``safe``: ``at::_safe_softmax``, 0 on a
    slice of -inf whole); ``dtype`` converts the input first."""
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
        masked = safe and all(a == -math.inf for a in row)
        for i, y in zip(idx, forward_slice(row, r, log, last)):
            out[i] = 0.0 if masked else y
    op = SM.LogSoftmax if log else (SM.SafeSoftmax if safe else SM.Softmax)
    return make(op, TensorType(dt, shape), out if nd else out[0], (x,), Along(d if nd else 0, shape, dim))


@helper(name="softmax_backward")
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
    fused = True if dt.name == "float32" else (False if dt.name == "float64" else None)
    nd = len(shape)
    last = not nd or c.dim == nd - 1
    out = [0.0] * len(yv)
    for idx in slices(shape, c.dim):
        if not idx:  # a slice along a dimension of size 0
            continue
        vals = backward_slice([gv[i] for i in idx], [yv[i] for i in idx], r, log, last, fused)
        for i, v in zip(idx, vals):
            out[i] = v
    op = SM.LogSoftmaxBackwardData if log else SM.SoftmaxBackwardData
    return make(op, TensorType(dt, shape), out if nd else out[0], (g, y), c)


def install(method, function) -> None:
    """softmax and log_softmax."""
    method("softmax", lambda self, dim, dtype=None: softmax(self, dim, False, dtype))
    method("log_softmax", lambda self, dim, dtype=None: softmax(self, dim, True, dtype))
    function("softmax", lambda input, dim, dtype=None: softmax(input, dim, False, dtype))
    function("log_softmax", lambda input, dim, dtype=None: softmax(input, dim, True, dtype))


@helper
def sum_along(x, c):
    """``x.sum(dim, keepdim=True)`` along a softmax node's dimension."""
    if not x._t.ndim:
        return x
    return tsum(x, c.dim, keepdim=True)
