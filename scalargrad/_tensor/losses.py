"""Loss functions on tensors: the pointwise losses' terms and reductions, and nll_loss, in ATen's
CPU order.

A pointwise loss computes each element's term (its op's ``term``, every step rounded to the
dtype), multiplies it by the element's weight (``loss.mul_(weight)``), and reduces as
``apply_loss_reduction``: ``mean()`` (the sum in the order of ATen's sum kernel, then one
division) or ``sum()``. ``nll_loss`` adds its picked elements in ATen's cascade
(``nll_loss_out_frame``, ``nll_loss2d_forward_out_frame``: 8 levels of partial sums, flushed
every 16 samples or positions), subtracting ``data * weight`` with one fused multiply-add
(nll_loss2d: the rounded product), and divides the sum by the total weight for a mean.
"""

from __future__ import annotations

from .._base import dtypes, ieee
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.kernel_order import fma
from .._ops import losses as LO
from .operands import broadcast_shapes, positions, result_dtype
from .reductions import sum_values
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper

__all__ = ["pointwise_loss", "broadcast_values", "nll_loss", "nll_backward", "nll_of_gradient"]


def broadcast_values(t: Tensor, shape: tuple, dt) -> list:
    """``t``'s elements broadcast to ``shape`` (row-major), in dtype ``dt``."""
    vals = t._val if t._t.ndim else [t._val]
    if tuple(t._t.shape) != tuple(shape):
        vals = [vals[i] for i in positions(t._t.shape, shape)]
    return vals if t._t.dtype is dt else [dt.round(v) for v in vals]


def pointwise_loss(op, x: Tensor, y: Tensor, c: LO.Loss) -> Tensor:
    """The loss node of ``op`` (a ``PointwiseLoss``) on input ``x`` and target ``y``, of the
    same shape; ``c`` says the reduction, parameters and weights (``numel`` is set here)."""
    dt = result_dtype((x, y))
    shape = broadcast_shapes(x._t.shape, y._t.shape)
    xs = broadcast_values(x, shape, dt)
    ys = broadcast_values(y, shape, dt)
    r = dt.round
    n = len(xs)
    c.numel = n
    params = op.params
    term = op.term
    if op.terms is not None:
        vals = op.terms(dt, xs, ys)
    else:
        vals = [r(term(r, a, b, *params(c, i))) for i, (a, b) in enumerate(zip(xs, ys))]
    if c.reduction == "none":
        return make(op, TensorType(dt, shape), vals if shape else vals[0], (x, y), c)
    tmp = leaf(vals if shape else vals[0], TensorType(dt, shape))
    total = sum_values(tmp, tuple(range(len(shape))), dt)[0]
    if c.reduction == "mean":
        total = r(ieee.div(total, float(n)))
    return make(op, TensorType(dt, ()), total, (x, y), c)


# ---------------------------------------------------------------- nll_loss


