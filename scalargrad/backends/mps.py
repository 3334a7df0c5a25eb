"""``torch.backends.mps``: Apple's Metal backend, absent from a CPU-only build."""

from .._base.missing_api import missing_attribute


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


def __getattr__(name: str):
    return missing_attribute("torch.backends.mps", name)
