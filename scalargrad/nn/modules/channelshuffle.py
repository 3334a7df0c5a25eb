"""``nn.ChannelShuffle``, with PyTorch's attributes and repr (see ``nn/shuffle_functions``)."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import shuffle_functions as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Channels (groups, C / groups) read as (C / groups, groups)."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
