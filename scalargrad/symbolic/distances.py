"""The distances family's elements (``_ops/distances.py``): each element of ``torch.cdist`` is
the p-norm of the difference of a row of x1 and a row of x2 (inputs u_0..u_m-1, v_0..v_m-1),
with ATen's ``_cdist_backward`` as the partials; on the matrix-product path (p = 2) its value is
the product formula's."""

from __future__ import annotations

import math

from .._ops import distances as DS
from .element_op import ElementOp
from .graph import elements_of

__all__ = ["CdistOf", "EuclideanDistOf"]


class CdistOf(ElementOp):
    """|u - v|_p, c = p: the op table's form; partials ATen's backward kernel's (0 at a zero
    distance, and for p < 1 at a zero difference; for inf, every coordinate reaching the
    distance gets its sign, unshared)."""

    name = "cdist"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return DS.Cdist.sympy(sp, *args, p=float(c))

    @staticmethod
    def value(vals, c):
        m = len(vals) // 2
        v = DS.cdist_value(vals[:m], vals[m:], float(c))
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        m = len(vals) // 2
        u, v = vals[:m], vals[m:]
        dist = DS.cdist_value(u, v, float(c))
        d = [DS.cdist_partial(a - b, dist, float(c)) for a, b in zip(u, v)]
        return d + [-x for x in d]

    @staticmethod
    def convention(vals, c):
        p = float(c)
        m = len(vals) // 2
        diff = [a - b for a, b in zip(vals[:m], vals[m:])]
        dist = DS.cdist_value(vals[:m], vals[m:], p)
        if p == 0.0:
            return None
        if dist == 0.0 and p != 1.0:
            return (f"cdist (p {c}): PyTorch takes the gradient 0 at a zero distance (calculus: no derivative "
                    "there)", None)
        if p < 1.0 and 0.0 in diff:
            return (f"cdist (p {c}): PyTorch takes the gradient 0 where a coordinate's difference is 0 (calculus: "
                    "infinite there)", None)
        if (p == 1.0 and 0.0 in diff) or (p == math.inf and sum(1 for x in diff if abs(x) == dist) > 1):
            return (f"cdist (p {c}): a kink (a zero difference, or a tie of the largest |difference|); PyTorch's "
                    "kernel takes sign(difference) there, unshared", None)
        return None

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 0.5, 1.0, -1.5], 3.0


class EuclideanDistOf(CdistOf):
    """The product path's distance: the form is the 2-norm's; the value the product formula's,
    whose rounding is relative to the squared norms (a cancellation near equal rows)."""

    name = "euclidean dist"

    @staticmethod
    def value(vals, c):
        m = len(vals) // 2
        v = DS.euclid_value(vals[:m], vals[m:], float)
        big = math.fsum(x * x for x in vals)
        return v, big / max(v, math.sqrt(big) * 2.0 ** -12, 2.0 ** -1074)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 0.5, 1.0, -1.5], 2.0


def _rows_of(op):
    def build(v, vin, vals):
        a, b = vin
        c = v._c
        m = c.m
        r1, r2 = v._t.shape[-2:]
        out = []
        for e in range(len(vals)):
            bt, rest = divmod(e, r1 * r2)
            i, j = divmod(rest, r2)
            srcs = (tuple((a, (bt * r1 + i) * m + k) for k in range(m))
                    + tuple((b, (bt * r2 + j) * m + k) for k in range(m)))
            out.append((op, c.p, srcs))
        return out

    return build


elements_of(DS.Cdist)(_rows_of(CdistOf))
elements_of(DS.EuclideanDist)(_rows_of(EuclideanDistOf))
