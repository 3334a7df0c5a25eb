"""``torch.autograd``: ``backward``, ``grad``, ``Function``, grad and inference mode, gradcheck,
``functional``, ``graph`` utilities, anomaly mode."""

import sys
import types

# the submodule first, loaded with the package as in PyTorch: the function binds over it below
from . import gradcheck as _gradcheck_module

# isort: split
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


class _Package(types.ModuleType):
    """This package: ``gradcheck`` stays the function. PyTorch loads the submodule
    ``torch.autograd.gradcheck`` with the package, so a later ``import torch.autograd.gradcheck``
    never rebinds the attribute; under the torch alias that import is a first load of the
    ``torch.*`` name, which would set the attribute to the module."""

    def __setattr__(self, name: str, value) -> None:
        if name == "gradcheck" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
