"""``torch.autograd.forward_ad``: forward-mode AD with dual tensors (one level, as PyTorch)."""

from __future__ import annotations

from typing import Any

from .._autograd.forward_ad import UnpackedDualTensor, enter_dual_level, exit_dual_level, make_dual, unpack_dual
from .._base.missing_api import missing_attribute

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


class dual_level:
    """Context manager (and decorator) in which forward AD runs: entering it makes the level that
    ``make_dual`` and ``unpack_dual`` use; leaving it deletes every tangent made in it."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        wrapped.__doc__ = getattr(fn, "__doc__", None)
        return wrapped


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.autograd.forward_ad", name)
