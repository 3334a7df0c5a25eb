"""``torch.utils``."""

from .._base.missing_api import missing_attribute


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.utils", name)
