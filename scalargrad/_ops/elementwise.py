"""Elementwise ops: each output element is a function of the elements at the same position of
the (broadcast) inputs.

Besides the base's declarations (see ``table.py``), an elementwise op says how its result
dtype follows from its inputs' (``result``: "same" as the promoted inputs, "float" where an
integer input gives the default float dtype, "bool" for comparisons), and may name a C-level
function (``fast``) that computes its float64 elements in bulk; ``forward`` stays the IEEE-
safe reference that handles what ``fast`` raises on (division by zero, overflow, log(0)).

The formulas follow PyTorch's ``derivatives.yaml`` / ``FunctionsManual.cpp`` term for term,
in the same evaluation order, so float32 gradients round exactly as PyTorch's do. An op with
a Python number operand (``x * 2``) is its own declaration beside its tensor form (``MulC``
beside ``Mul``), keeping the number in the node's ``_c`` (already rounded to the result dtype,
as PyTorch casts a wrapped number before computing) instead of making it a node.
"""

from __future__ import annotations

import math
import operator
from itertools import repeat

from .._base import ieee
from .._base.dtypes import float64, round_list
from .correctly_rounded import tanh_correctly_rounded
from .table import Api, Op, no_derivative, register

__all__ = ["Elementwise", "ELEMENTWISE", "SCALAR_DERIVATIVES"]


class Elementwise(Op):
    """An op computed element by element over broadcast inputs."""

    result = "same"  # "same" | "float" | "bool"
    fast = None  # a C function of the double elements, for bulk float64 (None: use forward)
    fast64 = None  # the same for float64 alone, where ``fast`` is not correctly rounded
    with_number = None  # the declaration of ``tensor (op) number``, if the op has one
    number_first = None  # the declaration of ``number (op) tensor``
    numbers_only = False  # ``torch.mul(2.0, 3.0)``: the function takes two Python numbers
    bool_error = None  # PyTorch's refusal of bool operands, if any
    bool_kernel = None  # the ATen kernel that refuses a bool computation ('"abs_cpu" not implemented')
    float_only_kernel = None  # the ATen kernel that refuses integer tensors ('"frac_cpu" not implemented for 'Long'')
    integer_kernel = None  # the ATen kernel of an op built for integers and bool alone (bitwise ops)
    arity = 1
    uses_c = False  # forward and backward read the node's constant ``_c``
    bulk_number = None  # (dtype, elements, number) -> rounded elements, for ``tensor (op) number``
    takes_alpha = False  # add/sub: ``alpha`` multiplies the other operand
    other_tensor_only = False  # the other operand must be a tensor (minimum, maximum)
    # (elements, _c) -> the size of the terms an intermediate rounding touches, for ops that
    # round inside one element (addcmul): the SymPy check's forward tolerance scales with it
    magnitude = None
    # ``by_position(dt, columns, n, c)`` -> the n rounded elements, for the kernels whose vectorised
    # and scalar code round differently (``forward`` is the scalar code): None for most ops
    by_position = None


class Unary(Elementwise):
    arity = 1


class Binary(Elementwise):
    arity = 2
    grad_order = (1, 0)  # (self, other), (self, exponent), (self, min): the second one's first


class WithNumber(Elementwise):
    """``tensor (op) number``: one tensor input, the number in ``_c``."""

    arity = 1
    uses_c = True
    extra_none = 1


def _api(method, inplace=True, function=True, aliases=(), functional=None):
    # an alias is a spelling of the function too (torch.subtract, torch.multiply)
    return Api(method=method, aliases=aliases, inplace=(method + "_") if inplace else None,
               function=(method,) + tuple(aliases) if function is True else function, functional=functional)


_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")
_BOOL_SUB2 = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.")
_BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")


# ---------------------------------------------------------------- tensor (op) tensor


