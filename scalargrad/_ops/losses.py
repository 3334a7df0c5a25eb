"""Loss functions: one node per loss, with PyTorch's backward kernels.

A pointwise loss (mse, smooth_l1, huber, binary_cross_entropy, binary_cross_entropy_with_logits)
is one node over (input, target): each element's term, times a per-element weight where the
loss has one, then reduced ('mean': sum in ATen's order, then one division by the count;
'sum'; 'none': the terms). The node's ``_c`` is a ``Loss``: the reduction, the number of
elements, the loss's parameters and weights. Each declares its term three times, side by side:
``term(r, a, b, *p)`` as ATen's float kernel computes it (each step rounded by ``r``),
``value``/``partials`` in double, and its SymPy form ``sympy(sp, a, b, *p)``; ``p`` are the
element's parameters (``params(c, i)``).

Their backward kernels (``mse_loss_backward``...) are elementwise ops of (grad, self, target)
declared here too, with derivatives of their own (double backward). ``nll_loss`` picks one
element per sample (per position of an (N, C, H, W) input for nll_loss2d); its node keeps the
targets.
"""

from __future__ import annotations

import math
from collections import namedtuple

from .._base import ieee
from .._base.dtypes import round_list, round_scaled
from .._base.kernel_order import vectorized_count
from . import elementwise as E
from . import unary as UN
from .elementwise import Elementwise
from .table import Op, needed_inputs, register

__all__ = ["Loss", "Nll", "SoftMargin", "SoftMarginBackward", "SoftMarginLoss", "SoftMarginLossBackward",
           "soft_margin_term", "LossBackward", "LOSSES", "REDUCTIONS", "POINTWISE_LOSSES", "BCE_EPSILON"]

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
BCE_EPSILON = 9.999999960041972e-13  # ATen's constexpr float EPSILON = 1e-12, a float32 number


class Loss:
    """What a pointwise loss node keeps: its reduction and number of elements, its parameter
    (``beta`` of smooth_l1, ``delta`` of huber), and its weights: the tensors PyTorch saves
    (``weight``, ``pos_weight``) and their elements broadcast to the loss's shape, in its dtype
    (``weights``, ``pos_weights``; None without)."""

    __slots__ = ("reduction", "numel", "beta", "delta", "param", "weight", "pos_weight", "weights", "pos_weights")

    def __init__(self, reduction: str, numel: int, beta=None, delta=None, weight=None, pos_weight=None,
                 weights=None, pos_weights=None, param=None) -> None:
        self.reduction = reduction
        self.numel = numel
        self.beta = beta  # as given (a double), as PyTorch saves it
        self.delta = delta
        self.param = param  # beta or delta in the loss's dtype, as the forward kernel computes with it
        self.weight = weight
        self.pos_weight = pos_weight
        self.weights = weights
        self.pos_weights = pos_weights

    @property
    def reduction_enum(self) -> int:
        """The reduction as PyTorch saves it (``_saved_reduction``): 0 none, 1 mean, 2 sum."""
        return REDUCTIONS[self.reduction]


LossBackward = namedtuple("LossBackward", "norm p given numel")
"""The parameters of a pointwise loss's backward kernel: its norm (in the dtype: 1 / numel for a
mean, 1 otherwise; mse's 2 / numel or 2), its parameter (beta, delta, bce's epsilon) in the dtype
and as given (a double: ATen's scalar code compares and divides with the double), and the number
of elements for a mean (0 otherwise)."""


class PointwiseLoss(Op):
    """A loss made of one term per element of (input, target), reduced."""

    saved = (("reduction", "c.reduction_enum"), ("self", 0), ("target", 1))

    @staticmethod
    def params(c: Loss, i: int) -> tuple:
        """The parameters of element ``i``'s term (a number each)."""
        return ()

    # (dtype, inputs, targets) -> the rounded terms of a whole list, each rounding cast at once
    # (the same bits as ``term``): None where the terms go one at a time
    terms = None

    @staticmethod
    def term(r, a, b, *p):
        raise NotImplementedError

    @staticmethod
    def value(a, b, *p) -> float:
        """The term in double (exact but for the last rounding)."""
        raise NotImplementedError

    @staticmethod
    def partials(a, b, *p) -> tuple:
        """(d/da, d/db) of the term, in double."""
        raise NotImplementedError

    @classmethod
    def partial_scales(cls, a, b, *p) -> tuple:
        """What the backward kernel's rounding errors are relative to, per partial (its terms,
        where they cancel; by default the partials themselves)."""
        return cls.partials(a, b, *p)

    @staticmethod
    def sample() -> tuple:
        """(a, b, p) on which SymPy proves ``partials`` and ``value`` against ``sympy``."""
        return 0.75, -0.5, ()


