"""``torch.utils.hooks``: the handle every ``register_*hook`` returns."""

from .._base.handles import RemovableHandle
from .._base.missing_api import missing_attribute
from .._base.presentation import present_as_torch

__all__ = ["RemovableHandle"]


present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.utils.hooks", name)
