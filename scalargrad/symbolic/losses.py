"""The losses family's elements (``_ops/losses.py``): a pointwise loss is the sum (or mean) of its
op's term over (input, target) pairs, one element per pair without reduction; ``nll_loss`` and its
backward (and nll_loss2d's, the same per position) pick elements by their targets."""

from __future__ import annotations

from .._base import ieee
from .._ops import losses as LO
from .._tensor.operands import broadcast_shapes, positions
from .element_op import Const, ElementOp, exact_number, fsum
from .graph import elements_of

__all__ = ["PointwiseLossOf", "LOSS_ELEMENTS", "MseOf", "NllOf", "NllBackwardOf", "SoftMarginOf"]


class PointwiseLossOf(ElementOp, listed=False):
    """A pointwise loss over pairs (a_0..a_m-1, b_0..b_m-1) of (input, target) elements: the sum
    of its op's term (``PointwiseLoss.sympy``) over the pairs, divided by the number of elements
    for a mean. ``c`` is (parameters of each pair, reduction, number of elements); one subclass
    per loss op (``loss``)."""

    name = "loss"
    c_kind = "object"
    loss = None

    @classmethod
    def sympy(cls, sp, args, c):
        ps, reduction, n = c
        m = len(args) // 2
        total = sp.Add(*[cls.loss.sympy(sp, a, b, *p) for a, b, p in zip(args[:m], args[m:], ps)])
        return total / n if reduction == "mean" else total

    @classmethod
    def value(cls, vals, c):
        ps, reduction, n = c
        m = len(vals) // 2
        terms = [cls.loss.value(a, b, *p) for a, b, p in zip(vals[:m], vals[m:], ps)]
        total, scale = fsum(terms), fsum([abs(t) for t in terms])
        return (ieee.div(total, n), ieee.div(scale, n)) if reduction == "mean" else (total, scale)

    @classmethod
    def partials(cls, vals, c):
        ps, reduction, n = c
        m = len(vals) // 2
        parts = [cls.loss.partials(a, b, *p) for a, b, p in zip(vals[:m], vals[m:], ps)]
        k = n if reduction == "mean" else 1
        return [d[0] / k for d in parts] + [d[1] / k for d in parts]

    @classmethod
    def partial_scales(cls, vals, c):
        """What the backward's rounding errors are relative to (its terms, where they cancel)."""
        ps, reduction, n = c
        m = len(vals) // 2
        scale = cls.loss.partial_scales
        parts = [scale(a, b, *p) for a, b, p in zip(vals[:m], vals[m:], ps)]
        k = n if reduction == "mean" else 1
        return [abs(d[0]) / k for d in parts] + [abs(d[1]) / k for d in parts]

    @classmethod
    def convention(cls, vals, c):
        note = getattr(cls.loss, "element_convention", None)
        if note is None:
            return None
        m = len(vals) // 2
        for a, b in zip(vals[:m], vals[m:]):
            text = note(a, b)
            if text is not None:
                return text, None
        return None

    @classmethod
    def sample(cls):
        a, b, p = cls.loss.sample()
        return [a, b], ([p], "sum", 1)


def _loss_element(op) -> type:
    return type(op.__name__ + "Of", (PointwiseLossOf,), {"loss": op, "name": op.name.replace("Backward0", "")})


LOSS_ELEMENTS = {op: _loss_element(op) for op in LO.POINTWISE_LOSSES}
MseOf = LOSS_ELEMENTS[LO.MseLoss]


class NllOf(ElementOp):
    """nll_loss's reduced value over its picked elements: ``-sum w_i x_i`` (the op table's
    ``NllLoss.sympy``), divided by the total weight for a mean; ``c`` is (weights, divisor)."""

    name = "nll_loss"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        ws, total = c
        return LO.NllLoss.sympy(sp, *[z for x, w in zip(args, ws) for z in (x, exact_number(sp, w))]) / \
            exact_number(sp, total)

    @staticmethod
    def value(vals, c):
        ws, total = c
        terms = [-w * x for x, w in zip(vals, ws)]
        # every target ignored: a total weight of 0, and PyTorch's nan (0/0)
        return ieee.div(fsum(terms), total), ieee.div(fsum([abs(t) for t in terms]), abs(total))

    @staticmethod
    def partials(vals, c):
        ws, total = c
        return [ieee.div(-w, total) for w in ws]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], ([1.0, 0.5, 2.0], 3.5)


