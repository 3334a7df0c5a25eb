"""Rounding ops: floor, ceil, round (also to ``decimals``), trunc (``fix``), frac, fmod.

Their results are exact in the dtype (a rounded float is representable; ``frac`` and ``fmod``
are exact differences), so float32 results are bit-exact with PyTorch's on every processor.
PyTorch's derivatives (``derivatives.yaml``): floor, ceil, round and trunc give
``zeros_like(grad)``: the rounded value is piecewise constant, and PyTorch takes 0 at the
steps too; frac and fmod pass the gradient to ``self``; fmod's ``other`` gets
``-grad * self.div(other, rounding_mode="trunc")``. The SymPy forms use step functions whose
derivative is 0 (calculus between the steps, PyTorch's everywhere).

Integer tensors: floor, ceil, round and trunc return a copy; round with decimals and frac
refuse them as ATen does (``"frac_cpu" not implemented for 'Long'``); bool tensors are
refused by every one of them.
"""

from __future__ import annotations

import math

from .arithmetic import DivTrunc, step_function, trunc_div
from .elementwise import NUMBER_OTHER, Binary, Unary, WithNumber
from .float_kernel import helper
from .table import Api, register

__all__ = ["Floor", "Ceil", "Round", "RoundDecimals", "Trunc", "Frac", "Frexp", "Fmod", "FmodC", "ROUNDING", "floor",
           "ceil", "nearbyint", "trunc", "fmod"]

_INF = (math.inf, -math.inf)


def _rounded(fn):
    """C's floor/ceil/trunc/nearbyint on doubles (inf and nan pass, a zero result keeps the
    argument's sign: floor(-0.0) and ceil(-0.5) are -0.0); integers are returned as they are."""

    def rounded(x):
        if x.__class__ is int or x.__class__ is bool:
            return x
        if x != x or x in _INF:
            return x
        y = float(fn(x))
        return y if y else math.copysign(0.0, x)

    return rounded


floor = _rounded(math.floor)
ceil = _rounded(math.ceil)
trunc = _rounded(math.trunc)
nearbyint = _rounded(round)  # Python's round() of a float ties to even, as nearbyint's default mode


def fmod(a, b):
    """C's fmod on doubles (nan for a zero divisor or an infinite dividend); on integers C's
    ``%`` (the sign of the dividend), with ATen's refusal of a zero divisor."""
    if a.__class__ is int and b.__class__ is int:
        if b == 0:
            raise RuntimeError("ZeroDivisionError")
        m = abs(a) % abs(b)
        return -m if a < 0 else m
    if b == 0 or a != a or b != b or a in _INF:
        return math.nan
    if b in _INF:
        return a
    return math.fmod(a, b)


def _step(sp, name: str, fn):
    """A one-argument SymPy step function of derivative 0, valued by ``fn``."""
    f = step_function(sp, "step_" + name, lambda x, _y: fn(float(x)))
    return lambda a: f(a, 0)


def _round_decimals(r, x, decimals):
    """ATen's round_decimals kernel: ``nearbyint(x * 10**d) / 10**d`` (``nearbyint(x / 10**-d) *
    10**-d`` for negative d), each step in the dtype; 10**d is the dtype's rounding of the
    double ``std::pow(10, d)``."""
    if decimals < 0:
        ten = r(10.0 ** -decimals)
        return r(nearbyint(r(x / ten)) * ten)
    ten = r(10.0 ** decimals)
    return r(nearbyint(r(x * ten)) / ten)


class _Rounding(Unary):
    saves, saves_inputs = False, False
    bool_kernel = None  # set per op: ATen's "<name>_vml_cpu"
    backward = staticmethod(lambda k, g, v: (k.zero(g),))  # zeros_like(grad)


def _rounding(cls_name: str, method: str, fn, api: Api | None = None):
    return register(type(cls_name, (_Rounding,), {
        "name": cls_name + "Backward0", "api": api or Api(method=method, inplace=method + "_", function=method),
        "bool_kernel": method + "_vml_cpu", "forward": staticmethod(lambda r, a: fn(a)),
        "sympy": staticmethod(lambda sp, a: _step(sp, method, fn)(a))}))


