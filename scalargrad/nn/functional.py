"""``torch.nn.functional`` for scalars: activations, dropout and the mean squared error.

``mse_loss`` records its own node, ``MseLossBackward0``, whose derivative is PyTorch's
``mse_loss_backward`` (``2 * (input - target) * grad``, rounded per operation as the CPU
kernel rounds). Dropout draws from scalargrad's reproduction of PyTorch's CPU generator, so a
seeded program drops the same elements as under PyTorch.
"""

from __future__ import annotations

import warnings

from .. import ops
from ..dtypes import TensorType, result_type
from ..value import Value, _inplace, leaf, make

__all__ = ["relu", "sigmoid", "tanh", "dropout", "mse_loss", "linear"]


def _tensor(x, fn: str) -> Value:
    if not isinstance(x, Value):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


def relu(input: Value, inplace: bool = False) -> Value:  # noqa: A002 - PyTorch's parameter names
    """max(input, 0); ``inplace`` changes ``input`` itself."""
    x = _tensor(input, "relu")
    if inplace:
        return _inplace(x, lambda _: x.relu(), None)
    return x.relu()


def sigmoid(input: Value) -> Value:  # noqa: A002
    """1 / (1 + exp(-input))."""
    return _tensor(input, "sigmoid").sigmoid()


def tanh(input: Value) -> Value:  # noqa: A002
    """tanh(input)."""
    return _tensor(input, "tanh").tanh()


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Value, p: float = 0.5, training: bool = True, inplace: bool = False) -> Value:  # noqa: A002
    """Zero ``input`` with probability ``p`` and scale it by ``1 / (1 - p)`` otherwise, in
    training; the identity (``input`` itself) in evaluation or when ``p == 0``.

    As PyTorch's CPU kernel: the result is ``input * noise`` (a ``MulBackward0`` node) where
    noise is 0 or ``1 / (1 - p)`` in ``input``'s dtype, drawn from the default generator.
    """
    _check_p(p)
    x = _tensor(input, "dropout")
    if not training or p == 0:
        return x
    from .. import random

    t = TensorType(x.dtype, x.shape)
    if p == 1:
        noise = leaf(0.0, TensorType(x.dtype, ()))
    elif random.bernoulli_mask(1, p)[0]:
        # the scale is computed in the tensor's dtype: noise.div_(1 - p)
        scale = random.dropout_scale(p) if x.dtype.name == "float32" else 1.0 / (1.0 - p)
        noise = leaf(scale, t)
    else:
        noise = leaf(0.0, t)
    if inplace:
        return _inplace(x, x.__mul__, noise)
    return x * noise


class MseLoss(ops.Op):
    """(input - target)**2 of one element (its mean and sum are itself)."""

    name = "MseLossBackward0"

    @staticmethod
    def forward(r, a, b):
        d = r(a - b)
        return d * d

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        # mse_loss_backward: norm * (input - target) * grad, norm = 2 / numel = 2; the target's
        # gradient is the same formula with the operands swapped
        ga = k.mul(k.mul(k.const(2.0), k.sub(a, b)), g)
        gb = k.mul(k.mul(k.const(2.0), k.sub(b, a)), g)
        return ga, gb

    sympy = staticmethod(lambda sp, a, b: (a - b) ** 2)


_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce) -> str:
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = "mean" if (size_average and reduce) else ("sum" if reduce else "none")
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  UserWarning, stacklevel=3)
    return ret


def mse_loss(input: Value, target: Value, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
             weight=None) -> Value:
    """The squared difference of ``input`` and ``target`` (``reduction``: 'mean', 'sum' or
    'none'; on one element all three give the same number, 'none' keeps the broadcast shape)."""
    if weight is not None:
        from ..runner import Unsupported

        raise Unsupported("mse_loss(weight=...)")
    x = _tensor(input, "mse_loss")
    y = _tensor(target, "mse_loss")
    if x.size() != y.size():
        warnings.warn(f"Using a target size ({y.size()}) that is different to the input size ({x.size()}). This will "
                      "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=2)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    t = result_type(x._t, y._t)
    if not t.dtype.is_floating_point:
        t = t.with_dtype(x.dtype if x.dtype.is_floating_point else y.dtype)
    if reduction != "none":
        t = TensorType(t.dtype, ())
    r = t.dtype.round
    return make(MseLoss, t, r(MseLoss.forward(r, x._val, y._val)), (x, y))


def linear(input: Value, weight: Value, bias: Value | None = None) -> Value:  # noqa: A002
    """input @ weight.T + bias (see ``products.linear``)."""
    from ..products import linear as _linear

    return _linear(input, weight, bias)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    from ..runner import Unsupported

    raise Unsupported(f"torch.nn.functional.{name}")
