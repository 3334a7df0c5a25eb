"""``nn.functional.dropout`` (re-exported by ``nn.functional``): its own module, as attention
(``attention_functions``) composes it too. A transposed (dense, not contiguous) input has its
elements drawn in memory order, as PyTorch draws them (the Transformer's batch_first layers drop out
such tensors)."""

from __future__ import annotations

from .._base import dtypes, rng
from .._base.dtypes import TensorType
from .._base.layout import is_non_overlapping_and_dense
from .._ops import arithmetic as AR
from .._tensor.arguments import not_tensor
from .._tensor.elementwise import binary
from .._tensor.inplace import inplace as _inplace
from .._tensor.tensor import Tensor, leaf

__all__ = ["dropout"]


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
