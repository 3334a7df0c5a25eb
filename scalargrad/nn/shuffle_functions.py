"""``nn.functional.pixel_shuffle`` / ``pixel_unshuffle`` / ``channel_shuffle`` (re-exported by
``nn.functional``; see ``_tensor/shuffle``)."""

from __future__ import annotations

from .._tensor import shuffle as SH
from .._tensor.tensor import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) to (*, C, H r, W r) (a PixelShuffleBackward0 node)."""
    return SH.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) to (*, C r^2, H, W) (a PixelUnshuffleBackward0 node)."""
    return SH.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its channels read as (groups, C / groups) and written transposed."""
    return SH.channel_shuffle(input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``channel_shuffle`` without a derivative (``torch.native_channel_shuffle``)."""
    return SH.native_channel_shuffle(input, groups)
