"""The error function's relatives of ``torch.special``: special_erfcx, special_log_ndtr,
special_ndtri and special_entr (the entropy term ``-x log x``).

PyTorch's CPU kernels for erfcx, log_ndtr and ndtri are ATen's own (Faddeeva's erfcx, a
``log(erfc)`` with asymptotic branches, Cephes' ndtri) in the dtype's arithmetic, vectorised
per processor; scalargrad gives the correctly rounded double (mpmath, at a working precision
that keeps ``2p - 1`` exact for ndtri), rounded once more to the dtype, as the gamma family
does: within a few ulps of PyTorch's on every machine (``tests/test_error_functions.py``
measures the bound). entr is ATen's ``-x * log(x)`` (log rounded to the dtype first), 0 at 0,
-inf below 0. The derivatives are derivatives.yaml's, term by term:

- erfcx: ``(2.0 * self * result - 2.0 / sqrt(M_PI)) * grad``;
- log_ndtr: ``grad / sqrt(2 * M_PI) * (result + self.pow(2) / 2).neg().exp()``;
- ndtri: ``grad * sqrt(2 * M_PI) * (result.square() / 2.0).exp()``;
- entr: ``grad * (-(1 + self.log()))``.
"""

from __future__ import annotations

import math

from mpmath import erfc as _mp_erfc
from mpmath import erfinv as _mp_erfinv
from mpmath import exp as _mp_exp
from mpmath import log as _mp_log
from mpmath import log1p as _mp_log1p
from mpmath import mpf as _mpf
from mpmath import pi as _mp_pi
from mpmath import sqrt as _mp_sqrt
from mpmath import workprec as _workprec

from .._base import ieee
from .elementwise import Unary
from .table import register

__all__ = ["SpecialErfcx", "SpecialLogNdtr", "SpecialNdtri", "SpecialEntr", "ERROR_FUNCTIONS",
           "erfcx_double", "log_ndtr_double", "ndtri_double"]

_INF = math.inf
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def erfcx_double(a: float) -> float:
    """exp(a^2) erfc(a), correctly rounded (mpmath at 80 bits; inf where it overflows, 0 at +inf)."""
    if a != a:
        return a
    if math.isinf(a) or a < -30.0:  # 2 exp(a^2) overflows a double below -26.7
        return 0.0 if a > 0 else _INF
    with _workprec(80):
        x = _mpf(a)
        if a > 1e8:  # mpmath's erfc series gives up there; the asymptotic series' third term is < 1e-32
            return float((1 - 1 / (2 * x * x)) / (x * _mp_sqrt(_mp_pi)))
        return float(_mp_exp(x * x) * _mp_erfc(x))


def log_ndtr_double(a: float) -> float:
    """log of the standard normal distribution function, log(erfc(-a / sqrt 2) / 2) (above 0,
    log1p(-erfc(a / sqrt 2) / 2)), correctly rounded (mpmath at 80 bits, whose exponents do not
    underflow); -0.0 at +inf, -inf at -inf."""
    if a != a:
        return a
    if math.isinf(a):
        return -0.0 if a > 0 else -_INF  # ATen's log1p(-erfc(inf) / 2): -0.0
    with _workprec(80):
        if a < -1e8:  # the asymptotic series (mpmath's erfc gives up there): its next term is < 1e-32
            x = _mpf(a)
            return float(-x * x / 2 - _mp_log(-x) - _mp_log(_mp_sqrt(2 * _mp_pi)) + _mp_log1p(-1 / (x * x)))
        x = _mpf(a) / _mp_sqrt(2)
        if a > 0:  # 1 - erfc(x) / 2 would round to 1 at any fixed precision: log1p of the tail
            return float(_mp_log1p(-_mp_erfc(x) / 2))
        return float(_mp_log(_mp_erfc(-x) / 2))


def ndtri_double(p: float) -> float:
    """The standard normal quantile sqrt(2) erfinv(2p - 1), correctly rounded: the working
    precision holds 2p - 1 exactly (53 bits more than p's binary exponent below 0);
    -inf at 0, inf at 1, nan outside [0, 1]."""
    if p != p or p < 0 or p > 1:
        return math.nan
    if p == 0:
        return -_INF
    if p == 1:
        return _INF
    with _workprec(80 + 53 + max(0, -math.frexp(p)[1])):
        return float(_mp_sqrt(2) * _mp_erfinv(2 * _mpf(p) - 1))


def _entr(r, a):
    if a != a:
        return a
    if a > 0:
        return -a * r(ieee.log(a))
    return 0.0 if a == 0 else -_INF


@register
class SpecialErfcx(Unary):
    name = "SpecialErfcxBackward0"
    saved = (("self", 0), ("result", "result"))
    saves_output = True
    api = None  # torch.special.erfcx alone (special.py)
    result = "float"
    forward = staticmethod(lambda r, a: erfcx_double(a))

    @staticmethod
    def backward(k, g, v):
        # (2.0 * self * result - 2.0 / sqrt(M_PI)) * grad
        two_x_result = k.mul(k.mul(k.const(2.0), k.a(v)), k.out(v))
        return (k.mul(k.sub(two_x_result, k.const(_TWO_OVER_SQRT_PI)), g),)

    sympy = staticmethod(lambda sp, a: sp.exp(a**2) * sp.erfc(a))


@register
class SpecialLogNdtr(Unary):
    name = "SpecialLogNdtrBackward0"
    saved = (("self", 0), ("result", "result"))
    saves_output = True
    api = None  # torch.special.log_ndtr alone (special.py)
    result = "float"
    forward = staticmethod(lambda r, a: log_ndtr_double(a))

    @staticmethod
    def backward(k, g, v):
        # grad / std::sqrt(2 * M_PI) * (result + self.pow(2) / 2).neg().exp()
        e = k.exp(k.neg(k.add(k.out(v), k.div(k.pow_number(k.a(v), 2), k.const(2.0)))))
        return (k.mul(k.div(g, k.const(_SQRT_2PI)), e),)

    sympy = staticmethod(lambda sp, a: sp.log(sp.erfc(-a / sp.sqrt(2)) / 2))


@register
class SpecialNdtri(Unary):
    name = "SpecialNdtriBackward0"
    saved = (("self", 0), ("result", "result"))
    saves_output = True
    api = None  # torch.special.ndtri alone (special.py)
    result = "float"
    forward = staticmethod(lambda r, a: ndtri_double(a))

    @staticmethod
    def backward(k, g, v):
        # grad * std::sqrt(2 * M_PI) * (result.square() / 2.0).exp()
        e = k.exp(k.div(k.pow_number(k.out(v), 2), k.const(2.0)))
        return (k.mul(k.mul(g, k.const(_SQRT_2PI)), e),)

    sympy = staticmethod(lambda sp, a: sp.sqrt(2) * sp.erfinv(2 * a - 1))


@register
class SpecialEntr(Unary):
    name = "SpecialEntrBackward0"
    saved = (("self", 0),)
    api = None  # torch.special.entr alone (special.py)
    result = "float"
    forward = staticmethod(_entr)
    # grad * (-(1 + self.log()))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.neg(k.add(k.const(1.0), k.log(k.a(v))))),))
    sympy = staticmethod(lambda sp, a: sp.Piecewise((-a * sp.log(a), a > 0), (0, sp.Eq(a, 0)), (-sp.oo, True)))


ERROR_FUNCTIONS = [SpecialErfcx, SpecialLogNdtr, SpecialNdtri, SpecialEntr]
