"""``nn.Linear``: y = x @ weight.T + bias, with PyTorch's parameters and initialisation.

The weight (out_features x in_features) and the bias (out_features) are Parameters; the
forward is ``addmm`` (or matmul and add), composed as ``at::linear`` composes it. The parameters are
drawn as PyTorch 2.13 draws them (``reset_parameters``: kaiming_uniform_ with a = sqrt(5) for
the weight, then uniform(-1/sqrt(in_features), 1/sqrt(in_features)) for the bias), from
scalargrad's reproduction of PyTorch's CPU generator, so ``torch.manual_seed(s)`` then
``nn.Linear(4, 1)`` gives PyTorch's numbers.
"""

from __future__ import annotations

import math

from ..._base.grad_mode import no_grad
from ..._tensor.factories import empty
from ..._tensor.tensor import Tensor
from ..._tensor.tensor import defaults as _defaults
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["Linear"]


def _uniform_(p: Tensor, low: float, high: float) -> None:
    """``Tensor.uniform_(low, high)`` under no_grad: new numbers drawn in PyTorch's order."""
    with no_grad():
        p.uniform_(low, high)


def _fan_in(weight: Tensor) -> int:
    """``torch.nn.init._calculate_fan_in_and_fan_out(weight)[0]`` for a 2-D weight."""
    return weight.shape[1] if weight.dim() > 1 else weight.shape[0]


class Linear(Module):
    """Applies y = x A^T + b (``in_features`` -> ``out_features``)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        dt = dtype if dtype is not None else _defaults["dtype"]
        self.weight = Parameter(empty((out_features, in_features), dtype=dt))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's initialisation: kaiming_uniform_(weight, a=sqrt(5)), then the bias."""
        fan_in = _fan_in(self.weight)
        # init.kaiming_uniform_: gain = calculate_gain("leaky_relu", sqrt(5)), computed as PyTorch does
        gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
        std = gain / math.sqrt(fan_in) if fan_in else 0.0
        bound = math.sqrt(3.0) * std
        _uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            b = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            _uniform_(self.bias, -b, b)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