def _norm(dt_round, c: Loss, scale: float = 1.0):
    return dt_round(scale / c.numel) if c.reduction == "mean" else dt_round(scale)


# ---------------------------------------------------------------- mse


def _mse_backward_lists(dt, cols, n, c):
    # the forward below over whole columns: each of its three roundings cast at once (the same bits)
    g, x, t = cols
    d = round_list(dt, [a - b for a, b in zip(x, t)])
    nd = round_scaled(dt, [c.norm * e for e in d], c.norm)  # norm 2 (a sum): exact, unless it overflows
    if g.count(1.0) == n:  # the gradient of the loss itself (1.0 spread over the elements): e * 1.0 is e
        return nd
    return round_list(dt, [e * h for e, h in zip(nd, g)])


def _mse_terms(dt, xs, ys):
    d = round_list(dt, [a - b for a, b in zip(xs, ys)])
    return round_list(dt, [e * e for e in d])


@register
class MseLossBackward(Elementwise):
    """mse_loss_backward(grad, self, target): (norm * (self - target)) * grad, norm = 2 / numel
    (a mean) or 2, in the dtype."""

    name = "MseLossBackwardBackward0"
    arity = 3
    uses_c = True
    saved = (("grad_output", 0), ("self", 1), ("target", 2))
    forward = staticmethod(lambda r, g, x, t, c: r(c.norm * r(x - t)) * g)
    by_position = staticmethod(_mse_backward_lists)

    @staticmethod
    def backward(k, g, v):
        go, x, t = k.ins(v)
        c = v._c
        # grad_output: mse_loss_backward(grad, self, target); self: mse_loss_double_backward(grad * grad_output):
        # 2 * that (divided by numel for a mean); target: minus the same
        dd = k.mul(k.const(2.0), k.mul(g, go))
        if c.numel:
            dd = k.div(dd, k.const(float(c.numel)))
        return k.pointwise(MseLossBackward, g, x, t, c=c), dd, k.neg(dd)

    sympy = staticmethod(lambda sp, g, x, t, c: c[0] * (x - t) * g)


@register
class MseLoss(PointwiseLoss):
    """mse_loss(input, target): the squared differences, reduced."""

    name = "MseLossBackward0"
    term = staticmethod(lambda r, a, b: r(a - b) * r(a - b))
    terms = staticmethod(_mse_terms)
    value = staticmethod(lambda a, b: (a - b) * (a - b) if math.isfinite(a - b) else math.inf)
    partials = staticmethod(lambda a, b: (2.0 * (a - b), -2.0 * (a - b)))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        c = v._c
        p = LossBackward(_norm(v._t.dtype.round, c, 2.0), 0.0, 0.0, c.numel if c.reduction == "mean" else 0)
        # self: mse_loss_backward(grad, self, target); target: mse_loss_backward(grad, target, self);
        # with tensors, none for an input that does not require grad (a model's target, as PyTorch)
        ra, rb = needed_inputs(v, 0, 1) if k.bulk else (True, True)
        return (k.pointwise(MseLossBackward, g, a, b, c=p) if ra else None), \
            (k.pointwise(MseLossBackward, g, b, a, c=p) if rb else None)

    @staticmethod
    def sympy(sp, a, b):
        return (a - b) ** 2

    @staticmethod
    def forward(r, a, b):  # the term, for code that reads an op's forward
        d = r(a - b)
        return d * d


# ---------------------------------------------------------------- smooth_l1, huber


