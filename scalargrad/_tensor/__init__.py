"""The Tensor: one class for every shape, its nodes, views, reductions, products, indexing,
factories and the surface made from the op table. Imports ``_base`` and ``_ops``."""

from . import anomaly_trace, saved_hooks, surface  # Tensor methods, node watchers
from .tensor import Tensor

__all__ = ["Tensor"]
