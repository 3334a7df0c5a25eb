"""``nn.Parameter``: a tensor that a Module registers as one of its parameters.

A Parameter is a leaf tensor of its own class, so that ``Module.__setattr__`` can tell it from a
plain tensor. Like PyTorch's ``_make_subclass``, it shares the memory (and version counter) of
the tensor it is made from, and requires grad by default, even under ``no_grad``.
"""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._base.grad_mode import is_inference_mode_enabled
from .._tensor.attributes import deepcopy as _deepcopy
from .._tensor.storage import alias
from .._tensor.tensor import Tensor, defaults, leaf
from .._tensor.views import offset_of

__all__ = ["Parameter", "Buffer"]

_NOT_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"


class Parameter(Tensor):
    """``Parameter(data=None, requires_grad=True)``: a module parameter sharing ``data``'s memory.

    The result is always a leaf (a Parameter made from a computed tensor starts a new graph);
    arithmetic on it gives plain tensors. Its repr is ``Parameter containing:`` followed by
    the tensor's repr, and so is its f-string formatting. Without data it is an empty tensor.
    """

    __slots__ = ("__dict__",)

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = leaf([], TensorType(defaults["dtype"], (0,)))
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad.__class__ is not bool:
            raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if requires_grad and not data._t.dtype.is_floating_point:
            raise RuntimeError(_NOT_FLOAT)
        if requires_grad and data.is_inference() and not is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        p = leaf(list(data._val) if data._t.ndim else data._val, data._t, requires_grad, cls)
        return alias(data, p)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # built by __new__

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
        result = _deepcopy(self, memo)
        result._g = None  # the numbers only: .grad is not copied, as in PyTorch
        return result


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` holds for the tensors ``Buffer(...)`` made, which are plain
    tensors (PyTorch 2.x flags them with ``_is_buffer`` instead of giving them a class)."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


Parameter.__module__ = "torch.nn.parameter"  # <class 'torch.nn.parameter.Parameter'>


class _FlaggedTensor(Tensor):
    """A plain tensor that can carry attributes (``persistent``, ``_is_buffer``): what
    ``nn.Buffer`` returns. It prints and computes as a ``Tensor``."""

    __slots__ = ("__dict__",)


_FlaggedTensor.__name__ = _FlaggedTensor.__qualname__ = "Tensor"
_FlaggedTensor.__module__ = Tensor.__module__


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(data=None, *, persistent=True)``: ``data.detach()`` (sharing its memory and
    version counter, keeping its ``requires_grad``), flagged so that assigning it to a Module
    attribute registers a buffer (PyTorch 2.x). Without data it is an empty float tensor."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = leaf([], TensorType(defaults["dtype"], (0,)))
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        b = leaf(list(data._val) if data._t.ndim else data._val, data._t, data._rg, _FlaggedTensor)
        alias(data, b, offset=offset_of(data))
        b.persistent = persistent
        b._is_buffer = True
        return b