def _smooth_l1_backward(r, g, x, t, c):
    # ATen's scalar code: compared with, and divided by, the double beta
    d = r(x - t)
    norm, beta = c.norm, c.given
    if d <= -beta:
        return r(-norm * g)
    if d >= beta:
        return r(norm * g)
    return r(r(norm * d) * g) / beta


def _smooth_l1_vector(r, g, x, t, c):
    # ATen's vectorised code: sign(d) where |d| >= beta, d / beta below, beta in the dtype; times norm, times grad
    d = r(x - t)
    out = (1.0 if d > 0 else -1.0) if abs(d) >= c.p else r(d / c.p)
    return r(c.norm * out) * g


def _by_position(scalar, vector):
    """Elements computed as ``cpu_kernel_vec`` computes them: its vectorised code on the leading
    chunks (``kernel_order.vectorized_count``), its scalar code on the rest."""

    def compute(dt, cols, n, c):
        r = dt.round
        nv = vectorized_count(n, dt.name)
        return [r(vector(r, *args, c) if i < nv else scalar(r, *args, c)) for i, args in enumerate(zip(*cols))]

    return staticmethod(compute)


def _smooth_mask(k, x, t, lim, v):
    """``v`` where |x - t| < lim, else 0 (double backward's ``(d < beta)`` mask)."""
    d = k.sub(x, t)
    return k.where(d < lim, k.where(d > -lim, v, k.zero(v)), k.zero(v))


@register
class SmoothL1LossBackward(Elementwise):
    """smooth_l1_loss_backward(grad, self, target, reduction, beta)."""

    name = "SmoothL1LossBackwardBackward0"
    arity = 3
    uses_c = True
    saved = (("beta", "c.given"), ("grad_output", 0), ("self", 1), ("target", 2))
    forward = staticmethod(_smooth_l1_backward)
    by_position = _by_position(_smooth_l1_backward, _smooth_l1_vector)

    @staticmethod
    def backward(k, g, v):
        go, x, t = k.ins(v)
        c = v._c
        # self: smooth_l1_loss_double_backward(grad * grad_output) = that * (|d| < beta) / beta * norm
        dd = k.mul(_smooth_mask(k, x, t, c.p, k.div(k.mul(g, go), k.const(c.p))), k.const(c.norm))
        return k.pointwise(SmoothL1LossBackward, g, x, t, c=c), dd, k.neg(dd)

    @staticmethod
    def sympy(sp, g, x, t, c):
        d = x - t
        return sp.Piecewise((-c[0] * g, d <= -c[1]), (c[0] * g, d >= c[1]), (c[0] * d * g / c[1], True))


@register
class SmoothL1Loss(PointwiseLoss):
    """smooth_l1_loss(input, target, beta): 0.5 d^2 / beta for |d| < beta, |d| - 0.5 beta else."""

    name = "SmoothL1LossBackward0"
    saved = (("beta", "c.beta"), ("reduction", "c.reduction_enum"), ("self", 0), ("target", 1))
    params = staticmethod(lambda c, i: (c.param,))

    @staticmethod
    def term(r, a, b, beta):
        z = abs(r(a - b))
        return r(r(0.5 * z) * z) / beta if z < beta else z - r(0.5 * beta)

    @staticmethod
    def value(a, b, beta):
        z = abs(a - b)
        return 0.5 * z * z / beta if z < beta else z - 0.5 * beta

    @staticmethod
    def partials(a, b, beta):
        d = a - b
        s = -1.0 if d <= -beta else (1.0 if d >= beta else d / beta)
        return s, -s

    @staticmethod
    def sympy(sp, a, b, beta):
        d = a - b
        # the pieces follow the backward kernel's conditions, so that the kinks take its side
        return sp.Piecewise((-d - beta / 2, d <= -beta), (d - beta / 2, d >= beta), (d * d / (2 * beta), True))

    sample = staticmethod(lambda: (0.75, -0.5, (2.0,)))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        c = v._c
        p = LossBackward(_norm(v._t.dtype.round, c), c.param, c.beta, 0)
        return (k.pointwise(SmoothL1LossBackward, g, a, b, c=p),
                k.pointwise(SmoothL1LossBackward, g, b, a, c=p))


