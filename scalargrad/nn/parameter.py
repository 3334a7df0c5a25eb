"""``nn.Parameter``: a tensor that a Module registers as one of its parameters.

A Parameter is a leaf Value of its own class, so that ``Module.__setattr__`` can tell it
from a plain tensor. It copies the number of the tensor it is made from (scalargrad's Values
hold their number, they have no shared storage to alias) and requires grad by default, even
under ``no_grad``, as in PyTorch.
"""

from __future__ import annotations

from ..shaped import ShapedTensor
from ..value import Value

__all__ = ["Parameter"]

_NOT_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"


class Parameter(Value):
    """``Parameter(data, requires_grad=True)``: a module parameter holding ``data``'s number.

    The result is always a leaf (a Parameter made from a computed tensor starts a new graph);
    arithmetic on it gives plain tensors. Its repr is ``Parameter containing:`` followed by
    the tensor's repr, and so is its f-string formatting.
    """

    __slots__ = ()

    def __new__(cls, data: Value | None = None, requires_grad: bool = True):
        # a multi-element tensor makes a multi-element Parameter (``ShapedParameter``)
        if isinstance(data, ShapedTensor):
            if requires_grad and not data.dtype.is_floating_point:
                raise RuntimeError(_NOT_FLOAT)
            return data._copy_as(ShapedParameter, bool(requires_grad))
        return super().__new__(cls)

    def __init__(self, data: Value | None = None, requires_grad: bool = True) -> None:
        if data is None:
            from ..runner import Unsupported

            raise Unsupported("Parameter() without data (an empty tensor)",
                              "scalargrad tensors hold exactly one element")
        if not isinstance(data, Value):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(_NOT_FLOAT)
        self._val = data._val
        self._t = data._t
        self._rg = bool(requires_grad)
        self._op = None
        self._in = ()
        self._c = None
        self._seq = 0
        self._g = None
        self._ext = None

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # PyTorch formats only plain tensors as numbers; a Parameter prints its repr
        if spec:
            raise TypeError("unsupported format string passed to Parameter.__format__")
        return repr(self)

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self, self._rg)  # the number only: .grad is not copied, as in PyTorch
        memo[id(self)] = result
        return result


class ShapedParameter(ShapedTensor, Parameter):
    """A Parameter of several elements (``nn.Linear``'s weight): a multi-element tensor that
    ``isinstance(p, nn.Parameter)`` recognises; its elements are new leaves holding ``data``'s
    numbers."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Parameter containing:\n" + ShapedTensor.__repr__(self)

    __str__ = __repr__
