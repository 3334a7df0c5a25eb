"""``torch._C._functions``: ``UndefinedGrad`` (``_autograd/undefined_grad``); the native node
classes PyTorch also lists there are not provided."""

from __future__ import annotations

from .._autograd.undefined_grad import UndefinedGrad
from .._base.missing_api import missing_attribute

__all__ = ["UndefinedGrad"]


def __getattr__(name: str):
    return missing_attribute("torch._C._functions", name)