def _huber_backward(r, g, x, t, c):
    # ATen's scalar code: compared with, and multiplied by, the double delta
    d = r(x - t)
    norm, delta = c.norm, c.given
    if d <= -delta:
        return r(-norm * g) * delta
    if d >= delta:
        return r(norm * g) * delta
    return r(norm * d) * g


def _huber_vector(r, g, x, t, c):
    # ATen's vectorised code: sign(d) * delta where |d| >= delta (delta in the dtype), d below
    d = r(x - t)
    out = ((1.0 if d > 0 else -1.0) * c.p) if abs(d) >= c.p else d
    return r(c.norm * out) * g


@register
class HuberLossBackward(Elementwise):
    """huber_loss_backward(grad, self, target, reduction, delta)."""

    name = "HuberLossBackwardBackward0"
    arity = 3
    uses_c = True
    saved = (("delta", "c.given"), ("grad_output", 0), ("self", 1), ("target", 2))
    forward = staticmethod(_huber_backward)
    by_position = _by_position(_huber_backward, _huber_vector)

    @staticmethod
    def backward(k, g, v):
        go, x, t = k.ins(v)
        c = v._c
        # grad_output: huber_loss_double_backward_grad_output; self: grad * grad_output * (|d| < delta) * norm
        dd = k.mul(_smooth_mask(k, x, t, c.p, k.mul(g, go)), k.const(c.norm))
        return k.pointwise(HuberLossBackward, g, x, t, c=c), dd, k.neg(dd)

    @staticmethod
    def sympy(sp, g, x, t, c):
        d = x - t
        return sp.Piecewise((-c[0] * g * c[1], d <= -c[1]), (c[0] * g * c[1], d >= c[1]), (c[0] * d * g, True))


@register
class HuberLoss(PointwiseLoss):
    """huber_loss(input, target, delta): 0.5 d^2 for |d| < delta, delta (|d| - 0.5 delta) else."""

    name = "HuberLossBackward0"
    saved = (("delta", "c.delta"), ("reduction", "c.reduction_enum"), ("self", 0), ("target", 1))
    params = staticmethod(lambda c, i: (c.param,))

    @staticmethod
    def term(r, a, b, delta):
        z = abs(r(a - b))
        return r(r(0.5 * z) * z) if z < delta else delta * r(z - r(0.5 * delta))

    @staticmethod
    def value(a, b, delta):
        z = abs(a - b)
        return 0.5 * z * z if z < delta else delta * (z - 0.5 * delta)

    @staticmethod
    def partials(a, b, delta):
        d = a - b
        s = -delta if d <= -delta else (delta if d >= delta else d)
        return s, -s

    @staticmethod
    def sympy(sp, a, b, delta):
        d = a - b
        return sp.Piecewise((delta * (-d - delta / 2), d <= -delta), (delta * (d - delta / 2), d >= delta),
                            (d * d / 2, True))

    sample = staticmethod(lambda: (0.75, -0.5, (2.0,)))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        c = v._c
        p = LossBackward(_norm(v._t.dtype.round, c), c.param, c.delta, 0)
        return k.pointwise(HuberLossBackward, g, a, b, c=p), k.pointwise(HuberLossBackward, g, b, a, c=p)


# ---------------------------------------------------------------- binary_cross_entropy


def _bce_backward(r, g, x, t, w, c):
    v = r(r(g * r(x - t)) / max(r(r(1.0 - x) * x), c.p))
    v = r(v * w)
    return ieee.div(v, c.norm) if c.norm != 1 else v


