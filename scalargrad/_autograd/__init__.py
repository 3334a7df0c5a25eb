"""Backward: the kernels formulas run on, the engine, custom Functions, ``backward``/``grad``
and gradcheck. Imports ``_base``, ``_ops`` and ``_tensor``; binds ``Tensor.backward``."""

from . import api, engine, function, kernels

__all__ = ["api", "engine", "function", "kernels"]
