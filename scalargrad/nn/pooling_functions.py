"""``nn.functional``'s pooling (re-exported by ``nn.functional``): max_pool1d/2d, avg_pool1d/2d,
adaptive_avg_pool1d/2d (see ``_tensor/pooling``)."""

from __future__ import annotations

from .._tensor import pooling as POOL
from .._tensor.arguments import not_tensor
from .._tensor.reductions import mean
from .._tensor.tensor import Tensor
from .._tensor.views import squeeze, unsqueeze

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices"]


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each window (a MaxPool2DWithIndicesBackward0 node); with ``return_indices``
    also their positions within each plane (int64)."""
    return POOL.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = True):
    """max_pool2d returning (values, indices)."""
    return POOL.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool2d over a height-1 view of (N, C, L) or (C, L)."""
    return POOL.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = True):
    """max_pool1d returning (values, indices)."""
    return POOL.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window (an AvgPool2DBackward0 node)."""
    return POOL.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """avg_pool2d over a height-1 view of (N, C, L) or (C, L)."""
    return POOL.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _output_size(output_size, n: int) -> tuple:
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        return (output_size,) * n
    return tuple(output_size)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Adaptive average pooling (AdaptiveAvgPool2DBackward0); an output of (1, 1) is
    ``input.mean((-1, -2), keepdim=True)``, as ATen computes it (MeanBackward1)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "adaptive_avg_pool2d")
    size = _output_size(output_size, 2)
    if input._t.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input._t.shape)}")
    size = tuple(s if s is not None else input._t.shape[-2 + i] for i, s in enumerate(size))
    if size == (1, 1):
        return mean(input, (-1, -2), True)
    return POOL.adaptive_avg_pool2d(input, size)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Adaptive average pooling over the last dimension (a 2-D pool over a height-1 view)."""
    size = _output_size(output_size, 1)
    if size == (1,):
        return mean(input, (-1,), True)
    if input._t.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input._t.shape)}")
    return squeeze(POOL.adaptive_avg_pool2d(unsqueeze(input, -2), (1, size[0])), -2)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive max pooling (AdaptiveMaxPool2DBackward0); with ``return_indices`` also the maxima's
    positions within each plane (int64). None in ``output_size`` keeps the input's size."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "adaptive_max_pool2d")
    size = _output_size(output_size, 2)
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    if input._t.ndim in (3, 4):
        size = tuple(s if s is not None else input._t.shape[-2 + i] for i, s in enumerate(size))
    return POOL.adaptive_max_pool2d(input, size, return_indices)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool2d returning (values, indices)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive max pooling over the last dimension (a 2-D pool over a height-1 view)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "adaptive_max_pool1d")
    size = _output_size(output_size, 1)
    if input._t.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._t.ndim}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    y, idx = POOL.adaptive_max_pool2d(unsqueeze(input, -2), (1, size[0]), True)
    return (squeeze(y, -2), squeeze(idx, -2)) if return_indices else squeeze(y, -2)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool1d returning (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)
