"""``torch.use_deterministic_algorithms``: a flag a program sets and reads back. Every kernel
scalargrad runs is deterministic already, so the flag changes no result."""

from __future__ import annotations

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "get_deterministic_debug_mode"]

_state = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Set the flag (``mode``) and whether a non-deterministic op would only warn (``warn_only``)."""
    for name, value, where in (("mode", mode, " (position 1)"), ("warn_only", warn_only, "")):
        if value.__class__ is not bool:
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{where} must be bool, not "
                            f"{type(value).__name__}")
    _state["mode"] = mode
    _state["warn_only"] = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _state["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn only) or 2 (error), as PyTorch reports the flag."""
    return 0 if not _state["mode"] else 1 if _state["warn_only"] else 2
