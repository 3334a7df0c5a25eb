"""``torch.Generator`` as programs see it: ATen's CPU generator (``_base/rng.py``, which draws
the numbers) whose ``get_state()`` is a ByteTensor of PyTorch's 5056-byte layout, whose
``set_state()`` takes one (from here or from PyTorch, saved as bytes) with PyTorch's checks, and
whose ``device`` is a ``torch.device``; ``torch.default_generator``, ``torch.get_rng_state`` and
``torch.set_rng_state`` on top of it.
"""

from __future__ import annotations

from .._base import dtypes, rng
from .factories import device as torch_device
from .factories import from_values
from .tensor import Tensor

__all__ = ["Generator", "default_generator", "get_rng_state", "set_rng_state"]


class Generator(rng.Generator):
    """``torch.Generator(device='cpu')``: seeding, states and draws are ``rng.Generator``'s."""

    __slots__ = ()

    def __init__(self, device: str | torch_device = "cpu") -> None:
        # 'cpu:0' and torch.device('cpu') are the CPU too; any other device is refused by the engine
        spec = torch_device(device) if isinstance(device, str) else device
        super().__init__("cpu" if getattr(spec, "type", None) == "cpu" else device)

    @property
    def device(self) -> torch_device:
        """``device(type='cpu')``: the only generator scalargrad has."""
        return torch_device("cpu")

    def get_state(self) -> Tensor:
        """The generator's state: a uint8 tensor of PyTorch's CPUGeneratorImplState bytes (5056)."""
        raw = rng.Generator.get_state(self)
        return from_values(list(raw), (len(raw),), dtypes.uint8)

    def set_state(self, new_state) -> Generator:
        """Restore a state ``get_state()`` gave (here or in PyTorch); returns the generator."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        rng.Generator.set_state(self, new_state.reshape(-1).tolist())
        return self


# the one generator the ops draw from when given none: PyTorch's torch.default_generator is a Generator too
rng.default_generator.__class__ = Generator
default_generator: Generator = rng.default_generator


def get_rng_state() -> Tensor:
    """``torch.get_rng_state()``: the default generator's state as a ByteTensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """``torch.set_rng_state(new_state)``: restore the default generator's state."""
    default_generator.set_state(new_state)
