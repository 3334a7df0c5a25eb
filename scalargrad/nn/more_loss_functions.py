"""soft_margin_loss (one SoftMarginLossBackward0 node, ``_tensor/losses``) and the losses PyTorch
composes of other ops (re-exported by ``nn.functional``): kl_div,
margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, poisson_nll_loss,
gaussian_nll_loss, multilabel_soft_margin_loss, pairwise_distance, triplet_margin_loss,
triplet_margin_with_distance_loss and linear_cross_entropy (its reference path).

Each follows PyTorch 2.13's Python function (warnings, checks, legacy ``size_average`` /
``reduce``), then ATen's composite in ``Loss.cpp`` / ``Distance.cpp`` op for op (a C++ ``tensor +
scalar`` is ``add.Scalar``: AddBackward1 (``_add``), ``scalar - tensor`` is
``empty_like(b).fill_(a).sub_(b)``: SubBackward0), so the values are those ops' and the graphs
have PyTorch's nodes.
"""

from __future__ import annotations

import math
import warnings

from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled, no_grad
from .._ops import arithmetic as AR
from .._tensor import losses as TL
from .._tensor import products
from .._tensor.elementwise import with_number
from .._tensor.norms import aten_norm
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from .activation_functions import logsigmoid
from .loss_functions import cross_entropy, get_enum, legacy_get_string

__all__ = ["soft_margin_loss", "kl_div", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss", "pairwise_distance",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "linear_cross_entropy"]

EPSILON = 9.999999960041972e-13  # ATen's Loss.cpp: constexpr float EPSILON = 1e-12


def _enum(size_average, reduce, reduction: str) -> int:
    if size_average is not None or reduce is not None:
        return get_enum(legacy_get_string(size_average, reduce))
    return get_enum(reduction)


def _reduce(output: Tensor, reduction: int) -> Tensor:
    """ATen's ``apply_loss_reduction``: 1 the mean, 2 the sum, 0 the elements."""
    if reduction == 1:
        return output.mean()
    if reduction == 2:
        return output.sum()
    return output


def _add(a: Tensor, b: float) -> Tensor:
    """C++'s ``a + b`` (or ``b + a``) for a Scalar ``b``: ``add.Scalar`` (AddBackward1)."""
    return with_number(AR.AddScalar, a, b)


def _rsub(a: float, b: Tensor) -> Tensor:
    """C++'s ``a - b`` for a Scalar ``a``: ``empty_like(b).fill_(a).sub_(b)`` (SubBackward0)."""
    return FUNCTIONS["full_like"](b, a).sub_(b)


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The pointwise KL divergence ``target * (log(target) - input)`` (``xlogy(target, target) -
    target * input``; with ``log_target``, ``exp(target) * (target - input)``), reduced;
    'batchmean' is the sum divided by the batch size."""
    if size_average is not None or reduce is not None:
        reduction_enum = get_enum(legacy_get_string(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        reduction_enum = get_enum("sum") if reduction == "batchmean" else get_enum(reduction)
    for t in (input, target):
        if t.is_complex():
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if not t.is_floating_point():
            raise RuntimeError("kl_div: Integral inputs not supported.")
    # ATen's C++ evaluates the right operand first (GCC): its node is made first, so the
    # engine runs it last, and a target that needs grad adds its gradients in that order
    if log_target:
        diff = target - input
        output = FUNCTIONS["exp"](target) * diff
    else:
        product = target * input
        output = FUNCTIONS["xlogy"](target, target) - product
    reduced = _reduce(output, reduction_enum)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` per element, reduced: one SoftMarginLossBackward0 node
    (the target is not differentiable, as in PyTorch)."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if target.requires_grad and is_grad_enabled():
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument "
                           "'target'. This input cannot have requires_grad True.")
    return TL.soft_margin_loss(input, target, ("none", "mean", "sum")[reduction_enum])


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``, reduced."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    output = _add(-target * (input1 - input2), margin).clamp_min_(0)
    return _reduce(output, reduction_enum)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where the target is 1, ``max(0, margin - input)`` where it is -1 (both where it
    is neither), reduced."""
    reduction_enum = _enum(size_average, reduce, reduction)
    where = FUNCTIONS["where"]
    zeros = FUNCTIONS["zeros_like"](input)
    margin_clamp = _rsub(margin, input).clamp_min_(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction_enum)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` where the target is 1, ``max(0, cos - margin)`` where it is
    -1, the cosine over the last dimension (ATen's, with 1e-12 added to each squared norm)."""
    reduction_enum = _enum(size_average, reduce, reduction)
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and input1.dim() != 2:
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{_sizes(input1)} and {_sizes(input2)}.")
    if targ_dim == 0 and input1.dim() != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{_sizes(input1)} and {_sizes(input2)}.")
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = _add((input1 * input1).sum(targ_dim), EPSILON)
    mag_square2 = _add((input2 * input2).sum(targ_dim), EPSILON)
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    where = FUNCTIONS["where"]
    zeros = FUNCTIONS["zeros_like"](cos)
    pos = _rsub(1, cos)
    neg = with_number(AR.SubScalar, cos, margin).clamp_min_(0)
    output_pos = where(target == 1, pos, zeros)
    output_neg = where(target == -1, neg, zeros)
    return _reduce(output_pos + output_neg, reduction_enum)


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """The Poisson negative log likelihood: ``exp(input) - target * input`` (``log_input``) or
    ``input - target * log(input + eps)``, with Stirling's term where the target exceeds 1
    (``full``), reduced."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    log = FUNCTIONS["log"]
    if log_input:
        loss = FUNCTIONS["exp"](input) - target * input
    else:
        loss = input - target * log(_add(input, eps))
    if full:
        stirling_term = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss += stirling_term.masked_fill(target <= 1, 0)
    return _reduce(loss, get_enum(reduction))


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """The Gaussian negative log likelihood ``0.5 * (log(var) + (input - target)**2 / var)`` with
    ``var`` raised to ``eps`` (no gradient through that clamp), PyTorch's Python function."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * FUNCTIONS["ones_like"](input)
    elif FUNCTIONS["any"](var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = FUNCTIONS["unsqueeze"](var, -1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass  # the heteroscedastic case
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (FUNCTIONS["log"](var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """The mean over the classes of ``-(target * logsigmoid(input) + (1 - target) *
    logsigmoid(-input))`` (times ``weight``), reduced over the batch."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension (NormBackward1)."""
    output_dim = max(x1.dim(), x2.dim())
    return aten_norm(_add(x1 - x2, eps), p, output_dim - 1, keepdim)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with d the pairwise
    distance (``swap``: the smaller of d(anchor, negative) and d(positive, negative)), reduced."""
    reduction_enum = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = pairwise_distance(positive, negative, p, eps)
        dist_neg = FUNCTIONS["minimum"](dist_neg, dist_swap)
    output = FUNCTIONS["clamp_min"](_add(dist_pos, margin) - dist_neg, 0)
    return _reduce(output, reduction_enum)


def _same_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with any ``distance_function`` (default ``pairwise_distance``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = FUNCTIONS["minimum"](dist_neg, dist_swap)
    loss = FUNCTIONS["clamp_min"](margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return FUNCTIONS["sum"](loss)
    if reduction == "mean":
        return FUNCTIONS["mean"](loss)
    return loss


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``: PyTorch's
    reference path (``options=None``), its checks first; the chunked path is refused."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None:
        raise Unsupported("linear_cross_entropy's chunked path (options=LinearCrossEntropyOptions(...))",
                          "only the reference path, options=None, is implemented")
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((rows, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = products.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)