@register
class Add(Binary):
    """add(self, other, alpha): self + alpha * other, one fused multiply-add when alpha != 1
    (ATen's vectorized add kernel; ``_c`` holds alpha)."""

    name, saves, saves_inputs = "AddBackward0", False, False
    saved = (("alpha", "alpha"),)
    api = _api("add")
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
    api = _api("sub", aliases=("subtract",))
    takes_alpha = True
    bool_error = _BOOL_SUB
    forward = staticmethod(lambda r, a, b: a - b)
    fast = operator.sub
    # other: handle_r_to_c(other, maybe_multiply(-grad, alpha))
    backward = staticmethod(lambda k, g, v: (g, k.neg(g) if v._c is None else k.mul(k.neg(g), k.const(v._c))))
    sympy = staticmethod(lambda sp, a, b, alpha=1: a - alpha * b)


@register
class Mul(Binary):
    name = "MulBackward0"
    saved = (("self", 0, (1,)), ("other", 1, (0,)))
    api = _api("mul", aliases=("multiply",))
    forward = staticmethod(lambda r, a, b: a * b)
    fast = operator.mul

    @staticmethod
    def backward(k, g, v):
        return k.mul(g, k.b(v)), k.mul(g, k.a(v))

    sympy = staticmethod(lambda sp, a, b: a * b)


@register
class Div(Binary):
    name = "DivBackward0"
    saved = (("self", 0, (1,)), ("other", 1, (0, 1)))
    api = _api("div", aliases=("divide", "true_divide"))
    result = "float"
    forward = staticmethod(lambda r, a, b: ieee.div(a, b))
    fast = operator.truediv

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        # div_tensor_other_backward: -grad * ((self / other) / other)
        return k.div(g, b), k.mul(k.neg(g), k.div(k.div(a, b), b))

    sympy = staticmethod(lambda sp, a, b: a / b)


@register
class Pow(Binary):
    """tensor ** tensor."""

    name, saves_output = "PowBackward1", True
    saved = (("self", 0), ("exponent", 1), ("result", "result"))
    api = _api("pow", functional=None)
    bool_kernel = "pow"
    forward = staticmethod(lambda r, a, b: _int_pow(a, b) if a.__class__ is int and b.__class__ is int
                           else ieee.pow(a, b))

    @staticmethod
    def backward(k, g, v):
        if v._in[0]._rg and v._in[1]._t.dtype.kind == "b":
            raise RuntimeError(_BOOL_SUB)  # pow_backward_self computes exponent - 1
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


def _min_forward(r, a, b):
    return a if (a <= b or a != a) else b


def _max_forward(r, a, b):
    return a if (a >= b or a != a) else b


@register
class Minimum(Binary):
    name = "MinimumBackward0"
    saved = (("self", 0), ("other", 1))
    api = _api("minimum", inplace=False)
    other_tensor_only = True
    forward = staticmethod(_min_forward)

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        # a tie splits the gradient in halves (where(self == other, grad / 2, grad)); with a nan
        # neither mask applies and both operands get the whole gradient
        return k.min_max_backward(g, a, b, True)

    @staticmethod
    def sympy(sp, a, b):
        # at a tie the value is (a + b) / 2, so each side's derivative is 1/2, as PyTorch splits it
        return sp.Piecewise((a, sp.StrictLessThan(a, b)), (b, sp.StrictGreaterThan(a, b)), ((a + b) / 2, True))


@register
class Maximum(Binary):
    name = "MaximumBackward0"
    saved = (("self", 0), ("other", 1))
    api = _api("maximum", inplace=False)
    other_tensor_only = True
    forward = staticmethod(_max_forward)

    @staticmethod
    def backward(k, g, v):
        return k.min_max_backward(g, k.a(v), k.b(v), False)

    @staticmethod
    def sympy(sp, a, b):
        return sp.Piecewise((a, sp.StrictGreaterThan(a, b)), (b, sp.StrictLessThan(a, b)), ((a + b) / 2, True))


def _fmod(a, b):
    """C's fmod with IEEE results (Python's raises on an infinite a or a zero b)."""
    if b == 0 or a != a or b != b or a in (math.inf, -math.inf):
        return math.nan
    return math.fmod(a, b)


def _floor_div(r, a, b):
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


def _trunc_div(r, a, b):
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


