"""``torch.backends.cudnn``: absent from a CPU-only build, but its flags are plain settings that
reproducibility boilerplate sets (``cudnn.deterministic = True``); they keep PyTorch's defaults
until a program sets them, and change nothing here."""

from .._base.missing_api import missing_attribute

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None


def __getattr__(name: str):
    return missing_attribute("torch.backends.cudnn", name)
