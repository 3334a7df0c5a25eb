"""The tensor kernels' helpers of ``_ops/attention.py``'s gate (PyTorch's fused CPU attention):
its gradient is the incoming one; under create_graph that gradient comes out of a
``NotImplemented`` node over it and the gate's input, so that a backward through it raises
PyTorch's error (derivatives.yaml has no entry for the fused kernel's backward)."""

from __future__ import annotations

from .._ops import attention as AT
from .tensor import Tensor, make
from .tensor_kernel import graph_helper, helper

__all__ = ["sdpa_flash_gate"]


@helper
def sdpa_flash_gate(g: Tensor, v: Tensor) -> Tensor:
    """``SdpaFlashGate``'s gradient: the incoming one."""
    return g


def _recorded(g: Tensor, v: Tensor) -> Tensor:
    return make(AT.SdpaFlashBackward, g._t, g._val, (g, v._in[0]))


graph_helper("sdpa_flash_gate", _recorded)
