"""The gamma family: lgamma, digamma, polygamma and mvlgamma (issue 23).

PyTorch's CPU kernels are the C library's ``lgamma``/``lgammaf`` and ATen's own series for
digamma, trigamma and the Hurwitz zeta (``Math.h``), in the dtype's arithmetic: their last bits
depend on the C library and on the compiler's contractions per processor kernel. scalargrad
gives the correctly rounded double (mpmath, which SymPy depends on, at 80 bits), rounded once
more to the dtype: the value every machine can agree on, within an ulp or two of PyTorch's
(``tests/test_gamma.py`` measures the bound). At the poles and infinities each function gives
what ATen's kernel gives there: lgamma inf at 0, the negative integers and both infinities;
digamma -inf at +0, +inf at -0, nan at the negative integers and -inf; polygamma(n >= 2) the
signed infinity of the pole (nan at +inf, as ATen's zeta); trigamma at a negative integer,
where ATen's formula gives a large finite number of its sine's rounding, is refused by name.

The derivatives are derivatives.yaml's: lgamma's ``grad * digamma(self)``, digamma's
``grad * polygamma(1, self)``, polygamma's ``grad * polygamma(n + 1, self)``.
"""

from __future__ import annotations

import math

from mpmath import loggamma as _mp_loggamma
from mpmath import mpf as _mpf
from mpmath import psi as _mp_psi
from mpmath import re as _mp_re
from mpmath import workprec as _workprec

from .._base.errors import Unsupported
from .elementwise import Unary, WithNumber, spellings
from .float_kernel import helper
from .table import Api, register

__all__ = ["Lgamma", "Digamma", "Polygamma", "PolygammaInplace", "Mvlgamma",
           "GAMMA", "lgamma_double", "polygamma_double"]

_INF = math.inf


def lgamma_double(a: float) -> float:
    """log|Gamma(a)| of a double, correctly rounded (mpmath at 80 bits); inf at the poles (0 and
    the negative integers) and at both infinities, as the C library's lgamma."""
    if a != a:
        return a
    if math.isinf(a) or (a <= 0 and a == math.floor(a)):
        return _INF
    with _workprec(80):
        return float(_mp_re(_mp_loggamma(_mpf(a))))


def _pole_sign(n: int) -> float:
    return 1.0 if n % 2 else -1.0  # (-1)^(n + 1): the sign of polygamma(n, x) as x -> 0+


def polygamma_double(n: int, a: float) -> float:
    """The n-th derivative of digamma at a double, correctly rounded (mpmath at 80 bits), with
    ATen's values at the poles and infinities (see the module's docstring)."""
    if a != a:
        return a
    is_int = not math.isinf(a) and a == math.floor(a)
    if n == 0:
        if a == 0:
            return math.copysign(_INF, -a)
        if a < 0 and (is_int or math.isinf(a)):
            return math.nan
        if a == _INF:
            return _INF
    else:
        if a == _INF:
            return 0.0 if n == 1 else math.nan
        if a == -_INF:
            return math.nan if n == 1 else _pole_sign(n) * _INF
        if a == 0:
            return _INF if n == 1 else _pole_sign(n) * _INF
        if a < 0 and is_int:
            if n == 1:
                raise Unsupported("torch.polygamma(1, x) (trigamma) at a negative integer x",
                                  "ATen's formula gives a large finite number made of its sine's rounding there, "
                                  "which scalargrad does not reproduce")
            return _pole_sign(n) * _INF
    with _workprec(80):
        return float(_mp_psi(n, _mpf(a)))


@register
class Lgamma(Unary):
    name = "LgammaBackward0"
    saved = (("self", 0),)
    api = spellings("lgamma")
    result = "float"
    forward = staticmethod(lambda r, a: lgamma_double(a))
    # grad * digamma(self)
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.pointwise(Digamma, k.a(v))),))
    sympy = staticmethod(lambda sp, a: sp.loggamma(a))


@register
class Digamma(Unary):
    name = "DigammaBackward0"
    saved = (("self", 0),)
    api = spellings("digamma")
    result = "float"
    forward = staticmethod(lambda r, a: polygamma_double(0, a))
    # grad * polygamma(1, self)
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.pointwise(Polygamma, k.a(v), c=1)),))
    sympy = staticmethod(lambda sp, a: sp.polygamma(0, a))


@register
class Polygamma(WithNumber):
    """polygamma(n, self): the order n (an int >= 0) in ``_c``; spelled by the tensor layer
    (``torch.polygamma(n, input)``, ``Tensor.polygamma(n)``)."""

    name = "PolygammaBackward0"
    saved = (("n", "number"), ("self", 0))
    api = Api()
    extra_none = 0  # one input: no slot for the order
    result = "float"
    forward = staticmethod(lambda r, a, c: polygamma_double(c, a))
    # grad * polygamma(n + 1, self)
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.pointwise(Polygamma, k.a(v), c=v._c + 1)),))
    sympy = staticmethod(lambda sp, a, c: sp.polygamma(c, a))


@register
class PolygammaInplace(Polygamma):
    """``Tensor.polygamma_(n)``: derivatives.yaml's own entry for the in-place form."""

    name = "PolygammaBackward1"


_QUARTER_LOG_PI = math.log(math.pi) / 4


def _mvlgamma(r, a, p):
    """ATen's mvlgamma in the dtype: lgamma of a + (j - (p - 1)) / 2 for j = 0..p-1 (each sum and
    lgamma rounded), added in order, plus p (p - 1) log(pi) / 4 (the double rounded first)."""
    total = 0.0
    for j in range(p):
        total = r(total + r(lgamma_double(r(a + (-p * 0.5 + 0.5 + 0.5 * j)))))
    return r(total + r(p * (p - 1) * _QUARTER_LOG_PI))


@helper
def mvlgamma_backward(k, g, x, p):
    """mvlgamma_backward on numbers (a 0-dim node): grad * the sum of digamma over the points,
    in the dtype, as the tensor layer's twin composes it."""
    r = k.r
    total = 0.0
    for j in range(p):
        total = r(total + r(polygamma_double(0, r(x + (-p * 0.5 + 0.5 + 0.5 * j)))))
    return r(g * total)


@register
class Mvlgamma(WithNumber):
    """mvlgamma(self, p): the multivariate log-gamma function of dimension p (in ``_c``); its
    backward is ATen's ``mvlgamma_backward``: grad * the sum of digamma over the same points."""

    name = "MvlgammaBackward0"
    saved = (("p", "number"), ("self", 0))
    api = Api()
    extra_none = 0  # one input: no slot for p
    result = "float"
    forward = staticmethod(_mvlgamma)
    backward = staticmethod(lambda k, g, v: (k.mvlgamma_backward(g, k.a(v), v._c),))

    @staticmethod
    def sympy(sp, a, c):
        j = sp.Dummy("j", integer=True)  # p may be a symbol: the proof's rule is one for every p
        return sp.Sum(sp.loggamma(a + (1 - c + j) / 2), (j, 0, c - 1)) + c * (c - 1) * sp.log(sp.pi) / 4


GAMMA = [Lgamma, Digamma, Polygamma, PolygammaInplace, Mvlgamma]
