"""``torch.accelerator`` as PyTorch's CPU build answers it: no accelerator is available, there
are none, and everything that would touch one raises PyTorch's RuntimeError. Tutorials pick
their device with ``torch.accelerator.current_accelerator().type if
torch.accelerator.is_available() else "cpu"``, which then runs on the CPU, as here."""

from __future__ import annotations

import warnings

from ._base.missing_api import missing_attribute

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "get_device_capability",
           "current_stream", "device_count", "device_index", "empty_cache", "empty_host_cache", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def _unavailable():
    return RuntimeError(_NONE)


def is_available() -> bool:
    """False: PyTorch's CPU build has no accelerator."""
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    """None: there is no accelerator (``check_available`` changes nothing then)."""
    return None


def current_device_index() -> int:
    raise _unavailable()


def current_device_idx() -> int:
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    raise _unavailable()


def set_device_index(device, /) -> None:
    raise _unavailable()


def set_device_idx(device, /) -> None:
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    raise _unavailable()


def synchronize(device=None, /) -> None:
    raise _unavailable()


def current_stream(device=None, /):
    raise _unavailable()


def empty_cache() -> None:
    raise _unavailable()


def empty_host_cache() -> None:
    raise _unavailable()


def get_device_capability(device=None, /):
    raise _unavailable()


def get_memory_info(device_index=None, /):
    raise _unavailable()


def memory_allocated(device_index=None, /) -> int:
    raise _unavailable()


def max_memory_allocated(device_index=None, /) -> int:
    raise _unavailable()


def memory_reserved(device_index=None, /) -> int:
    raise _unavailable()


def max_memory_reserved(device_index=None, /) -> int:
    raise _unavailable()


def memory_stats(device_index=None, /):
    raise _unavailable()


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    raise _unavailable()


def reset_peak_memory_stats(device_index=None, /) -> None:
    raise _unavailable()


class device_index:
    """``with torch.accelerator.device_index(i):``: None does nothing, an index raises on entry."""

    def __init__(self, device, /) -> None:
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            raise _unavailable()
        return None

    def __exit__(self, *exc) -> bool:
        return False


def __getattr__(name: str):
    return missing_attribute("torch.accelerator", name, "class" if name == "Graph" else None)
