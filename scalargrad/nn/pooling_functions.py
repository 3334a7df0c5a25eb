"""``nn.functional``'s pooling (re-exported by ``nn.functional``): max_pool1d/2d/3d, avg_pool1d/2d/3d,
adaptive_avg_pool1d/2d/3d, adaptive_max_pool1d/2d/3d (see ``_tensor/pooling``) and lp_pool1d/2d/3d
(composed as PyTorch composes them)."""

from __future__ import annotations

from .._tensor import pooling as POOL
from .._tensor.arguments import not_tensor
from .._tensor.reductions import mean
from .._tensor.tensor import Tensor
from .._tensor.views import squeeze, unsqueeze

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "max_pool3d",
           "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d",
           "lp_pool3d"]


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


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each window of (N, C, D, H, W) or (C, D, H, W) (a MaxPool3DWithIndicesBackward0
    node); with ``return_indices`` also their positions within each volume (int64)."""
    return POOL.max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = True):
    """max_pool3d returning (values, indices)."""
    return POOL.max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window of (N, C, D, H, W) or (C, D, H, W) (an AvgPool3DBackward0 node)."""
    return POOL.avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


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
        return POOL.channels_last_mean(mean(input, (-1, -2), True), input)
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


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Adaptive average pooling (AdaptiveAvgPool3DBackward0); an output of (1, 1, 1) is
    ``input.mean((-1, -2, -3), keepdim=True)``, as ATen computes it (MeanBackward1)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "adaptive_avg_pool3d")
    size = _output_size(output_size, 3)
    if len(size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if input._t.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input._t.shape)}")
    size = tuple(s if s is not None else input._t.shape[-3 + i] for i, s in enumerate(size))
    if size == (1, 1, 1):
        return POOL.channels_last_mean(mean(input, (-1, -2, -3), True), input)
    return POOL.adaptive_avg_pool(input, size)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive max pooling (AdaptiveMaxPool3DBackward0); with ``return_indices`` also the maxima's
    positions within each volume (int64). None in ``output_size`` keeps the input's size."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "adaptive_max_pool3d")
    size = _output_size(output_size, 3)
    if len(size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    if input._t.ndim in (4, 5):
        size = tuple(s if s is not None else input._t.shape[-3 + i] for i, s in enumerate(size))
    return POOL.adaptive_max_pool(input, size, return_indices)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool3d returning (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)


def _ints(x, n: int) -> tuple:
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


def _unpool_output_size(input: Tensor, kernel_size: tuple, stride: tuple, padding: tuple, output_size) -> list:
    """PyTorch's ``_unpool_output_size``: (in - 1) * stride + kernel - 2 * padding per dim, or
    ``output_size`` (n or n + 2 sizes) within a stride of it."""
    n = len(kernel_size)
    default = [(input.size(-n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return list(ret)


def _unpool(input: Tensor, indices: Tensor, kernel_size, stride, padding, output_size, n: int) -> list:
    if not isinstance(input, Tensor):
        raise not_tensor(input, f"max_unpool{n}d")
    kernel_size = _ints(kernel_size, n)
    stride = _ints(stride, n) if stride is not None else kernel_size
    return _unpool_output_size(input, kernel_size, stride, _ints(padding, n), output_size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool1d: zeros with each element at its index (max_unpool2d over a
    width-1 view, as PyTorch composes it)."""
    size = _unpool(input, indices, kernel_size, stride, padding, output_size, 1)
    return squeeze(POOL.max_unpool(unsqueeze(input, -1), unsqueeze(indices, -1), tuple(size) + (1,), 2), -1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool2d: zeros with each element at its index within its plane (a
    MaxUnpool2DBackward0 node)."""
    size = _unpool(input, indices, kernel_size, stride, padding, output_size, 2)
    return POOL.max_unpool(input, indices, tuple(size), 2)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool3d: zeros with each element at its index within its volume (a
    MaxUnpool3DBackward0 node)."""
    size = _unpool(input, indices, kernel_size, stride, padding, output_size, 3)
    return POOL.max_unpool(input, indices, tuple(size), 3)


def _lp_pool(input: Tensor, norm_type, kernel_size, stride, ceil_mode: bool, n: int) -> Tensor:
    """PyTorch's ``lp_pool{n}d``: max pooling of |x| for an infinite norm, else
    ``(sign(out) * relu(|out|)) * prod(kernel) ** (1 / p)`` with out the average of x ** p."""
    max_pool = (max_pool1d, max_pool2d, max_pool3d)[n - 1]
    avg_pool = (avg_pool1d, avg_pool2d, avg_pool3d)[n - 1]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    volume = 1
    for k in (_ints(kernel_size, n) if n > 1 else (kernel_size,)):
        volume *= k
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(volume).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over (N, C, L) or (C, L)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over (N, C, H, W) or (C, H, W)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over (N, C, D, H, W) or (C, D, H, W)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)
