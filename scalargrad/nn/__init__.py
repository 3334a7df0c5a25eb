"""``torch.nn`` for scalars: Module, Parameter, containers, activations, dropout, functional.

``import scalargrad as torch`` then ``torch.nn.Module`` works as in PyTorch 2.13: registration
of parameters, buffers and submodules, forward and backward hooks, state dicts, and
layers, activations, losses, Embedding, ``nn.init`` and ``nn.utils``.
"""

from .._base.missing_api import missing_attribute
from .._base.presentation import present_as_torch
from . import functional, init, modules, parallel, parameter, utils
from .modules import *  # noqa: F403 - every Module class of torch.nn
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "DataParallel", "functional", "init",
           "modules", "parallel", "parameter", "utils",
           *_modules_all]


present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    return missing_attribute("torch.nn", name)
