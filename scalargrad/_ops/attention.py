"""What a program can see of PyTorch's fused CPU attention kernel beyond its values: its backward
(``_scaled_dot_product_flash_attention_for_cpu_backward``) has no derivative in derivatives.yaml,
so under create_graph the gradients of query, key and value come out of a ``NotImplemented``
node and a backward through them raises PyTorch's error.

scalargrad records the math path's nodes (they carry the SymPy forms and the double backward
the verifier reads) with query, key and value each passed first through ``SdpaFlashGate``, an
identity node (printed ``AliasBackward0``, the name of PyTorch's identity node): its backward
hands the gradient on, and under create_graph hands it on as the result of a ``NotImplemented``
node. ``nn/attention_functions.py`` decides when PyTorch takes the fused kernel.
"""

from __future__ import annotations

from .elementwise import Binary, Unary
from .float_kernel import helper
from .table import no_derivative, register

__all__ = ["SdpaFlashGate", "SdpaFlashBackward"]


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
