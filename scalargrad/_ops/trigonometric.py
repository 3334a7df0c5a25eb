"""The trigonometric and hyperbolic functions beyond sin, cos and tanh: tan, asin, acos, atan,
sinh, cosh, asinh, acosh, atanh, sinc, and the angle conversions rad2deg and deg2rad.

PyTorch's CPU kernels for the transcendental ones are MKL's vector math (acos, asin, atan,
tan), SLEEF's u10 functions on AVX2/AVX512 and the C library's float functions under the
generic code and for a vector's scalar tail: within 1 ulp, machine-dependent in the last bit
(measured: float32 acos, asin, asinh, acosh one ulp off the correctly rounded value in 5-9 % of
draws, the same under ATEN_CPU_CAPABILITY=default; see ``tests/test_trigonometric.py``).
scalargrad computes each in double with the platform's libm and rounds once, which in float32
is the correctly rounded value, the same on every machine. ``sinc`` follows ATen's float
formula, ``sin(pi * x) / (pi * x)`` with pi and the product in the dtype (its sin
machine-dependent); rad2deg and deg2rad are one IEEE product with the constant in the dtype
(bit for bit on every machine). The derivatives are ``derivatives.yaml``'s, term by term.
"""

from __future__ import annotations

import math

from .elementwise import Unary, spellings
from .table import register
from .unary import Rsqrt

__all__ = ["Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Sinc", "Rad2deg", "Deg2rad",
           "TRIGONOMETRIC"]

_INF = math.inf


def _tan(a):
    return math.tan(a) if -_INF < a < _INF else math.nan


def _hyperbolic(fn, at_inf):
    """sinh or cosh in double: +-inf past overflow (``at_inf(a)``), as C's."""

    def f(a):
        try:
            return fn(a)
        except OverflowError:
            return at_inf(a)

    return f


_sinh = _hyperbolic(math.sinh, lambda a: math.copysign(_INF, a))
_cosh = _hyperbolic(math.cosh, lambda a: _INF)


def _acosh(a):
    return math.acosh(a) if a >= 1.0 else math.nan  # acosh(inf) is inf; nan fails the test


def _atanh(a):
    if -1.0 < a < 1.0:
        return math.atanh(a)
    if a == 1.0 or a == -1.0:
        return math.copysign(_INF, a)
    return math.nan


def _in_unit(fn):
    return lambda a: fn(a) if -1.0 <= a <= 1.0 else math.nan


_acos = _in_unit(math.acos)
_asin = _in_unit(math.asin)


def _rsqrt(k, x):
    return k.pointwise(Rsqrt, x)


@register
class Tan(Unary):
    name, saves_inputs, saves_output = "TanBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("tan")
    result = "float"
    forward = staticmethod(lambda r, a: _tan(a))
    # grad * (1 + result.pow(2))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.add(k.const(1.0), k.pow_number(k.out(v), 2.0))),))
    sympy = staticmethod(lambda sp, a: sp.tan(a))


@register
class Asin(Unary):
    name = "AsinBackward0"
    saved = (("self", 0),)
    api = spellings("asin", aliases=("arcsin",))
    result = "float"
    forward = staticmethod(lambda r, a: _asin(a))

    @staticmethod
    def backward(k, g, v):
        a = k.a(v)  # grad * (-self * self + 1).rsqrt()
        return (k.mul(g, _rsqrt(k, k.add(k.mul(k.neg(a), a), k.const(1.0)))),)

    sympy = staticmethod(lambda sp, a: sp.asin(a))


@register
class Acos(Unary):
    name = "AcosBackward0"
    saved = (("self", 0),)
    api = spellings("acos", aliases=("arccos",))
    result = "float"
    forward = staticmethod(lambda r, a: _acos(a))

    @staticmethod
    def backward(k, g, v):
        a = k.a(v)  # grad * -((-self * self + 1).rsqrt())
        return (k.mul(g, k.neg(_rsqrt(k, k.add(k.mul(k.neg(a), a), k.const(1.0))))),)

    sympy = staticmethod(lambda sp, a: sp.acos(a))


@register
class Atan(Unary):
    name = "AtanBackward0"
    saved = (("self", 0),)
    api = spellings("atan", aliases=("arctan",))
    result = "float"
    forward = staticmethod(lambda r, a: math.atan(a))
    fast = math.atan
    # grad / (self * self + 1)
    backward = staticmethod(lambda k, g, v: (k.div(g, k.add(k.mul(k.a(v), k.a(v)), k.const(1.0))),))
    sympy = staticmethod(lambda sp, a: sp.atan(a))


@register
class Sinh(Unary):
    name = "SinhBackward0"
    saved = (("self", 0),)
    api = spellings("sinh")
    result = "float"
    forward = staticmethod(lambda r, a: _sinh(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.pointwise(Cosh, k.a(v))),))  # grad * self.cosh()
    sympy = staticmethod(lambda sp, a: sp.sinh(a))


@register
class Cosh(Unary):
    name = "CoshBackward0"
    saved = (("self", 0),)
    api = spellings("cosh")
    result = "float"
    forward = staticmethod(lambda r, a: _cosh(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.pointwise(Sinh, k.a(v))),))  # grad * self.sinh()
    sympy = staticmethod(lambda sp, a: sp.cosh(a))


