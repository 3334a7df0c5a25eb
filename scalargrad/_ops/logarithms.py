"""Logarithms and exponentials in other bases and forms, and the error function: log2, log10,
exp2, logit, logaddexp, logaddexp2, xlogy (and torch.special's xlog1py), erf, erfc, erfinv.

PyTorch's CPU kernels for these are MKL's vector math (log2, log10, erf, erfc, erfinv), SLEEF's
u10 functions on AVX2/AVX512 and the C library under the generic code: machine-dependent in the
last bit (``tests/test_logarithms.py`` measures them). scalargrad computes each transcendental
step in double and rounds it once to the dtype: in float32 the correctly rounded value, the
same on every machine (erfinv from mpmath, which SymPy depends on). Where ATen's kernel is a
formula of several steps (logit, logaddexp, xlogy), each step is rounded to the dtype as ATen's
scalar code rounds it. The derivatives are ``derivatives.yaml``'s, term by term.
"""

from __future__ import annotations

import math

from mpmath import erfinv as _mp_erfinv
from mpmath import mpf as _mpf
from mpmath import workprec as _workprec

from .._base import ieee
from .elementwise import TENSOR_OTHER, Binary, Unary, WithNumber, spellings
from .float_kernel import helper
from .table import Api, register
from .unary import Exp

__all__ = ["Log2", "Log10", "Exp2", "Erf", "Erfc", "Erfinv", "Logit", "LogitBackward", "Logaddexp", "Logaddexp2",
           "Xlogy", "SpecialXlog1py", "LOGARITHMS", "erfinv_double"]

_INF = math.inf
_LN2 = 0.6931471805599453
_LN10 = 2.3025850929940456
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _log_base(fn):
    def f(a):
        if a > 0:
            return fn(a)  # inf gives inf
        return -_INF if a == 0 else math.nan

    return f


_log2 = _log_base(math.log2)
_log10 = _log_base(math.log10)


def erfinv_double(a: float) -> float:
    """The inverse error function of a double, correctly rounded (mpmath at 80 bits)."""
    if -1.0 < a < 1.0:
        if a == 0:
            return a  # keeps -0.0
        with _workprec(80):
            return float(_mp_erfinv(_mpf(a)))
    if a == 1.0 or a == -1.0:
        return math.copysign(_INF, a)
    return math.nan


@register
class Log2(Unary):
    name = "Log2Backward0"
    saved = (("self", 0),)
    api = spellings("log2")
    result = "float"
    forward = staticmethod(lambda r, a: _log2(a))
    # grad / (self * 0.6931471805599453)
    backward = staticmethod(lambda k, g, v: (k.div(g, k.mul(k.a(v), k.const(_LN2))),))
    sympy = staticmethod(lambda sp, a: sp.log(a) / sp.log(2))


@register
class Log10(Unary):
    name = "Log10Backward0"
    saved = (("self", 0),)
    api = spellings("log10")
    result = "float"
    forward = staticmethod(lambda r, a: _log10(a))
    backward = staticmethod(lambda k, g, v: (k.div(g, k.mul(k.a(v), k.const(_LN10))),))
    sympy = staticmethod(lambda sp, a: sp.log(a) / sp.log(10))


@register
class Exp2(Unary):
    name, saves_inputs, saves_output = "Exp2Backward0", False, True
    saved = (("result", "result"),)
    api = spellings("exp2")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.pow(2.0, a))
    # grad * result * M_LN2
    backward = staticmethod(lambda k, g, v: (k.mul(k.mul(g, k.out(v)), k.const(_LN2)),))
    sympy = staticmethod(lambda sp, a: 2**a)


def _exp_minus_square(k, a):
    return k.pointwise(Exp, k.neg(k.pow_number(a, 2.0)))  # exp(-(self.pow(2)))


@register
class Erf(Unary):
    name = "ErfBackward0"
    saved = (("self", 0),)
    api = spellings("erf")
    result = "float"
    forward = staticmethod(lambda r, a: math.erf(a))
    fast = math.erf
    # 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    backward = staticmethod(lambda k, g, v: (k.mul(k.mul(k.const(_TWO_OVER_SQRT_PI), _exp_minus_square(k, k.a(v))),
                                                   g),))
    sympy = staticmethod(lambda sp, a: sp.erf(a))


