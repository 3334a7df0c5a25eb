"""The parts of ``torch.utils.data`` scalargrad does not implement, as names that refuse use.

They are classes (not a module ``__getattr__``, which ``from torch.utils.data import X`` would
turn into an ImportError) whose construction, or a subclass's, raises ``Unsupported``:
WeightedRandomSampler draws with ``torch.multinomial``, which scalargrad does not reproduce,
and DistributedSampler needs ``torch.distributed``.
"""

from __future__ import annotations

from ..._base.errors import Unsupported

__all__ = ["WeightedRandomSampler", "DistributedSampler"]


class _Refused:
    """Base of the placeholders: making one raises Unsupported naming the class."""

    def __new__(cls, *args, **kwargs):
        raise Unsupported(f"torch.utils.data.{cls._torch_name}")


class WeightedRandomSampler(_Refused):
    """PyTorch's ``torch.utils.data.WeightedRandomSampler`` (not implemented: using it raises)."""

    _torch_name = "WeightedRandomSampler"


class DistributedSampler(_Refused):
    """PyTorch's ``torch.utils.data.DistributedSampler`` (not implemented: using it raises)."""

    _torch_name = "DistributedSampler"
