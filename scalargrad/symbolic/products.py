"""The products family's elements (``_ops/products.py``): each element of ``mm``, ``mv``, ``dot``,
``bmm`` and real ``vdot`` is the dot product of a row and a column (``DotOf``), of ``addmm``/``baddbmm``/
``addmv`` that plus its bias (``AddmmOf``)."""

from __future__ import annotations

from operator import mul

from .._ops import products as L
from .._tensor.operands import positions
from .element_op import ElementOp, fsum
from .graph import Runs, elements_of

__all__ = ["DotOf", "AddmmOf"]


class DotOf(ElementOp):
    """A dot product of a row and a column, inputs (a_0..a_k-1, b_0..b_k-1) (``mm``, ``mv``,
    ``dot``, ``@``): the op table's ``Dot.sympy``."""

    name = "dot"

    @staticmethod
    def sympy(sp, args, c):
        return L.Dot.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        k = len(vals) // 2
        terms = list(map(mul, vals[:k], vals[k:]))
        return fsum(terms), fsum(list(map(abs, terms)))

    @staticmethod
    def partials(vals, c):
        k = len(vals) // 2
        return [*vals[k:], *vals[:k]]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 0.5], None


class AddmmOf(ElementOp):
    """bias + a row . a column, inputs (bias, a_0..a_k-1, b_0..b_k-1) (``addmm``, ``linear``):
    the op table's ``Addmm.sympy``."""

    name = "addmm"

    @staticmethod
    def sympy(sp, args, c):
        return L.Addmm.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        k = (len(vals) - 1) // 2
        terms = [vals[0], *map(mul, vals[1:k + 1], vals[k + 1:])]
        return fsum(terms), fsum(list(map(abs, terms)))

    @staticmethod
    def partials(vals, c):
        k = (len(vals) - 1) // 2
        return [1.0, *vals[k + 1:], *vals[1:k + 1]]

    @staticmethod
    def sample():
        return [0.25, 0.75, -1.25, 2.5, 0.5], None


def _mm(v, vin, vals):
    a, b = vin
    n, k = a._t.shape
    m = b._t.shape[1]
    return [(DotOf, None, Runs(((a, range(i * k, i * k + k)), (b, range(j, k * m, m)))))
            for i in range(n) for j in range(m)]


def _mv(v, vin, vals):
    a, x = vin
    n, k = a._t.shape
    return [(DotOf, None, tuple((a, i * k + q) for q in range(k)) + tuple((x, q) for q in range(k)))
            for i in range(n)]


def _dot(v, vin, vals):
    a, b = vin
    k = a._t.shape[0]
    return [(DotOf, None, tuple((a, q) for q in range(k)) + tuple((b, q) for q in range(k)))]


def _bmm(v, vin, vals):
    """bmm and baddbmm: a dot product per output element, within its batch (plus the bias)."""
    if len(vin) == 3:
        bias, a, b = vin
    else:
        bias, (a, b) = None, vin
    bs, n, k = a._t.shape
    m = b._t.shape[2]
    spread = positions(bias._t.shape, (bs, n, m)) if bias is not None else None
    spec = []
    for q in range(bs):
        for i in range(n):
            for j in range(m):
                ins = tuple((a, (q * n + i) * k + x) for x in range(k)) + tuple((b, (q * k + x) * m + j)
                                                                             for x in range(k))
                if bias is None:
                    spec.append((DotOf, None, ins))
                else:
                    spec.append((AddmmOf, None, ((bias, spread[(q * n + i) * m + j]),) + ins))
    return spec


def _addmm(v, vin, vals):
    bias, a, b = vin
    n, k = a._t.shape
    m = b._t.shape[1]
    spread = positions(bias._t.shape, (n, m))
    return [(AddmmOf, None, Runs(((bias, (spread[i * m + j],)), (a, range(i * k, i * k + k)), (b, range(j, k * m, m)))))
            for i in range(n) for j in range(m)]


elements_of(L.Mm)(_mm)
elements_of(L.Mv)(_mv)
elements_of(L.Dot, L.Vdot)(_dot)
elements_of(L.Bmm, L.Baddbmm)(_bmm)
elements_of(L.Addmm)(_addmm)


def _addr(v, vin, vals):
    bias, a, b = vin
    n, m = a._t.shape[0], b._t.shape[0]
    spread = positions(bias._t.shape, (n, m))
    return [(AddmmOf, None, ((bias, spread[i * m + j]), (a, i), (b, j))) for i in range(n) for j in range(m)]


elements_of(L.Addr)(_addr)


def _addmv(v, vin, vals):
    bias, a, x = vin
    n, k = a._t.shape
    spread = positions(bias._t.shape, (n,))
    return [(AddmmOf, None, ((bias, spread[i]),) + tuple((a, i * k + q) for q in range(k)) + tuple((x, q)
                                                                                          for q in range(k)))
            for i in range(n)]


elements_of(L.Addmv)(_addmv)


def _addbmm(v, vin, vals):
    bias, a, b = vin
    bs, n, k = a._t.shape
    m = b._t.shape[2]
    spread = positions(bias._t.shape, (n, m))
    return [(AddmmOf, None, ((bias, spread[i * m + j]),)
             + tuple((a, (q * n + i) * k + x) for q in range(bs) for x in range(k))
             + tuple((b, (q * k + x) * m + j) for q in range(bs) for x in range(k)))
            for i in range(n) for j in range(m)]


elements_of(L.Addbmm)(_addbmm)