def _step_function(sp, name: str, fn):
    """A SymPy function that is piecewise constant (a rounded quotient): derivative 0 (calculus
    between the steps, PyTorch's everywhere), its value computed by ``fn`` (lambdify's
    ``_imp_``)."""
    f = _STEP_FUNCTIONS.get(name)
    if f is None:
        f = _STEP_FUNCTIONS[name] = type(name, (sp.Function,), {
            "nargs": 2, "fdiff": lambda self, argindex=1: sp.Integer(0), "_imp_": staticmethod(fn)})
    return f


def _floor_form(sp, a, b):
    """floor(a / b) for SymPy: a step function (derivative 0), valued by ``_floor_div``."""
    return _step_function(sp, "div_floor", lambda x, y: _floor_div(None, x, y))(a, b)


_NOT_IMPLEMENTED = "derivative for aten::{} is not implemented"


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
    forward = staticmethod(lambda r, a, b: _floor_div(r, a, b))

    @staticmethod
    def backward(k, g, v):
        zero = k.mul(g, k.const(0.0))
        return zero, zero

    sympy = staticmethod(lambda sp, a, b: _floor_form(sp, a, b))


@register
class DivTrunc(DivFloor):
    rounding_mode = "trunc"
    forward = staticmethod(lambda r, a, b: _trunc_div(r, a, b))
    sympy = staticmethod(lambda sp, a, b: _step_function(sp, "div_trunc", lambda x, y: _trunc_div(float, x, y))(
        a, b))


@register
class FloorDivide(Binary):
    """``//``: PyTorch declares no derivative; the node is ``NotImplemented``, with an edge for
    each input that requires grad only."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    grad_edges_only = True
    api = _api("floor_divide")
    bool_kernel = "div_floor_cpu"
    forward = staticmethod(_floor_div)

    @staticmethod
    def backward(k, g, v):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")

    sympy = staticmethod(lambda sp, a, b: _floor_form(sp, a, b))


@register
class Remainder(Binary):
    """tensor % tensor (the Tensor overload, RemainderBackward1)."""

    name = "RemainderBackward1"
    saved = (("other", 1, (1,)), ("self", 0, (1,)))
    api = _api("remainder")
    bool_kernel = "remainder_cpu"
    forward = staticmethod(_remainder)

    @staticmethod
    def backward(k, g, v):
        # self: grad; other: -grad * self.div(other, rounding_mode="floor")
        return g, k.mul(k.neg(g), k.floor_divide(k.a(v), k.b(v)))

    # floor(a / b) as a step function of derivative 0, as PyTorch's formula has it
    sympy = staticmethod(lambda sp, a, b: a - b * _floor_form(sp, a, b))


# ---------------------------------------------------------------- tensor (op) Python number


def _bulk_with(fn, safe):
    """``tensor (op) number`` over a list: ``fn`` mapped in C, ``safe`` where it raises."""

    def bulk(dt, xs, c):
        try:
            vals = list(map(fn, xs, repeat(c)))
        except (ZeroDivisionError, OverflowError, ValueError):
            vals = [safe(x, c) for x in xs]
        return vals if dt is float64 else round_list(dt, vals)

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
    bool_error = _BOOL_SUB
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
    bool_error = _BOOL_SUB
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


def _pow_scalar(r, x, e):
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
    if x.__class__ is int and e.__class__ is int:
        return _int_pow(x, e)
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
    if e == 2.0:
        vals = list(map(operator.mul, xs, xs))
    elif e == 3.0:
        sq = list(map(operator.mul, xs, xs))
        if dt is not float64:
            sq = round_list(dt, sq)
        vals = list(map(operator.mul, sq, xs))
    else:
        r = dt.round
        vals = [_pow_scalar(r, x, e) for x in xs]
    return vals if dt is float64 else round_list(dt, vals)


@register
class PowC(WithNumber):
    """tensor ** number; ``_c`` is the exponent unrounded (PyTorch's pow kernel takes it as a
    double, also in float32)."""

    name = "PowBackward0"
    saved = (("self", 0), ("exponent", "number"))
    extra_none = 0
    forward = staticmethod(_pow_scalar)
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
    forward = staticmethod(lambda r, a, c: _floor_div(r, a, c))
    grad_edges_only = True
    backward = no_derivative("floor_divide")
    sympy = staticmethod(lambda sp, a, c: _floor_form(sp, a, c))


@register
class RFloorDivideC(FloorDivideC):
    """number // tensor."""

    forward = staticmethod(lambda r, a, c: _floor_div(r, c, a))
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


