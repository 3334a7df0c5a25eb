"""``torch.nn.parallel``: DataParallel as the CPU build runs it (the module itself); the rest
needs GPUs or several processes and is refused by name with that reason."""

from __future__ import annotations

from ..._base.missing_api import missing_attribute
from ..._base.presentation import present_as_torch
from .data_parallel import DataParallel

__all__ = ["DataParallel"]

present_as_torch(globals())


def __getattr__(name: str):
    return missing_attribute("torch.nn.parallel", name, "class" if name[:1].isupper() else "function")
