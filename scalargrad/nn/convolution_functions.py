"""``nn.functional.conv1d`` / ``conv2d`` (re-exported by ``nn.functional``): one
``ConvolutionBackward0`` node each (see ``_tensor/convolution``)."""

from __future__ import annotations

from .._tensor import convolution as CONV
from .._tensor.tensor import Tensor

__all__ = ["conv1d", "conv2d"]


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of ``input`` (N, C_in, L) or (C_in, L) with ``weight`` (C_out, C_in / groups, k)."""
    return CONV.convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of ``input`` (N, C_in, H, W) or (C_in, H, W) with ``weight``
    (C_out, C_in / groups, kH, kW)."""
    return CONV.convolution(input, weight, bias, stride, padding, dilation, groups, 2)
