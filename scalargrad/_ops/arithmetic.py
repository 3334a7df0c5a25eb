"""Arithmetic: + - * / ** // % on tensors and Python numbers, and the bitwise ops.

An op with a Python number operand (``x * 2``) is its own declaration beside its tensor form
(``MulC`` beside ``Mul``), keeping the number in the node's ``_c`` (already rounded to the
result dtype, as PyTorch casts a wrapped number before computing) instead of making it a node.
``MulScalar``/``DivScalar``/``AddScalar``/``SubScalar`` are the ``Scalar`` overloads ATen's own
composite ops and derivative formulas call (MulBackward1...).
"""

from __future__ import annotations

import math
import operator
from itertools import repeat

from .._base import ieee
from .._base.dtypes import float64, round_list, round_scaled
from .elementwise import BOOL_SUB, NUMBER_EITHER, TENSOR_OTHER, Binary, Elementwise, Unary, WithNumber, spellings
from .float_kernel import helper
from .table import inplace_without_derivative, needed_inputs, no_derivative, register

__all__ = ["BY_NUMBER", "Add", "Sub", "Mul", "Div", "Pow", "DivFloor", "DivTrunc", "FloorDivide", "Remainder", "AddC",
           "SubC", "RSubC", "AddScalar", "SubScalar", "MulC", "DivC", "ScalarArg", "MulScalar", "DivScalar", "PowC",
           "RPowC", "FloorDivideC", "RFloorDivideC", "RemainderC", "RRemainderC", "BitwiseAnd", "BitwiseOr",
           "BitwiseXor", "BitwiseNot", "Gcd", "Lcm", "Ldexp", "floor_div", "pow_scalar", "SCALAR_DERIVATIVES"]


# ---------------------------------------------------------------- tensor (op) tensor


@register
class Add(Binary):
    """add(self, other, alpha): self + alpha * other, one fused multiply-add when alpha != 1
    (ATen's vectorized add kernel; ``_c`` holds alpha)."""

    name, saves, saves_inputs = "AddBackward0", False, False
    saved = (("alpha", "alpha"),)
    api = spellings("add")
    takes_alpha = True
    forward = staticmethod(lambda r, a, b: a + b)
    fast = operator.add
    # derivatives.yaml: self: grad; other: maybe_multiply(grad, alpha)
    backward = staticmethod(lambda k, g, v: (g, g if v._c is None else k.mul(g, k.const(v._c))))
    sympy = staticmethod(lambda sp, a, b, alpha=1: a + alpha * b)


@register
class Sub(Binary):
    name, saves, saves_inputs = "SubBackward0", False, False
    saved = (("alpha", "alpha"),)
    api = spellings("sub", aliases=("subtract",))
    signatures = {"subtract": ("(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
                               "(Tensor input, Number other, Number alpha = 1)")}
    takes_alpha = True
    bool_error = BOOL_SUB
    forward = staticmethod(lambda r, a, b: a - b)
    fast = operator.sub
    # other: handle_r_to_c(other, maybe_multiply(-grad, alpha)); none for an other that does not
    # require grad (tensors only: the check costs a 0-dim graph more than it saves)
    @staticmethod
    def backward(k, g, v):
        if k.bulk and not needed_inputs(v, 0, 1)[1]:
            return g, None
        return g, (k.neg(g) if v._c is None else k.mul(k.neg(g), k.const(v._c)))

    sympy = staticmethod(lambda sp, a, b, alpha=1: a - alpha * b)


@register
class Mul(Binary):
    name = "MulBackward0"
    saved = (("self", 0, (1,)), ("other", 1, (0,)))
    api = spellings("mul", aliases=("multiply",))
    signatures = {"multiply": (TENSOR_OTHER, "(Tensor input, Number other)")}
    forward = staticmethod(lambda r, a, b: a * b)
    fast = operator.mul

    @staticmethod
    def backward(k, g, v):
        if k.bulk:  # tensors: none for an input that does not require grad (see Sub)
            ra, rb = needed_inputs(v, 0, 1)
            return (k.mul(g, k.b(v)) if ra else None), (k.mul(g, k.a(v)) if rb else None)
        return k.mul(g, k.b(v)), k.mul(g, k.a(v))

    sympy = staticmethod(lambda sp, a, b: a * b)


