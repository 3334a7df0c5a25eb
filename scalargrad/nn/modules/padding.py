"""Padding layers: ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d`` and ``CircularPad1d/2d/3d``, with PyTorch's attributes and reprs (each
calls ``F.pad``)."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import padding_functions as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_sextuple = _ntuple(6, "_sextuple")
_EXPAND = {1: _pair, 2: _quadruple, 3: _sextuple}


class _CircularPadNd(Module):
    __constants__ = ["padding"]
    _dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _EXPAND[self._dims](padding)

    def forward(self, input: Tensor) -> Tensor:
        nd = input.dim()
        if nd not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {nd}D input)")
        return F.pad(input, self.padding, "circular")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """Pads the last dimension with the input's other end (wrapping around)."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last two dimensions with the input's other ends (wrapping around)."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last three dimensions with the input's other ends (wrapping around)."""

    _dims = 3


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _dims = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _EXPAND[self._dims](padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with ``value``."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with ``value``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with ``value``."""

    _dims = 3


class _ModePadNd(Module):
    __constants__ = ["padding"]
    _dims = 1
    _mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _EXPAND[self._dims](padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Pads the last dimension with the input's reflection at its boundary."""

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    """Pads the last two dimensions with the input's reflection at its boundaries."""

    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    """Pads the last three dimensions with the input's reflection at its boundaries."""

    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    """Pads the last dimension by repeating its boundary elements."""

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    """Pads the last two dimensions by repeating their boundary elements."""

    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    """Pads the last three dimensions by repeating their boundary elements."""

    _dims, _mode = 3, "replicate"


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