@register
class BinaryCrossEntropyBackward(Elementwise):
    """binary_cross_entropy_backward(grad, self, target, weight): grad (x - t) / max((1 - x) x, 1e-12),
    times the weight, divided by numel for a mean (``c.norm`` holds the divisor, 1 otherwise;
    ``c.p`` the epsilon in the dtype)."""

    name = "BinaryCrossEntropyBackwardBackward0"
    arity = 4
    uses_c = True
    saved = (("grad_output", 0), ("self", 1), ("target", 2), ("weight", 3))
    forward = staticmethod(_bce_backward)

    @staticmethod
    def backward(k, g, v):
        go, x, t, w = k.ins(v)
        c = v._c
        # the derivatives of grad (x - t) / ((1 - x) x) * w / norm (FunctionsManual's
        # binary_cross_entropy_double_backward* add 1e-12 to x and 1 - x; these are exact)
        one = k.const(1.0)
        den = k.mul(k.sub(one, x), x)
        gw = k.div(k.mul(k.mul(g, go), w), k.const(c.norm))
        # d/dx: (x^2 - 2 x t + t) / (x (1 - x))^2
        num = k.add(k.sub(k.mul(x, x), k.mul(k.mul(k.const(2.0), x), t)), t)
        gx = k.mul(k.div(num, k.mul(den, den)), gw)
        gt = k.div(k.neg(gw), den)
        ggo = k.div(k.mul(k.mul(k.div(k.sub(x, t), den), g), w), k.const(c.norm))
        return ggo, gx, gt, None

    @staticmethod
    def sympy(sp, g, x, t, w, c):
        return g * (x - t) / ((1 - x) * x) * w / c[0]


@register
class BinaryCrossEntropy(PointwiseLoss):
    """binary_cross_entropy(input, target, weight): -(t log x + (1 - t) log(1 - x)) with each log
    clamped at -100, times the weight."""

    name = "BinaryCrossEntropyBackward0"
    saved = (("reduction", "c.reduction_enum"), ("self", 0), ("target", 1), ("weight", "c.weight"))
    params = staticmethod(lambda c, i: (c.weights[i] if c.weights is not None else 1.0,))

    @staticmethod
    def term(r, a, b, w):
        v = r(r((b - 1.0) * max(r(ieee.log1p(-a)), -100.0)) - r(b * max(r(ieee.log(a)), -100.0)))
        return v if w == 1.0 else v * w

    @staticmethod
    def value(a, b, w):
        la = max(ieee.log(a), -100.0)
        l1 = max(ieee.log1p(-a), -100.0)
        return -w * (b * la + (1.0 - b) * l1)

    @staticmethod
    def partials(a, b, w):
        # -(b / a - (1 - b) / (1 - a)) = (a - b) / ((1 - a) a), which PyTorch's backward computes
        # with the denominator clamped at 1e-12 (finite at 0 and 1); d/db = -logit(a)
        da = ieee.div(a - b, max((1.0 - a) * a, BCE_EPSILON))
        db = -(ieee.log(a) - ieee.log1p(-a))
        return w * da, w * db

    @staticmethod
    def element_convention(a, b):
        if not 0.0 < a < 1.0:
            return ("binary_cross_entropy: at an input of 0 or 1 PyTorch clamps each log at -100 and (1 - x) x at "
                    "1e-12 (calculus: unbounded)")
        return None

    @staticmethod
    def sympy(sp, a, b, w):
        return -w * (b * sp.log(a) + (1 - b) * sp.log(1 - a))

    sample = staticmethod(lambda: (0.25, 0.75, (1.5,)))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        c = v._c
        w = k.held(c.weight) if c.weight is not None else k.one(a)
        p = LossBackward(float(c.numel) if c.reduction == "mean" else 1.0, v._t.dtype.round(BCE_EPSILON), 0.0, 0)
        gx = k.pointwise(BinaryCrossEntropyBackward, g, a, b, w, c=p)
        # target: binary_cross_entropy_target_backward: -logit(self) * grad * weight / numel
        gt = k.mul(k.neg(k.log(k.div(a, k.sub(k.const(1.0), a)))), g)
        if c.weight is not None:
            gt = k.mul(gt, w)
        if c.reduction == "mean":
            gt = k.div(gt, k.const(float(c.numel)))
        return gx, gt


# ---------------------------------------------------------------- binary_cross_entropy_with_logits


def _log_sigmoid(r, x):
    return r(min(x, 0.0) - r(ieee.log1p(r(ieee.exp(-abs(x)))))) if x == x else x


