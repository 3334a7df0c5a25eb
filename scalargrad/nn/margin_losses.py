"""``nn.functional.multi_margin_loss`` and ``multilabel_margin_loss`` (re-exported by
``nn.functional``; modules ``nn.MultiMarginLoss``, ``nn.MultiLabelMarginLoss``): the values of
ATen's CPU kernels (LossMultiMargin.cpp, LossMultiLabelMargin.cpp), each term rounded in the
dtype as they round it and the frames added in double. Their derivatives
(MultiMarginLossBackward0, MultilabelMarginLossBackward0) are not implemented: an input that
requires grad is refused by name, never given another graph.
"""

from __future__ import annotations

from .._base import dtypes, ieee
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._tensor.arguments import not_tensor
from .._tensor.tensor import Tensor, leaf
from .loss_functions import _reduction, legacy_get_string

__all__ = ["multi_margin_loss", "multilabel_margin_loss"]


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _frames(input: Tensor, target: Tensor, name: str) -> tuple:
    for x, arg, pos in ((input, "input", 1), (target, "target", 2)):
        if not isinstance(x, Tensor):
            raise not_tensor(x, name, arg, pos)
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.short}")
    if input.dim() > 2 or (input.dim() == 2 and input.size(1) == 0) or (input.dim() == 1 and input.size(0) == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{_shape(input.shape)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu_kernel\" not implemented for '{input.dtype.short}'")
    nd = input.dim()
    nframe, dim = (1, 1 if nd == 0 else input.size(0)) if nd <= 1 else (input.size(0), input.size(1))
    vals = input._val if nd else [input._val]
    tv = target._val if target.dim() else [target._val]
    return nframe, dim, vals, tv


def _refuse_grad(input: Tensor, name: str) -> None:
    """The refusal of an input that requires grad, made once the operands passed PyTorch's checks
    (a wrong target is PyTorch's error, not a refusal)."""
    if input._rg and is_grad_enabled():
        node = "MultiMarginLossBackward0" if name == "multi_margin_loss" else "MultilabelMarginLossBackward0"
        raise Unsupported(f"the gradient of {name} ({node})")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss: per frame, ``sum_{d != y} max(0, margin - x[y] + x[d]) ** p``
    (times ``weight[y]``) over the number of classes; reduced over frames."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    red = _reduction(reduction)
    nframe, dim, x, t = _frames(input, target, "multi_margin_loss")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {_shape(target.shape)}. "
                           f"Input has shape {_shape(input.shape)}.")
    if weight is not None and (weight.dim() > 1 or weight.numel() != dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {_shape(weight.shape)}")
    dt = input.dtype
    r = dt.round
    m = r(float(margin))
    w = None if weight is None else (weight._val if weight.dim() else [weight._val])
    per = []
    for f in range(nframe):
        y = t[f]
        if not 0 <= y < dim:
            raise RuntimeError("target out of range")
        row = x[f * dim:(f + 1) * dim]
        s = 0.0
        for d in range(dim):
            if d == y:
                continue
            z = r(r(m - row[y]) + row[d])
            if z > 0:
                h = z if p == 1 else r(z * z)
                if w is not None:
                    h = r(h * w[y])
                s = r(s + h)
        per.append(r(s / dim))
    _refuse_grad(input, "multi_margin_loss")
    if red == "none" and target.dim() > 0:
        return leaf(per, TensorType(dt, (nframe,)))
    acc = 0.0
    for s in per:
        acc += s  # accscalar_t: double
    if red == "mean":
        acc = ieee.div(acc, nframe)  # 0 / 0 over a batch of 0 (PyTorch's is uninitialised memory)
    return leaf(r(acc), TensorType(dt, ()))


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: per frame, for each target class ``j`` (the target's leading
    entries up to the first -1) and each other class ``i``, ``max(0, 1 - (x[j] - x[i]))``, summed
    and divided by the number of classes; reduced over frames."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    red = _reduction(reduction)
    nframe, dim, x, t = _frames(input, target, "multilabel_margin_loss")
    ok = (target.dim() <= 1 and target.numel() == dim if input.dim() <= 1 else
          target.dim() == 2 and tuple(target.shape) == (nframe, dim))
    if not ok:
        raise RuntimeError(f"inconsistent target size: {_shape(target.shape)} for input of size: {_shape(input.shape)}")
    if t and (min(t) < -1 or max(t) >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    dt = input.dtype
    r = dt.round
    per = []
    for f in range(nframe):
        row, tr = x[f * dim:(f + 1) * dim], t[f * dim:(f + 1) * dim]
        targets = []
        for j in tr:
            if j < 0:
                break
            targets.append(j)
        chosen = set(targets)
        s = 0.0  # accscalar_t: double, returned in the dtype
        for j in targets:
            for d in range(dim):
                if d not in chosen:
                    z = r(r(1.0 - row[j]) + row[d])
                    if z > 0:
                        s += z
        per.append(r(s))
    _refuse_grad(input, "multilabel_margin_loss")
    if red != "none" or target.dim() <= 1:
        acc = 0.0
        for s in per:
            acc += s
        acc /= dim
        if red == "mean":
            acc = ieee.div(acc, nframe)  # 0 / 0 over a batch of 0 (PyTorch's is uninitialised memory)
        return leaf(r(acc), TensorType(dt, ()))
    return leaf([r(s / dim) for s in per], TensorType(dt, (nframe,)))
