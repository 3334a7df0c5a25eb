"""The softmax family's elements (``_ops/softmax.py``): each element of softmax / log_softmax reads
its slice along the node's dimension, each element of their backward-data ops the (grad_output,
output) pairs of its slice."""

from __future__ import annotations

import math

from .._ops import softmax as SM
from .._tensor.build import positions
from .._tensor.softmax import slices
from .element_op import ElementOp, fsum
from .graph import elements_of

__all__ = ["SoftmaxOf", "LogSoftmaxOf", "SoftmaxBackwardOf", "LogSoftmaxBackwardOf"]


def _rotated(args, j):
    """The slice ``args`` with element ``j`` first (the op table's softmax forms take the element
    first, then the rest of its slice)."""
    args = list(args)
    return [args[j]] + args[:j] + args[j + 1:]


def _softmax_of(vals) -> tuple:
    m = max(vals)
    e = [math.exp(x - m) for x in vals]
    s = fsum(e)
    return m, e, s


class SoftmaxOf(ElementOp):
    """Element ``c`` of a softmax slice, inputs the slice: the op table's ``Softmax.sympy``."""

    name = "softmax"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return SM.Softmax.sympy(sp, *_rotated(args, c))

    @staticmethod
    def value(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return math.nan, 0.0
        _, e, s = _softmax_of(vals)
        y = e[c] / s
        return y, y

    @staticmethod
    def partials(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        y = [x / s for x in e]
        return [y[c] * ((1.0 if i == c else 0.0) - y[i]) for i in range(len(vals))]

    @staticmethod
    def partial_scales(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [e[c] / s * (1.0 + x / s) for x in e]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 1


class LogSoftmaxOf(ElementOp):
    """Element ``c`` of a log_softmax slice: the op table's ``LogSoftmax.sympy``."""

    name = "log_softmax"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return SM.LogSoftmax.sympy(sp, *_rotated(args, c))

    @staticmethod
    def value(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return math.nan, 0.0
        m, _, s = _softmax_of(vals)
        ls = math.log(s)
        # log(s) carries the sum's rounding, relative to s >= 1, not to log(s) (which may be tiny)
        return (vals[c] - m) - ls, abs(vals[c] - m) + abs(ls) + 1.0

    @staticmethod
    def partials(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [(1.0 if i == c else 0.0) - e[i] / s for i in range(len(vals))]

    @staticmethod
    def partial_scales(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [1.0 + x / s for x in e]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 1


class SoftmaxBackwardOf(ElementOp):
    """Element ``c`` of ``_softmax_backward_data``, inputs (g_0..g_n-1, y_0..y_n-1) of its slice:
    ``(g_c - sum g_i y_i) y_c``, the op table's ``SoftmaxBackwardData.sympy``."""

    name = "softmax_backward_data"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        n = len(args) // 2
        gs, ys = _rotated(args[:n], c), _rotated(args[n:], c)
        return SM.SoftmaxBackwardData.sympy(sp, gs[0], ys[0], *[x for pair in zip(gs[1:], ys[1:]) for x in pair])

    @staticmethod
    def value(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        terms = [a * b for a, b in zip(g, y)]
        s = fsum(terms)
        return (g[c] - s) * y[c], (abs(g[c]) + fsum([abs(t) for t in terms])) * abs(y[c])

    @staticmethod
    def partials(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        s = fsum([a * b for a, b in zip(g, y)])
        dg = [y[c] * ((1.0 if i == c else 0.0) - y[i]) for i in range(n)]
        dy = [((g[c] - s) if i == c else 0.0) - y[c] * g[i] for i in range(n)]
        return dg + dy

    @staticmethod
    def partial_scales(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        s = fsum([abs(a * b) for a, b in zip(g, y)])
        return [abs(y[c]) * (1.0 + abs(y[i])) for i in range(n)] + \
            [abs(g[c]) + s + abs(y[c] * g[i]) for i in range(n)]

    @staticmethod
    def sample():
        return [0.5, -1.0, 2.0, 0.25, 0.5, 0.25], 1


class LogSoftmaxBackwardOf(ElementOp):
    """Element ``c`` of ``_log_softmax_backward_data``: ``g_c - exp(y_c) sum g_i``."""

    name = "log_softmax_backward_data"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        n = len(args) // 2
        gs, ys = _rotated(args[:n], c), _rotated(args[n:], c)
        return SM.LogSoftmaxBackwardData.sympy(sp, gs[0], ys[0], *[x for pair in zip(gs[1:], ys[1:]) for x in pair])

    @staticmethod
    def value(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        s = fsum(g)
        e = math.exp(y[c]) if y[c] < 700 else math.inf
        return g[c] - e * s, abs(g[c]) + e * fsum([abs(x) for x in g])

    @staticmethod
    def partials(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        e = math.exp(y[c]) if y[c] < 700 else math.inf
        s = fsum(g)
        return [(1.0 if i == c else 0.0) - e for i in range(n)] + [-e * s if i == c else 0.0 for i in range(n)]

    @staticmethod
    def partial_scales(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        e = math.exp(y[c]) if y[c] < 700 else math.inf
        s = fsum([abs(x) for x in g])
        return [1.0 + e] * n + [e * s if i == c else 0.0 for i in range(n)]

    @staticmethod
    def sample():
        return [0.5, -1.0, 2.0, -1.5, -0.5, -2.0], 1


def _along(elem_op):
    """softmax/log_softmax: each output element reads its slice along the node's dimension."""

    def build(v, vin, vals):
        u = vin[0]
        spec = [None] * len(vals)
        for idx in slices(v._c.shape, v._c.dim):
            srcs = tuple((u, i) for i in idx)
            for j, p in enumerate(idx):
                spec[p] = (elem_op, j, srcs)
        return spec

    return build


def _along_backward(elem_op):
    """The backward-data ops: each element reads the (grad_output, output) pairs of its slice."""

    def build(v, vin, vals):
        g, y = vin
        gpos = positions(g._t.shape, v._t.shape)
        spec = [None] * len(vals)
        for idx in slices(v._c.shape, v._c.dim):
            srcs = tuple((g, gpos[i]) for i in idx) + tuple((y, i) for i in idx)
            for j, p in enumerate(idx):
                spec[p] = (elem_op, j, srcs)
        return spec

    return build


elements_of(SM.Softmax)(_along(SoftmaxOf))
elements_of(SM.LogSoftmax)(_along(LogSoftmaxOf))
elements_of(SM.SoftmaxBackwardData)(_along_backward(SoftmaxBackwardOf))
elements_of(SM.LogSoftmaxBackwardData)(_along_backward(LogSoftmaxBackwardOf))