@register
class Div(Binary):
    name = "DivBackward0"
    saved = (("self", 0, (1,)), ("other", 1, (0, 1)))
    api = spellings("div", aliases=("divide", "true_divide"))
    result = "float"
    forward = staticmethod(lambda r, a, b: ieee.div(a, b))
    fast = operator.truediv

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        ra, rb = needed_inputs(v, 0, 1) if k.bulk else (True, True)  # see Sub
        # div_tensor_other_backward: -grad * ((self / other) / other)
        return (k.div(g, b) if ra else None), (k.mul(k.neg(g), k.div(k.div(a, b), b)) if rb else None)

    @staticmethod
    def jvp(k, tangents, v):
        # forward mode, as derivatives.yaml rounds it: (self_t - other_t * result) / other_p
        # (the double-vjp of backward above rounds its terms in another order)
        ta, tb = tangents
        if tb is None:
            return k.div(ta, k.b(v))
        r = k.mul(tb, k.out(v))
        return k.div(k.neg(r) if ta is None else k.sub(ta, r), k.b(v))

    sympy = staticmethod(lambda sp, a, b: a / b)


@register
class Pow(Binary):
    """tensor ** tensor."""

    name, saves_output = "PowBackward1", True
    saved = (("self", 0), ("exponent", 1), ("result", "result"))
    api = spellings("pow", functional=None)
    signatures = tuple(f"({s}, *, Tensor out = None)" for s in (
        "Tensor input, Tensor exponent", "Number self, Tensor exponent", "Tensor input, Number exponent"))
    bool_kernel = "pow"
    forward = staticmethod(lambda r, a, b: _int_pow(a, b) if a.__class__ is int and b.__class__ is int
                           else ieee.pow(a, b))

    @staticmethod
    def backward(k, g, v):
        if v._in[0]._rg and v._in[1]._t.dtype.kind == "b":
            raise RuntimeError(BOOL_SUB)  # pow_backward_self computes exponent - 1
        a, b = k.a(v), k.b(v)
        # pow_backward_self: 0 where exponent == 0; pow_backward_exponent: 0 where base == 0
        # and exponent >= 0 (PyTorch's convention; plain calculus gives nan or -inf there)
        return k.pow_backward_self(g, a, b), k.pow_backward_exponent(g, a, b, k.out(v))

    sympy = staticmethod(lambda sp, a, b: _sympy_pow(sp, a, b))

    @staticmethod
    def convention(a, b):
        # 0 * 0**-1 and 0**b * log(0) are nan in calculus; PyTorch masks them to 0, so x**x
        # has gradient 0 at x = 0 (calculus: x**x * (log(x) + 1) is -inf there)
        if a == 0 and b >= 0:
            return ("pow: PyTorch takes d(a**b)/db = 0 at a = 0, b >= 0, and d(a**b)/da = 0 at b = 0 "
                    "(calculus: 0*log(0) and 0*0**-1 are undefined)", (0.0 if b == 0 else None, 0.0))
        return None



def _fmod(a, b):
    """C's fmod with IEEE results (Python's raises on an infinite a or a zero b)."""
    if b == 0 or a != a or b != b or a in (math.inf, -math.inf):
        return math.nan
    return math.fmod(a, b)


def floor_div(r, a, b):
    """``//`` as ATen's ``div_floor_floating`` computes it, each step rounded by ``r`` (None:
    double): ``(a - fmod(a, b)) / b``, corrected towards the floor (so 2.0 // -inf is -1.0 and
    5.0 // 0 is inf), a zero quotient taking the sign of a / b; for integers Python's floor
    division (x // 0 is refused)."""
    if a.__class__ is int and b.__class__ is int:
        if b == 0:
            raise RuntimeError("ZeroDivisionError")
        return a // b
    if r is None:
        r = float
    if b == 0:
        return ieee.div(a, b)
    mod = _fmod(a, b)
    div = r(ieee.div(r(a - mod), b))
    if mod != 0 and (b < 0) != (mod < 0):
        div = r(div - 1.0)
    if div == 0:
        return math.copysign(0.0, ieee.div(a, b))
    if div != div or div in (math.inf, -math.inf):
        return div
    floordiv = float(math.floor(div))
    if r(div - floordiv) > 0.5:
        floordiv = r(floordiv + 1.0)
    return floordiv


