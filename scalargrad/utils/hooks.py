"""``torch.utils.hooks``: the handle every ``register_*hook`` returns."""

from .._base.handles import RemovableHandle

__all__ = ["RemovableHandle"]