@register
class BinaryCrossEntropyWithLogits(PointwiseLoss):
    """binary_cross_entropy_with_logits(input, target, weight, pos_weight): ATen's composite
    ``(1 - t) x - log_sigmoid(x) * (1 + (pos_weight - 1) t)``, times the weight."""

    name = "BinaryCrossEntropyWithLogitsBackward0"
    saved = (("pos_weight", "c.pos_weight"), ("reduction", "c.reduction_enum"), ("self", 0), ("target", 1),
             ("weight", "c.weight"))

    @staticmethod
    def params(c, i):
        return (c.weights[i] if c.weights is not None else 1.0,
                c.pos_weights[i] if c.pos_weights is not None else 1.0,
                1.0 if c.pos_weights is not None else 0.0)

    @staticmethod
    def term(r, a, b, w, pw, has_pw):
        ls = _log_sigmoid(r, a)
        if has_pw:
            # log_weight = (pos_weight - 1).mul(target).add_(1)
            ls = r(ls * r(r(r(pw - 1.0) * b) + 1.0))
        v = r(r(r(1.0 - b) * a) - ls)
        return v if w == 1.0 else v * w

    @staticmethod
    def value(a, b, w, pw, has_pw):
        ls = -math.log1p(math.exp(-a)) if a > -700 else a  # log(sigmoid(a))
        return w * ((1.0 - b) * a - ls * (1.0 + (pw - 1.0) * b))

    @staticmethod
    def partials(a, b, w, pw, has_pw):
        s = 1.0 / (1.0 + math.exp(-a)) if a > -700 else 0.0
        lw = 1.0 + (pw - 1.0) * b
        ls = -math.log1p(math.exp(-a)) if a > -700 else a
        return w * ((1.0 - b) - (1.0 - s) * lw), w * (-a - ls * (pw - 1.0))

    @staticmethod
    def partial_scales(a, b, w, pw, has_pw):
        # (pw t + 1 - t) sigmoid(x) - pw t, and -x (or the log_sigmoids times pw): their terms
        ls = -math.log1p(math.exp(-a)) if a > -700 else a
        return (abs(w) * (abs(pw * b) + abs(1.0 - b) + 1.0 + abs(pw * b)),
                abs(w) * (abs(a) + abs(ls) * (1.0 + abs(pw))))

    @staticmethod
    def sympy(sp, a, b, w, pw, has_pw):
        return w * ((1 - b) * a + sp.log(1 + sp.exp(-a)) * (1 + (pw - 1) * b))

    sample = staticmethod(lambda: (0.75, 0.25, (1.5, 2.0, 1.0)))

    @staticmethod
    def backward(k, g, v):
        x, t = k.ins(v)
        c = v._c
        s = k.pointwise(UN.Sigmoid, x)
        # binary_cross_entropy_with_logits_backward: (sigmoid(x) - t) * grad, or with pos_weight
        # ((pw * t + 1 - t) * sigmoid(x) - pw * t) * grad; times weight; divided by numel for a mean
        if c.pos_weight is not None:
            pt = k.mul(k.held(c.pos_weight), t)
            gx = k.sub(k.mul(k.sub(k.add(pt, k.const(1.0)), t), s), pt)
        else:
            gx = k.sub(s, t)
        gx = k.mul(gx, g)
        # target: binary_cross_entropy_with_logits_target_backward: -self * grad, or with pos_weight
        # (log_sigmoid(-self) - log_sigmoid(self) * pw) * grad
        if c.pos_weight is not None:
            gt = k.mul(k.sub(k.pointwise(LogSigmoidOp, k.neg(x)), k.mul(k.pointwise(LogSigmoidOp, x),
                                                                         k.held(c.pos_weight))), g)
        else:
            gt = k.mul(k.neg(x), g)
        if c.weight is not None:
            gx = k.mul(gx, k.held(c.weight))
            gt = k.mul(gt, k.held(c.weight))
        if c.reduction == "mean":
            gx = k.div(gx, k.const(float(c.numel)))
            gt = k.div(gt, k.const(float(c.numel)))
        return gx, gt


class LogSigmoidOp(E.Unary):
    """log_sigmoid as a kernel (the target's gradient with pos_weight)."""

    name = "LogSigmoidBackward0"
    forward = staticmethod(_log_sigmoid)
    sympy = staticmethod(lambda sp, x: -sp.log(1 + sp.exp(-x)))


POINTWISE_LOSSES = [MseLoss, SmoothL1Loss, HuberLoss, BinaryCrossEntropy, BinaryCrossEntropyWithLogits]


