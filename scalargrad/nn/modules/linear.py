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
from ..init import zero_element_noop
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Linear", "LazyLinear", "NonDynamicallyQuantizableLinear", "Bilinear"]


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
        if not zero_element_noop(self.weight):  # Linear(3, 0) warns as kaiming_uniform_ does
            # init.kaiming_uniform_: gain = calculate_gain("leaky_relu", sqrt(5)), computed as PyTorch does
            gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
            std = gain / math.sqrt(fan_in)
            bound = math.sqrt(3.0) * std
            _uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            b = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            _uniform_(self.bias, -b, b)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """Applies y = x1^T A x2 + b (``in1_features``, ``in2_features`` -> ``out_features``)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        dt = dtype if dtype is not None else _defaults["dtype"]
        self.weight = Parameter(empty((out_features, in1_features, in2_features), dtype=dt))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """uniform(-1/sqrt(in1_features), 1/sqrt(in1_features)) for the weight, then the bias."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        _uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            _uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear that PyTorch's dynamic quantisation leaves alone (MultiheadAttention's output
    projection); as a layer, Linear itself."""


class LazyLinear(LazyModuleMixin, Linear):
    """``LazyLinear(out_features, bias=True)``: a Linear whose ``in_features`` is the last size of
    its first input (drawn then, as ``Linear`` draws)."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]
