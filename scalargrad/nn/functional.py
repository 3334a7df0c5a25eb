"""``torch.nn.functional``: activations, dropout, linear and the mean squared error.

The activations are the op table's (``relu``, ``sigmoid``, ``tanh``); ``mse_loss`` is one node,
``MseLossBackward0``, whose derivative is PyTorch's ``mse_loss_backward``. Dropout draws from
scalargrad's reproduction of PyTorch's CPU generator, so a seeded program drops the same
elements as under PyTorch.
"""

from __future__ import annotations

import warnings

from .._base import dtypes, rng
from .._base.dtypes import TensorType, round_list
from .._base.errors import Unsupported
from .._ops import elementwise as E
from .._ops.losses import Loss, MseLoss
from .._tensor import products
from .._tensor.build import binary, broadcast_shapes, positions, result_dtype, unary
from .._tensor.inplace import inplace
from .._tensor.reduce import sum_values
from .._tensor.tensor import Tensor, leaf, make

__all__ = ["relu", "sigmoid", "tanh", "dropout", "mse_loss", "linear"]


def _tensor(x, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's parameter names
    """max(input, 0); ``inplace`` changes ``input`` itself."""
    x = _tensor(input, "relu")
    if inplace:
        return _inplace(x, lambda t: unary(E.Relu, t))
    return unary(E.Relu, x)


def _inplace(x, fn):
    return inplace(x, fn)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + exp(-input))."""
    return unary(E.Sigmoid, _tensor(input, "sigmoid"))


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """tanh(input)."""
    return unary(E.Tanh, _tensor(input, "tanh"))


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
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
        keep = rng.bernoulli_mask(n, p)
        # the scale is computed in the tensor's dtype: noise.div_(1 - p)
        scale = rng.dropout_scale(p) if x._t.dtype is dtypes.float32 else 1.0 / (1.0 - p)
        vals = [scale if k else 0.0 for k in keep]
    noise = leaf(vals if t.ndim else vals[0], t)
    if inplace:
        return _inplace(x, lambda y: binary(E.Mul, y, noise))
    return binary(E.Mul, x, noise)


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


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
             weight=None) -> Tensor:
    """The squared difference of ``input`` and ``target``, reduced ('mean', 'sum' or 'none')."""
    if weight is not None:
        raise Unsupported("mse_loss(weight=...)")
    x = _tensor(input, "mse_loss")
    if not isinstance(target, Tensor):
        raise TypeError(f"mse_loss(): argument 'target' (position 2) must be Tensor, not {type(target).__name__}")
    y = target
    if x.size() != y.size():
        warnings.warn(f"Using a target size ({y.size()}) that is different to the input size ({x.size()}). This will "
                      "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=2)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dt = result_dtype((x, y))
    if not dt.is_floating_point:
        raise RuntimeError(f"\"mse_cpu\" not implemented for '{dt.short}'")
    shape = broadcast_shapes(x._t.shape, y._t.shape)
    xs = _column(x, shape, dt)
    ys = _column(y, shape, dt)
    diff = round_list(dt, [a - b for a, b in zip(xs, ys)])
    sq = round_list(dt, [d * d for d in diff])
    n = len(sq)
    if reduction == "none":
        out_t = TensorType(dt, shape)
        val = sq if shape else sq[0]
    else:
        tmp = leaf(sq if shape else sq[0], TensorType(dt, shape))
        total = sum_values(tmp, tuple(range(len(shape))), dt)[0]
        if reduction == "mean":
            from .._base.ieee import div

            total = dt.round(div(total, float(n)))
        out_t = TensorType(dt, ())
        val = total
    return make(MseLoss, out_t, val, (x, y), Loss(reduction, n))


def _column(x: Tensor, shape: tuple, dt) -> list:
    vals = x._val if x._t.ndim else [x._val]
    if tuple(x._t.shape) != tuple(shape):
        vals = [vals[i] for i in positions(x._t.shape, shape)]
    return vals if x._t.dtype is dt else round_list(dt, vals)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """input @ weight.T + bias (see ``_tensor/products.linear``)."""
    return products.linear(input, weight, bias)


from .activation_functions import (  # noqa: E402 - the activations live in their own module
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    mish,
    relu6,
    relu_,
    selu,
    selu_,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)

__all__ += ["celu", "celu_", "elu", "elu_", "gelu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_",
            "leaky_relu", "leaky_relu_", "logsigmoid", "mish", "relu6", "relu_", "selu", "selu_", "silu", "softplus",
            "softmax", "softmin", "log_softmax",
            "softshrink", "softsign", "tanhshrink", "threshold", "threshold_"]


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"torch.nn.functional.{name}")
