"""``nn.functional.conv1d`` / ``conv2d`` / ``conv3d`` / ``conv_transpose1d/2d/3d`` (re-exported by
``nn.functional``): one ``ConvolutionBackward0`` node each (see ``_tensor/convolution``)."""

from __future__ import annotations

from .._tensor import convolution as CONV
from .._tensor.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of ``input`` (N, C_in, L) or (C_in, L) with ``weight`` (C_out, C_in / groups, k)."""
    return CONV.convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of ``input`` (N, C_in, H, W) or (C_in, H, W) with ``weight``
    (C_out, C_in / groups, kH, kW)."""
    return CONV.convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """3-D cross-correlation of ``input`` (N, C_in, D, H, W) or (C_in, D, H, W) with ``weight``
    (C_out, C_in / groups, kD, kH, kW)."""
    return CONV.convolution(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """1-D transposed convolution of ``input`` (N, C_in, L) or (C_in, L) with ``weight``
    (C_in, C_out / groups, k): the gradient of conv1d with respect to its input."""
    return CONV.conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """2-D transposed convolution of ``input`` (N, C_in, H, W) or (C_in, H, W) with ``weight``
    (C_in, C_out / groups, kH, kW): the gradient of conv2d with respect to its input."""
    return CONV.conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """3-D transposed convolution of ``input`` (N, C_in, D, H, W) or (C_in, D, H, W) with ``weight``
    (C_in, C_out / groups, kD, kH, kW): the gradient of conv3d with respect to its input."""
    return CONV.conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)