def _remainder(r, a, b):
    """``%`` as ATen's remainder: fmod, moved to the divisor's sign (Python's convention)."""
    if a.__class__ is int and b.__class__ is int:
        if b == 0:
            raise RuntimeError("ZeroDivisionError")
        return a % b
    mod = _fmod(a, b)
    if mod != 0 and (b < 0) != (mod < 0):
        mod += b
    return mod


def trunc_div(r, a, b):
    """Division rounded towards zero: C's integer division, or trunc(a / b) on floats."""
    if a.__class__ is int and b.__class__ is int:
        if b == 0:
            raise RuntimeError("ZeroDivisionError")
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    q = r(ieee.div(a, b))
    if q != q or q in (math.inf, -math.inf):
        return q
    return math.copysign(float(math.trunc(q)), q)


_STEP_FUNCTIONS: dict = {}


def step_function(sp, name: str, fn):
    """A SymPy function that is piecewise constant (a rounded quotient): derivative 0 (calculus
    between the steps, PyTorch's everywhere), its value computed by ``fn`` (lambdify's
    ``_imp_``)."""
    f = _STEP_FUNCTIONS.get(name)
    if f is None:
        f = _STEP_FUNCTIONS[name] = type(name, (sp.Function,), {
            "nargs": 2, "fdiff": lambda self, argindex=1: sp.Integer(0), "_imp_": staticmethod(fn)})
    return f


def _floor_form(sp, a, b):
    """floor(a / b) for SymPy: a step function (derivative 0), valued by ``floor_div``."""
    return step_function(sp, "div_floor", lambda x, y: floor_div(None, x, y))(a, b)



@register
class DivFloor(Elementwise):
    """``div(other, rounding_mode="floor")`` (DivBackward2; a number operand is wrapped in a
    tensor). PyTorch's derivative is ``grad * 0`` for both operands (nan where the gradient
    is not finite): the rounded quotient is piecewise constant."""

    name = "DivBackward2"
    rounding_mode = "floor"
    arity = 2
    saves, saves_inputs = False, False
    saved = (("other", 1, (0, 1)), ("rounding_mode", "op.rounding_mode"), ("self", 0, (1,)))
    forward = staticmethod(lambda r, a, b: floor_div(r, a, b))

    @staticmethod
    def backward(k, g, v):
        zero = k.mul(g, k.const(0.0))
        return zero, zero

    sympy = staticmethod(lambda sp, a, b: _floor_form(sp, a, b))


@register
class DivTrunc(DivFloor):
    rounding_mode = "trunc"
    forward = staticmethod(lambda r, a, b: trunc_div(r, a, b))
    sympy = staticmethod(lambda sp, a, b: step_function(sp, "div_trunc", lambda x, y: trunc_div(float, x, y))(
        a, b))