@register
class Erfc(Unary):
    name = "ErfcBackward0"
    saved = (("self", 0),)
    api = spellings("erfc")
    result = "float"
    forward = staticmethod(lambda r, a: math.erfc(a))
    fast = math.erfc
    backward = staticmethod(lambda k, g, v: (k.mul(k.mul(k.const(-_TWO_OVER_SQRT_PI),
                                                         _exp_minus_square(k, k.a(v))), g),))
    sympy = staticmethod(lambda sp, a: sp.erfc(a))


@register
class Erfinv(Unary):
    name = "ErfinvBackward0"
    saved = (("self", 0),)
    api = spellings("erfinv")
    result = "float"
    forward = staticmethod(lambda r, a: erfinv_double(a))

    @staticmethod
    def backward(k, g, v):
        # 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
        e = k.pointwise(Exp, k.pow_number(k.pointwise(Erfinv, k.a(v)), 2.0))
        return (k.mul(k.mul(k.const(_HALF_SQRT_PI), e), g),)

    sympy = staticmethod(lambda sp, a: sp.erfinv(a))


def _logit(r, a, eps):
    if eps is not None:  # ATen clamps to [eps, 1 - eps] in the dtype first (nan passes)
        lo = r(eps)
        hi = r(1.0 - lo)
        a = lo if a < lo else (hi if a > hi else a)
    return ieee.log(r(ieee.div(a, r(1.0 - a))))


def _logit_backward(r, g, a, eps):
    if eps is None:  # logit_backward's kernel: nan outside [0, 1], grad * inf at 0 and 1
        if a < 0 or a > 1:
            return math.nan
        if a == 0 or a == 1:
            return g * _INF
    else:
        lo = r(eps)
        if a < lo or a > r(1.0 - lo):
            return 0.0
    return ieee.div(g, r(a * r(1.0 - a)))


@register
class LogitBackward(Binary):
    """logit_backward(grad, self, eps): an op of its own (a node under create_graph)."""

    name = "LogitBackwardBackward0"
    saved = (("grad_output", 0), ("self", 1), ("eps", "c"))
    uses_c = True
    forward = staticmethod(_logit_backward)

    @staticmethod
    def backward(k, g, v):
        go, a = k.ins(v)
        # grad_output: logit_backward(grad, self, eps); self: grad * grad_output * (2 self - 1) / (self (1 - self))^2
        # inside the bounds (derivatives.yaml's logit_backward double backward)
        inner = k.mul(a, k.sub(k.const(1.0), a))
        d = k.div(k.mul(k.mul(g, go), k.sub(k.mul(k.const(2.0), a), k.const(1.0))), k.mul(inner, inner))
        if v._c is not None:  # 0 outside [eps, 1 - eps]
            d = k.where(k.ge(a, v._c), k.where(k.le(a, 1.0 - v._c), d, k.zero(d)), k.zero(d))
        return k.pointwise(LogitBackward, g, a, c=v._c), d

    @staticmethod
    def sympy(sp, g, a, c=None):
        return g / (a * (1 - a)) if c is None else sp.Piecewise((0, (a < c) | (a > 1 - c)), (g / (a * (1 - a)), True))


