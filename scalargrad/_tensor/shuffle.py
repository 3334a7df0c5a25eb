"""pixel_shuffle, pixel_unshuffle and channel_shuffle on tensors (``_ops/shuffle.py``): copies of
the input's elements in another order, with ATen's checks (``PixelShuffle.cpp``,
``ChannelShuffle.cpp``) and errors."""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._ops import shuffle as SH
from .arguments import not_tensor
from .memory_formats import channels_last_input, in_format
from .tensor import Tensor, make
from .tensor_kernel import helper

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "install"]


def _lead(shape: tuple, upto: int) -> int:
    n = 1
    for s in shape[:upto]:
        n *= s
    return n


def _shuffled(op, x: Tensor, factor: int, out_shape: tuple, source: list) -> Tensor:
    xv = x._val
    geo = SH.Shuffle(factor, tuple(x._t.shape), out_shape, source)
    out = make(op, TensorType(x._t.dtype, out_shape), [xv[s] for s in source], (x,), geo)
    return in_format(out, channels_last_input(x))  # ATen: empty(..., x.suggest_memory_format())


@helper
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) to (*, C, H r, W r): out[c, h r + i, w r + j] = in[c r^2 + i r + j, h, w]."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "pixel_shuffle", "self", 1)
    shape = tuple(input._t.shape)
    r = upscale_factor
    if len(shape) < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{len(shape)} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = shape[-3:]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    oc = c // (r * r)
    out_shape = shape[:-3] + (oc, h * r, w * r)
    source = []
    for b in range(_lead(shape, -3)):
        for ch in range(oc):
            for y in range(h * r):
                hh, i = divmod(y, r)
                for xx in range(w * r):
                    ww, j = divmod(xx, r)
                    source.append(((b * c + ch * r * r + i * r + j) * h + hh) * w + ww)
    return _shuffled(SH.PixelShuffle, input, r, out_shape, source)


@helper
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) to (*, C r^2, H, W), pixel_shuffle's inverse."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "pixel_unshuffle", "self", 1)
    shape = tuple(input._t.shape)
    r = downscale_factor
    if len(shape) < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{len(shape)} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = shape[-3:]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    oh, ow = h // r, w // r
    out_shape = shape[:-3] + (c * r * r, oh, ow)
    source = []
    for b in range(_lead(shape, -3)):
        for ch in range(c):
            for i in range(r):
                for j in range(r):
                    for y in range(oh):
                        for xx in range(ow):
                            source.append(((b * c + ch) * h + y * r + i) * w + xx * r + j)
    return _shuffled(SH.PixelUnshuffle, input, r, out_shape, source)


@helper
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with channels read as (groups, C / groups) and written as (C / groups, groups)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "channel_shuffle", "self", 1)
    shape = tuple(input._t.shape)
    if len(shape) <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"[{', '.join(str(s) for s in shape)}]")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    per = c // groups
    inner = _lead(shape[2:], len(shape) - 2)
    source = []
    for b in range(shape[0]):
        for co in range(c):
            a, g = divmod(co, groups)
            base = (b * c + g * per + a) * inner
            source.extend(range(base, base + inner))
    return _shuffled(SH.ChannelShuffle, input, groups, shape, source)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.native_channel_shuffle`` (and ``nn.functional``'s): channel_shuffle's checks and
    elements, without a derivative (PyTorch records a NotImplemented node whose backward raises)."""
    if isinstance(input, Tensor) and input.requires_grad and is_grad_enabled():
        raise Unsupported("autograd through native_channel_shuffle (PyTorch's has no derivative: its backward "
                          "raises)")
    return channel_shuffle(input, groups)


def install(method, function) -> None:
    """torch.pixel_shuffle, torch.pixel_unshuffle, torch.channel_shuffle, torch.native_channel_shuffle."""
    function("pixel_shuffle", lambda input, upscale_factor: pixel_shuffle(input, upscale_factor))
    function("pixel_unshuffle", lambda input, downscale_factor: pixel_unshuffle(input, downscale_factor))
    function("channel_shuffle", lambda input, groups: channel_shuffle(input, groups))
    function("native_channel_shuffle", lambda input, groups: native_channel_shuffle(input, groups))
