"""The tensor kernels' helpers of ``_ops/attention.py``: the gate (the inputs of PyTorch's fused CPU
attention where scalargrad records the math path) and the fused node's backward.

``SdpaFlash``'s backward is the math path's gradient formula, on the scores recomputed as the
math path computes them (``sqrt(scale)`` on query and key, the mask added, ``_safe_softmax``):
``dv = p^T g``, ``ds = p (g v^T - rowsum(g v^T * p))``, ``dq = ds k'`` and ``dk = ds^T q'`` scaled
back. The fused backward writes its gradients laid out (B, L, H, E) and hands them on transposed
to (B, H, L, E), as the strides show. Under create_graph each comes out of a NotImplemented node
over (grad_out, query, key, value, output) (derivatives.yaml has no entry for the fused backward)."""

from __future__ import annotations

from .._base import grad_mode
from .._base.dtypes import TensorType
from .._ops import arithmetic as AR
from .._ops import attention as AT
from .._ops.table import needed_inputs
from .elementwise import with_number
from .products import matmul
from .softmax import softmax
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["sdpa_flash_gate", "sdpa_flash_backward", "flash_layout"]


@helper
def sdpa_flash_gate(g: Tensor, v: Tensor) -> Tensor:
    """``SdpaFlashGate``'s gradient: the incoming one."""
    return g


def _recorded(g: Tensor, v: Tensor) -> Tensor:
    return make(AT.SdpaFlashBackward, g._t, g._val, (g, v._in[0]))


graph_helper("sdpa_flash_gate", _recorded)


def flash_layout(t: Tensor) -> Tensor:
    """``t`` (B, H, L, E) as a new tensor laid out (B, L, H, E) and transposed: the fused
    kernel's layout of its gradients and logsumexp (3-D: (B, L, H) transposed)."""
    shape = tuple(t._t.shape)
    if len(shape) == 4:
        b, h, n, e = shape
        strides = (n * h * e, e, h * e, 1)
    else:
        b, h, n = shape
        strides = (n * h, 1, h)
    vals = t._val if t._t.ndim else [t._val]
    return leaf(list(vals), TensorType(t._t.dtype, shape, strides))


def _gradients(g: Tensor, v: Tensor) -> list:
    """[dq, dk, dv] (None where the input takes no gradient), in the fused layout."""
    q, k, val = v._in
    c = v._c
    want = needed_inputs(v, 0, 1) + needed_inputs(v, 2, 2)[:1]
    saved = grad_mode.state.enabled
    grad_mode.state.enabled = False
    try:
        qs = with_number(AR.MulScalar, q, c.sign * c.factor)
        kt = with_number(AR.MulScalar, k.transpose(-2, -1), c.factor)
        scores = matmul(qs, kt)
        if c.mask is not None:
            scores = scores + c.mask
        p = softmax(scores, -1, safe=True)
        out = [None, None, None]
        if want[2]:
            out[2] = matmul(p.transpose(-2, -1), g)
        if want[0] or want[1]:
            dp = matmul(g, val.transpose(-2, -1))
            ds = (dp - (dp * p).sum(-1, keepdim=True)) * p
            if want[0]:
                out[0] = with_number(AR.MulScalar, matmul(ds, kt.transpose(-2, -1)), c.sign * c.factor)
            if want[1]:
                out[1] = with_number(AR.MulScalar, matmul(ds.transpose(-2, -1), qs), c.factor)
    finally:
        grad_mode.state.enabled = saved
    return [None if t is None else flash_layout(t) for t in out]


@helper
def sdpa_flash_backward(g: Tensor, v: Tensor) -> tuple:
    """``SdpaFlash``'s gradients of query, key and value."""
    return tuple(_gradients(g, v))


def _recorded_backward(g: Tensor, v: Tensor) -> tuple:
    ins = (g,) + tuple(v._in) + (v,)
    return tuple(None if t is None else make(AT.SdpaFlashGrad, t._t, t._val, ins, i)
                 for i, t in enumerate(_gradients(g, v)))


graph_helper("sdpa_flash_backward", _recorded_backward)
