"""``nn.functional.dropout``, ``dropout1d``, ``dropout3d``, ``alpha_dropout`` and
``feature_alpha_dropout`` (re-exported by ``nn.functional``): their own module, as attention
(``attention_functions``) composes dropout too. A transposed (dense, not contiguous) input has its
elements drawn in memory order, as PyTorch draws them (the Transformer's batch_first layers drop out
such tensors)."""

from __future__ import annotations

import math
import warnings

from .._base import dtypes, rng
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.layout import is_non_overlapping_and_dense
from .._ops import arithmetic as AR
from .._tensor.arguments import not_tensor
from .._tensor.elementwise import binary
from .._tensor.inplace import inplace as _inplace
from .._tensor.tensor import Tensor, leaf

__all__ = ["dropout", "dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _in_memory_order(draws: list, t: TensorType) -> list:
    """The draws, made for the elements in memory order, read in logical order. PyTorch draws the
    noise into ``empty_like(input)``, which keeps a dense input's strides (a transposed tensor's),
    and its bernoulli_ kernel fills memory in order; other layouts are drawn contiguous."""
    if t.contiguous or not is_non_overlapping_and_dense(t.shape, t.strides):
        return draws
    offsets = [0]
    for size, stride in zip(t.shape, t.strides):
        offsets = [o + i * stride for o in offsets for i in range(size)]
    return [draws[o] for o in offsets]


def _tensor(x, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise not_tensor(x, fn, 'input', 1)
    return x


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero ``input`` with probability ``p`` and scale it by ``1 / (1 - p)`` otherwise, in
    training; the identity (``input`` itself) in evaluation or when ``p == 0``.

    As PyTorch's CPU kernel: the result is ``input * noise`` (a ``MulBackward0`` node) where
    noise is 0 or ``1 / (1 - p)`` in ``input``'s dtype, drawn from the default generator.
    """
    _check_p(p)
    x = _tensor(input, "dropout")
    if not training or p == 0:
        return x
    t = TensorType(x._t.dtype, x._t.shape)
    n = t.numel
    if p == 1:
        vals = [0.0] * n
    else:
        keep = _in_memory_order(rng.bernoulli_mask(n, p), x._t)
        # the scale is computed in the tensor's dtype: noise.div_(1 - p)
        scale = rng.dropout_scale(p) if x._t.dtype is dtypes.float32 else 1.0 / (1.0 - p)
        vals = [scale if k else 0.0 for k in keep]
    noise = leaf(vals if t.ndim else vals[0], t)
    if inplace:
        return _inplace(x, lambda y: binary(AR.Mul, y, noise))
    return binary(AR.Mul, x, noise)


_ALPHA = 1.7580993408473766  # ATen's alpha_dropout constant (SELU's scale times alpha)


def _dropout_impl(x: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool) -> Tensor:
    """ATen's ``_dropout_impl``: noise drawn ``bernoulli_(1 - p)`` from the default generator,
    per element or per (sample, channel) (``feature``: ``make_feature_noise``), then divided by
    1 - p; for alpha dropout ``a = 1 / sqrt((alpha**2 * p + 1) * (1 - p))``, the result
    ``input * (noise * a) + ((noise - 1) * alpha * a + alpha * a * p)`` (MulBackward0, then
    AddBackward0), each step in the dtype."""
    if p == 0 or not train or x._t.numel == 0:
        return x
    nd = x._t.ndim
    if feature and nd < 2 and p != 1:  # ATen checks it making the noise, which p = 1 needs not
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    dt = x._t.dtype
    shape = tuple(x._t.shape[:2]) + (1,) * (nd - 2) if feature else tuple(x._t.shape)
    t = TensorType(dt, shape)
    n = t.numel
    if p == 1:
        noise = leaf(0.0, TensorType(dt, ()))
        return _inplace(x, lambda y: binary(AR.Mul, y, noise)) if inplace else binary(AR.Mul, x, noise)
    keep = rng.bernoulli_mask(n, p)
    if not feature:
        keep = _in_memory_order(keep, x._t)
    r = dt.round
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        # b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p); noise.mul_(a)
        scale, shift = r(_ALPHA * a), r(_ALPHA * a * p)
        bias = leaf([r(r(r((1.0 if k else 0.0) - 1.0) * scale) + shift) for k in keep], t)
        noise = leaf([r((1.0 if k else 0.0) * r(a)) for k in keep], t)
    else:
        scale = rng.dropout_scale(p) if dt is dtypes.float32 else 1.0 / (1.0 - p)
        noise = leaf([scale if k else 0.0 for k in keep], t)
    if not t.ndim:
        noise = leaf(noise._val[0], t)
        if alpha:
            bias = leaf(bias._val[0], t)
    if alpha:
        if inplace:
            return _inplace(x, lambda y: binary(AR.Add, binary(AR.Mul, y, noise), bias))
        return binary(AR.Add, binary(AR.Mul, x, noise), bias)
    return _inplace(x, lambda y: binary(AR.Mul, y, noise)) if inplace else binary(AR.Mul, x, noise)


def _feature_unbatched(x: Tensor, p: float, training: bool, inplace: bool, name: str) -> Tensor:
    if inplace:
        raise Unsupported(f"{name}(inplace=True) on an input without a batch dimension",
                          "PyTorch unsqueezes and squeezes the input itself in place")
    return _dropout_impl(x.unsqueeze(0), p, training, True, False, False).squeeze(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an (N, C, L) or (C, L) input with probability ``p``, the others
    scaled by 1 / (1 - p) (``feature_dropout``)."""
    _check_p(p)
    x = _tensor(input, "dropout1d")
    inp_dim = x.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if inp_dim != 3:
        return _feature_unbatched(x, p, training, inplace, "dropout1d")
    return _dropout_impl(x, p, training, True, False, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an (N, C, D, H, W) or (C, D, H, W) input with probability ``p``,
    the others scaled by 1 / (1 - p) (``feature_dropout``)."""
    _check_p(p)
    x = _tensor(input, "dropout3d")
    inp_dim = x.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    if inp_dim != 5:
        return _feature_unbatched(x, p, training, inplace, "dropout3d")
    return _dropout_impl(x, p, training, True, False, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps a SELU network's mean and variance: dropped elements set to SELU's
    negative saturation, then an affine correction (ATen's ``alpha_dropout``)."""
    _check_p(p)
    return _dropout_impl(_tensor(input, "alpha_dropout"), p, training, False, True, inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels (ATen's ``feature_alpha_dropout``)."""
    _check_p(p)
    return _dropout_impl(_tensor(input, "feature_alpha_dropout"), p, training, True, True, inplace)