@register
class FloorDivide(Binary):
    """``//``: PyTorch declares no derivative; the node is ``NotImplemented``, with an edge for
    each input that requires grad only."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    grad_edges_only = True
    api = spellings("floor_divide")
    signatures = (TENSOR_OTHER, "(Tensor input, Number other)")
    bool_kernel = "div_floor_cpu"
    forward = staticmethod(floor_div)

    @staticmethod
    def backward(k, g, v):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")

    sympy = staticmethod(lambda sp, a, b: _floor_form(sp, a, b))


@register
class Remainder(Binary):
    """tensor % tensor (the Tensor overload, RemainderBackward1)."""

    name = "RemainderBackward1"
    saved = (("other", 1, (1,)), ("self", 0, (1,)))
    api = spellings("remainder")
    signatures = NUMBER_EITHER
    bool_kernel = "remainder_cpu"
    forward = staticmethod(_remainder)

    @staticmethod
    def backward(k, g, v):
        # self: grad; other: -grad * self.div(other, rounding_mode="floor")
        return g, k.mul(k.neg(g), k.floor_divide(k.a(v), k.b(v)))

    # floor(a / b) as a step function of derivative 0, as PyTorch's formula has it
    sympy = staticmethod(lambda sp, a, b: a - b * _floor_form(sp, a, b))



# ---------------------------------------------------------------- tensor (op) Python number


BY_NUMBER = {
    operator.add: (lambda xs, c: [x + c for x in xs], lambda c, ys: [c + y for y in ys]),
    operator.sub: (lambda xs, c: [x - c for x in xs], lambda c, ys: [c - y for y in ys]),
    operator.mul: (lambda xs, c: [x * c for x in xs], lambda c, ys: [c * y for y in ys]),
    operator.truediv: (lambda xs, c: [x / c for x in xs], lambda c, ys: [c / y for y in ys]),
}
"""The four operators with one operand a number, over a list: ``(list op number, number op
list)``. A comprehension runs the same operator (CPython's float fast path) about 1.5 times as
fast as ``map(op, xs, repeat(c))``; either raises where Python's operator does."""


def _bulk_with(fn, safe):
    """``tensor (op) number`` over a list: ``fn`` over the elements (``BY_NUMBER``'s comprehension),
    ``safe`` where it raises."""
    each = BY_NUMBER[fn][0]

    def bulk(dt, xs, c):
        if isinstance(c, float):
            c = float(c)  # a Constant (a float remembering its number) as a plain float: the fast path
        try:
            vals = each(xs, c)
        except (ZeroDivisionError, OverflowError, ValueError):
            vals = [safe(x, c) for x in xs]
        return vals if dt is float64 else round_scaled(dt, vals, c) if fn is operator.mul else round_list(dt, vals)

    return staticmethod(bulk)


@register
class AddC(WithNumber):
    name, saves, saves_inputs = "AddBackward0", False, False
    saved = (("alpha", "one"),)
    forward = staticmethod(lambda r, a, c: a + c)
    bulk_number = _bulk_with(operator.add, operator.add)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a + c)


@register
class SubC(WithNumber):
    name, saves, saves_inputs = "SubBackward0", False, False
    saved = (("alpha", "one"),)
    bool_error = BOOL_SUB
    forward = staticmethod(lambda r, a, c: a - c)
    bulk_number = _bulk_with(operator.sub, operator.sub)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a - c)


@register
class RSubC(WithNumber):
    """number - tensor."""

    name, saves, saves_inputs = "RsubBackward1", False, False
    saved = (("alpha", "one"),)
    extra_none = 0
    bool_error = BOOL_SUB
    forward = staticmethod(lambda r, a, c: c - a)
    backward = staticmethod(lambda k, g, v: (k.neg(g),))
    sympy = staticmethod(lambda sp, a, c: c - a)


@register
class AddScalar(WithNumber):
    """tensor + Scalar inside a derivative (``add.Scalar``: AddBackward1, as in ``1 + x * x``)."""

    name, saves, saves_inputs = "AddBackward1", False, False
    saved = ()  # add.Scalar / sub.Scalar save nothing
    extra_none = 0
    forward = staticmethod(lambda r, a, c: a + c)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a + c)


@register
class SubScalar(WithNumber):
    """tensor - Scalar inside a derivative (``sub.Scalar``: SubBackward1, as in ``exponent - 1``)."""

    name, saves, saves_inputs = "SubBackward1", False, False
    saved = ()  # add.Scalar / sub.Scalar save nothing
    extra_none = 0
    forward = staticmethod(lambda r, a, c: a - c)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a - c)


@register
class MulC(WithNumber):
    name, saves_inputs = "MulBackward0", False
    saved = (("other", "c"), ("self", None))
    forward = staticmethod(lambda r, a, c: a * c)
    bulk_number = _bulk_with(operator.mul, operator.mul)
    # v._c is the number already rounded to the result dtype, as PyTorch's wrapped number
    backward = staticmethod(lambda k, g, v: (k.mul(g, v._c),))
    sympy = staticmethod(lambda sp, a, c: a * c)


@register
class DivC(WithNumber):
    name, saves_inputs = "DivBackward0", False
    saved = (("other", "c"), ("self", None))
    result = "float"
    forward = staticmethod(lambda r, a, c: ieee.div(a, c))
    bulk_number = _bulk_with(operator.truediv, ieee.div)
    backward = staticmethod(lambda k, g, v: (k.div(g, v._c),))
    sympy = staticmethod(lambda sp, a, c: a / c)


