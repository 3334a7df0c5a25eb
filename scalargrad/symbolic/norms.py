"""The norms family's elements (``_ops/norms.py``): each element of ``linalg.vector_norm`` /
``Tensor.norm`` is a ``NormOf`` of its group; ``dist`` the ``DistOf`` of its two inputs."""

from __future__ import annotations

import math

from .._ops import norms as NM
from .._tensor.operands import positions
from .element_op import ElementOp
from .graph import elements_of
from .reductions import reduction

__all__ = ["NormOf", "DistOf"]


class NormOf(ElementOp):
    """The p-norm of input elements (``linalg.vector_norm``, ``Tensor.norm``), ``c`` the order:
    the op table's form (``_ops/norms.py``) and PyTorch's norm_backward as the partials (0 at
    a zero norm, shared ties of the +-inf norm)."""

    name = "norm"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return NM.sympy_norm(sp, args, float(c))

    @staticmethod
    def value(vals, c):
        v = NM.norm_value(list(vals), float(c))
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        return NM.norm_partials(list(vals), float(c), NM.norm_value(list(vals), float(c)))

    @staticmethod
    def convention(vals, c):
        p = float(c)
        norm = NM.norm_value(list(vals), p)
        if norm == 0 and p not in (1.0, math.inf, -math.inf):
            return (f"norm (ord {c}): PyTorch takes the gradient 0 at a zero norm (calculus: no derivative "
                    "there)", None)
        if p in (math.inf, -math.inf) and sum(1 for x in vals if abs(x) == norm) > 1:
            return (f"norm (ord {c}): several elements reach the norm; PyTorch shares the gradient evenly "
                    "among them", None)
        return None

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 2.0


class DistOf(NormOf):
    """dist(a, b, p): the p-norm of the differences, inputs (a_0..a_m-1, b_0..b_m-1)."""

    name = "dist"

    @staticmethod
    def sympy(sp, args, c):
        m = len(args) // 2
        return NM.sympy_norm(sp, [x - y for x, y in zip(args[:m], args[m:])], float(c))

    @staticmethod
    def value(vals, c):
        m = len(vals) // 2
        return NormOf.value([x - y for x, y in zip(vals[:m], vals[m:])], c)

    @staticmethod
    def partials(vals, c):
        m = len(vals) // 2
        d = NormOf.partials([x - y for x, y in zip(vals[:m], vals[m:])], c)
        return d + [-x for x in d]

    @staticmethod
    def convention(vals, c):
        m = len(vals) // 2
        return NormOf.convention([x - y for x, y in zip(vals[:m], vals[m:])], c)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 0.5], 2.0


def _vector_norm(v, vin, vals):
    return [(NormOf, v._c.ord, spec[2]) for spec in reduction(NormOf)(v, vin, vals)]


def _dist(v, vin, vals):
    a, b = vin
    shape = v._c.in_shape
    pa, pb = positions(a._t.shape, shape), positions(b._t.shape, shape)
    return [(DistOf, v._c.ord, tuple((a, i) for i in pa) + tuple((b, j) for j in pb))]


elements_of(NM.VectorNorm, NM.NormDim)(_vector_norm)
elements_of(NM.Dist)(_dist)
