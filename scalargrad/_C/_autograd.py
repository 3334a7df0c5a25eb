"""``torch._C._autograd``: the switch ``torch.autograd.graph.disable_saved_tensors_hooks`` turns, and
``SavedTensor`` (what ``grad_fn._raw_saved_*`` and a custom Function's ``_raw_saved_tensors`` give)."""

from __future__ import annotations

from .._base.missing_api import missing_attribute
from .._tensor.saved_hooks import SavedTensor, saved_tensors_hooks_enabled

__all__ = ["SavedTensor", "_saved_tensors_hooks_is_enabled"]


def _saved_tensors_hooks_is_enabled() -> bool:
    """False inside a ``disable_saved_tensors_hooks`` block."""
    return saved_tensors_hooks_enabled()


def __getattr__(name: str):
    return missing_attribute("torch._C._autograd", name)
