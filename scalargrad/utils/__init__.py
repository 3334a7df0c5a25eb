"""``torch.utils``."""

from .._base.missing_api import missing_attribute
from .._tensor.swap import swap_tensors
from . import checkpoint  # torch.utils.checkpoint without its own import, as PyTorch loads it

__all__ = ["swap_tensors", "checkpoint"]


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.utils", name)