class ScalarArg(float):
    """A C++ ``Scalar`` operand (``tensor.mul(Scalar)`` inside ATen's composite ops): the number
    in the tensor's dtype, which the op computes with, carrying ``number``, the number as passed,
    which PyTorch shows as ``_saved_other``."""

    def __new__(cls, value: float, given):
        obj = float.__new__(cls, value)
        obj.number = given  # the name Constant uses: the "number" saved source reads either
        return obj


@register
class MulScalar(MulC):
    """mul.Scalar: ``tensor * Scalar`` from C++ (MulBackward1; Python's ``*`` is MulBackward0)."""

    name, saves = "MulBackward1", True
    saved = (("other", "number"),)
    extra_none = 0  # one input: no slot for a wrapped number
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.const(v._c)),))


@register
class DivScalar(DivC):
    """div.Scalar: ``tensor / Scalar`` from C++ (DivBackward1)."""

    name = "DivBackward1"
    saved = (("other", "number"),)
    extra_none = 0
    backward = staticmethod(lambda k, g, v: (k.div(g, k.const(v._c)),))


def _sympy_pow(sp, base, exponent):
    """``base ** exponent`` in SymPy. A float exponent is an exact rational with a denominator
    of 2**54 or so; SymPy raises a constant base to it by factoring (Integer._eval_power takes
    ``prime ** (p mod q)``), which runs for minutes once a clamp's Piecewise carries a constant
    branch. The same binary value as a SymPy Float (precision enough to hold it exactly) is
    evaluated numerically instead."""
    if getattr(exponent, "is_Rational", False) and not exponent.is_Integer and exponent.q > 1 << 16:
        bits = max(exponent.p.bit_length(), exponent.q.bit_length()) + 8
        exponent = sp.Float(exponent, precision=max(bits, 64))
    return base**exponent


def pow_scalar(r, x, e):
    # PyTorch's pow_tensor_scalar kernel special-cases these exponents; each step rounds.
    if e == 2.0:
        return x * x
    if e == 3.0:
        return r(x * x) * x
    if e == 0.5:
        return ieee.sqrt(x)
    if e == -0.5:
        return ieee.div(1.0, r(ieee.sqrt(x)))
    if e == -1.0:
        return ieee.div(1.0, x)
    if e == -2.0:
        return ieee.div(1.0, r(x * x))
    if x.__class__ is int and getattr(e, "number", e).__class__ in (int, bool):
        return _int_pow(x, int(e))  # a bool exponent (a Constant 0.0 or 1.0) is the integer 0 or 1
    return ieee.pow(x, e)


def _number_pow(c, a):
    # an integer tensor's power of a number cast to its dtype: ATen's integer kernel
    if isinstance(c, int) and a.__class__ is int:
        return _int_pow(int(c), a)
    return ieee.pow(c, a)


def _int_pow(x: int, e: int) -> int:
    """An integer power as ATen's repeated squaring computes it: modulo 2**64 (the dtype's
    rounding then wraps it to its width), 0 for a negative exponent unless the base is 1 or -1."""
    if e < 0:
        return 1 if x == 1 else (-1 if x == -1 and e % 2 else (1 if x == -1 else 0))
    return pow(x, e, 1 << 64)


def _pow_bulk(dt, xs, e):
    if e == 1 and dt.is_floating_point:
        return list(xs)  # pow(x, 1) is x, nan and signed zeros included
    # comprehensions: CPython's float fast path, about twice as fast as map(operator.mul, ...)
    if e == 2.0:
        vals = [x * x for x in xs]
    elif e == 3.0 and dt is float64:
        vals = [x * x * x for x in xs]  # (x * x) * x, as ATen's cube
    elif e == 3.0:
        sq = round_list(dt, [x * x for x in xs])
        vals = list(map(operator.mul, sq, xs))
    else:
        vals = _plain_pow(dt, xs, e)
        if vals is None:
            r = dt.round
            vals = [pow_scalar(r, x, e) for x in xs]
    return vals if dt is float64 else round_list(dt, vals)


