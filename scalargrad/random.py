"""``torch.random``: the default generator, reproducing PyTorch's CPU generator bit for bit, and
``fork_rng``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from . import cuda
from ._base.errors import Unsupported
from ._base.rng import bernoulli_mask, dropout_scale, initial_seed, manual_seed, normal, randint, seed, uniform
from ._tensor.generator import Generator, default_generator, get_rng_state, set_rng_state

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng", "thread_safe_generator", "uniform", "normal", "bernoulli_mask",
           "dropout_scale", "randint"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str | None = None) -> Iterator[None]:
    """Restore the CPU generator's state on leaving the block, as PyTorch's ``fork_rng`` on a
    machine without an accelerator (it forks CUDA's generators too: none here, and naming a CUDA
    device fails as PyTorch's CPU build does)."""
    if device_type == "meta":
        yield
        return
    if device_type not in (None, "cuda"):
        raise Unsupported(f"torch.random.fork_rng(device_type={device_type!r})")
    if not enabled:
        yield
        return
    devices = list(range(cuda.device_count())) if devices is None else list(devices)
    cpu_rng_state = get_rng_state()
    device_rng_states = [cuda.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
        for device, state in zip(devices, device_rng_states):
            cuda.set_rng_state(state, device)


def thread_safe_generator() -> Generator | None:
    """``torch.random.thread_safe_generator()``: a DataLoader thread worker's generator, else None
    (the default generator is used). scalargrad's DataLoader has no thread workers, so None."""
    return None
