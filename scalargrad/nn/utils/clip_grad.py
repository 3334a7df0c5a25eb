"""Gradient clipping, as ``torch.nn.utils.clip_grad`` does it (``foreach`` changes nothing here).

``clip_grad_norm_``: the norm of each gradient (``torch.linalg.vector_norm``), the norm of those
norms, then ``max_norm / (total_norm + 1e-6)`` clamped at 1 multiplies every gradient in place.
The coefficient and the multiplications are PyTorch's tensor ops (IEEE, bit for bit); the norms
are computed from the exact sum of the elements' powers, rounded once: PyTorch adds them in an
order that depends on its vectorised kernel, so its norm may differ in the last bits.
"""

from __future__ import annotations

import functools
import math
import types
import warnings

from ..._base.dtypes import TensorType, float32, float64
from ..._base.grad_mode import no_grad
from ..._tensor.norms import kernel_norm_values
from ..._tensor.tensor import Tensor, defaults, leaf

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return wrapper


def _vector_norm(t: Tensor, p: float) -> Tensor:
    """``torch.linalg.vector_norm(t, p)`` of every element, as a 0-dim tensor of ``t``'s dtype."""
    dt = t._t.dtype
    xs = [abs(x) for x in (t._val if t._t.ndim else [t._val])]
    if any(x != x for x in xs):
        v = math.nan
    elif p == math.inf:
        v = max(xs) if xs else 0.0
    elif p == -math.inf:
        v = min(xs) if xs else math.inf
    elif p == 0:
        v = float(sum(1 for x in xs if x != 0))
    elif math.inf in xs:
        v = math.inf
    elif p == 1:
        v = math.fsum(xs)
    elif p == 2 and dt in (float32, float64) and len(xs) > 1:  # ATen's kernel, as linalg.vector_norm
        nd = t._t.ndim
        return leaf(kernel_norm_values(t._val, tuple(t._t.shape), tuple(t._t.strides), tuple(range(nd)),
                                    dt is float32)[0], TensorType(dt, ()))
    elif p == 2:
        v = math.sqrt(math.fsum(x * x for x in xs))
    else:
        try:
            v = math.fsum(x**p for x in xs) ** (1.0 / p)
        except (OverflowError, ZeroDivisionError):
            v = math.inf
    return leaf(dt.round(v), TensorType(dt, ()))


@_no_grad
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of the norms of ``tensors`` (a 0-dim tensor; 0.0 for none)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return leaf(defaults["dtype"].round(0.0), TensorType(defaults["dtype"], ()))
    norms = [_vector_norm(g, norm_type) for g in tensors]
    dts = {n._t.dtype for n in norms}
    dt = norms[0]._t.dtype if len(dts) == 1 else max(dts, key=lambda d: d.itemsize)
    stacked = leaf([dt.round(n._val) for n in norms], TensorType(dt, (len(norms),)))
    total = _vector_norm(stacked, norm_type)
    v = total._val
    if error_if_nonfinite and (v != v or v in (math.inf, -math.inf)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Multiply each gradient in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-06)
    clip_coef_clamped = clip_coef.clamp(max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale the gradients of ``parameters`` so that their total norm is at most ``max_norm``;
    returns the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated: ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:  # PyTorch's _group_tensors_by_device_and_dtype refuses an empty list
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    for grad in grads:
        grad.clamp_(min=-clip_value, max=clip_value)
