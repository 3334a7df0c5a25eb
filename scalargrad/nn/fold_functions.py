"""``nn.functional.unfold`` and ``fold`` (re-exported by ``nn.functional``): ATen's im2col and
col2im (one Im2ColBackward0 / Col2ImBackward0 node each, ``_tensor/fold.py``)."""

from __future__ import annotations

from .._tensor import fold as FOLD
from .._tensor.tensor import Tensor

__all__ = ["fold", "unfold"]


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """The sliding local blocks of a (N, C, H, W) input as the columns of (N, C * kh * kw, L)."""
    return FOLD.im2col(input, *map(FOLD.pair, (kernel_size, dilation, padding, stride)))


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Columns of sliding blocks (N, C * kh * kw, L) summed into an (N, C, *output_size) image."""
    return FOLD.col2im(input, *map(FOLD.pair, (output_size, kernel_size, dilation, padding, stride)))
