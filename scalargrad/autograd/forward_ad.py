"""``torch.autograd.forward_ad``: forward-mode AD with dual tensors (one level, as PyTorch)."""

from __future__ import annotations

from .._autograd.forward_ad import (
    UnpackedDualTensor,
    current_level,
    dual_level,
    enter_dual_level,
    exit_dual_level,
    make_dual,
    unpack_dual,
)
from .._base.missing_api import missing_attribute

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


def __getattr__(name: str):
    if name == "_current_level":  # PyTorch's module global, read by its tests and gradcheck
        return current_level()
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.autograd.forward_ad", name)
