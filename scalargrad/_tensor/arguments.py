"""PyTorch's argument parser's refusal of a non-tensor where a tensor is expected, in one place:
``add(): argument 'other' (position 1) must be Tensor, not str``."""

from __future__ import annotations


def not_tensor(x, fn: str, arg: str = "input", pos: int | None = 1) -> TypeError:
    """The TypeError for ``x`` given as ``fn``'s argument ``arg`` (at ``pos``; None for a
    keyword-only argument, which PyTorch names without a position)."""
    where = f" (position {pos})" if pos is not None else ""
    return TypeError(f"{fn}(): argument '{arg}'{where} must be Tensor, not {type(x).__name__}")