# ---------------------------------------------------------------- nll_loss

class Nll:
    """What an nll_loss node keeps: the reduction; the input's shape; each sample's target class
    (``targets``), its weight (``weights``: 1.0 without a weight tensor) and the flat input
    position it picks (``picked``: None where the target is ``ignore_index``); the divisor of a
    mean (``total_weight``); and the tensors PyTorch saves (``target``, ``weight``,
    ``total_weight_tensor``)."""

    __slots__ = ("reduction", "shape", "targets", "weights", "picked", "ignore_index", "total_weight", "target",
                 "weight", "total_weight_tensor")

    def __init__(self, reduction, shape, targets, weights, picked, ignore_index, total_weight, target, weight,
                 total_weight_tensor) -> None:
        self.reduction = reduction
        self.shape = tuple(shape)
        self.targets = targets
        self.weights = weights
        self.picked = picked
        self.ignore_index = ignore_index
        self.total_weight = total_weight
        self.target = target
        self.weight = weight
        self.total_weight_tensor = total_weight_tensor

    @property
    def reduction_enum(self) -> int:
        return REDUCTIONS[self.reduction]

    @property
    def per_sample(self) -> bool:
        """One loss per sample (reduction 'none' on a batch: 2-D or 4-D input), not one number."""
        return self.reduction == "none" and len(self.shape) != 1

    @property
    def ignore_index_saved(self) -> int:
        """PyTorch shows the saved SymInt as an unsigned 64-bit number (-100 is 18446744073709551516)."""
        return self.ignore_index % (1 << 64)


@register
class NllLoss(Op):
    """nll_loss(input, target, weight): -input[i, target[i]] * weight[target[i]], summed over the
    samples ('sum'), divided by the sum of their weights ('mean'), or one per sample ('none')."""

    name = "NllLossBackward0"
    saves_inputs = False
    saved = (("ignore_index", "c.ignore_index_saved"), ("reduction", "c.reduction_enum"), ("self", 0),
             ("target", "c.target"), ("total_weight", "c.total_weight_tensor"), ("weight", "c.weight"))

    @staticmethod
    def backward(k, g, v):
        return (k.nll_backward(g, k.ins(v)[0], v._c),)

    @staticmethod
    def sympy(sp, *picked_and_weights):
        """-sum w_i x_i over picked elements x_i with weights w_i (pairs (x, w))."""
        xs = picked_and_weights[0::2]
        ws = picked_and_weights[1::2]
        return -sp.Add(*[w * x for x, w in zip(xs, ws)])


@register
class NllLossBackward(Op):
    """nll_loss_backward(grad_output, self, ...): zeros, and -weight * grad (divided by the total
    weight for a mean) at each sample's target."""

    name = "NllLossBackwardBackward0"
    saves_inputs = False
    saved = (("ignore_index", "c.ignore_index_saved"), ("reduction", "c.reduction_enum"), ("target", "c.target"),
             ("total_weight", "c.total_weight_tensor"), ("weight", "c.weight"))

    @staticmethod
    def backward(k, g, v):
        # grad_output: nll_loss(grad, target, weight, reduction, ignore_index); self: zeros_like(grad)
        return k.nll_forward(g, v._c), k.zero(g)

    @staticmethod
    def sympy(sp, g, w, total):
        """One picked element: -w * g / total (total = 1 but for a mean)."""
        return -w * g / total


@register
class NllLoss2D(NllLoss):
    """nll_loss2d(input, target, weight) on an (N, C, H, W) input and (N, H, W) target: nll_loss
    at each of the N * H * W positions (ATen's nll_loss2d; inputs of 3 or more than 4 dimensions
    reach it through views), with nll_loss's formula and saved values."""

    name = "NllLoss2DBackward0"


@register
class NllLoss2DBackward(NllLossBackward):
    """nll_loss2d_backward: NllLossBackward's formula at each picked (N, C, H, W) position."""

    name = "NllLoss2DBackwardBackward0"


# ---------------------------------------------------------------- soft_margin_loss


