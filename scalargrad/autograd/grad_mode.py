"""``torch.autograd.grad_mode``: whether ops record a graph (thread-local), and the view-replay
switch PyTorch's own tests reset after each test."""

from __future__ import annotations

import functools

from .._base.errors import Unsupported
from .._base.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "is_view_replay_enabled"]


def is_view_replay_enabled() -> bool:
    """Whether an in-place op on a view replays the view function (``ViewBackward0``) instead of
    recording ``AsStridedBackward0``: PyTorch's default, and scalargrad's only mode, is off."""
    return False


class _force_original_view_tracking:
    """``torch.autograd._force_original_view_tracking(mode)``: sets view replay on construction,
    as a call, a context manager or a decorator. ``False`` is scalargrad's (and PyTorch's
    default) behaviour, so it sets nothing; view replay itself (``True``) is not implemented."""

    def __init__(self, mode: bool) -> None:
        if mode:
            raise Unsupported("torch.autograd._force_original_view_tracking(True)",
                              "view replay is not implemented: an in-place op on a view records "
                              "AsStridedBackward0, as PyTorch does by default")
        self.mode = False

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper
