"""The Tensor: one class for every shape, its nodes, each op family's tensor side (applying its
ops, its spellings, its derivative helpers on tensors), the tensor kernels, and the surface
bound from the families. Imports ``_base`` and ``_ops``."""

from . import anomaly_trace, attention, saved_hooks, surface, unary  # Tensor methods, node watchers, kernel helpers
from .tensor import Tensor

__all__ = ["Tensor"]
