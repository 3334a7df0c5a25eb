"""``round(decimals=)`` and the in-place spellings the op table's Api cannot state
(``fix_``, ``round_``)."""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._ops import rounding as R
from .arguments import not_tensor
from .elementwise import refuse_bool, unary, with_number
from .inplace import inplace
from .return_types import return_type
from .tensor import Tensor, leaf
from .tensor_kernel import helper

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
    kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"  # ATen's decimals=0 runs round's own kernel
    if dt is dtypes.bool:
        raise refuse_bool(kernel)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.short}'")
    return with_number(R.RoundDecimals, x, decimals)


def frexp(input: Tensor):
    """``torch.frexp``: (mantissa, exponent) with ``input = mantissa * 2**exponent``, the
    mantissa in [0.5, 1) in magnitude (FrexpBackward0), the exponent int32 (0 for zeros,
    infinities and nan, whose mantissa is themselves)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "frexp")
    if not input._t.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa = unary(R.Frexp, input)
    vals = input._val if input._t.ndim else [input._val]
    exps = [R.frexp_exponent(v) for v in vals]
    exponent = leaf(exps if input._t.ndim else exps[0], TensorType(dtypes.int32, tuple(input._t.shape)))
    return return_type("frexp")("frexp", mantissa, exponent)


@helper
def frexp_backward(g, a):
    """``grad / exponent.exp2()``: the exponent recomputed from the saved input, exp2 in float32."""
    vals = a._val if a._t.ndim else [a._val]
    e = leaf([R.frexp_exponent(v) for v in vals] if a._t.ndim else R.frexp_exponent(a._val),
             TensorType(dtypes.int32, tuple(a._t.shape)))
    return g / e.exp2()


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    method("frexp", frexp)
    function("frexp", frexp)
    method("round", lambda self, decimals=None: round_(self, decimals=decimals))
    method("round_", lambda self, decimals=None: inplace(self, lambda t: round_(t, decimals=decimals)))
    function("round", lambda input, *, decimals=None, out=None: round_(input, decimals=decimals))
    method("fix_", lambda self: inplace(self, lambda t: unary(R.Trunc, t)))