def _clamp(r, a, c):
    lo, hi = c
    if a != a:
        return a
    if lo is not None and (a < lo or lo != lo):  # a nan bound gives nan, as in PyTorch
        a = lo
    if hi is not None and (a > hi or hi != hi):
        a = hi
    return a


def _clamp_sympy(sp, a, c):
    lo, hi = c
    lo = sp.Float(lo) if isinstance(lo, float) else lo
    hi = sp.Float(hi) if isinstance(hi, float) else hi
    pieces = []
    if hi is not None:
        # min(max(a, lo), hi): the max bound wins everywhere when min > max
        above = sp.StrictGreaterThan(a, hi)
        pieces.append((hi, above if lo is None else above | sp.StrictGreaterThan(lo, hi)))
    if lo is not None:
        pieces.append((lo, sp.StrictLessThan(a, lo)))
    # the bounds fall in the last piece: derivative 1 at min and max, as in PyTorch
    return sp.Piecewise(*pieces, (a, True))


@register
class Clamp(WithNumber):
    """clamp(x, min, max) with number bounds; ``_c`` is the pair (min, max), None = open.
    Gradient 1 inside [min, max] bounds included, 0 outside (PyTorch's clamp_backward)."""

    name = "ClampBackward1"
    saved = (("self", 0), ("min", "min"), ("max", "max"))
    extra_none = 0
    api = Api(method="clamp", aliases=("clip",), inplace="clamp_", function=("clamp", "clip"))
    forward = staticmethod(_clamp)
    backward = staticmethod(lambda k, g, v: (k.clamp_backward(g, k.a(v), v._c),))
    sympy = staticmethod(_clamp_sympy)


@register
class ClampMin(Clamp):
    name = "ClampMinBackward0"
    saved = (("self", 0), ("min", "min"))
    api = Api(method="clamp_min", inplace="clamp_min_", function="clamp_min")


@register
class ClampMax(Clamp):
    name = "ClampMaxBackward0"
    saved = (("self", 0), ("max", "max"))
    api = Api(method="clamp_max", inplace="clamp_max_", function="clamp_max")


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
Remainder.with_number = RemainderC
Remainder.number_first = RRemainderC


# ---------------------------------------------------------------- unary


@register
class Neg(Unary):
    name, saves, saves_inputs = "NegBackward0", False, False
    api = _api("neg", aliases=("negative",))
    bool_error = _BOOL_NEG
    forward = staticmethod(lambda r, a: -a)
    fast = operator.neg
    backward = staticmethod(lambda k, g, v: (k.neg(g),))
    sympy = staticmethod(lambda sp, a: -a)


@register
class Reciprocal(Unary):
    """1 / tensor; ``number / tensor`` is ``reciprocal(tensor) * number`` as in PyTorch."""

    name, saves_inputs, saves_output = "ReciprocalBackward0", False, True
    saved = (("result", "result"),)
    api = _api("reciprocal")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.div(1.0, a))

    @staticmethod
    def backward(k, g, v):
        y = k.out(v)  # -grad * (result * result)
        return (k.mul(k.neg(g), k.mul(y, y)),)

    sympy = staticmethod(lambda sp, a: 1 / a)


@register
class Log(Unary):
    name = "LogBackward0"
    saved = (("self", 0),)
    api = _api("log")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.log(a))
    fast = math.log
    backward = staticmethod(lambda k, g, v: (k.div(g, k.a(v)),))
    sympy = staticmethod(lambda sp, a: sp.log(a))


@register
class Exp(Unary):
    name, saves_inputs, saves_output = "ExpBackward0", False, True
    saved = (("result", "result"),)
    api = _api("exp")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.exp(a))
    fast = math.exp
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: sp.exp(a))


@register
class Log1p(Unary):
    name = "Log1PBackward0"
    saved = (("self", 0),)
    api = _api("log1p")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.log1p(a))
    fast = math.log1p
    # log1p_backward: grad / (self + 1)
    backward = staticmethod(lambda k, g, v: (k.div(g, k.add(k.a(v), k.const(1.0))),))
    sympy = staticmethod(lambda sp, a: sp.log(1 + a))


