"""``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``): what the linalg family raises for a
matrix a factorisation cannot complete (not positive-definite, singular)."""

from __future__ import annotations

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix the factorisation cannot complete."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "torch._C"
