"""``torch.backends.mps``: Apple's Metal backend, absent from a CPU-only build."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


def __getattr__(name: str):
    from .._base.missing_api import missing_attribute

    return missing_attribute("torch.backends.mps", name)
