"""``Tensor.resize`` (deprecated): PyTorch's ``torch.autograd._functions.Resize``, a custom Function.

PyTorch warns ``non-inplace resize is deprecated``, then views the tensor's own memory (a
contiguous tensor) or a contiguous copy in the new shape; the node is ``ResizeBackward``, whose
backward views the gradient in the input's shape. The number of elements may not change.
SymPy does not prove this node (a custom Function whose output has another shape than its input).
"""

from __future__ import annotations

import functools
import operator
import warnings

from .._autograd.function import Function
from .._tensor.tensor import Tensor

__all__ = ["Resize", "resize"]


class Resize(Function):
    """The shape change behind ``Tensor.resize``: elements kept in order, memory shared when contiguous."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.sizes = sizes
        ctx.numel = functools.reduce(operator.mul, sizes, 1)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                "requested resize to {} ({} elements in total), but the given tensor has a size of {} ({} elements). "
                "autograd's resize can only change the shape of a given tensor, while preserving the number of "
                "elements. ".format("x".join(map(str, sizes)), ctx.numel, "x".join(map(str, tensor.size())),
                                    tensor.numel()))
        ctx.input_sizes = tensor.size()
        if tensor.is_contiguous():
            return tensor.detach().view(*sizes)  # PyTorch's tensor.new(tensor): the same memory
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None

    # no SymPy form: a custom Function's form is applied element by element at the same place, and
    # resize moves elements to another shape (the proof reports this node as opaque)


def resize(self: Tensor, *sizes) -> Tensor:
    """``Tensor.resize(*sizes)``: deprecated (PyTorch's warning), ``Resize.apply(self, sizes)``."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return Resize.apply(self, sizes)


Tensor.resize = resize
