"""``nn.Conv1d`` / ``nn.Conv2d``: a convolution with PyTorch's parameters, initialisation and repr.

The weight (out_channels, in_channels / groups, *kernel_size) and the bias (out_channels) are
drawn as PyTorch 2.13's ``_ConvNd.reset_parameters`` draws them: ``kaiming_uniform_(weight,
a=sqrt(5))``, then the bias uniform on +-1/sqrt(fan_in), from scalargrad's reproduction of
PyTorch's CPU generator (``torch.manual_seed(s)`` then ``nn.Conv2d(...)`` gives PyTorch's
numbers). Only ``padding_mode='zeros'`` is implemented.
"""

from __future__ import annotations

import math

from ..._base.errors import Unsupported
from ..._base.grad_mode import no_grad
from ..._tensor.factories import empty
from ..._tensor.tensor import Tensor
from ..._tensor.tensor import defaults as _defaults
from .. import init
from ..convolution_functions import conv1d, conv2d
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d"]


def _ntuple(x, n: int) -> tuple:
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,) * n


class _ConvNd(Module):
    """What Conv1d and Conv2d share: arguments, parameters, initialisation, repr."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]
    _dims = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        n = self._dims
        kernel_size = _ntuple(kernel_size, n)
        stride = _ntuple(stride, n)
        padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        dilation = _ntuple(dilation, n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            rev = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    rev[2 * i] = total // 2
                    rev[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = rev
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding) for _ in range(2))
        dt = dtype if dtype is not None else _defaults["dtype"]
        self.weight = Parameter(empty((out_channels, in_channels // groups, *kernel_size), dtype=dt))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_(weight, a=sqrt(5)), then the bias uniform on +-1/sqrt(fan_in)."""
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init.calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _check_mode(self) -> None:
        if self.padding_mode != "zeros":
            raise Unsupported(f"{type(self).__name__}(padding_mode='{self.padding_mode}')")


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L) inputs."""

    _dims = 1

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        self._check_mode()
        return conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W) inputs."""

    _dims = 2

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        self._check_mode()
        return conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's parameter name
        return self._conv_forward(input, self.weight, self.bias)
