"""Structural element ops: what an element made of input elements by structure is.

An elementwise op's element keeps the op itself (its SymPy form and its backward formula run on
the element's numbers). The elements of reductions, products, views, losses... are structural:
each family declares, in its module of this package, the element ops it is made of, with their
SymPy form (the op table's, where it declares one), value and partial derivatives side by side.
This module holds their base class, the two every family uses (the identity and a constant),
and the stand-in for a node no family expresses.
"""

from __future__ import annotations

import math
import types

from .._ops import views as S

__all__ = ["ElementOp", "ELEMENT_OPS", "Same", "Const", "Opaque", "opaque_op", "fsum", "exact_number"]

ELEMENT_OPS: list = []
"""Every structural element op declared (each proved against its form by SymPy, on its sample)."""


class ElementOp:
    """An element op made of input elements by structure: its SymPy form (``sympy(sp, args,
    c)``), its value in double (``value(vals, c)`` -> (value, scale), the scale being what
    its rounding is relative to, sum |terms| for a sum) and its partial derivatives
    (``partials(vals, c)``), side by side. The check proves the partials against the form
    on ``sample()`` once, and each node's bulk backward against the partials.

    ``c_kind``: how ``_c`` reaches the form: None (it does not), "number" (as the exact number
    it holds), "object" (as is). A subclass is listed in ``ELEMENT_OPS`` unless declared with
    ``listed=False`` (a base for others)."""

    name = "element"
    c_kind: str | None = None

    def __init_subclass__(cls, listed: bool = True, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if listed:
            ELEMENT_OPS.append(cls)

    @staticmethod
    def sympy(sp, args, c):
        raise NotImplementedError

    @staticmethod
    def value(vals, c) -> tuple:
        raise NotImplementedError

    @staticmethod
    def partials(vals, c) -> list:
        raise NotImplementedError

    @staticmethod
    def convention(vals, c):
        """``(note, None)`` where PyTorch's derivative is a convention (a tie of a max), else None."""
        return None

    @staticmethod
    def sample() -> tuple:
        """(values, c) of a small instance on which SymPy proves ``partials`` and ``value``."""
        return [0.75, -1.25, 2.5], None


class Same(ElementOp):
    """The element is one input element (views, copies, joins, picks, indexing): the
    identity the op table declares for shape ops."""

    name = "identity"

    @staticmethod
    def sympy(sp, args, c):
        return S.Structural.sympy(sp, args[0])

    @staticmethod
    def value(vals, c):
        return vals[0], abs(vals[0])

    @staticmethod
    def partials(vals, c):
        return [1.0]

    @staticmethod
    def sample():
        return [0.75], None


class Const(ElementOp):
    """An element that no longer depends on its input (``fill_``, ``masked_fill``, an assigned
    number): the number ``c``."""

    name = "constant"
    c_kind = "number"

    @staticmethod
    def sympy(sp, args, c):
        return c

    @staticmethod
    def value(vals, c):
        return c, abs(c)

    @staticmethod
    def partials(vals, c):
        return [0.0] * len(vals)

    @staticmethod
    def sample():
        return [0.75], 2.5


class Opaque(ElementOp, listed=False):
    """The elements of a node no family can express (each depends on every input element);
    the check reports what lies below them unverifiable. Made per op name."""

    name = "opaque"


_opaque_ops: dict = {}


def opaque_op(name: str) -> type:
    cls = _opaque_ops.get(name)
    if cls is None:
        cls = _opaque_ops[name] = types.new_class("Opaque", (Opaque,), {"listed": False},
                                                  lambda ns: ns.update(name=name, __module__=__name__))
    return cls


def fsum(vals) -> float:
    """The correctly rounded sum of ``vals`` (inf - inf, or an overflowing partial sum: the plain sum)."""
    try:
        return math.fsum(vals)
    except (OverflowError, ValueError):
        return sum(vals)


def exact_number(sp, x):
    """A float as the exact SymPy number it holds."""
    x = float(x)
    return sp.Integer(int(x)) if x.is_integer() else sp.Rational(x)