@register
class Asinh(Unary):
    name = "AsinhBackward0"
    saved = (("self", 0),)
    api = spellings("asinh", aliases=("arcsinh",))
    result = "float"
    forward = staticmethod(lambda r, a: math.asinh(a))
    fast = math.asinh
    # grad * (self.pow(2) + 1).rsqrt()
    backward = staticmethod(lambda k, g, v: (k.mul(g, _rsqrt(k, k.add(k.pow_number(k.a(v), 2.0), k.const(1.0)))),))
    sympy = staticmethod(lambda sp, a: sp.asinh(a))


@register
class Acosh(Unary):
    name = "AcoshBackward0"
    saved = (("self", 0),)
    api = spellings("acosh", aliases=("arccosh",))
    result = "float"
    forward = staticmethod(lambda r, a: _acosh(a))
    # grad * (self.pow(2) - 1).rsqrt()
    backward = staticmethod(lambda k, g, v: (k.mul(g, _rsqrt(k, k.sub(k.pow_number(k.a(v), 2.0), k.const(1.0)))),))
    sympy = staticmethod(lambda sp, a: sp.acosh(a))


@register
class Atanh(Unary):
    name = "AtanhBackward0"
    saved = (("self", 0),)
    api = spellings("atanh", aliases=("arctanh",))
    result = "float"
    forward = staticmethod(lambda r, a: _atanh(a))
    # grad * 1 / (1 - self.pow(2)): (grad * 1) is grad
    backward = staticmethod(lambda k, g, v: (k.div(g, k.sub(k.const(1.0), k.pow_number(k.a(v), 2.0))),))
    sympy = staticmethod(lambda sp, a: sp.atanh(a))


def _sinc(r, a):
    if a == 0:
        return 1.0
    p = r(r(math.pi) * a)  # ATen: c10::pi<T> * a in the dtype, then std::sin(product) / product
    return r(math.sin(p) if -_INF < p < _INF else math.nan) / p


@register
class Sinc(Unary):
    name = "SincBackward0"
    saved = (("self", 0),)
    api = spellings("sinc")
    result = "float"
    forward = staticmethod(_sinc)
    # the formula's two terms, each about 1 / |x|, cancel as x nears 0: its errors are relative to them
    backward_scale = staticmethod(lambda i, a: 1.0 + 2.0 / abs(a) if a else 1.0)

    @staticmethod
    def backward(k, g, v):
        # sinc_backward: self_pi = self * pi; out = grad * (self_pi * cos(self_pi) - sin(self_pi))
        # / (self * self * pi); 0 where self * self * pi == 0
        a = k.a(v)
        pi = k.const(math.pi)
        sp = k.mul(a, pi)
        sq = k.mul(k.mul(a, a), pi)
        out = k.div(k.mul(g, k.sub(k.mul(sp, k.cos(sp)), k.sin(sp))), sq)
        return (k.where(k.le(sq, 0.0), k.zero(g), out),)  # sq is never negative: <= 0 is == 0

    @staticmethod
    def sympy(sp, a):
        return sp.Piecewise((1, sp.Eq(a, 0)), (sp.sin(sp.pi * a) / (sp.pi * a), True))


_180_PI = 57.295779513082320876798154814105170332405472466564
_PI_180 = 0.017453292519943295769236907684886127134428718885417


@register
class Rad2deg(Unary):
    """``self * (180 / pi)``, the constant in the tensor's dtype: one IEEE product."""

    name, saves, saves_inputs = "Rad2DegBackward0", False, False
    api = spellings("rad2deg")
    result = "float"
    forward = staticmethod(lambda r, a: a * r(_180_PI))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.const(_180_PI)),))  # rad2deg_backward: grad * 180/pi
    sympy = staticmethod(lambda sp, a: a * sp.Float(_180_PI))


@register
class Deg2rad(Unary):
    """``self * (pi / 180)``, the constant in the tensor's dtype: one IEEE product."""

    name, saves, saves_inputs = "Deg2RadBackward0", False, False
    api = spellings("deg2rad")
    result = "float"
    forward = staticmethod(lambda r, a: a * r(_PI_180))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.const(_PI_180)),))
    sympy = staticmethod(lambda sp, a: a * sp.Float(_PI_180))


def _no_inplace_derivative(op):
    """PyTorch's in-place asinh_, acosh_, atanh_: a node of their own (``AsinhBackward1``) whose
    derivative derivatives.yaml leaves not implemented."""
    method = op.api.method

    def backward(k, g, v):
        raise NotImplementedError(f"the derivative for 'inplace version of {method}' is not implemented.")

    op.inplace_op = register(type(op.__name__ + "Inplace", (op,), {
        "name": op.name[:-1] + "1", "api": None, "saved": (), "saves": False, "saves_inputs": False,
        "backward": staticmethod(backward)}))


for _op in (Asinh, Acosh, Atanh):
    _no_inplace_derivative(_op)


TRIGONOMETRIC = [Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Sinc, Rad2deg, Deg2rad]
"""The ops of this family, for the tests."""
