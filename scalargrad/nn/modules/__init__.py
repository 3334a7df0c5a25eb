"""The Module classes of ``torch.nn``: Module itself, the containers and the layers."""

from .activation import Identity, ReLU, Sigmoid, Tanh
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .dropout import Dropout
from .linear import Linear
from .module import Module

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "ReLU",
           "Sigmoid", "Tanh", "Identity", "Dropout", "Linear"]