@register
class Logit(WithNumber):
    """logit(self, eps=None); ``_c`` is eps (None: no clamping)."""

    name = "LogitBackward0"
    saved = (("eps", "c"), ("self", 0))
    extra_none = 0
    api = Api(method="logit", inplace="logit_", function="logit")
    result = "float"
    forward = staticmethod(_logit)
    # log of the rounded quotient: the quotient's relative error is the result's absolute error
    magnitude = staticmethod(lambda vals, c: 1.0)
    @staticmethod
    def backward(k, g, v):
        a, eps = k.a(v), v._c
        if not k.graph:
            return (k.pointwise(LogitBackward, g, a, c=eps),)
        # with grad mode on, PyTorch's infinitely_differentiable_logit_backward: where(lo <= self <= hi,
        # grad / (self * (1 - self)), 0 (with eps) or nan (without))
        lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
        d = k.div(g, k.mul(a, k.sub(k.const(1.0), a)))
        outside = k.zero(d) if eps is not None else k.add(k.zero(d), k.const(math.nan))
        return (k.where(k.ge(a, lo) & k.le(a, hi), d, outside),)

    @staticmethod
    def jvp(k, tangents, v):
        # forward mode applies the backward formula to the tangent (derivatives.yaml's
        # auto_element_wise): nan outside [0, 1] without eps, a constant that the double-vjp of
        # the rule (a gradient with respect to the cotangent) cannot see
        return Logit.backward(k, tangents[0], v)[0]

    @staticmethod
    def sympy(sp, a, c=None):
        if c is None:
            return sp.log(a / (1 - a))
        return sp.Piecewise((sp.log(c / (1 - c)), a < c), (sp.log((1 - c) / c), a > 1 - c), (sp.log(a / (1 - a)), True))


def _logaddexp(r, a, b, exp, scale):
    if a == b and (a == _INF or a == -_INF):
        return a
    m = b if (b > a) else a  # std::max(a, b): a unless b is larger (a nan a gives a)
    return r(m + r(ieee.log1p(r(exp(-abs(r(a - b))))) * scale))


@register
class Logaddexp(Binary):
    """log(exp(self) + exp(other)), as ATen: max + log1p(exp(-|self - other|))."""

    name = "LogaddexpBackward0"
    saved = (("other", 1), ("self", 0))
    api = spellings("logaddexp", inplace=False)
    float_only_kernel = "logaddexp_cpu"  # integers and bool refused, not promoted
    other_tensor_only = True
    forward = staticmethod(lambda r, a, b: _logaddexp(r, a, b, ieee.exp, 1.0))

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        one = k.const(1.0)  # self: grad / (1 + exp(other - self)); other: grad / (1 + exp(self - other))
        return (k.div(g, k.add(one, k.exp(k.sub(b, a)))), k.div(g, k.add(one, k.exp(k.sub(a, b)))))

    sympy = staticmethod(lambda sp, a, b: sp.log(sp.exp(a) + sp.exp(b)))


@register
class Logaddexp2(Binary):
    """log2(2**self + 2**other), as ATen: max + log1p(exp2(-|self - other|)) / ln 2."""

    name = "Logaddexp2Backward0"
    saved = (("other", 1), ("self", 0))
    api = spellings("logaddexp2", inplace=False)
    float_only_kernel = "logaddexp2_cpu"  # integers and bool refused, not promoted
    other_tensor_only = True
    forward = staticmethod(lambda r, a, b: _logaddexp(r, a, b, lambda x: ieee.pow(2.0, x), r(1.0 / _LN2)))

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        one, two = k.const(1.0), k.const(2.0)  # grad / (1 + pow(2, other - self)), and the mirror
        return (k.div(g, k.add(one, k.pow(two, k.sub(b, a)))), k.div(g, k.add(one, k.pow(two, k.sub(a, b)))))

    sympy = staticmethod(lambda sp, a, b: sp.log(2**a + 2**b) / sp.log(2))


def _xlogy(r, a, b):
    if b != b:
        return math.nan
    if a == 0:
        return 0.0
    return a * r(ieee.log(b))


@register
class Xlogy(Binary):
    """self * log(other), 0 where self is 0 (unless other is nan)."""

    name = "XlogyBackward0"
    saved = (("other", 1), ("self", 0))
    api = spellings("xlogy")
    signatures = (TENSOR_OTHER, "(Number self, Tensor other, *, Tensor out = None)",
                  "(Tensor input, Number other, *, Tensor out = None)")
    result = "float"
    forward = staticmethod(_xlogy)

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        # self: at::xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.); other: grad * self / other
        return k.xlogy_self_backward(g, a, b), k.div(k.mul(g, a), b)

    # 0 at self = 0 only where log(other) is not finite (PyTorch's masked derivative there): at
    # self = 0 and other > 0 the derivative for self is log(other), as the product's
    sympy = staticmethod(lambda sp, a, b: sp.Piecewise((0, sp.Eq(a, 0) & (b <= 0)), (a * sp.log(b), True)))


