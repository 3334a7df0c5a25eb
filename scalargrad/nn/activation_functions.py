"""The activation functions of ``torch.nn.functional`` (re-exported there): leaky_relu, elu,
selu, celu, gelu, silu, mish, softplus, hardtanh, relu6, hardsigmoid, hardswish, logsigmoid,
softshrink, hardshrink, threshold, softsign, tanhshrink, and softmax, softmin, log_softmax
(``_tensor/softmax.py``).

Each elementwise one is an op of ``_ops/activations.py`` applied elementwise, with PyTorch 2.13's argument
checks and messages; its Scalar arguments become the node's parameters, converted to the
tensor's dtype as ATen's kernels convert them. An in-place variant (``inplace=True``) changes
the tensor under PyTorch's in-place rules, with PyTorch's node for it (``LeakyReluBackward1``...).
"""

from __future__ import annotations

import sys
import warnings

from .._base import dtypes
from .._ops import activations as A
from .._ops import rrelu as RR
from .._ops import unary as UN
from .._tensor import gated as _gated
from .._tensor import rrelu as _rrelu
from .._tensor import softmax as _softmax
from .._tensor.arguments import not_tensor
from .._tensor.elementwise import binary, elementwise, unary
from .._tensor.factories import empty_like, zeros_like
from .._tensor.factories import zeros as _zeros
from .._tensor.inplace import inplace as _inplace
from .._tensor.tensor import Tensor

__all__ = ["leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish",
           "softplus", "hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish", "logsigmoid", "softshrink",
           "hardshrink", "threshold", "threshold_", "softsign", "tanhshrink", "relu_", "softmax", "softmin",
           "log_softmax", "gumbel_softmax", "prelu", "rrelu", "rrelu_", "glu"]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _tensor(x, fn: str, arg: str = "input") -> Tensor:
    if not isinstance(x, Tensor):
        raise not_tensor(x, fn, arg, 1)
    return x


def _floating(x: Tensor, kernel: str) -> None:
    """ATen's dispatch refusal of a dtype its kernel has no code for."""
    dt = x._t.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.short}\'')


def _apply(op, x: Tensor, c, inplace: bool, inplace_op=None) -> Tensor:
    if inplace:
        return _inplace(x, lambda t: elementwise(inplace_op or op, (t,), c))
    return elementwise(op, (x,), c)


def _apply_unary(op, x: Tensor, inplace: bool) -> Tensor:
    if inplace:
        return _inplace(x, lambda t: unary(op, t))
    return unary(op, x)