def nll_loss(x: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    """``nll_loss(x, target, weight, reduction, ignore_index)`` for a 1-D or 2-D ``x``, and
    ``nll_loss2d`` for a 4-D one (N, C, H, W) with an (N, H, W) target (the checks of ATen's
    meta functions are the caller's): one pick per sample (per position), in ATen's order."""
    dt = x._t.dtype
    r = dt.round
    shape = tuple(x._t.shape)
    spatial = len(shape) == 4
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    xv = x._val
    tv = target._val if target._t.ndim else [target._val]
    wv = None
    if weight is not None:
        wv = weight._val if weight._t.ndim else [weight._val]
    batch = 1 if len(shape) == 1 else shape[0]
    map_size = shape[2] * shape[3] if spatial else 1
    sample_size = n_classes * map_size
    picked: list = []
    weights: list = []
    for b in range(batch):
        for e in range(map_size):
            t = int(tv[b * map_size + e])
            if t == ignore_index:
                picked.append(None)
                weights.append(0.0)
                continue
            if not 0 <= t < n_classes:
                raise IndexError(f"Target {t} is out of bounds.")
            picked.append(b * sample_size + t * map_size + e)
            weights.append(wv[t] if wv is not None else 1.0)
    numiter = len(picked)
    if reduction == "none" and len(shape) != 1:
        out = [0.0 if p is None else r(-xv[p] * w) for p, w in zip(picked, weights)]
        total_weight = 0.0
        val = out
        out_t = TensorType(dt, (batch, shape[2], shape[3]) if spatial else (batch,))
    else:
        loss_sum, total_weight = _cascade(xv, picked, weights, wv is not None, dt, numiter, spatial)
        if reduction == "mean":
            loss_sum = r(ieee.div(loss_sum, total_weight))
        val = loss_sum
        out_t = TensorType(dt, ())
    tw = leaf(r(total_weight), TensorType(dt, ()))
    c = LO.Nll(reduction, shape, [int(v) for v in tv], weights, picked, ignore_index, r(total_weight), target,
               weight, tw)
    return make(LO.NllLoss2D if spatial else LO.NllLoss, out_t, val, (x,), c)


def _cascade(xv: list, picked: list, weights: list, weighted: bool, dt, batch: int, spatial: bool = False) -> tuple:
    """ATen's cascaded sums of ``-data * weight`` and of the weights (nll_loss_out_frame; for
    nll_loss2d, ``spatial``, its loop rounds the product before subtracting it: no fused
    multiply-add there, measured against PyTorch 2.13; nor on float16/bfloat16)."""
    r = dt.round
    f32 = dt is dtypes.float32
    fused = (f32 or dt is dtypes.float64) and not spatial
    levels, power = 8, 4
    mask0 = (1 << power) - 1
    loss = [0.0] * levels
    wsum = [0.0] * levels
    ignored = 0
    for b in range(batch):
        p = picked[b]
        if p is None:
            ignored += 1
            continue
        if weighted:
            # loss -= data * weight: one fused multiply-add in nll_loss's float/double loop;
            # nll_loss2d's, and any loop on Half/BFloat16 (whose operator* returns the type),
            # round the product first
            if fused:
                loss[0] = fma(-xv[p], weights[b], loss[0], f32)
            else:
                loss[0] = r(loss[0] - r(xv[p] * weights[b]))
            wsum[0] = r(wsum[0] + weights[b])
        else:
            loss[0] = r(loss[0] - xv[p])
        for j in range(levels - 1):
            if b & (mask0 << (j * power)):
                break
            wsum[j + 1] = r(wsum[j + 1] + wsum[j])
            loss[j + 1] = r(loss[j + 1] + loss[j])
            wsum[j] = 0.0
            loss[j] = 0.0
    total = 0.0
    for v in loss:
        total = r(total + v)
    if weighted:
        tw = 0.0
        for v in wsum:
            tw = r(tw + v)
    else:
        tw = float(batch - ignored)
    return total, tw


def nll_backward(g, x: Tensor, c: LO.Nll) -> Tensor:
    """``nll_loss_backward(grad, self, ...)``: zeros, and ``weight * -grad`` (``-grad / total_weight``
    for a mean) at each picked element; a node of its own under create_graph (``self`` an input
    of it, with a zero derivative, as in PyTorch)."""
    dt = g._t.dtype
    r = dt.round
    gv = g._val if g._t.ndim else [g._val]
    n = 1
    for s in c.shape:
        n *= s
    out = [0.0] * n
    if c.per_sample:
        for b, (p, w) in enumerate(zip(c.picked, c.weights)):
            if p is not None:
                out[p] = r(-w * gv[b])
    else:
        go = gv[0]
        grad = -(r(ieee.div(go, c.total_weight)) if c.reduction == "mean" else go)
        for p, w in zip(c.picked, c.weights):
            if p is not None:
                out[p] = r(w * grad) if c.weight is not None else grad
    op = LO.NllLoss2DBackward if len(c.shape) == 4 else LO.NllLossBackward
    return make(op, TensorType(dt, c.shape), out, (g, x), c)


def nll_of_gradient(g: Tensor, c: LO.Nll) -> Tensor:
    """The derivative of nll_loss_backward by its grad_output: ``nll_loss(grad, target, weight, ...)``."""
    dt = g._t.dtype
    gv = g._val
    r = dt.round
    numiter = len(c.picked)
    if c.per_sample:
        out = [0.0 if p is None else r(-gv[p] * w) for p, w in zip(c.picked, c.weights)]
        return _nll_result(g, c, out, (c.shape[0], c.shape[2], c.shape[3]) if len(c.shape) == 4 else (numiter,))
    total, _ = _cascade(gv, c.picked, c.weights, c.weight is not None, dt, numiter, len(c.shape) == 4)
    if c.reduction == "mean":
        total = r(ieee.div(total, c.total_weight))
    return _nll_result(g, c, total, ())


def _nll_result(g: Tensor, c: LO.Nll, val, shape: tuple) -> Tensor:
    return make(LO.NllLoss2D if len(c.shape) == 4 else LO.NllLoss, TensorType(g._t.dtype, shape), val, (g,), c)


helper(nll_backward)
helper(nll_of_gradient, name="nll_forward")


def soft_margin_loss(x: Tensor, target: Tensor, reduction: str) -> Tensor:
    """``soft_margin_loss``: ATen's ``neg(input).mul_(target).exp_().log1p_()``, each step
    rounded in the dtype, then the reduction (the target broadcast to the input's shape)."""
    dt = x._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"soft_margin_loss on {dt.name} tensors")
    shape = tuple(x._t.shape)
    if broadcast_shapes(shape, target._t.shape) != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shapes(shape, target._t.shape))}")
    r = dt.round
    xs = broadcast_values(x, shape, dt)
    ts = broadcast_values(target, shape, dt)
    vals = [r(ieee.log1p(r(ieee.exp(r(-a * b))))) for a, b in zip(xs, ts)]
    c = LO.SoftMargin(reduction, len(vals), target, ts)
    if reduction == "none":
        return make(LO.SoftMarginLoss, TensorType(dt, shape), vals if shape else vals[0], (x,), c)
    tmp = leaf(vals if shape else vals[0], TensorType(dt, shape))
    total = sum_values(tmp, tuple(range(len(shape))), dt)[0]
    if reduction == "mean":
        total = r(ieee.div(total, float(len(vals))))
    return make(LO.SoftMarginLoss, TensorType(dt, ()), total, (x,), c)
