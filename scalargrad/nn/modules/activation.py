"""Activation modules: ReLU, Sigmoid, Tanh, and Identity."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "Identity"]


class ReLU(Module):
    """max(x, 0), element-wise; ``inplace`` changes the input itself."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's parameter name
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.tanh(input)


class Identity(Module):
    """Returns its input unchanged (the same object); accepts and ignores any arguments."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):  # noqa: A002
        return input
