"""``torch.backends`` of a CPU-only build: the device probes programs make (``mps``, ``cudnn``,
``cuda``) answer as PyTorch's CPU wheel does; any other backend is a missing module."""

from .._base.missing_api import missing_attribute
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]


def __getattr__(name: str):
    return missing_attribute("torch.backends", name)
