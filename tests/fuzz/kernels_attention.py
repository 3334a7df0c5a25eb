"""The kernel rule's entries for PyTorch's fused CPU attention (``kernels.py``).

PyTorch's CPU build computes ``scaled_dot_product_attention`` of 4-D inputs without dropout
(``MultiheadAttention`` with ``need_weights=False`` among them) in one kernel,
``_scaled_dot_product_flash_attention_for_cpu``, and its backward in another: blocked products,
a running maximum and a vectorised exp, whose last bits differ from the math path's (which
scalargrad computes, and PyTorch too for some calls under the rule's dispatch mode: then
``_safe_softmax``'s entry in ``kernels.py`` applies) and between processors. The rule writes
scalargrad's values into each call; the check compares every replaced element with the textbook
formula evaluated in float64 (a row masked whole gives zeros, as ``_safe_softmax``) within
tests/test_attention.py's measured bound: |x - reference| <= BOUND * max(1, |reference|), twice
that for gradients.
"""

from __future__ import annotations

import math

from .kernels import Kernel, _flat, _grad, _to_sg, _values

__all__ = ["attention_kernels"]

BOUND = {"float32": 1e-5, "float64": 1e-5 * 2.0**-29}
"""tests/test_attention.py's bound for float32 (values and gradients of PyTorch and scalargrad
measured at most 9.5e-7 and 4.6e-6), moved by float64's 29 more bits for float64."""


def _options(args, kwargs, backward: bool) -> tuple:
    base = 6 if backward else 3
    dropout = args[base] if len(args) > base else 0.0
    causal = args[base + 1] if len(args) > base + 1 else False
    return dropout, causal, kwargs.get("attn_mask"), kwargs.get("scale")


def _reference(q, k, v, mask, causal: bool, scale, grad=None) -> list:
    """The textbook formula in float64: [out], or with ``grad`` [dq, dk, dv]."""
    import torch

    q, k, v = (t.detach().double() for t in (q, k, v))
    factor = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1) * factor
    if causal:
        s = s.masked_fill(~torch.ones(s.shape[-2:], dtype=torch.bool).tril(), -math.inf)
    if mask is not None:
        s = s.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else s + mask.detach().double()
    whole = (s == -math.inf).all(-1, keepdim=True)
    p = s.masked_fill(whole, 0.0).softmax(-1).masked_fill(whole, 0.0)
    if grad is None:
        return [p @ v]
    g = grad.detach().double()
    dp = g @ v.transpose(-2, -1)
    ds = p * (dp - (dp * p).sum(-1, keepdim=True)) * factor
    return [ds @ k, ds.transpose(-2, -1) @ q, p.transpose(-2, -1) @ g]


_LAST: dict = {}  # the reference of the call being checked, by its operands' values


def _checker(backward: bool):
    def check(args, kwargs, k, i, value, dt, shape):
        import torch

        key = (backward, tuple(tuple(_flat(a)) for a in args if isinstance(a, torch.Tensor)),
               repr(sorted((n, _flat(t) if isinstance(t, torch.Tensor) else t) for n, t in kwargs.items())))
        if key not in _LAST:
            _LAST.clear()
            _, causal, mask, scale = _options(args, kwargs, backward)
            q, kk, v = args[1:4] if backward else args[:3]
            _LAST[key] = [_flat(r) for r in _reference(q, kk, v, mask, causal, scale,
                                                        args[0] if backward else None)]
        ref = _LAST[key][k][i]
        if math.isnan(value) or math.isnan(ref):
            return False
        return abs(value - ref) <= (2 if backward else 1) * BOUND[dt] * max(1.0, abs(ref))

    return check


def _forward(sg, args, kwargs):
    dropout, causal, mask, scale = _options(args, kwargs, False)
    if dropout:
        return None
    q, k, v = (_to_sg(sg, t) for t in args[:3])
    m = _to_sg(sg, mask) if mask is not None else None
    return [_values(sg.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal,
                                                                   scale=scale))]


def _backward(sg, args, kwargs):
    dropout, causal, mask, scale = _options(args, kwargs, True)
    if dropout:
        return None
    g = _to_sg(sg, args[0])
    q, k, v = (_to_sg(sg, t, rg=True) for t in args[1:4])
    m = _to_sg(sg, mask) if mask is not None else None
    with _grad(sg, True):
        out = sg.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal, scale=scale)
        grads = sg.autograd.grad(out, [q, k, v], g)
    return [_values(t) for t in grads]


def attention_kernels(torch) -> dict:
    """{ATen op overload: (Kernel, "out")} for the fused attention kernels."""
    aten = torch.ops.aten
    return {aten._scaled_dot_product_flash_attention_for_cpu.default:
            (Kernel("sdpa_flash", _forward, _checker(False)), "out"),
            aten._scaled_dot_product_flash_attention_for_cpu_backward.default:
            (Kernel("sdpa_flash_backward", _backward, _checker(True), outputs=(0, 1, 2)), "out")}
