"""``torch.nn`` for scalars: Module, Parameter, containers, activations, dropout, functional.

``import scalargrad as torch`` then ``torch.nn.Module`` works as in PyTorch 2.13: registration
of parameters, buffers and submodules, forward and backward hooks, state dicts. Layers that
need multi-element tensors (``nn.Linear``...) are not part of scalargrad yet.
"""

from . import functional, modules, parameter
from .modules import (
    Dropout,
    Identity,
    Module,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
)
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "ReLU", "Sigmoid", "Tanh", "Identity", "Dropout", "functional", "modules", "parameter"]


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    from ..runner import Unsupported

    raise Unsupported(f"torch.nn.{name}")