@register
class Expm1(Unary):
    name, saves_inputs, saves_output = "Expm1Backward0", False, True
    saved = (("result", "result"),)
    api = _api("expm1")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.expm1(a))
    fast = math.expm1
    # grad * (result + 1)
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.add(k.out(v), k.const(1.0))),))
    sympy = staticmethod(lambda sp, a: sp.exp(a) - 1)


@register
class Sqrt(Unary):
    name, saves_inputs, saves_output = "SqrtBackward0", False, True
    saved = (("result", "result"),)
    api = _api("sqrt")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.sqrt(a))
    fast = math.sqrt
    # grad / (2 * result)
    backward = staticmethod(lambda k, g, v: (k.div(g, k.mul(k.const(2), k.out(v))),))
    sympy = staticmethod(lambda sp, a: sp.sqrt(a))

    @staticmethod
    def convention(a):
        if a == 0:  # g / (2 * sqrt(0)): sqrt(-0.0) is -0.0, so at -0.0 it is -inf
            inf = math.copysign(math.inf, a)
            where = "0 is inf" if inf > 0 else "-0.0 is -inf"
            return (f"sqrt: PyTorch's derivative at {where} (calculus: no derivative; one-sided limit +inf)",
                    (inf,))
        return None


@register
class Tanh(Unary):
    name, saves_inputs, saves_output = "TanhBackward0", False, True
    saved = (("result", "result"),)
    api = _api("tanh", functional="tanh")
    result = "float"
    # float64 correctly rounded (tanh_correctly_rounded); float32 rounds the double tanh,
    # whose error is far below float32's half ulp
    forward = staticmethod(lambda r, a: tanh_correctly_rounded(a) if r is float else ieee.tanh(a))
    fast = math.tanh
    fast64 = staticmethod(tanh_correctly_rounded)
    backward = staticmethod(lambda k, g, v: (k.tanh_backward(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: sp.tanh(a))


@register
class Sigmoid(Unary):
    name, saves_inputs, saves_output = "SigmoidBackward0", False, True
    saved = (("result", "result"),)
    api = _api("sigmoid", functional="sigmoid")
    result = "float"
    # PyTorch's kernel: 1 / (1 + exp(-x)) in the tensor's dtype, each step rounded (so a
    # float32 exp(-x) that overflows gives exactly 0, not a subnormal)
    forward = staticmethod(lambda r, a: 1.0 / r(1.0 + r(ieee.exp(-a))))
    backward = staticmethod(lambda k, g, v: (k.sigmoid_backward(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: 1 / (1 + sp.exp(-a)))


@register
class Relu(Unary):
    """max(x, 0); derivative 0 at 0 (PyTorch's threshold_backward on the result)."""

    name, saves_inputs, saves_output = "ReluBackward0", False, True
    saved = (("result", "result"),)
    api = _api("relu", functional="relu")
    bool_error = "Boolean inputs not supported for relu"
    # clamp_min(x, 0): -0.0 and nan pass through unchanged
    forward = staticmethod(lambda r, a: 0.0 if a < 0 else a)
    # threshold_backward zeroes where result <= 0, so a nan result passes the gradient
    backward = staticmethod(lambda k, g, v: (k.threshold_backward(g, k.out(v), 0.0),))
    # 0 up to and including 0: the derivative at 0 is 0, as PyTorch's (SymPy's Heaviside(0) is 1/2)
    sympy = staticmethod(lambda sp, a: sp.Piecewise((0, a <= 0), (a, True)))


@register
class Abs(Unary):
    """|x|; derivative sgn(x), so 0 at 0 as in PyTorch."""

    name = "AbsBackward0"
    saved = (("self", 0),)
    api = _api("abs", aliases=("absolute",))
    bool_kernel = "abs_cpu"
    forward = staticmethod(lambda r, a: abs(a))
    fast = abs
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.sgn(k.a(v))),))
    # d|a|/da = sign(a), and SymPy's sign(0) is 0: PyTorch's convention at 0
    sympy = staticmethod(lambda sp, a: sp.Abs(a))


@register
class Sgn(Unary):
    """sgn(x): -1, 0 or 1 (0 for nan); derivative 0 (sgn_backward of a real tensor)."""

    name, saves, saves_inputs = "SgnBackward0", False, False
    api = _api("sgn")
    forward = staticmethod(lambda r, a: (a > 0) - (a < 0) if a == a else 0.0)
    # sgn_backward of a real tensor is an _efficientzerotensor: summed, it changes nothing
    backward = staticmethod(lambda k, g, v: (k.no_gradient(g),))
    sympy = staticmethod(lambda sp, a: sp.sign(a))


@register
class Sign(Sgn):
    name = "SignBackward0"
    api = _api("sign")


@register
class Sin(Unary):
    name = "SinBackward0"
    saved = (("self", 0),)
    api = _api("sin")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.sin(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.cos(k.a(v))),))
    sympy = staticmethod(lambda sp, a: sp.sin(a))


