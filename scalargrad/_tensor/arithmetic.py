"""Arithmetic on tensors (``_ops/arithmetic.py``) beyond what the table's declarations give:
``div`` with ``rounding_mode``, ``pow``/``square`` (a number or a tensor exponent, PyTorch's
overload refusal), ``rsub``, ``positive`` and the augmented assignments (``x += y``...), which
are in place.
"""

from __future__ import annotations

import operator
import warnings

from .._base import ieee
from .._base.dtypes import float64
from .._base.program_frame import program_stacklevel
from .._ops import arithmetic as AR
from .._ops import unary as UN
from .._ops.elementwise import TENSOR_OTHER
from .arg_parser import method_signatures, parsed
from .arguments import arg_type, check_input, check_other, is_operand
from .comparison import logical_and
from .elementwise import as_tensor_operand, binary, elementwise, unary, wrap_number
from .inplace import inplace
from .operands import broadcast_shapes, result_dtype
from .out_argument import CAST, RESIZED
from .tensor import Tensor, refuse_complex
from .tensor_kernel import helper, zeros, zeros_like_dtype
from .views import to_dtype

__all__ = ["div", "install"]


def div(a, b, rounding_mode=None):
    """``a / b`` (DivBackward0), or rounded to the floor or towards zero (DivBackward2)."""
    if rounding_mode is None:
        return binary(AR.Div, a, b)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    # a number operand is wrapped in a tensor (PyTorch saves it so), but promotes as a number
    dt = result_dtype((a, b))
    a_t, b_t = as_tensor_operand(a, b if isinstance(b, Tensor) else None), as_tensor_operand(b, a)
    return elementwise(AR.DivFloor if rounding_mode == "floor" else AR.DivTrunc, (a_t, b_t), out_dtype=dt)


def _augmented(fn):
    """``x op= other``: in place, with PyTorch's in-place rules (NotImplemented for other types)."""

    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        return inplace(self, lambda t: fn(t, other), operands=(other,))

    return method


def _pow_function(input, exponent, *, out=None):
    refuse_complex(input, exponent)
    if not (isinstance(input, Tensor) and is_operand(exponent)
            or isinstance(exponent, Tensor) and is_operand(input)):
        raise TypeError(
            "pow() received an invalid combination of arguments - got "
            f"({arg_type(input)}, {arg_type(exponent)}), but expected one of:\n"
            " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
            " * (Number self, Tensor exponent, *, Tensor out = None)\n"
            " * (Tensor input, Number exponent, *, Tensor out = None)\n")
    return binary(AR.Pow, input, exponent)


def _div_function(input, other, *, rounding_mode=None, out=None):
    if not isinstance(input, Tensor) and is_operand(input) and is_operand(other):
        # as torch.mul's: the number is the tensor-tensor op's input
        input = as_tensor_operand(input) if not isinstance(other, Tensor) else wrap_number(input, other, AR.Div)
    else:
        check_input("div", input)
    check_other("div", other, 2)
    return div(input, other, rounding_mode)


_div_function.elementwise_out = CAST  # out= casts, as every binary op's (``out_argument``)


def _div_method(self, other, *, rounding_mode=None):
    check_other("div", other, 1)
    return div(self, other, rounding_mode)


def _shift_operator(op, reflected=False):
    """``x << y``, ``y << x`` (reflected): ATen's shift of integers (NotImplemented for other types)."""

    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        return binary(op, other, self) if reflected else binary(op, self, other)

    return method


def _pow_method(self, exponent):
    check_other("pow", exponent, 1)
    return binary(AR.Pow, self, exponent)


