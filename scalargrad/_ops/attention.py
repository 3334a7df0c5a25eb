"""PyTorch's fused CPU attention kernel (``_scaled_dot_product_flash_attention_for_cpu``), where
``nn/attention_functions.py`` decides PyTorch takes it.

A recorded call is one ``SdpaFlash`` node over query, key and value
(``ScaledDotProductFlashAttentionForCpuBackward0``, PyTorch's saved attributes), whose values
and gradients are the math path's; its SymPy form is the attention of one query row
(``attention_form``). Its backward (``_scaled_dot_product_flash_attention_for_cpu_backward``)
has no derivative in derivatives.yaml: under create_graph the gradients come out of
``SdpaFlashGrad`` NotImplemented nodes (form ``attention_grad_form``), and a backward through them
raises PyTorch's error.

With ``enable_gqa`` and fewer key/value heads than query heads scalargrad still records the math
path's nodes, query, key and value each passed first through ``SdpaFlashGate``, an identity node
(printed ``AliasBackward0``) whose gradient under create_graph is a ``SdpaFlashBackward``
NotImplemented node's.
"""

from __future__ import annotations

from .elementwise import Binary, Unary
from .float_kernel import helper
from .table import Op, no_derivative, register

__all__ = ["SdpaFlashGate", "SdpaFlashBackward", "SdpaFlash", "SdpaFlashGrad", "SdpaFlashContext", "attention_form",
           "attention_grad_form"]


@register
class SdpaFlashGate(Unary):
    """An input of scaled_dot_product_attention where PyTorch takes its fused kernel: the
    identity; its gradient is the incoming one (under create_graph, a NotImplemented node's)."""

    name, saves, saves_inputs = "AliasBackward0", False, False
    forward = staticmethod(lambda r, a: a)
    backward = staticmethod(lambda k, g, v: (k.sdpa_flash_gate(g, v),))
    sympy = staticmethod(lambda sp, a: a)


@helper
def sdpa_flash_gate(g, v):
    """The gate's gradient on floats (the element-level checks): the incoming one."""
    return g


@register
class SdpaFlashBackward(Binary):
    """The fused backward's result under create_graph: a NotImplemented node with an edge for
    each input that requires grad (the incoming gradient, the attention's input); its elements
    are the incoming gradient's (so the proof reads through it; its backward raises)."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    grad_edges_only = True
    forward = staticmethod(lambda r, g, a: g)
    backward = no_derivative("_scaled_dot_product_flash_attention_for_cpu_backward")
    sympy = staticmethod(lambda sp, g, a: g)


class SdpaFlashContext:
    """What a ``SdpaFlash`` node keeps (its ``_c``): the arguments PyTorch saves (``attn_mask``
    as the fused kernel received it, ``is_causal``, ``scale`` as given: None by default), the
    mask the scores get (the float mask, or the causal one; None) and the factor the math path
    scales query and key by (``sqrt(|scale|)``, negative on the query for a negative scale), and
    the ``logsumexp`` of each score row (the kernel's second output, a saved tensor)."""

    __slots__ = ("attn_mask", "is_causal", "scale", "mask", "factor", "sign", "logsumexp")

    def __init__(self, attn_mask, is_causal: bool, scale, mask, factor: float, sign: float, logsumexp) -> None:
        self.attn_mask, self.is_causal, self.scale = attn_mask, is_causal, scale
        self.mask, self.factor, self.sign, self.logsumexp = mask, factor, sign, logsumexp


def attention_form(sp, *args, size: int = 1, qf=1, kf=1, mask: tuple = ()):
    """One element of the attention, as the math path computes it: ``args`` are the query row
    (``size`` elements), the key rows (S x ``size``) and the value column (S); the scores
    ``sum_d (qf q_d)(kf k_jd) + mask_j`` (``qf kf`` is the scale; a key masked with -inf left
    out), the softmax-weighted sum of the value column; 0 on a row masked whole (``_safe_softmax``)."""
    q = args[:size]
    n = (len(args) - size) // (size + 1)
    keys = [args[size + j * size: size + (j + 1) * size] for j in range(n)]
    vals = args[size + n * size:]
    mask = mask or (0,) * n
    scores = [(sp.Add(*[(qf * a) * (kf * b) for a, b in zip(q, keys[j])]) + mask[j], vals[j])
              for j in range(n) if mask[j] != -sp.oo]
    if len(scores) < 2:  # a row masked whole gives 0; a row of one key, its value (exp(s) / exp(s) is 1)
        return scores[0][1] if scores else sp.Integer(0)
    weights = [sp.exp(x) for x, _ in scores]
    return sp.Add(*[w * x for w, (_, x) in zip(weights, scores)]) / sp.Add(*weights)


def attention_grad_form(sp, *args, shape: tuple = (1, 1, 1, 1), target: int = 0, qf=1, kf=1, masks: tuple = ()):
    """One element of the gradient of query, key or value (the input element ``target`` among
    ``args``): ``args`` are the incoming gradient (L x Ev), the query (L x E), key (S x E) and
    value (S x Ev) of one batch and head; the derivative by the target of ``sum_ie g_ie
    out_ie`` (``masks``: the mask row of each query row, or empty)."""
    n_l, n_s, e, ev = shape
    at = sp.Dummy("t", real=True)
    xs = list(args)
    xs[target] = at
    g = xs[:n_l * ev]
    q = xs[n_l * ev: n_l * ev + n_l * e]
    k = xs[n_l * ev + n_l * e: n_l * ev + n_l * e + n_s * e]
    v = xs[n_l * ev + n_l * e + n_s * e:]
    total = sp.Add(*[g[i * ev + c] * attention_form(sp, *q[i * e:(i + 1) * e], *k, *v[c::ev], size=e, qf=qf, kf=kf,
                                                    mask=masks[i] if masks else ())
                     for i in range(n_l) for c in range(ev)])
    return sp.diff(total, at).subs(at, args[target])


@register
class SdpaFlash(Op):
    """``_scaled_dot_product_flash_attention_for_cpu(query, key, value)``: PyTorch's fused CPU
    kernel, one node over query, key and value. Its values are the math path's (``nn/
    attention_functions.py`` computes them); its backward is the math path's gradient formula
    (``k.sdpa_flash_backward``); under create_graph the gradients come out of a NotImplemented
    node (``SdpaFlashGrad``), as derivatives.yaml declares no derivative for the fused backward."""

    name = "ScaledDotProductFlashAttentionForCpuBackward0"
    saves_output = True
    saved = (("attn_mask", "c.attn_mask"), ("dropout_p", ("value", 0.0)), ("is_causal", "c.is_causal"),
             ("key", 1), ("logsumexp", "c.logsumexp"), ("output", "result"), ("query", 0), ("scale", "c.scale"),
             ("value", 2))
    backward = staticmethod(lambda k, g, v: k.sdpa_flash_backward(g, v))
    sympy = staticmethod(attention_form)


@register
class SdpaFlashGrad(Op):
    """A gradient of query, key or value out of the fused backward under create_graph: a
    NotImplemented node with an edge for each of (grad_out, query, key, value, output) that
    requires grad; its backward raises PyTorch's error. Its elements are the gradient formula's
    values."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    grad_edges_only = True
    backward = no_derivative("_scaled_dot_product_flash_attention_for_cpu_backward")
    sympy = staticmethod(attention_grad_form)
