"""Shuffles: ``pixel_shuffle`` (``PixelShuffleBackward0``), ``pixel_unshuffle``
(``PixelUnshuffleBackward0``) and ``channel_shuffle`` (``ChannelShuffleBackward0``): each output
element is a copy of one input element, a permutation.

The node's ``_c`` is a ``Shuffle``: the factor PyTorch saves and ``source[o]``, the flat input
position output ``o`` copies. Each backward is the inverse shuffle of the gradient, a node of the
inverse op (pixel_shuffle's backward is pixel_unshuffle, channel_shuffle's is channel_shuffle by
C / groups), as ``derivatives.yaml`` writes it. The tensor layer computes them (``_tensor/shuffle.py``).
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["Shuffle", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "SHUFFLE_OPS"]


class Shuffle:
    """What a shuffle node keeps: ``factor`` (upscale, downscale factor or groups), the shapes,
    and ``source[o]``, the flat input position output ``o`` copies."""

    __slots__ = ("factor", "in_shape", "out_shape", "source")

    def __init__(self, factor: int, in_shape: tuple, out_shape: tuple, source: list) -> None:
        self.factor = factor
        self.in_shape = tuple(in_shape)
        self.out_shape = tuple(out_shape)
        self.source = source


class _Shuffle(Op):
    saves_inputs = False

    @staticmethod
    def sympy(sp, a):
        return a  # the copied element


@register
class PixelShuffle(_Shuffle):
    """pixel_shuffle(self, upscale_factor): (*, C r^2, H, W) to (*, C, H r, W r)."""

    name = "PixelShuffleBackward0"
    saved = (("upscale_factor", "c.factor"),)
    # self: pixel_unshuffle(grad, upscale_factor)
    backward = staticmethod(lambda k, g, v: (k.pixel_unshuffle(g, v._c.factor),))


@register
class PixelUnshuffle(_Shuffle):
    """pixel_unshuffle(self, downscale_factor): (*, C, H r, W r) to (*, C r^2, H, W)."""

    name = "PixelUnshuffleBackward0"
    saved = (("downscale_factor", "c.factor"),)
    # self: pixel_shuffle(grad, downscale_factor)
    backward = staticmethod(lambda k, g, v: (k.pixel_shuffle(g, v._c.factor),))


@register
class ChannelShuffle(_Shuffle):
    """channel_shuffle(self, groups): channels (g, C / g) read as (C / g, g)."""

    name = "ChannelShuffleBackward0"
    saved = (("groups", "c.factor"),)
    # self: channel_shuffle(grad, grad.size(-3) / groups)
    backward = staticmethod(lambda k, g, v: (k.channel_shuffle(g, v._c.in_shape[1] // v._c.factor),))


SHUFFLE_OPS = [PixelShuffle, PixelUnshuffle, ChannelShuffle]
