"""``torch._C._autograd``: the switch ``torch.autograd.graph.disable_saved_tensors_hooks`` turns."""

from __future__ import annotations

from .._base.missing_api import missing_attribute
from .._tensor.saved_hooks import saved_tensors_hooks_enabled

__all__ = ["_saved_tensors_hooks_is_enabled"]


def _saved_tensors_hooks_is_enabled() -> bool:
    """False inside a ``disable_saved_tensors_hooks`` block."""
    return saved_tensors_hooks_enabled()


def __getattr__(name: str):
    return missing_attribute("torch._C._autograd", name)
