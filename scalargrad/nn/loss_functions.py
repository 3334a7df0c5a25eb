"""The loss functions of ``torch.nn.functional`` (re-exported there): l1_loss, mse_loss,
smooth_l1_loss, huber_loss, binary_cross_entropy, binary_cross_entropy_with_logits, nll_loss,
cross_entropy.

Each follows PyTorch 2.13's Python function (its warnings, checks and legacy ``size_average`` /
``reduce`` arguments, in its order), then ATen: one node per loss where ATen has a derivative for
the loss (``MseLossBackward0``...), the ops ATen composes it of where it has none (l1_loss is
``(input - target).abs().mean()``; cross_entropy is log_softmax then nll_loss, or its formulas
for class probabilities and label smoothing), so the graphs have PyTorch's nodes.
"""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.grad_mode import is_grad_enabled
from .._ops import arithmetic as AR
from .._ops import losses as LO
from .._tensor import losses as TL
from .._tensor import softmax as SMX
from .._tensor.arguments import not_tensor
from .._tensor.elementwise import with_scalar
from .._tensor.factories import tensor as _tensor_of
from .._tensor.fill import masked_fill as _masked_fill
from .._tensor.operands import broadcast_shapes, result_dtype
from .._tensor.reductions import mean as _mean
from .._tensor.reductions import sum as _sum
from .._tensor.tensor import Tensor
from .._tensor.views import contiguous, expand, view

__all__ = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "nll_loss", "cross_entropy", "legacy_get_string", "get_enum"]


def get_enum(reduction: str) -> int:
    """``_Reduction.get_enum``: 'none' 0, 'mean' 1, 'sum' 2; 'elementwise_mean' is a deprecated 'mean'."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduction(reduction: str) -> str:
    return ("none", "mean", "sum")[get_enum(reduction)]


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction the deprecated ``size_average`` and ``reduce`` arguments ask for."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = "mean" if (size_average and reduce) else ("sum" if reduce else "none")
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def _tensor(x, fn: str, arg: str, pos: int) -> Tensor:
    if not isinstance(x, Tensor):
        raise not_tensor(x, fn, arg, pos)
    return x


def _size_warning(input: Tensor, target: Tensor) -> None:  # PyTorch's names
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _broadcast(a: Tensor, b: Tensor) -> tuple:
    """``torch.broadcast_tensors(a, b)``: a tensor already of the common shape is returned itself."""
    shape = broadcast_shapes(a._t.shape, b._t.shape)
    return (a if tuple(a._t.shape) == shape else expand(a, shape),
            b if tuple(b._t.shape) == shape else expand(b, shape))


def _kernel_dtype(x: Tensor, y: Tensor, kernel: str):
    dt = result_dtype((x, y))
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.short}'")
    return dt


def _apply_reduction(t: Tensor, reduction: str) -> Tensor:
    """ATen's ``apply_loss_reduction``: mean(), sum(), or the tensor itself."""
    if reduction == "mean":
        return _mean(t)
    if reduction == "sum":
        return _sum(t)
    return t


