"""Dropout: zero each element with probability ``p`` in training mode, identity in eval mode."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """What the dropout modules share: ``p``, ``inplace`` and the repr."""

    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """``F.dropout(x, p, self.training, inplace)``: kept elements are scaled by 1 / (1 - p)."""

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """``F.dropout2d(x, p, self.training, inplace)``: whole channels zeroed."""

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """``F.dropout1d(x, p, self.training, inplace)``: whole channels zeroed."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """``F.dropout3d(x, p, self.training, inplace)``: whole channels zeroed."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """``F.alpha_dropout(x, p, self.training)`` (no in-place form in the module, as PyTorch's)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``F.feature_alpha_dropout(x, p, self.training)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
