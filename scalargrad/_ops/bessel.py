"""The modified Bessel functions of the first kind: i0, special_i0e, special_i1, special_i1e.

PyTorch's CPU kernels are Cephes' Chebyshev expansions (``Math.h``: ``calc_i0``, ``calc_i0e``,
``calc_i1``, ``calc_i1e``) in the dtype's arithmetic, vectorised differently per processor: their
last bits are the machine's. scalargrad gives the correctly rounded double (mpmath at 80 bits),
rounded once more to the dtype, as the gamma family does; ``tests/test_bessel.py`` measures the
distance to PyTorch's. At the infinities each gives what ATen's kernel gives: i0 and i1
nan (the exponential times the Chebyshev series' 0 there), the exponentially scaled ones zero
(signed as x for i1e).

The derivatives are derivatives.yaml's: i0's ``grad * special_i1(self)``, i0e's
``grad * (special_i1e(self) - self.sgn() * result)``, i1's and i1e's ATen's ``i1_backward`` and
``i1e_backward``: ``i0(x) - result / x`` and ``i0e(x) - result * (sgn(x) + 1 / x)``, with 0.5
where ``|x|`` is at most the dtype's epsilon (the limit at 0, where the formula is 0/0).
"""

from __future__ import annotations

import math

from mpmath import besseli as _mp_besseli
from mpmath import exp as _mp_exp
from mpmath import mpf as _mpf
from mpmath import workprec as _workprec

from .elementwise import Unary, spellings
from .float_kernel import helper
from .table import register
from .unary import Sgn

__all__ = ["I0", "SpecialI0e", "SpecialI1", "SpecialI1e", "BESSEL", "bessel_double"]


def bessel_double(order: int, scaled: bool, a: float) -> float:
    """I_order(a) (order 0 or 1), times exp(-|a|) when ``scaled``, correctly rounded to a double
    (mpmath at 80 bits), with the limits at the infinities (see the module's docstring)."""
    if a != a:
        return a
    if math.isinf(a):
        if scaled:
            return 0.0 if order == 0 else math.copysign(0.0, a)
        return math.nan  # Cephes' expansion of exp(x) * chbevl(...) at infinity: inf * 0
    with _workprec(80):
        x = _mpf(a)
        v = _mp_besseli(order, x)
        if scaled:
            v = v * _mp_exp(-abs(x))
        return float(v)


@register
class I0(Unary):
    name = "I0Backward0"
    saved = (("self", 0),)
    api = spellings("i0")
    result = "float"
    forward = staticmethod(lambda r, a: bessel_double(0, False, a))
    # grad * at::special_i1(self)
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.pointwise(SpecialI1, k.a(v))),))
    sympy = staticmethod(lambda sp, a: sp.besseli(0, a))


@register
class SpecialI0e(Unary):
    name = "SpecialI0EBackward0"
    saved = (("self", 0), ("result", "result"))
    saves_output = True
    api = None  # torch.special.i0e alone (special.py)
    result = "float"
    forward = staticmethod(lambda r, a: bessel_double(0, True, a))

    @staticmethod
    def backward(k, g, v):
        # grad * (at::special_i1e(self) - self.sgn() * result)
        a = k.a(v)
        return (k.mul(g, k.sub(k.pointwise(SpecialI1e, a), k.mul(k.pointwise(Sgn, a), k.out(v)))),)

    sympy = staticmethod(lambda sp, a: sp.exp(-sp.Abs(a)) * sp.besseli(0, a))


@register
class SpecialI1(Unary):
    name = "SpecialI1Backward0"
    saved = (("self", 0), ("result", "result"))
    saves_output = True
    api = None  # torch.special.i1 alone (special.py)
    result = "float"
    forward = staticmethod(lambda r, a: bessel_double(1, False, a))
    # i1_backward(grad, self, result)
    backward = staticmethod(lambda k, g, v: (k.i1_backward(g, k.a(v), k.out(v), False),))
    sympy = staticmethod(lambda sp, a: sp.besseli(1, a))


@register
class SpecialI1e(Unary):
    name = "SpecialI1EBackward0"
    saved = (("self", 0), ("result", "result"))
    saves_output = True
    api = None  # torch.special.i1e alone (special.py)
    result = "float"
    forward = staticmethod(lambda r, a: bessel_double(1, True, a))
    # i1e_backward(grad, self, result)
    backward = staticmethod(lambda k, g, v: (k.i1_backward(g, k.a(v), k.out(v), True),))
    sympy = staticmethod(lambda sp, a: sp.exp(-sp.Abs(a)) * sp.besseli(1, a))


@helper
def i1_backward(k, g, x, result, scaled):
    """ATen's ``i1_backward`` (``scaled``: ``i1e_backward``) on numbers: 0.5 where |x| is at most
    the dtype's epsilon, else ``i0(x) - result / x`` (``i0e(x) - result * (sgn(x) + 1 / x)``),
    each step rounded to the dtype."""
    r = k.r
    eps = 2.0 ** -23 if r(1.0 + 2.0 ** -30) == 1.0 else 2.0 ** -52  # float32's rounding drops 2^-30
    if not abs(x) > eps:
        return r(g * 0.5)
    if scaled:
        dx = r(r(bessel_double(0, True, x)) - r(result * r(math.copysign(1.0, x) + r(1.0 / x))))
    else:
        dx = r(r(bessel_double(0, False, x)) - r(result * r(1.0 / x)))
    return r(g * dx)


BESSEL = [I0, SpecialI0e, SpecialI1, SpecialI1e]