def _weighted(errors: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """The weighted reductions of l1/mse/huber (PyTorch's Python code)."""
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _sum(weighted)
    if reduction == "mean":
        return _sum(weighted) / _sum(weight)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---------------------------------------------------------------- l1, mse, smooth_l1, huber


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """The absolute differences, reduced: ``(input - target).abs()`` then ``mean()``/``sum()``."""
    x, y = _tensor(input, "l1_loss", "input", 1), _tensor(target, "l1_loss", "target", 2)
    _size_warning(x, y)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    ex, ey = _broadcast(x, y)
    if weight is not None:
        if weight.size() != x.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted((ex - ey).abs(), weight, reduction)
    return _apply_reduction((ex - ey).abs(), _reduction(reduction))


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """The squared differences, reduced (a MseLossBackward0 node)."""
    x, y = _tensor(input, "mse_loss", "input", 1), _tensor(target, "mse_loss", "target", 2)
    _size_warning(x, y)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    ex, ey = _broadcast(x, y)
    if weight is not None:
        if weight.size() != x.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted((ex - ey) ** 2, weight, reduction)
    red = _reduction(reduction)
    _kernel_dtype(ex, ey, "mse_cpu")
    return TL.pointwise_loss(LO.MseLoss, ex, ey, LO.Loss(red, 0))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere, reduced; beta = 0 is l1_loss."""
    x, y = _tensor(input, "smooth_l1_loss", "input", 1), _tensor(target, "smooth_l1_loss", "target", 2)
    _size_warning(x, y)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    ex, ey = _broadcast(x, y)
    red = _reduction(reduction)
    if beta == 0.0:
        return _apply_reduction((ex - ey).abs(), red)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    dt = _kernel_dtype(ex, ey, "smooth_l1_cpu")
    return TL.pointwise_loss(LO.SmoothL1Loss, ex, ey, LO.Loss(red, 0, beta=beta, param=dt.round(beta)))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere, reduced."""
    x, y = _tensor(input, "huber_loss", "input", 1), _tensor(target, "huber_loss", "target", 2)
    _size_warning(x, y)
    ex, ey = _broadcast(x, y)
    if weight is None:
        return _huber(ex, ey, _reduction(reduction), delta)
    if weight.size() != x.size():
        raise ValueError("Weights and input must have the same size.")
    return _weighted(_huber(ex, ey, "none", delta), weight, reduction)


def _huber(x: Tensor, y: Tensor, reduction: str, delta: float) -> Tensor:
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    dt = _kernel_dtype(x, y, "huber_cpu")
    return TL.pointwise_loss(LO.HuberLoss, x, y, LO.Loss(reduction, 0, delta=delta, param=dt.round(delta)))


# ---------------------------------------------------------------- binary cross entropy


def _not_differentiable(fn: str, arg: str, t: Tensor | None) -> None:
    if t is not None and t._rg and is_grad_enabled():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This input "
                           "cannot have requires_grad True.")


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100, times the weight, reduced."""
    x, y = _tensor(input, "binary_cross_entropy", "input", 1), _tensor(target, "binary_cross_entropy", "target", 2)
    if size_average is not None or reduce is not None:
        red = _reduction(legacy_get_string(size_average, reduce))
    else:
        red = _reduction(reduction)
    if y.size() != x.size():
        raise ValueError(f"Using a target size ({y.size()}) that is different to the input size ({x.size()}) is "
                         "deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = expand(weight, broadcast_shapes(y._t.shape, weight._t.shape))
    _not_differentiable("binary_cross_entropy", "weight", weight)
    dt = _kernel_dtype(x, y, "binary_cross_entropy")
    xv = TL.broadcast_values(x, tuple(x._t.shape), dt)
    yv = TL.broadcast_values(y, tuple(x._t.shape), dt)
    if any(not 0.0 <= v <= 1.0 for v in xv):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if any(not 0.0 <= v <= 1.0 for v in yv):
        raise RuntimeError("all elements of target should be between 0 and 1")
    weights = None if weight is None else TL.broadcast_values(weight, tuple(x._t.shape), dt)
    return TL.pointwise_loss(LO.BinaryCrossEntropy, x, y, LO.Loss(red, 0, weight=weight, weights=weights))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """binary_cross_entropy of sigmoid(input), computed stably from the logits: ``(1 - t) x -
    log_sigmoid(x) * (1 + (pos_weight - 1) t)``, times the weight, reduced."""
    fn = "binary_cross_entropy_with_logits"
    x, y = _tensor(input, fn, "input", 1), _tensor(target, fn, "target", 2)
    if size_average is not None or reduce is not None:
        red = _reduction(legacy_get_string(size_average, reduce))
    else:
        red = _reduction(reduction)
    if not y.size() == x.size():
        raise ValueError(f"Target size ({y.size()}) must be the same as input size ({x.size()})")
    _not_differentiable(fn, "weight", weight)
    _not_differentiable(fn, "pos_weight", pos_weight)
    dt = _kernel_dtype(x, y, "log_sigmoid_cpu")
    shape = tuple(x._t.shape)
    for t in (weight, pos_weight):
        if t is not None:
            broadcast_shapes(shape, t._t.shape)  # the shapes must broadcast (PyTorch's message)
    c = LO.Loss(red, 0, weight=weight, pos_weight=pos_weight,
                weights=None if weight is None else TL.broadcast_values(weight, shape, dt),
                pos_weights=None if pos_weight is None else TL.broadcast_values(pos_weight, shape, dt))
    return TL.pointwise_loss(LO.BinaryCrossEntropyWithLogits, x, y, c)


# ---------------------------------------------------------------- nll_loss, cross_entropy


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """The negative log likelihood: ``-input[i, target[i]] * weight[target[i]]``, reduced (a mean
    divides by the sum of the weights of the samples not ignored)."""
    x, t = _tensor(input, "nll_loss", "input", 1), _tensor(target, "nll_loss", "target", 2)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    return _nll_nd(x, t, weight, _reduction(reduction), ignore_index)


def _nll_nd(x: Tensor, t: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    """ATen's ``nll_loss_nd``: nll_loss for 1-D and 2-D inputs, nll_loss2d for 4-D ones; an input
    of 3 or more than 4 dimensions is made contiguous and viewed as (N, C, 1, -1) (its target as
    (N, 1, -1)) for nll_loss2d, whose unreduced result is viewed back to (N, d1, ..., dK)."""
    nd = x._t.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and x._t.shape[0] != (t._t.shape[0] if t._t.ndim else None):
        raise ValueError(f"Expected input batch_size ({x._t.shape[0]}) to match target batch_size "
                         f"({t._t.shape[0] if t._t.ndim else 0}).")
    if nd <= 2:
        return _nll(x, t, weight, reduction, ignore_index)
    if nd == 4:
        return _nll2d(x, t, weight, reduction, ignore_index)
    n, c = x._t.shape[0], x._t.shape[1]
    out_size = (n, *x._t.shape[2:])
    if tuple(t._t.shape[1:]) != tuple(x._t.shape[2:]):
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(t._t.shape)}")
    x4 = view(contiguous(x), (n, c, 1, -1) if x._t.numel else (n, c, 0, 0))
    t3 = view(contiguous(t), (n, 1, -1) if t._t.numel else (n, 0, 0))
    out = _nll2d(x4, t3, weight, reduction, ignore_index)
    return out if reduction != "none" else view(out, out_size)


def _nll(x: Tensor, t: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    """nll_loss on a 1-D or 2-D input, after the checks of ATen's meta function (the weight's
    requires_grad first: autograd's check comes before the kernel's)."""
    _not_differentiable("nll_loss_forward", "weight", weight)
    if t._t.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {t._t.dtype.short}")
    if t._t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    n_classes = x._t.shape[-1]
    if weight is not None and (weight._t.ndim != 1 or weight._t.numel != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but got "
                           f"weight tensor of shape: {list(weight._t.shape)}")
    if not x._t.dtype.is_floating_point:
        raise NotImplementedError(f"\"nll_loss_out_frame\" not implemented for '{x._t.dtype.short}'")
    _same_dtype(x, weight)
    return TL.nll_loss(x, t, weight, reduction, ignore_index)


def _nll2d(x: Tensor, t: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    """nll_loss2d on an (N, C, H, W) input, after the checks of ATen (its order: the target's
    dtype, ``check_inputs_nll_loss2d``, the input's dtype, then the kernel's reads of the
    weight and target, which must be of the input's dtype and int64); a weight that requires
    grad is autograd's error before them."""
    _not_differentiable("nll_loss2d_forward", "weight", weight)
    if t._t.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {t._t.dtype.short}")
    if t._t.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{t._t.ndim}")
    xs, ts = x._t.shape, t._t.shape
    if weight is not None and weight._t.numel != xs[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (xs[0], xs[2], xs[3]) != tuple(ts):
        raise RuntimeError(f"size mismatch (got input: {list(xs)} , target: {list(ts)}")
    if not x._t.dtype.is_floating_point:
        raise NotImplementedError(f"\"nll_loss2d_forward_out_frame\" not implemented for '{x._t.dtype.short}'")
    _same_dtype(x, weight)
    if t._t.dtype is not dtypes.int64 and (reduction == "none" or t._t.numel):
        raise RuntimeError(f"expected scalar type Long but found {t._t.dtype.short}")
    return TL.nll_loss(x, t, weight, reduction, ignore_index)


def _same_dtype(x: Tensor, weight: Tensor | None) -> None:
    """The kernel reads the weight as the input's dtype: another dtype is ATen's error."""
    if weight is not None and weight._t.dtype is not x._t.dtype:
        raise RuntimeError(f"expected scalar type {x._t.dtype.short} but found {weight._t.dtype.short}")


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the classes (dimension 1, or 0 for an unbatched input), then nll_loss with
    class indices, or ``-(log_softmax * target).sum()`` with class probabilities; label smoothing
    mixes in the uniform distribution, as ATen composes it."""
    x, t = _tensor(input, "cross_entropy", "input", 1), _tensor(target, "cross_entropy", "target", 2)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    red = _reduction(reduction)
    class_dim = 0 if x._t.ndim == 1 else 1
    if tuple(x._t.shape) == tuple(t._t.shape):
        if not t._t.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{t._t.dtype.short}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(x, t, weight, red, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_smoothed(x, t, weight, red, ignore_index, label_smoothing, class_dim)
    return _nll_nd(SMX.softmax(x, class_dim, True), t, weight, red, ignore_index)


def _class_weight(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    if ndim > 1:
        shape = [1] * ndim
        shape[class_dim] = weight._t.shape[0]
        return view(weight, tuple(shape))
    return weight


def _cross_entropy_probabilities(x: Tensor, t: Tensor, weight, red: str, label_smoothing: float,
                                 class_dim: int) -> Tensor:
    n_classes = x._t.shape[class_dim] if x._t.ndim else 1
    if weight is not None and (weight._t.ndim != 1 or weight._t.numel != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight._t.shape)}")
    logp = SMX.softmax(x, class_dim, True)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        t = with_scalar(AR.MulScalar, t, 1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * t
    if weight is not None:
        prod = prod * _class_weight(weight, logp._t.ndim, 1)
    if red == "mean":
        if x._t.numel == 0:  # a mean of nothing: ATen fills the empty sum with nan, in place
            return -_sum(prod).fill_(float("nan"))
        return with_scalar(AR.DivScalar, -_sum(prod), x._t.numel // n_classes)
    if red == "sum":
        return -_sum(prod)
    return -_sum(prod, class_dim)


def _cross_entropy_smoothed(x: Tensor, t: Tensor, weight, red: str, ignore_index: int, label_smoothing: float,
                            class_dim: int) -> Tensor:
    logp = SMX.softmax(x, class_dim, True)
    nll = _nll_nd(logp, t, weight, red, ignore_index)
    n_classes = logp._t.shape[class_dim]
    if weight is not None:
        smooth = -_sum(logp * _class_weight(weight, logp._t.ndim, class_dim), class_dim)
    else:
        smooth = -_sum(logp, class_dim)
    ignore_mask = t == ignore_index
    smooth = _masked_fill(smooth, ignore_mask, 0.0, True)
    if red == "mean":
        if weight is not None:
            kept = [int(v) for v, m in zip(_flat(t), _flat(ignore_mask)) if not m]
            picked = _tensor_of([_flat(weight)[i] for i in kept], dtype=weight._t.dtype)
            ret = _sum(smooth) / _sum(picked)
        else:
            ret = _sum(smooth) / _sum(t != ignore_index)  # the samples not ignored
    elif red == "sum":
        ret = _sum(smooth)
    else:
        ret = smooth
    return with_scalar(AR.MulScalar, nll, 1 - label_smoothing) + with_scalar(AR.MulScalar, ret,
                                                                            label_smoothing / n_classes)


def _flat(t: Tensor) -> list:
    return t._val if t._t.ndim else [t._val]
