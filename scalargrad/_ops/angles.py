"""angle; atan2 (``arctan2``): the angle of the point (other, self); hypot: its distance from the origin.

PyTorch's CPU kernel is SLEEF's or libm's atan2 (machine-dependent in the last bit, see
``tests/faithfulness.py``); scalargrad takes the platform's double ``atan2`` rounded once to
the dtype. The derivative is derivatives.yaml's ``atan2_backward``: with ``recip = 1 / (self *
self + other * other)`` (0 at the origin, where PyTorch masks the infinite reciprocal), self
gets ``grad * other * recip`` and other ``grad * -self * recip``.
"""

from __future__ import annotations

import math

from .elementwise import Binary, Unary, spellings
from .table import Api, register
from .unary import Reciprocal

__all__ = ["Atan2", "Hypot", "Angle"]


@register
class Atan2(Binary):
    name = "Atan2Backward0"
    saved = (("other", 1), ("self", 0))
    api = Api(method="atan2", aliases=("arctan2",), inplace="atan2_", function=("atan2", "arctan2"))
    result = "float"
    other_tensor_only = True  # PyTorch's atan2 takes no Python number for ``other``
    forward = staticmethod(lambda r, a, b: math.atan2(a, b))
    fast = math.atan2

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        # 1 / (self^2 + other^2), 0 where that is infinite (at the origin), as PyTorch's
        recip = k.zero_where_inf(k.pointwise(Reciprocal, k.add(k.mul(a, a), k.mul(b, b))))
        return k.mul(k.mul(g, b), recip), k.mul(k.mul(g, k.neg(a)), recip)

    sympy = staticmethod(lambda sp, a, b: sp.atan2(a, b))

    @staticmethod
    def convention(a, b):
        if a == 0 and b == 0:
            return ("atan2: PyTorch takes the gradient 0 at the origin (calculus: no derivative there)", (0.0, 0.0))
        return None


def _hypot(r, a, b):
    if a in _INF or b in _INF:
        return math.inf  # even beside a nan, as C's hypot
    return math.hypot(a, b)


_INF = (math.inf, -math.inf)


@register
class Hypot(Binary):
    """sqrt(self**2 + other**2) without overflow: C's or SLEEF's hypot in PyTorch (within half an
    ulp), the double hypot rounded once here (float32: correctly rounded)."""

    name, saves_output = "HypotBackward0", True
    saved = (("other", 1), ("self", 0), ("result", "result"))
    api = Api(method="hypot", inplace="hypot_", function="hypot")
    float_only_kernel = "hypot_cpu"
    other_tensor_only = True
    forward = staticmethod(_hypot)

    @staticmethod
    def backward(k, g, v):
        out = k.out(v)  # self: grad * self / result; other: grad * other / result
        return k.div(k.mul(g, k.a(v)), out), k.div(k.mul(g, k.b(v)), out)

    sympy = staticmethod(lambda sp, a, b: sp.sqrt(a * a + b * b))

    @staticmethod
    def convention(a, b):
        if a == 0 and b == 0:  # grad * 0 / 0
            return ("hypot: PyTorch's derivative at the origin is nan (self / result = 0 / 0; calculus: none)",
                    (math.nan, math.nan))
        return None


@register
class Angle(Unary):
    """angle of a real tensor: pi for a negative element, 0 otherwise, nan kept (an integral
    tensor's in the default float dtype); its derivative is 0, ``angle_backward`` of a real
    tensor being ``zeros_like(self)``. A complex tensor's angle is complex_numbers'."""

    name = "AngleBackward0"
    saved = (("self", 0),)
    api = spellings("angle", inplace=False)
    result = "float"
    forward = staticmethod(lambda r, a: a if a != a else (math.pi if a < 0 else 0.0))
    backward = staticmethod(lambda k, g, v: (k.zeros_like(g),))
    sympy = staticmethod(lambda sp, a: sp.pi * sp.Heaviside(-a, 0))