def _plain_pow(dt, xs, e) -> list | None:
    """C's pow of every element, where ``pow_scalar`` is ``ieee.pow`` (no special-cased exponent,
    floating elements) and no element needs its IEEE special cases (math.pow raises): else None."""
    if not dt.is_floating_point or e in (0.5, -0.5, -1.0, -2.0) or e.__class__ not in (int, float):
        return None
    try:
        return list(map(math.pow, xs, repeat(float(e), len(xs))))
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


@register
class PowC(WithNumber):
    """tensor ** number; ``_c`` is the exponent unrounded (PyTorch's pow kernel takes it as a
    double, also in float32)."""

    name = "PowBackward0"
    saved = (("self", 0), ("exponent", "number"))
    number_layout = "unary"  # pow.Tensor_Scalar: a unary TensorIterator
    extra_none = 0
    forward = staticmethod(pow_scalar)
    bulk_number = staticmethod(_pow_bulk)
    # pow_backward: zeros where the exponent is 0, else grad * (exponent * self.pow(exponent - 1))
    backward = staticmethod(lambda k, g, v: (k.pow_backward(g, k.a(v), v._c),))
    sympy = staticmethod(lambda sp, a, c: _sympy_pow(sp, a, c))

    @staticmethod
    def convention(a, c):
        # pow_backward returns zeros for exponent 0, also at a = 0 where c * a**(c-1) is 0 * inf
        if c == 0 and a == 0:
            if getattr(c, "number", c).__class__ is bool:  # pow_backward's formula runs: False * 0**-1
                return ("pow: PyTorch computes d(a**False)/da as False * a**-1, nan at a = 0",
                        (math.nan,))
            return ("pow: PyTorch takes d(a**0)/da = 0 at a = 0 (calculus formula: 0*0**-1, undefined)", (0.0,))
        return None


@register
class RPowC(WithNumber):
    """number ** tensor."""

    name, saves_inputs, saves_output = "PowBackward2", True, True
    saved = (("exponent", 0), ("result", "result"), ("self", "number"))
    bool_kernel = "pow"
    number_layout = "contiguous"  # pow.Scalar's meta function allocates the exponent's sizes
    extra_none = 0
    # ``c`` is the Python number as given: the forward casts it to the tensor's dtype, the
    # backward takes the log of the double (pow_backward_exponent with a Scalar base)
    forward = staticmethod(lambda r, a, c: _number_pow(r(c), a))
    backward = staticmethod(lambda k, g, v: (k.rpow_backward(g, k.a(v), v._c, k.out(v)),))
    sympy = staticmethod(lambda sp, a, c: c**a)

    @staticmethod
    def convention(a, c):
        if c == 0 and a >= 0:
            return ("pow: PyTorch takes d(0**x)/dx = 0 at x >= 0 (calculus: 0**x*log(0), undefined)", (0.0,))
        return None


@register
class FloorDivideC(WithNumber):
    """tensor // number: no derivative (a NotImplemented node with the tensor as its input)."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    extra_none = 0
    bool_kernel = "div_floor_cpu"
    forward = staticmethod(lambda r, a, c: floor_div(r, a, c))
    grad_edges_only = True
    backward = no_derivative("floor_divide")
    sympy = staticmethod(lambda sp, a, c: _floor_form(sp, a, c))


@register
class RFloorDivideC(FloorDivideC):
    """number // tensor."""

    forward = staticmethod(lambda r, a, c: floor_div(r, c, a))
    sympy = staticmethod(lambda sp, a, c: _floor_form(sp, c, a))


@register
class RemainderC(WithNumber):
    """tensor % number: self's gradient is the gradient (RemainderBackward0)."""

    name, saves, saves_inputs = "RemainderBackward0", False, False
    extra_none = 0
    bool_kernel = "remainder_cpu"
    forward = staticmethod(lambda r, a, c: _remainder(r, a, c))
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a - c * _floor_form(sp, a, c))