@register
class Cos(Unary):
    name = "CosBackward0"
    saved = (("self", 0),)
    api = _api("cos")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.cos(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.neg(k.sin(k.a(v)))),))
    sympy = staticmethod(lambda sp, a: sp.cos(a))


# ---------------------------------------------------------------- the derivatives' own ops
# The backward of tanh, sigmoid and relu is itself an op in PyTorch (tanh_backward...), with a
# derivative of its own: under create_graph, double backward goes through these nodes.


def _tanh_bw(r, g, y):
    return g * r(ieee.one_minus_square(y))


@register
class TanhBackward(Binary):
    """tanh_backward(grad, y) = grad * (1 - y*y); PyTorch's CPU kernel rounds 1 - y*y once."""

    name = "TanhBackwardBackward0"
    saved = (("grad_output", 0), ("output", 1))
    forward = staticmethod(_tanh_bw)

    @staticmethod
    def backward(k, g, v):
        go, y = k.ins(v)
        # grad_output: tanh_backward(grad, output); output: grad * (-2 * output * grad_output)
        return k.tanh_backward(g, y), k.mul(g, k.mul(k.mul(k.const(-2), y), go))

    sympy = staticmethod(lambda sp, g, y: g * (1 - y * y))


@register
class SigmoidBackward(Binary):
    """sigmoid_backward(grad, y) = grad * (1 - y) * y."""

    name = "SigmoidBackwardBackward0"
    saved = (("grad_output", 0), ("output", 1))
    forward = staticmethod(lambda r, g, y: r(g * r(1.0 - y)) * y)

    @staticmethod
    def backward(k, g, v):
        go, y = k.ins(v)
        # grad_output: sigmoid_backward(grad, output); output: grad * grad_output * (-2 * output + 1)
        return (k.sigmoid_backward(g, y),
                k.mul(k.mul(g, go), k.add(k.mul(k.const(-2), y), k.const(1))))

    sympy = staticmethod(lambda sp, g, y: g * (1 - y) * y)


@register
class ThresholdBackward(Binary):
    """threshold_backward(grad, self, threshold): grad where self > threshold, else 0; ``_c`` is
    the threshold."""

    name = "ThresholdBackwardBackward0"
    saved = (("self", 1), ("threshold", "c"))
    uses_c = True
    forward = staticmethod(lambda r, g, y, c: 0.0 if y <= c else g)

    @staticmethod
    def backward(k, g, v):
        # grad_output: threshold_backward(grad, self, threshold); self: zeros_like(grad)
        return k.threshold_backward(g, k.ins(v)[1], v._c), k.zero(g)

    sympy = staticmethod(lambda sp, g, y, c: sp.Piecewise((0, y <= c), (g, True)))


ELEMENTWISE = [Add, Sub, Mul, Div, Pow, Minimum, Maximum, FloorDivide, Remainder, AddC, SubC, RSubC, MulC, DivC,
               PowC, RPowC, RemainderC, RRemainderC, FloorDivideC, RFloorDivideC, Clamp, ClampMin, ClampMax, Neg,
               Reciprocal, Log, Log1p, Exp, Expm1, Sqrt, Tanh, Sigmoid, Relu, Abs, Sin, Cos]
"""Every elementwise op a program may spell."""