def relu_(input: Tensor) -> Tensor:  # PyTorch's parameter names
    """relu in place."""
    return _inplace(_tensor(input, "relu_"), lambda t: unary(UN.Relu, t))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else ``negative_slope * x``."""
    x = _tensor(input, "leaky_relu")
    _floating(x, "leaky_relu_cpu")
    c = A.LeakyParams(x._t.dtype.round(negative_slope), negative_slope)
    return _apply(A.LeakyRelu, x, c, inplace, A.LeakyReluInplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second (one
    GluBackward0 node, ``_tensor/gated``)."""
    x = _tensor(input, "glu")
    if x.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _gated.glu(x, dim)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU, one RreluWithNoiseBackward0 node. In evaluation, leaky_relu with
    the slope ``(lower + upper) / 2``; in training, each element at or below 0 times its own
    slope drawn from the default generator as ATen draws it (``_tensor/rrelu``)."""
    x = _tensor(input, "rrelu_" if inplace else "rrelu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _floating(x, "leaky_relu_cpu")
    if training:
        if inplace:
            return _inplace(x, lambda t: _rrelu.rrelu_train(t, lower, upper, in_place=True))
        return _rrelu.rrelu_train(x, lower, upper)
    slope = (lower + upper) / 2
    noise = _empty_like(x)  # PyTorch saves an uninitialised noise tensor in evaluation
    c = RR.RreluParams(x._t.dtype.round(slope), slope)
    c.lower, c.upper, c.training, c.noise = lower, upper, False, noise
    return _apply(RR.RreluEval, x, c, inplace, RR.RreluEvalInplace)


def _empty_like(x: Tensor) -> Tensor:
    return _zeros(tuple(x._t.shape), dtype=x._t.dtype)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, True)


def _elu_params(dt, alpha, scale, input_scale, backward_input_scale=None) -> A.EluParams:
    r = dt.round
    return A.EluParams(r(r(alpha) * r(scale)), r(scale), r(input_scale), False, alpha, scale,
                       input_scale if backward_input_scale is None else backward_input_scale)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, ``alpha * (exp(x) - 1)`` below."""
    x = _tensor(input, "elu")
    _floating(x, "elu_cpu")
    return _apply(A.Elu, x, _elu_params(x._t.dtype, alpha, 1, 1), inplace, A.EluInplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants (an EluBackward0 node)."""
    x = _tensor(input, "selu")
    _floating(x, "elu_cpu")
    return _apply(A.Elu, x, _elu_params(x._t.dtype, SELU_ALPHA, SELU_SCALE, 1), inplace, A.EluInplace)


def selu_(input: Tensor) -> Tensor:
    return selu(input, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: elu(x, alpha, 1, 1 / alpha)."""
    x = _tensor(input, "celu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floating(x, "elu_cpu")
    dt = x._t.dtype
    # the forward converts 1. / alpha (a double); the backward 1.0 / alpha.toFloat()
    backward_scale = dt.round(1.0 / dtypes.float32.round(alpha)) if dtypes.float32.round(alpha) else float("inf")
    c = _elu_params(dt, alpha, 1.0, 1.0 / alpha, backward_scale)
    return _apply(A.Celu, x, c, inplace, A.CeluInplace)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (Phi the normal distribution function); ``approximate='tanh'`` its tanh form."""
    x = _tensor(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating(x, "GeluKernelImpl")
    return unary(A.Gelu if approximate == "none" else A.GeluTanh, x)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)``."""
    x = _tensor(input, "silu")
    _floating(x, "silu_cpu")
    return _apply_unary(A.Silu, x, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    x = _tensor(input, "mish")
    _floating(x, "mish_cpu")
    return _apply_unary(A.Mish, x, inplace)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``; x itself where ``beta * x > threshold``."""
    x = _tensor(input, "softplus")
    _floating(x, "softplus_cpu")
    r = x._t.dtype.round
    return elementwise(A.Softplus, (x,), A.SoftplusParams(r(beta), r(threshold), beta, threshold))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)``, with gradient 0 at the bounds."""
    x = _tensor(input, "hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh(x, min_val, max_val, inplace)


def _hardtanh(x: Tensor, min_val, max_val, inplace: bool) -> Tensor:
    dt = x._t.dtype
    if dt is dtypes.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if not dt.is_floating_point:  # integer tensors keep their dtype (the bounds are truncated)
        lo, hi = int(min_val), int(max_val)
        if dt is dtypes.uint8 and (lo < 0 or hi < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    else:
        lo, hi = dt.round(min_val), dt.round(max_val)
    return _apply(A.Hardtanh, x, A.HardtanhParams(lo, hi, min_val, max_val), inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(0, x), 6)``: hardtanh(x, 0, 6)."""
    return _hardtanh(_tensor(input, "relu6"), 0, 6, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x + 3, 0), 6) / 6``."""
    x = _tensor(input, "hardsigmoid")
    _floating(x, "hardsigmoid_cpu")
    return _apply_unary(A.Hardsigmoid, x, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * min(max(x + 3, 0), 6) / 6``."""
    x = _tensor(input, "hardswish")
    _floating(x, "hardswish_cpu")
    return _apply_unary(A.Hardswish, x, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed as ``min(x, 0) - log1p(exp(-|x|))``."""
    x = _tensor(input, "log_sigmoid")
    _floating(x, "log_sigmoid_cpu")
    y = unary(A.LogSigmoid, x)
    if y._op is not None:  # the buffer PyTorch saves: exp(-|x|)
        y._c = unary(UN.Exp, -abs(x.detach()))
    return y


def _lambd(x: Tensor, lambd, kernel: str) -> A.ShrinkParams:
    dt = x._t.dtype
    if dt.is_floating_point:
        top = dtypes.FLOAT32_MAX if dt is dtypes.float32 else sys.float_info.max
        if not 0 <= lambd <= top:
            raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {dt.short}, but found "
                               f"{lambd:g}")
    _floating(x, kernel)
    return A.ShrinkParams(dt.round(lambd), lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above lambd, ``x + lambd`` below -lambd, 0 between."""
    x = _tensor(input, "softshrink")
    if not x._t.dtype.is_floating_point:
        _floating(x, "softshrink_check")
    return elementwise(A.Softshrink, (x,), _lambd(x, lambd, "softshrink_cpu"))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 for ``-lambd <= x <= lambd``, x elsewhere."""
    x = _tensor(input, "hardshrink")
    _floating(x, "hardshrink_cpu")
    return elementwise(A.Hardshrink, (x,), A.ShrinkParams(x._t.dtype.round(lambd), lambd))


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``x <= threshold``, x elsewhere (named ``threshold`` in the namespace, as in
    PyTorch, whose parameter of that name would otherwise hide the function)."""
    x = _tensor(input, "threshold")
    dt = x._t.dtype
    if dt is dtypes.bool:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    r = dt.round
    c = A.ThresholdParams(r(threshold), r(value), threshold, value)
    return _apply(A.Threshold, x, c, inplace, A.ThresholdInplace)


threshold = _threshold


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, True)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``, composed as PyTorch composes it: ``input / (input.abs() + 1)``."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    return input - input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (a SoftmaxBackward0 node)."""
    x = _tensor(input, "softmax")
    if dim is None:
        dim = _get_softmax_dim("softmax", x._t.ndim, _stacklevel)
    return _softmax.softmax(x, dim, False, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-x)``."""
    x = _tensor(input, "softmin")
    if dim is None:
        dim = _get_softmax_dim("softmin", x._t.ndim, _stacklevel)
    return _softmax.softmax(-x, dim, False, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``log(softmax(x))``, computed as ``(x - max) - log(sum(exp(x - max)))``."""
    x = _tensor(input, "log_softmax")
    if dim is None:
        dim = _get_softmax_dim("log_softmax", x._t.ndim, _stacklevel)
    return _softmax.softmax(x, dim, True, dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution, PyTorch 2.13's composite step for step:
    Gumbel noise ``-log(exponential_())`` (the same draws of the generator), ``(logits + noise)
    / tau``, softmax over ``dim``; ``hard``: the one-hot of the maximum plus the soft sample minus
    its detached self (the straight-through gradient). ``eps`` is deprecated and unused."""
    x = _tensor(logits, "empty_like")  # the first op to read it
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(x).exponential_().log()
    gumbels = (x + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(x).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """input where input > 0, else weight * input: one weight, or one per channel (dimension 1),
    viewed to broadcast as ATen's ``prelu`` does before its kernel (``PreluKernelBackward0``)."""
    x, w = _tensor(input, "prelu"), _tensor(weight, "prelu", "weight")
    if x.dtype != w.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {x.dtype.short} and "
                           f"{w.dtype.short}")
    if w.numel() != 1:
        if x.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.size(1) if x.dim() > 1 else 1
        if channels != w.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{w.numel()} and channel size = {channels}.")
    if w.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.dim()}")
    if x.dim() != w.dim():
        shape = [1] * x.dim()
        if x.dim() > 1:
            shape[1] = w.numel()
        w = w.reshape(shape)
    return binary(A.PreluKernel, x, w)
