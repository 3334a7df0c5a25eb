"""``torch.autograd.Variable``: the pre-0.4 wrapper, which now returns a plain Tensor."""

from __future__ import annotations

import warnings

from .._tensor.factories import from_values
from .._tensor.tensor import Tensor, defaults

__all__ = ["Variable"]


class VariableMeta(type):
    """Every tensor is a Variable (``isinstance(torch.zeros(1), Variable)`` is True)."""

    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)``: a new leaf sharing ``data``'s
    memory (``data.detach()``), requiring grad if asked; ``volatile`` only warns, as in
    PyTorch 2.x."""

    def __new__(cls, data=None, requires_grad=False, volatile=False, **kwargs):
        if kwargs:
            raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            return from_values([], (0,), defaults["dtype"])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        v = data.detach()
        if requires_grad:
            if not v._t.dtype.is_floating_point:
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            v._rg = True
        return v


Variable.__module__ = "torch.autograd.variable"
VariableMeta.__module__ = "torch.autograd.variable"
