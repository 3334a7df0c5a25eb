"""``torch.signal``: its one subpackage, ``torch.signal.windows`` (the window functions)."""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
