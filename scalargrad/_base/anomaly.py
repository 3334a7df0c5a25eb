"""Anomaly mode's state (``torch.is_anomaly_enabled``, ``set_anomaly_enabled``): whether new
nodes record the traceback of their forward call and backward checks for NaN."""

from __future__ import annotations

__all__ = ["is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "listeners", "state"]


class _State:
    enabled = False
    check_nan = True


state = _State()

listeners: list = []
"""Callables ``fn(on: bool)`` told when anomaly mode is switched (the tensor layer then shows
new nodes to the recorder)."""


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on."""
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection (if on) checks backward results for NaN."""
    return state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection (PyTorch's ``torch.set_anomaly_enabled``)."""
    state.enabled = bool(enabled)
    state.check_nan = bool(check_nan)
    for fn in listeners:
        fn(state.enabled)