SCALAR_DERIVATIVES = [Add, Sub, Mul, Div, Pow, Minimum, Maximum, AddC, SubC, RSubC, MulC, DivC, PowC, RPowC,
                      Clamp, ClampMin, ClampMax, Neg, Log, Log1p, Exp, Expm1, Sqrt, Tanh, Sigmoid, Relu, Abs, Sin,
                      Cos, Reciprocal]
"""Every differentiable op with a non-trivial derivative, for the catalogue tests."""


# ---------------------------------------------------------------- bitwise ops (integers and bool)


class Bitwise(Binary):
    """``&``, ``|``, ``^`` on integer and bool tensors: the promoted dtype, never a gradient;
    ATen builds no floating kernel (``"bitwise_and_cpu" not implemented for 'Float'``)."""

    differentiable = False
    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: (None, None))


def _bitwise(method, fn, symbol):
    return register(type("Bitwise" + method.capitalize(), (Bitwise,), {
        "name": f"Bitwise{method.capitalize()}Backward0", "api": _api("bitwise_" + method),
        "integer_kernel": f"bitwise_{method}_cpu", "symbol": symbol,
        "forward": staticmethod(lambda r, a, b: r(fn(int(a), int(b)))),
        "sympy": staticmethod(lambda sp, a, b: sp.Function("bitwise_" + method)(a, b))}))


BitwiseAnd = _bitwise("and", operator.and_, "&")
BitwiseOr = _bitwise("or", operator.or_, "|")
BitwiseXor = _bitwise("xor", operator.xor, "^")


@register
class BitwiseNot(Unary):
    """``~``: logical not on bool, two's complement on integers (no floating kernel)."""

    name = "BitwiseNotBackward0"
    api = _api("bitwise_not")
    integer_kernel = "bitwise_not_cpu"
    differentiable = False
    saves, saves_inputs = False, False
    forward = staticmethod(lambda r, a: (not a) if a.__class__ is bool else r(~int(a)))
    backward = staticmethod(lambda k, g, v: (None,))
    sympy = staticmethod(lambda sp, a: sp.Function("bitwise_not")(a))


# ---------------------------------------------------------------- comparisons and selection


class Compare(Binary):
    """A comparison: a bool result that never requires grad."""

    result = "bool"
    differentiable = False
    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: (None, None))


def _cmp(method, fn, symbol):
    return register(type(method.capitalize(), (Compare,), {
        "name": method.capitalize() + "Backward0", "api": _api(method, aliases=()),
        "forward": staticmethod(lambda r, a, b: fn(a, b)), "fast": fn, "symbol": symbol,
        "sympy": staticmethod(lambda sp, a, b: fn(a, b))}))


Eq = _cmp("eq", operator.eq, "==")
Ne = _cmp("ne", operator.ne, "!=")
Lt = _cmp("lt", operator.lt, "<")
Le = _cmp("le", operator.le, "<=")
Gt = _cmp("gt", operator.gt, ">")
Ge = _cmp("ge", operator.ge, ">=")
Eq.api = Api(method="eq", inplace="eq_", function="eq")
Ne.api = Api(method="ne", aliases=("not_equal",), inplace="ne_", function=("ne", "not_equal"))
Lt.api = Api(method="lt", aliases=("less",), inplace="lt_", function=("lt", "less"))
Le.api = Api(method="le", aliases=("less_equal",), inplace="le_", function=("le", "less_equal"))
Gt.api = Api(method="gt", aliases=("greater",), inplace="gt_", function=("gt", "greater"))
Ge.api = Api(method="ge", aliases=("greater_equal",), inplace="ge_", function=("ge", "greater_equal"))
COMPARISONS = [Eq, Ne, Lt, Le, Gt, Ge]


class CompareInplace(Op):
    """``x.eq_(other)`` on a tensor in a graph: the tensor keeps its dtype and holds 1s and 0s;
    PyTorch records a node whose gradients are zeros (EqBackward0 with a number, EqBackward1
    with a tensor)."""

    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: tuple(k.zero(g) for _ in v._in))

    @staticmethod
    def sympy(sp, a, *rest):
        return sp.Integer(0) * a