@register
class RRemainderC(WithNumber):
    """number % tensor: no derivative."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    extra_none = 0
    bool_kernel = "remainder_cpu"
    forward = staticmethod(lambda r, a, c: _remainder(r, c, a))
    grad_edges_only = True
    backward = no_derivative("remainder")
    sympy = staticmethod(lambda sp, a, c: c - a * _floor_form(sp, c, a))



Add.with_number = AddC
Sub.with_number = SubC
Sub.number_first = RSubC
Mul.with_number = MulC
Div.with_number = DivC
Pow.with_number = PowC
Pow.number_first = RPowC
FloorDivide.with_number = FloorDivideC
# PyTorch's argument parser turns a number into a tensor for ``input`` of these alone
# (torch.add(1, 2) is tensor(3); torch.exp(1.0), torch.maximum(1., 2.) are TypeErrors)
Add.numbers_only = Sub.numbers_only = Mul.numbers_only = Div.numbers_only = FloorDivide.numbers_only = True
FloorDivide.number_first = RFloorDivideC
inplace_without_derivative(FloorDivide)
Remainder.with_number = RemainderC
Remainder.number_first = RRemainderC


# ---------------------------------------------------------------- bitwise ops (integers and bool)


class Bitwise(Binary):
    """``&``, ``|``, ``^`` on integer and bool tensors: the promoted dtype, never a gradient;
    ATen builds no floating kernel (``"bitwise_and_cpu" not implemented for 'Float'``)."""

    differentiable = False
    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: (None, None))


def _bitwise(method, fn, symbol):
    return register(type("Bitwise" + method.capitalize(), (Bitwise,), {
        "name": f"Bitwise{method.capitalize()}Backward0", "api": spellings("bitwise_" + method),
        "signatures": NUMBER_EITHER, "integer_kernel": f"bitwise_{method}_cpu", "symbol": symbol,
        "forward": staticmethod(lambda r, a, b: r(fn(int(a), int(b)))),
        "sympy": staticmethod(lambda sp, a, b: sp.Function("bitwise_" + method)(a, b))}))


BitwiseAnd = _bitwise("and", operator.and_, "&")
BitwiseOr = _bitwise("or", operator.or_, "|")
BitwiseXor = _bitwise("xor", operator.xor, "^")


_WIDTHS: dict = {}


def _width(r) -> tuple:
    """(bits, signed) of the integer dtype whose rounding is ``r`` (it wraps modulo 2**bits)."""
    w = _WIDTHS.get(r)
    if w is None:
        w = _WIDTHS[r] = (next(n for n in (8, 16, 32, 64) if r(1 << n) == 0), r(-1) == -1)
    return w


def _shift_amount(b: int, bits: int) -> int:
    """``b`` as ATen reads it (``static_cast<make_signed_t<T>>(b)``): a uint8 of 200 is negative."""
    return b - (1 << bits) if b >= 1 << (bits - 1) else b


def _lshift(r, a: int, b: int) -> int:
    """ATen's lshift_kernel: 0 for a negative amount or one of the whole width, else wrapped."""
    bits, _ = _width(r)
    return 0 if _shift_amount(b, bits) < 0 or b >= bits else r(a << b)


def _rshift(r, a: int, b: int) -> int:
    """ATen's rshift_kernel: an amount out of range shifts by the width (less the sign bit)."""
    bits, signed = _width(r)
    top = bits - signed
    return a >> top if _shift_amount(b, bits) < 0 or b >= top else a >> b


def _shift(method, fn, symbol, kernel):
    return register(type("Bitwise" + method.title().replace("_", ""), (Bitwise,), {
        "name": f"Bitwise{method.title().replace('_', '')}Backward0", "api": spellings("bitwise_" + method),
        "signatures": NUMBER_EITHER, "integer_kernel": kernel, "bool_kernel": kernel, "symbol": symbol,
        "forward": staticmethod(lambda r, a, b: r(fn(r, int(a), int(b)))),
        "sympy": staticmethod(lambda sp, a, b: sp.Function("bitwise_" + method)(a, b))}))


BitwiseLeftShift = _shift("left_shift", _lshift, "<<", "lshift_cpu")
BitwiseRightShift = _shift("right_shift", _rshift, ">>", "rshift_cpu")