def float_power(input, exponent):
    """``float_power``: ``pow`` in double, ATen's composite: each tensor operand ``.to(float64)``
    (ToCopyBackward0 unless it is double already), a number operand as a double, then
    pow (PowBackward0/1/2)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(exponent).__name__})")
    operands = []
    for x, position, name in ((input, 1, "input"), (exponent, 2, "exponent")):
        if isinstance(x, Tensor):
            operands.append(to_dtype(x, float64))
        else:
            operands.append(float(check_other("float_power", x, position, param=name)))
    return binary(AR.Pow, *operands)


def _float_power_(self, exponent):
    if self._t.dtype is not float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self._t.dtype.short} but the operation's "
                           "result requires dtype Double")
    return inplace(self, lambda t: float_power(t, exponent), operands=(exponent,))


def ldexp(input, other, _position: int = 2):
    """``ldexp``: ``input * 2**other`` (LdexpBackward0). With an integer ``other`` PyTorch's
    kernel writes into a tensor of ``input``'s shape: broadcasting beyond it warns as a resized
    output does (measured against PyTorch 2.13: floating ``input``, integer ``other``)."""
    check_input("ldexp", input)
    other = check_other("ldexp", other, _position, True, "other")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input._t.dtype.is_floating_point \
            and other._t.dtype.kind == "i" and input._t.numel:
        shape = broadcast_shapes(input._t.shape, other._t.shape)
        if shape != tuple(input._t.shape):
            warnings.warn(RESIZED.format(had=list(input._t.shape), need=list(shape)), UserWarning,
                          stacklevel=program_stacklevel())
    return binary(AR.Ldexp, input, other)


ldexp.elementwise_out = CAST  # out= casts, as every binary op's (``out_argument``)


# PyTorch lists the signatures of div's aliases when none takes a call (div's own spelling has
# one visible signature for most calls: "div(): argument 'other' (position 1) must be Tensor")
_DIV_SIGNATURES = {
    "divide": (TENSOR_OTHER, "(Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)",
               "(Tensor input, Number other)", "(Tensor input, Number other, *, str rounding_mode)"),
    "true_divide": (TENSOR_OTHER, "(Tensor input, Number other)"),
}


def install(method, function) -> None:
    """The spellings of div, pow, square, rsub, positive and the augmented assignments."""
    def div_(self, other, *, rounding_mode=None):
        return inplace(self, lambda t: div(t, other, rounding_mode), operands=(other,))

    for n in ("div", "divide", "true_divide"):
        texts = _DIV_SIGNATURES.get(n)
        if texts is None:
            method(n, _div_method)
            method(n + "_", div_)
            function(n, _div_function)
            continue
        listed = method_signatures(texts)
        method(n, parsed(_div_method, n, listed, True))
        method(n + "_", parsed(div_, n + "_", listed, True))
        function(n, parsed(_div_function, n, texts))
    listed = method_signatures(AR.Pow.signatures)
    method("pow", parsed(_pow_method, "pow", listed, True))
    method("pow_", parsed(lambda self, exponent: inplace(self, lambda t: binary(AR.Pow, t, exponent),
                                                         operands=(exponent,)), "pow_", listed, True))
    function("pow", parsed(_pow_function, "pow", AR.Pow.signatures))
    method("float_power", float_power)
    method("float_power_", _float_power_)
    function("float_power", float_power)
    method("ldexp", lambda self, other: ldexp(self, other, 1))
    function("ldexp", ldexp)
    method("square", lambda self: binary(AR.Pow, self, 2))
    method("square_", lambda self: inplace(self, lambda t: binary(AR.Pow, t, 2)))
    function("square", lambda input: binary(AR.Pow, input, 2))
    function("rsub", lambda input, other, alpha=1: binary(AR.Sub, other, input, alpha if alpha != 1 else None))
    # positive(x) is x itself (PyTorch returns the same tensor), refused on bool as unary +
    method("positive", lambda self: +self)
    function("positive", lambda input: +input)
    for name, fn in (("__iadd__", operator.add), ("__isub__", operator.sub), ("__imul__", operator.mul),
                     ("__itruediv__", operator.truediv), ("__ipow__", operator.pow), ("__imod__", operator.mod),
                     ("__ifloordiv__", lambda a, b: binary(AR.FloorDivide.inplace_op, a, b))):
        method(name, _augmented(fn))
    for name, op in (("lshift", AR.BitwiseLeftShift), ("rshift", AR.BitwiseRightShift)):
        method(f"__{name}__", _shift_operator(op))
        method(f"__r{name}__", _shift_operator(op, reflected=True))
        method(f"__i{name}__", _augmented(_shift_operator(op)))


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def pow_backward(k, g, a, e):
    # zeros_like(self) for the exponent 0, not for False (see the float twin)
    if e == 0.0 and getattr(e, "number", e).__class__ is not bool:
        return zeros(a)
    # grad * (exponent * self.pow(exponent - 1)): exponent a Scalar (MulBackward1)
    # pow_backward takes exponent.toDouble(): _saved_other 3.0 and _saved_exponent 2.0 for 3
    return k.mul(g, k.mul(k.const(float(e)), a ** (float(e) - 1.0)))


@helper
def pow_backward_self(k, g, a, b):
    # where(exponent == 0, 0, grad * (exponent * pow(self, exponent - 1)))
    return k.where(b == 0, zeros_like_dtype(g, a), g * (b * a ** k.sub(b, k.const(1.0))))


@helper
def pow_backward_exponent(k, g, a, b, y):
    # the base is first cast to the result type of (base, exponent): log(self) of a float32
    # base with a float64 exponent is taken in float64 (a ToCopyBackward0 under create_graph)
    a_ = to_dtype(a, result_dtype((a, b)))
    return g * k.where(logical_and(a == 0, b >= 0), zeros_like_dtype(y, y), y * unary(UN.Log, a_))


@helper
def rpow_backward(k, g, a, c, y):
    # grad * (result * log(base)), log(base) a Scalar
    if c == 0.0:
        return g * k.where(a >= 0, zeros_like_dtype(y, y), k.mul(y, k.const(ieee.log(c))))
    return k.mul(g, k.mul(y, k.const(ieee.log(c))))


@helper
def floor_divide(a, b):
    return binary(AR.FloorDivide, a, b)