class SoftMargin:
    """What a soft_margin_loss node keeps: the reduction, the number of elements, the target
    (not differentiable: no edge) and its elements broadcast to the input's shape."""

    __slots__ = ("reduction", "numel", "target", "targets")

    def __init__(self, reduction: str, numel: int, target, targets: list) -> None:
        self.reduction, self.numel, self.target, self.targets = reduction, numel, target, targets

    @property
    def reduction_enum(self) -> int:
        return REDUCTIONS[self.reduction]


def soft_margin_term(a: float, t: float) -> float:
    """``log1p(exp(-a * t))`` in double (exact but for the last rounding, as ``value``s are)."""
    z = -a * t
    return z + math.log1p(math.exp(-z)) if z > 30 else math.log1p(math.exp(z))


SoftMarginBackward = namedtuple("SoftMarginBackward", "neg_norm numel reduction_enum")
"""The parameters of soft_margin_loss_backward: -norm in the dtype (ATen's ``mul_(-norm)`` with
norm = 1 / numel for a mean, 1 otherwise, a double cast to the tensor's dtype), the number of
elements for a mean (0 otherwise: the double backward divides by it) and the reduction as
PyTorch saves it."""


def _soft_margin_backward(r, g, x, t, c):
    # ATen's soft_margin_loss_backward_out: z = exp(-target * input);
    # mul_out(gi, target, z).mul_(-norm); z.add_(1); gi.div_(z).mul_(grad_output)
    z = r(ieee.exp(r(-t * x)))
    return r(r(r(t * z) * c.neg_norm) / r(z + 1.0)) * g


@register
class SoftMarginLossBackward(Elementwise):
    """soft_margin_loss_backward(grad_output, self, target, reduction): one node, as PyTorch's
    (SoftMarginLossBackwardBackward0, edges to grad_output and self only: the target is not
    differentiable)."""

    name = "SoftMarginLossBackwardBackward0"
    arity = 3
    uses_c = True
    edges = 2
    saved = (("grad_output", 0), ("reduction", "c.reduction_enum"), ("self", 1), ("target", 2))
    forward = staticmethod(_soft_margin_backward)

    @staticmethod
    def backward(k, g, v):
        go, x, t = k.ins(v)
        c = v._c
        # grad_output: soft_margin_loss_double_backward_grad_output: soft_margin_loss_backward(grad,
        # ...) ('none'), else that of ones times grad, summed (the engine sums to grad_output's shape;
        # times 1 is exact); self: soft_margin_loss_double_backward(grad * grad_output, ...):
        # grad * (target * target) * z / (zplus1 * zplus1), z = exp(input * -target), / numel for a mean
        z = k.exp(k.mul(x, k.neg(t)))
        zp1 = k.add(z, k.const(1.0))
        gx = k.div(k.mul(k.mul(k.mul(g, go), k.mul(t, t)), z), k.mul(zp1, zp1))
        if c.numel:
            gx = k.div(gx, k.const(float(c.numel)))
        return k.pointwise(SoftMarginLossBackward, g, x, t, c=c), gx, None

    sympy = staticmethod(lambda sp, g, x, t, c: c[0] * t * sp.exp(-t * x) / (sp.exp(-t * x) + 1) * g)


@register
class SoftMarginLoss(Op):
    """soft_margin_loss(input, target): ``log1p(exp(-input * target))`` per element, reduced; one
    edge (the target is not differentiable)."""

    name = "SoftMarginLossBackward0"
    saved = (("reduction", "c.reduction_enum"), ("self", 0), ("target", "c.target"))

    @staticmethod
    def backward(k, g, v):
        # soft_margin_loss_backward (one node under create_graph); norm = 1. / numel, a double
        # (inf for a mean of no elements, as ATen's)
        c = v._c
        norm = ieee.div(1.0, float(c.numel)) if c.reduction == "mean" else 1.0
        p = SoftMarginBackward(v._t.dtype.round(-norm), c.numel if c.reduction == "mean" else 0,
                               c.reduction_enum)
        return (k.pointwise(SoftMarginLossBackward, g, k.a(v), k.held(c.target), c=p),)

    @staticmethod
    def sympy(sp, a, t):
        return sp.log(1 + sp.exp(-a * t))


LOSSES = POINTWISE_LOSSES + [NllLoss, NllLoss2D, SoftMarginLoss]
