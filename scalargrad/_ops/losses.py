"""Loss functions: one node per loss, with PyTorch's backward kernels.

The node's ``_c`` is a ``Loss``: the reduction ('mean', 'sum' or 'none') and the number of
elements, which sets the norm of the mean.
"""

from __future__ import annotations

from .table import Api, Op, register

__all__ = ["Loss", "LOSSES"]


class Loss:
    """What a loss node keeps: its reduction and the input's number of elements."""

    __slots__ = ("reduction", "numel", "enum")

    def __init__(self, reduction: str, numel: int) -> None:
        self.reduction = reduction
        self.numel = numel
        self.enum = {"none": 0, "mean": 1, "sum": 2}.get(reduction)  # at::Reduction, as PyTorch saves it


@register
class MseLoss(Op):
    """mse_loss(input, target): the squared differences, reduced."""

    name = "MseLossBackward0"
    saved = (("reduction", "c.enum"), ("self", 0), ("target", 1))
    api = Api(functional="mse_loss")

    @staticmethod
    def forward(r, a, b):
        d = r(a - b)
        return d * d

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        c = v._c
        # mse_loss_backward: norm * (input - target) * grad, norm = 2 / numel for a mean, else 2;
        # the target's gradient is the same formula with the operands swapped
        norm = k.const(2.0 / c.numel if c.reduction == "mean" else 2.0)
        return k.mul(k.mul(norm, k.sub(a, b)), g), k.mul(k.mul(norm, k.sub(b, a)), g)

    @staticmethod
    def sympy(sp, a, b):
        return (a - b) ** 2


LOSSES = [MseLoss]
