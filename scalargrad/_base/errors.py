"""Exceptions for what scalargrad deliberately does not do."""

from __future__ import annotations

from .refusals import reason

SCOPE = "scalargrad implements PyTorch's autograd and nn.Module on small real tensors"


class Unsupported(AttributeError, NotImplementedError):
    """A program used a part of PyTorch that scalargrad does not implement.

    An AttributeError (so ``hasattr`` and ``getattr(..., default)`` behave) and a
    NotImplementedError; ``scalargrad run`` prints it as one sentence naming ``feature``.
    """

    def __init__(self, feature: str, hint: str = "") -> None:
        self.feature = feature
        # the reason: the caller's, else the one ``refusals.py`` gives the feature's area ("" if none)
        self.reason = hint or reason(feature)
        msg = f"{feature} is not supported: {SCOPE}"
        super().__init__(msg + (f" ({self.reason})" if self.reason else ""))


class ScalarOnly(Unsupported, ValueError):
    """A tensor with more than one element was requested (also a ValueError)."""

    def __init__(self, what: str, n: int) -> None:
        self.feature = "tensors with more than one element"
        self.reason = ""
        Exception.__init__(self, f"scalargrad is scalar-only: every tensor holds exactly one number, but {what} "
                                 f"has {n} elements. Multi-element tensors are not supported yet.")
