"""PyTorch's warn-once warnings (ATen's ``TORCH_WARN_ONCE``) and ``torch.set_warn_always``.

A warn-once site warns the first time it is reached in a process and never again, whatever
Python's warning filters say. ``torch.set_warn_always(True)`` makes every such site warn each
time it is reached, without using up its once: ``TORCH_WARN_ONCE`` tests the flag before its
static once-guard, so a site reached only while the flag was on still warns once after it is
turned off. Warnings PyTorch raises with plain ``TORCH_WARN`` or ``warnings.warn`` are not
affected, in PyTorch or here.
"""

from __future__ import annotations

__all__ = ["is_warn_always_enabled", "set_warn_always", "first_time", "forget"]

_ALWAYS = [False]
_SEEN: set = set()


def is_warn_always_enabled() -> bool:
    """``torch.is_warn_always_enabled()``: whether warn-once sites warn every time."""
    return _ALWAYS[0]


def set_warn_always(b: bool) -> None:
    """``torch.set_warn_always(b)``: with True, warn-once sites warn every time they are reached."""
    _ALWAYS[0] = bool(b)


def first_time(site: str) -> bool:
    """Should the warn-once site named ``site`` warn now? Yes every time while warn-always is on
    (its once is left unused), else only the first time."""
    if _ALWAYS[0]:
        return True
    if site in _SEEN:
        return False
    _SEEN.add(site)
    return True


def forget(*sites: str) -> None:
    """Let the named sites warn once more (for tests, which check a site's one warning)."""
    _SEEN.difference_update(sites)