Floor = _rounding("Floor", "floor", floor)
Ceil = _rounding("Ceil", "ceil", ceil)
Trunc = _rounding("Trunc", "trunc", trunc, Api(method="trunc", aliases=("fix",), inplace="trunc_",
                                              function=("trunc", "fix")))
Round = _rounding("Round", "round", nearbyint)
Round.api = None  # bound by hand (_tensor/rounding.py): round(decimals=)


@register
class RoundDecimals(WithNumber):
    """round(self, decimals=d) (RoundBackward1); ``_c`` is d."""

    name, saves, saves_inputs = "RoundBackward1", False, False
    number_layout = "unary"  # round.decimals: a unary TensorIterator (the number is no operand)
    extra_none = 0
    bool_kernel = "round_vml_cpu"
    float_only_kernel = "round_cpu"
    forward = staticmethod(_round_decimals)
    backward = staticmethod(lambda k, g, v: (k.zero(g),))
    sympy = staticmethod(lambda sp, a, c: step_function(
        sp, "round_decimals", lambda x, d: _round_decimals(float, float(x), int(d)))(a, c))


@register
class Frac(Unary):
    """self - trunc(self); derivative 1 (self: grad)."""

    name, saves, saves_inputs = "FracBackward0", False, False
    api = Api(method="frac", inplace="frac_", function="frac")
    bool_kernel = "frac_cpu"
    float_only_kernel = "frac_cpu"
    forward = staticmethod(lambda r, a: a - trunc(a) if a not in _INF else math.nan)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a: a - _step(sp, "trunc", trunc)(a))


def frexp_exponent(a: float) -> int:
    """std::frexp's exponent (0 for zeros, infinities and nan)."""
    return math.frexp(a)[1] if math.isfinite(a) else 0


@register
class Frexp(Unary):
    """frexp's mantissa, ``self / 2**exponent`` in [0.5, 1) (FrexpBackward0; the exponent, an
    int32 tensor, has no gradient): the derivative ``grad / exponent.exp2()``."""

    name, saves, saves_inputs = "FrexpBackward0", True, True
    saved = (("exponent", "c"),)
    api = None  # torch.frexp returns (mantissa, exponent): _tensor/rounding.py
    float_only_kernel = "frexp_cpu"
    forward = staticmethod(lambda r, a: math.frexp(a)[0] if math.isfinite(a) else a)
    backward = staticmethod(lambda k, g, v: (k.frexp_backward(g, k.a(v)),))
    sympy = staticmethod(lambda sp, a: a / 2 ** _step(sp, "frexp_exponent", frexp_exponent)(a))


@helper
def frexp_backward(k, g, a):
    # exponent.exp2() is a float32 tensor (int32 exponents): 2**e rounded to float32; the quotient
    # rounds to the gradient's dtype (a float32 one overflows past 2**128: the smallest subnormal's)
    e = frexp_exponent(a)
    p = 0.0 if e < -149 else (2.0**e if e < 128 else math.inf)
    return k.div(g, p)


def _fmod_form(sp, a, b):
    return a - b * step_function(sp, "div_trunc", lambda x, y: trunc_div(float, x, y))(a, b)


@register
class Fmod(Binary):
    """fmod(self, other) with a tensor other (FmodBackward1)."""

    name = "FmodBackward1"
    saved = (("other", 1, (1,)), ("self", 0, (1,)))
    api = Api(method="fmod", inplace="fmod_", function="fmod")
    signatures = NUMBER_OTHER
    bool_kernel = "fmod_cpu"
    forward = staticmethod(lambda r, a, b: fmod(a, b))

    @staticmethod
    def backward(k, g, v):
        # self: grad; other: -grad * self.div(other, rounding_mode="trunc")
        return g, k.mul(k.neg(g), k.pointwise(DivTrunc, k.a(v), k.b(v)))

    sympy = staticmethod(_fmod_form)


@register
class FmodC(WithNumber):
    """fmod(self, number) (FmodBackward0: self's gradient is the gradient)."""

    name, saves, saves_inputs = "FmodBackward0", False, False
    extra_none = 0
    bool_kernel = "fmod_cpu"
    forward = staticmethod(lambda r, a, c: fmod(a, c))
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(_fmod_form)


Fmod.with_number = FmodC

ROUNDING = [Floor, Ceil, Round, RoundDecimals, Trunc, Frac, Frexp, Fmod, FmodC]
"""The ops of this module, for the tests."""
