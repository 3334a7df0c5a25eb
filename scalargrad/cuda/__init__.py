"""``torch.cuda`` as seen from a CPU-only library: nothing is available."""

from .._base.missing_api import missing_attribute


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


# seeding CUDA's generators is queued until CUDA initialises, which never happens on a CPU-only
# build: PyTorch accepts and ignores these calls (seed-setting boilerplate calls them everywhere)
def manual_seed(seed: int) -> None:
    """Ignored, as on PyTorch's CPU build."""


def manual_seed_all(seed: int) -> None:
    """Ignored, as on PyTorch's CPU build."""


def seed() -> None:
    """Ignored, as on PyTorch's CPU build."""


def seed_all() -> None:
    """Ignored, as on PyTorch's CPU build."""


def empty_cache() -> None:
    """Nothing is cached: no CUDA memory was ever allocated."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


# what needs a device says, in PyTorch's words, that there is none
current_device = synchronize = get_device_name = get_device_properties = get_device_capability = init = \
    get_rng_state = _not_compiled


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.cuda", name)
