"""``torch.nn`` for scalars: Module, Parameter, containers, activations, dropout, functional.

``import scalargrad as torch`` then ``torch.nn.Module`` works as in PyTorch 2.13: registration
of parameters, buffers and submodules, forward and backward hooks, state dicts, and
``nn.Linear`` on multi-element tensors (``shaped.ShapedTensor``).
"""

from . import functional, modules, parameter
from .modules import (
    Dropout,
    Identity,
    Linear,
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
from .parameter import Buffer, Parameter

__all__ = ["Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "ReLU", "Sigmoid", "Tanh", "Identity", "Dropout", "Linear", "functional", "modules", "parameter"]


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._base.errors import Unsupported

    raise Unsupported(f"torch.nn.{name}")
