"""Predicates and logical ops: isnan, isinf, isfinite, isposinf, isneginf, isreal, signbit,
logical_not, logical_and, logical_or, logical_xor; and nan_to_num, which replaces what isnan,
isposinf and isneginf find (its gradient flows where isfinite holds).

Each gives a bool tensor that never requires grad (PyTorch records no node), for tensors of
every dtype: an integer or bool tensor is finite and never nan; a number is true when it is not
zero (nan is true). The in-place logical forms (``x.logical_and_(y)``) keep ``x``'s dtype and
write 1s and 0s (``_tensor/predicates.py``).
"""

from __future__ import annotations

import math

from .elementwise import Binary, Unary, WithNumber, spellings
from .float_kernel import helper
from .table import Api, register

__all__ = ["Predicate", "Logical", "PREDICATES", "LOGICAL", "Isnan", "Isinf", "Isfinite", "Isposinf", "Isneginf",
           "Isreal", "Signbit", "LogicalNot", "LogicalAnd", "LogicalOr", "LogicalXor", "NanToNum"]

_INF = math.inf


class Predicate(Unary):
    """A test of each element: a bool result that never requires grad."""

    result = "bool"
    differentiable = False
    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: (None,))


class Logical(Binary):
    """Two elements' truth values combined: a bool result that never requires grad."""

    result = "bool"
    differentiable = False
    other_tensor_only = True  # PyTorch takes no Python number for ``other``
    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: (None, None))


def _predicate(cls_name, method, fn, inplace=False):
    return register(type(cls_name, (Predicate,), {
        "name": cls_name + "Backward0", "api": spellings(method, inplace=inplace), "fast": fn,
        "forward": staticmethod(lambda r, a: fn(a)), "sympy": staticmethod(lambda sp, a: sp.Function(method)(a))}))


def _logical(cls_name, method, fn):
    return register(type(cls_name, (Logical,), {
        "name": cls_name + "Backward0", "api": spellings(method, inplace=False), "fast": fn,
        "forward": staticmethod(lambda r, a, b: fn(a, b)),
        "sympy": staticmethod(lambda sp, a, b: sp.Function(method)(a, b))}))


Isnan = _predicate("Isnan", "isnan", lambda a: a != a)
Isinf = _predicate("Isinf", "isinf", lambda a: a == _INF or a == -_INF)
Isfinite = _predicate("Isfinite", "isfinite", lambda a: a - a == 0)  # inf - inf and nan are nan
Isposinf = _predicate("Isposinf", "isposinf", lambda a: a == _INF)
Isneginf = _predicate("Isneginf", "isneginf", lambda a: a == -_INF)
Isreal = _predicate("Isreal", "isreal", lambda a: True)  # every tensor scalargrad holds is real
Signbit = _predicate("Signbit", "signbit", lambda a: math.copysign(1.0, a) < 0)  # -0.0 and -nan included
LogicalNot = _predicate("LogicalNot", "logical_not", lambda a: not a)
LogicalAnd = _logical("LogicalAnd", "logical_and", lambda a, b: bool(a) and bool(b))
LogicalOr = _logical("LogicalOr", "logical_or", lambda a, b: bool(a) or bool(b))
LogicalXor = _logical("LogicalXor", "logical_xor", lambda a, b: bool(a) != bool(b))

PREDICATES = [Isnan, Isinf, Isfinite, Isposinf, Isneginf, Isreal, Signbit, LogicalNot]
LOGICAL = [LogicalAnd, LogicalOr, LogicalXor]


def _nan_to_num(r, a, c):
    """``a``, or for nan, +inf and -inf the replacements ``c`` = (nan, posinf, neginf), in the dtype."""
    if a != a:
        return c[0]
    if a == _INF:
        return c[1]
    return c[2] if a == -_INF else a


@helper
def nan_to_num_backward(k, g, a):
    # derivatives.yaml: grad * at::isfinite(self) (a nan or infinite grad times 0 is nan)
    return k.mul(g, k.const(1.0 if a - a == 0 else 0.0))


@register
class NanToNum(WithNumber):
    """nan_to_num(self, nan=0.0, posinf=None, neginf=None); ``_c`` holds the three replacements, rounded
    to the dtype (``_tensor/predicates.py`` resolves None to the dtype's largest finite values)."""

    name = "NanToNumBackward0"
    saved = (("self", 0),)
    extra_none = 0
    api = Api(method="nan_to_num", inplace="nan_to_num_", function="nan_to_num")
    forward = staticmethod(_nan_to_num)
    backward = staticmethod(lambda k, g, v: (k.nan_to_num_backward(g, k.a(v)),))

    @staticmethod
    def sympy(sp, a, c=None):  # the identity where the element is finite, a constant at the infinities
        if c is None:
            return a
        beyond = sp.Integer(2) ** 1024  # past every finite double: only the infinities are
        return sp.Piecewise((c[1], a > beyond), (c[2], a < -beyond), (a, True))
