"""``torch.autograd``: ``backward``, ``grad``, ``Function``, grad and inference mode, gradcheck,
``functional``, ``graph`` utilities, anomaly mode."""

from .._autograd.api import backward, grad
from .._autograd.function import Function, FunctionCtx, once_differentiable
from .._autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from .._base.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .._base.missing_api import missing_attribute
from .._base.presentation import present_as_torch
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph, resize
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .grad_mode import _force_original_view_tracking, is_view_replay_enabled
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled",
           "gradcheck", "gradgradcheck", "GradcheckError", "graph", "function", "functional", "grad_mode",
           "anomaly_mode", "forward_ad", "detect_anomaly", "set_detect_anomaly", "Variable", "is_view_replay_enabled"]


present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.autograd", name)
