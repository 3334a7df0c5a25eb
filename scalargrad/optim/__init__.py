"""``torch.optim``: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop,
LBFGS and the ``lr_scheduler`` module.

PyTorch 2.13's optimizers as its single-tensor (for-loop) implementation computes them, bit
for bit in float32 and float64 (``elements.py`` says how), with PyTorch's parameter groups,
state, state dicts, hooks and messages. PyTorch's other optimizers are names that raise
``Unsupported`` when used (``unsupported.py``); a name PyTorch does not have either is an
AttributeError, as in PyTorch.
"""

from __future__ import annotations

from .._base.presentation import present_as_torch
from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .unsupported import placeholder, placeholder_function

Adafactor = placeholder("torch.optim", "Adafactor")
Muon = placeholder("torch.optim", "Muon")
SparseAdam = placeholder("torch.optim", "SparseAdam")
swap_in_optimizer_params_and_state = placeholder_function("torch.optim", "swap_in_optimizer_params_and_state")

# PyTorch's torch.optim does not keep its submodules as attributes (``torch.optim.sgd`` is an
# AttributeError there; ``from torch.optim.sgd import SGD`` works through the import system)
del adadelta, adagrad, adam, adamax, adamw, asgd, elements, lbfgs, nadam, optimizer, radam, rmsprop, rprop  # noqa: F821
del cyclic_lr, scheduler, sgd  # noqa: F821
del single_tensor  # noqa: F821 - bound by the imports above
del placeholder, placeholder_function, unsupported  # noqa: F821

__all__ = ["Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler", "Muon",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "swap_in_optimizer_params_and_state",
           "swa_utils"]


present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    raise AttributeError(f"module 'torch.optim' has no attribute '{name}'")
