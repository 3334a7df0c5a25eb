"""atan2 (``arctan2``): the angle of the point (other, self).

PyTorch's CPU kernel is SLEEF's or libm's atan2 (machine-dependent in the last bit, see
``tests/faithfulness.py``); scalargrad takes the platform's double ``atan2`` rounded once to
the dtype. The derivative is derivatives.yaml's ``atan2_backward``: with ``recip = 1 / (self *
self + other * other)`` (0 at the origin, where PyTorch masks the infinite reciprocal), self
gets ``grad * other * recip`` and other ``grad * -self * recip``.
"""

from __future__ import annotations

import math

from .elementwise import Binary
from .table import Api, register
from .unary import Reciprocal

__all__ = ["Atan2"]


@register
class Atan2(Binary):
    name = "Atan2Backward0"
    saved = (("other", 1), ("self", 0))
    api = Api(method="atan2", aliases=("arctan2",), inplace="atan2_", function=("atan2", "arctan2"))
    result = "float"
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
