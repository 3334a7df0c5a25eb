"""Backward: the engine and its hooks, custom Functions, ``backward``/``grad`` and gradcheck.
Imports ``_base``, ``_ops`` and ``_tensor``; binds ``Tensor.backward``."""

from . import api, engine, function

__all__ = ["api", "engine", "function"]
