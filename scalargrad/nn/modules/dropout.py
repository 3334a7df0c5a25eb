"""Dropout: zero each element with probability ``p`` in training mode, identity in eval mode."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout2d"]


class Dropout(Module):
    """``F.dropout(x, p, self.training, inplace)``: kept elements are scaled by 1 / (1 - p)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """``F.dropout2d(x, p, self.training, inplace)``: whole channels zeroed."""

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return F.dropout2d(input, self.p, self.training, self.inplace)
