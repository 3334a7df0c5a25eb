"""``round(decimals=)`` and the in-place spellings the op table's Api cannot state
(``fix_``, ``round_``)."""

from __future__ import annotations

from .._base import dtypes
from .._ops import rounding as R
from .arguments import not_tensor
from .elementwise import refuse_bool, unary, with_number
from .inplace import inplace
from .tensor import Tensor

__all__ = ["round_", "install"]


def round_(x: Tensor, decimals: int | None = None) -> Tensor:
    """``x.round(decimals=d)``: half to even; RoundBackward0 without decimals, RoundBackward1
    whenever they are given, 0 included (ATen's round.decimals overload, refusing integer
    tensors)."""
    if not isinstance(x, Tensor):
        raise not_tensor(x, 'round', 'input', 1)
    if decimals is None:
        return unary(R.Round, x)
    if decimals.__class__ is not int:
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    dt = x._t.dtype
    if dt is dtypes.bool:
        raise refuse_bool("round_cpu")
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{dt.short}'")
    return with_number(R.RoundDecimals, x, decimals)


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    method("round", lambda self, decimals=None: round_(self, decimals=decimals))
    method("round_", lambda self, decimals=None: inplace(self, lambda t: round_(t, decimals=decimals)))
    function("round", lambda input, *, decimals=None, out=None: round_(input, decimals=decimals))
    method("fix_", lambda self: inplace(self, lambda t: unary(R.Trunc, t)))