for _cmp_op in COMPARISONS:
    _cmp_op.inplace_number = register(type(_cmp_op.__name__ + "InplaceC", (CompareInplace,), {
        "name": _cmp_op.name, "forward": staticmethod(lambda r, a, c, _f=_cmp_op.fast: float(_f(a, c)))}))
    _cmp_op.inplace_tensor = register(type(_cmp_op.__name__ + "Inplace", (CompareInplace,), {
        "name": _cmp_op.name[:-1] + "1", "forward": staticmethod(lambda r, a, b, _f=_cmp_op.fast: float(_f(a, b)))}))


@register
class Where(Elementwise):
    """where(condition, self, other): inputs (self, other); the condition, a bool tensor of the
    result's shape, is the node's ``_c`` (not an input: it is not differentiable, and PyTorch's
    node has no edge for it)."""

    name = "WhereBackward0"
    arity = 2
    grad_order = (1, 0)  # other, then self
    uses_c = True
    c_per_element = True  # ``_c`` holds one value per element of the result
    saved = (("condition", "c"),)
    saves_inputs = False
    api = Api(method="where", function="where")
    forward = staticmethod(lambda r, a, b, c: a if c else b)

    @staticmethod
    def backward(k, g, v):
        cond = k.c(v)
        # self: where(condition, grad, 0); other: where(condition, 0, grad)
        return k.where(cond, g, k.zero(g)), k.where(cond, k.zero(g), g)

    sympy = staticmethod(lambda sp, a, b, c: a if c else b)


@register
class ClampT(Elementwise):
    """clamp(self, min, max) with tensor bounds (ClampBackward0); inputs (self, min, max)."""

    name = "ClampBackward0"
    arity = 3
    grad_order = (1, 2, 0)  # (min, max) together, then self
    saved = (("max", "opt.2"), ("min", "opt.1"), ("self", 0))  # None for a bound not given (``_c``)
    forward = staticmethod(lambda r, a, lo, hi: _clamp(r, a, (lo, hi)))

    @staticmethod
    def backward(k, g, v):
        a, lo, hi = k.ins(v)
        return k.clamp_tensor_backward(g, a, lo, hi, v._c)  # _c: (min not given, max not given)

    # min(max(a, lo), hi), the derivative 1 at the bounds (PyTorch's subgradient): a wins ties
    # with lo and hi, hi wins when hi < lo
    sympy = staticmethod(lambda sp, a, lo, hi: sp.Piecewise((hi, sp.StrictLessThan(hi, lo)),
                                                            (lo, sp.StrictLessThan(a, lo)),
                                                            (hi, sp.StrictGreaterThan(a, hi)), (a, True)))


@register
class ClampMinT(Binary):
    """clamp_min(self, min) / clamp(self, min=tensor) (ClampMinBackward1): self where
    self >= min, min where self < min."""

    name = "ClampMinBackward1"
    saved = (("min", 1), ("self", 0))
    forward = staticmethod(lambda r, a, lo: _clamp(r, a, (lo, None)))

    @staticmethod
    def backward(k, g, v):
        a, lo = k.a(v), k.b(v)
        return k.where(k.ge(a, lo), g, k.zero(g)), k.where(k.lt(a, lo), g, k.zero(g))

    sympy = staticmethod(lambda sp, a, lo: sp.Piecewise((lo, sp.StrictLessThan(a, lo)), (a, True)))


@register
class ClampMaxT(Binary):
    """clamp_max(self, max) / clamp(self, max=tensor) (ClampMaxBackward1)."""

    name = "ClampMaxBackward1"
    saved = (("max", 1), ("self", 0))
    forward = staticmethod(lambda r, a, hi: _clamp(r, a, (None, hi)))

    @staticmethod
    def backward(k, g, v):
        a, hi = k.a(v), k.b(v)
        return k.where(k.le(a, hi), g, k.zero(g)), k.where(k.gt(a, hi), g, k.zero(g))

    sympy = staticmethod(lambda sp, a, hi: sp.Piecewise((hi, sp.StrictGreaterThan(a, hi)), (a, True)))


ELEMENTWISE += COMPARISONS + [Where, ClampT, ClampMinT, ClampMaxT, DivFloor, DivTrunc]
