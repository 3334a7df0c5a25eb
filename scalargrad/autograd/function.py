"""``torch.autograd.function``: custom differentiable operations."""

from .._autograd.function import Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "once_differentiable"]