def _gcd(r, a: int, b: int) -> int:
    """ATen's calc_gcd: Euclid on the absolute values (wrapped to the dtype)."""
    a, b = abs(a), abs(b)
    while a:
        a, b = b % a, a
    return r(b)


def _lcm(r, a: int, b: int) -> int:
    """ATen's lcm_kernel: ``abs(a / gcd(a, b) * b)``, 0 where the gcd is 0, wrapped to the dtype."""
    g = _gcd(r, a, b)
    return 0 if g == 0 else r(abs(r(a // g * b)))  # g divides a: the quotient is exact


def _number_theory(method, fn):
    return register(type(method.capitalize(), (Bitwise,), {
        "name": f"{method.capitalize()}Backward0", "api": spellings(method),
        "integer_kernel": f"{method}_cpu", "bool_kernel": f"{method}_cpu", "symbol": None, "other_tensor_only": True,
        "forward": staticmethod(lambda r, a, b: fn(r, int(a), int(b))),
        "sympy": staticmethod(lambda sp, a, b: getattr(sp, method)(a, b))}))


Gcd = _number_theory("gcd", _gcd)  # integers only, as ATen's kernels: no gradient
Lcm = _number_theory("lcm", _lcm)


@register
class BitwiseNot(Unary):
    """``~``: logical not on bool, two's complement on integers (no floating kernel)."""

    name = "BitwiseNotBackward0"
    api = spellings("bitwise_not")
    integer_kernel = "bitwise_not_cpu"
    differentiable = False
    saves, saves_inputs = False, False
    forward = staticmethod(lambda r, a: (not a) if a.__class__ is bool else r(~int(a)))
    backward = staticmethod(lambda k, g, v: (None,))
    sympy = staticmethod(lambda sp, a: sp.Function("bitwise_not")(a))


@register
class Ldexp(Binary):
    """ldexp(self, other) (LdexpBackward0): ``self * 2**other`` (ATen's mul by pow(2, other), a
    floating result); d/dself = grad * 2**other, d/dother = grad * result * ln 2."""

    name, saves, saves_inputs, saves_output = "LdexpBackward0", True, True, True
    saved = (("other", 1), ("result", "result"))
    api = spellings("ldexp")
    result = "float"
    other_tensor_only = True
    forward = staticmethod(lambda r, a, b: r(a * r(ieee.pow(2.0, b))))
    sympy = staticmethod(lambda sp, a, b: a * sp.Integer(2) ** b)

    @staticmethod
    def backward(k, g, v):
        # PyTorch's grad * pow(2, other): an integer power for an integer other (2**-2 is 0 there)
        base = 2 if v._in[1]._t.dtype.kind in "ib" else 2.0
        return k.mul(g, k.pow(base, k.b(v))), k.mul(g, k.mul(k.out(v), _LN2))


_LN2 = math.log(2.0)


SCALAR_DERIVATIVES = [Add, Sub, Mul, Div, Pow, Ldexp, AddC, SubC, RSubC, MulC, DivC, PowC, RPowC]
"""The ops of this family with a non-trivial derivative, for the catalogue tests."""


# ---------------------------------------------------------------- derivative helpers, on floats


@helper
def pow_backward(k, g, a, e):
    # zeros for the exponent 0; c10's Scalar(false).equal(0.0) is false: False runs the formula
    if e == 0.0 and getattr(e, "number", e).__class__ is not bool:
        return 0.0
    r = k.r
    return k.mul(g, k.mul(r(e), r(pow_scalar(r, a, e - 1.0))))


@helper
def pow_backward_self(k, g, a, b):
    if b == 0:
        return 0.0
    return k.mul(g, k.mul(b, k.pow(a, k.sub(b, 1.0))))


@helper
def pow_backward_exponent(k, g, a, b, y):
    return k.mul(g, 0.0 if (a == 0 and b >= 0) else k.mul(y, k.log(a)))


@helper
def rpow_backward(k, g, a, c, y):
    if c == 0.0 and a >= 0:  # PyTorch: zero where base == 0 and exponent >= 0
        return k.mul(g, 0.0)
    return k.mul(g, k.mul(y, k.r(ieee.log(c))))


@helper
def floor_divide(k, a, b):
    return k.r(floor_div(k.r, a, b))
