"""``torch.autograd.function``: custom differentiable operations."""

from .._autograd.function import Function, FunctionCtx, InplaceFunction, once_differentiable
from .._base.presentation import present_as_torch

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]

present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it
