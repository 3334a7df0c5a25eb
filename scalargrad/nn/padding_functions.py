"""``nn.functional.pad`` (re-exported by ``nn.functional``; see ``_tensor/padding``)."""

from __future__ import annotations

from .._tensor import padding as PAD
from .._tensor.tensor import Tensor

__all__ = ["pad"]


def pad(input: Tensor, pad: list, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads ``input``: ``pad`` gives (before, after) sizes from the last dimension on; ``mode``
    is constant (``value``, default 0), reflect, replicate or circular."""
    return PAD.pad(input, pad, mode, value)
