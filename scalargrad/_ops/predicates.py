"""Predicates and logical ops: isnan, isinf, isfinite, isposinf, isneginf, isreal, signbit,
logical_not, logical_and, logical_or, logical_xor.

Each gives a bool tensor that never requires grad (PyTorch records no node), for tensors of
every dtype: an integer or bool tensor is finite and never nan; a number is true when it is not
zero (nan is true). The in-place logical forms (``x.logical_and_(y)``) keep ``x``'s dtype and
write 1s and 0s (``_tensor/predicates.py``).
"""

from __future__ import annotations

import math

from .elementwise import Binary, Unary, spellings
from .table import register

__all__ = ["Predicate", "Logical", "PREDICATES", "LOGICAL", "Isnan", "Isinf", "Isfinite", "Isposinf", "Isneginf",
           "Isreal", "Signbit", "LogicalNot", "LogicalAnd", "LogicalOr", "LogicalXor"]

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