@register
class XlogyC(WithNumber):
    """xlogy(tensor, number) (XlogyBackward2)."""

    name = "XlogyBackward2"
    saved = (("other", "c"), ("self", 0))
    extra_none = 0
    result = "float"
    forward = staticmethod(lambda r, a, c: _xlogy(r, a, c))
    backward = staticmethod(lambda k, g, v: (k.xlogy_self_backward(g, k.a(v), v._c),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((0, sp.Eq(a, 0) & (c <= 0)), (a * sp.log(c), True)))


@register
class RXlogyC(WithNumber):
    """xlogy(number, tensor) (XlogyBackward1): other's gradient grad * self / other."""

    name = "XlogyBackward1"
    saved = (("other", 0), ("self", "c"))
    extra_none = 0
    result = "float"
    forward = staticmethod(lambda r, a, c: _xlogy(r, c, a))
    backward = staticmethod(lambda k, g, v: (k.div(k.mul(g, k.const(v._c)), k.a(v)),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((0, sp.Eq(c, 0) & (a <= 0)), (c * sp.log(a), True)))


Xlogy.with_number = XlogyC
Xlogy.number_first = RXlogyC


@helper
def xlogy_self_backward(k, g, a, b):
    return 0.0 if (a == 0 and b <= 0) else k.pointwise(Xlogy, g, b)


def _xlog1py(r, a, b):
    if b != b:
        return math.nan
    if a == 0:
        return 0.0
    return a * r(ieee.log1p(b))


@register
class SpecialXlog1py(Binary):
    """``torch.special.xlog1py(self, other)``: self * log1p(other), 0 where self is 0 (unless
    other is nan); a Python number on either side is its Scalar overload (below)."""

    name = "SpecialXlog1PyBackward0"
    saved = (("other", 1), ("self", 0))
    api = None  # torch.special.xlog1py alone (special.py)
    result = "float"
    forward = staticmethod(_xlog1py)

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        # self: at::xlog1py(grad, other).masked_fill((self == 0.) & (other <= -1.), 0.);
        # other: grad * self / (other + 1)
        return k.xlog1py_self_backward(g, a, b), k.div(k.mul(g, a), k.add(b, k.const(1.0)))

    sympy = staticmethod(lambda sp, a, b: sp.Piecewise((0, sp.Eq(a, 0) & (b <= -1)), (a * sp.log(1 + b), True)))


@register
class SpecialXlog1pyC(WithNumber):
    """xlog1py(tensor, number) (SpecialXlog1PyBackward2)."""

    name = "SpecialXlog1PyBackward2"
    saved = (("other", "c"), ("self", 0))
    extra_none = 0
    result = "float"
    forward = staticmethod(lambda r, a, c: _xlog1py(r, a, c))
    backward = staticmethod(lambda k, g, v: (k.xlog1py_self_backward(g, k.a(v), v._c),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((0, sp.Eq(a, 0) & (c <= -1)), (a * sp.log(1 + c), True)))


@register
class RSpecialXlog1pyC(WithNumber):
    """xlog1py(number, tensor) (SpecialXlog1PyBackward1): other's gradient grad * self / (other + 1)."""

    name = "SpecialXlog1PyBackward1"
    saved = (("other", 0), ("self", "c"))
    extra_none = 0
    result = "float"
    forward = staticmethod(lambda r, a, c: _xlog1py(r, c, a))
    backward = staticmethod(lambda k, g, v: (k.div(k.mul(g, k.const(v._c)), k.add(k.a(v), k.const(1.0))),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((0, sp.Eq(c, 0) & (a <= -1)), (c * sp.log(1 + a), True)))


SpecialXlog1py.with_number = SpecialXlog1pyC
SpecialXlog1py.number_first = RSpecialXlog1pyC


@helper
def xlog1py_self_backward(k, g, a, b):
    return 0.0 if (a == 0 and b <= -1) else k.pointwise(SpecialXlog1py, g, b)


LOGARITHMS = [Log2, Log10, Exp2, Erf, Erfc, Erfinv, Logit, Logaddexp, Logaddexp2, Xlogy, SpecialXlog1py]
"""The ops of this family, for the tests."""
