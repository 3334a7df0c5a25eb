"""``torch.autograd``: ``backward``, ``grad``, ``Function``, grad mode and gradcheck."""

from .._autograd.api import backward, grad
from .._autograd.function import Function, FunctionCtx, once_differentiable
from .._autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from .._base.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from . import function, grad_mode, graph
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "gradcheck",
           "gradgradcheck", "GradcheckError", "graph", "function", "grad_mode", "Variable"]