class NllBackwardOf(ElementOp):
    """An element of nll_loss_backward at a picked position: ``-w * g / total`` (``NllLossBackward.sympy``)."""

    name = "nll_loss_backward"
    c_kind = "object"
    variadic = False

    @staticmethod
    def sympy(sp, args, c):
        w, total = c
        return LO.NllLossBackward.sympy(sp, args[0], exact_number(sp, w), exact_number(sp, total))

    @staticmethod
    def value(vals, c):
        w, total = c
        v = ieee.div(-w * vals[0], total)
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        w, total = c
        return [ieee.div(-w, total)]

    @staticmethod
    def sample():
        return [0.75], (2.0, 4.0)


class SoftMarginOf(ElementOp):
    """soft_margin_loss over input elements with constant targets: the sum of
    ``log1p(exp(-a * t))`` (``SoftMarginLoss.sympy``), divided by the number of elements for a
    mean; ``c`` is (targets, reduction, number of elements)."""

    name = "soft_margin_loss"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        ts, reduction, n = c
        total = sp.Add(*[LO.SoftMarginLoss.sympy(sp, a, exact_number(sp, t)) for a, t in zip(args, ts)])
        return total / n if reduction == "mean" else total

    @staticmethod
    def value(vals, c):
        ts, reduction, n = c
        terms = [LO.soft_margin_term(a, t) for a, t in zip(vals, ts)]
        total = fsum(terms)
        return (ieee.div(total, n), ieee.div(total, n)) if reduction == "mean" else (total, total)

    @staticmethod
    def partials(vals, c):
        ts, reduction, n = c
        k = n if reduction == "mean" else 1
        # d/da log1p(exp(-a t)) = -t * sigmoid(-a t)
        return [-t / (1.0 + ieee.exp(a * t)) / k for a, t in zip(vals, ts)]

    @staticmethod
    def sample():
        return [0.75, -1.25], ([1.0, -1.0], "mean", 2)


def _soft_margin(v, vin, vals):
    (x,) = vin
    c = v._c
    if c.reduction == "none":
        return [(SoftMarginOf, ([t], "none", 1), ((x, i),)) for i, t in enumerate(c.targets)]
    return [(SoftMarginOf, (list(c.targets), c.reduction, c.numel), tuple((x, i) for i in range(c.numel)))]


def _pointwise_loss(v, vin, vals):
    a, b = vin
    c = v._c
    op = v._op.base
    elem = LOSS_ELEMENTS[op]
    shape = broadcast_shapes(a._t.shape, b._t.shape)
    pa, pb = positions(a._t.shape, shape), positions(b._t.shape, shape)
    ps = [op.params(c, i) for i in range(len(pa))]
    if c.reduction == "none":
        return [(elem, ([ps[i]], "none", 1), ((a, pa[i]), (b, pb[i]))) for i in range(len(pa))]
    return [(elem, (ps, c.reduction, c.numel), tuple((a, p) for p in pa) + tuple((b, p) for p in pb))]


def _nll(v, vin, vals):
    u = vin[0]
    c = v._c
    if c.per_sample:
        return [(Const, 0.0, ()) if p is None else (NllOf, ([w], 1.0), ((u, p),))
                for p, w in zip(c.picked, c.weights)]
    kept = [(p, w) for p, w in zip(c.picked, c.weights) if p is not None]
    total = c.total_weight if c.reduction == "mean" else 1.0
    return [(NllOf, ([w for _, w in kept], total), tuple((u, p) for p, _ in kept))]


def _nll_backward(v, vin, vals):
    g = vin[0]
    c = v._c
    spec = [(Const, 0.0, ()) for _ in range(len(vals))]
    per_sample = c.per_sample
    total = c.total_weight if c.reduction == "mean" else 1.0
    for b, (p, w) in enumerate(zip(c.picked, c.weights)):
        if p is not None:
            spec[p] = (NllBackwardOf, (w, 1.0 if per_sample else total), ((g, b if per_sample else 0),))
    return spec


elements_of(*LO.POINTWISE_LOSSES)(_pointwise_loss)
elements_of(LO.NllLoss, LO.NllLoss2D)(_nll)
elements_of(LO.SoftMarginLoss)(_soft_margin)
elements_of(LO.NllLossBackward, LO.NllLoss2DBackward)(_nll_backward)
