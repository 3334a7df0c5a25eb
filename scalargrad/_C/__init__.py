"""``torch._C``: the few names of PyTorch's native module that its tests use to observe public
behaviour (whether saved-tensor hooks are disabled, whether a tensor is still alive); any other
name is ``Unsupported`` (native code, which scalargrad, pure Python, does not have)."""

from __future__ import annotations

import weakref

from .._autograd.graph_task import current_autograd_node as _current_autograd_node
from .._base.missing_api import missing_attribute
from . import _autograd, _functions

__all__ = ["_WeakTensorRef", "_autograd", "_functions", "_current_autograd_node"]


class _WeakTensorRef:
    """``torch._C._WeakTensorRef(t)``: ``expired()`` once ``t`` is freed. scalargrad's graph
    holds the tensors it was computed from (its nodes are tensors), so an intermediate that
    PyTorch frees while its graph lives stays alive here as long as the graph does."""

    def __init__(self, tensor) -> None:
        self._ref = weakref.ref(tensor)

    def expired(self) -> bool:
        return self._ref() is None


def __getattr__(name: str):
    return missing_attribute("torch._C", name)
