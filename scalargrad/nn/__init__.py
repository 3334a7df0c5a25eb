"""``torch.nn`` for scalars: Module, Parameter, containers, activations, dropout, functional.

``import scalargrad as torch`` then ``torch.nn.Module`` works as in PyTorch 2.13: registration
of parameters, buffers and submodules, forward and backward hooks, state dicts, and
layers, activations, losses, Embedding, ``nn.init`` and ``nn.utils``.
"""

from .._base.missing_api import missing_attribute
from .._base.presentation import present_as_torch
from . import functional, init, modules, parameter, utils
from .modules import *  # noqa: F403 - every Module class of torch.nn
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Parameter", "Buffer", "functional", "init", "modules", "parameter", "utils", *_modules_all]


present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    return missing_attribute("torch.nn", name)
