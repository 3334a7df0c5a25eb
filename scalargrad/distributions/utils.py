"""``torch.distributions.utils``: broadcasting parameters, probabilities to logits and back, and
``lazy_property`` (a parameter computed from the other one on first use)."""

from __future__ import annotations

import functools

from .._base.dtypes import float64
from .._base.grad_mode import enable_grad
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor, get_default_dtype

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property", "finfo_eps",
           "finfo_min", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni

_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}
_MIN = {"float32": -3.4028234663852886e38, "float64": -1.7976931348623157e308}


def finfo_eps(dtype) -> float:
    """``torch.finfo(dtype).eps`` of a float32 or float64 dtype."""
    return _EPS["float64" if dtype is float64 else "float32"]


def finfo_min(dtype) -> float:
    """``torch.finfo(dtype).min``."""
    return _MIN["float64" if dtype is float64 else "float32"]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, bool)


def broadcast_all(*values) -> tuple:
    """Numbers become tensors of the first tensor's dtype (the default dtype if none), then all
    are broadcast to one shape."""
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
        make = FUNCTIONS["tensor"]
        values = [v if isinstance(v, Tensor) else make(v, dtype=dtype or get_default_dtype())
                  for v in values]
    return tuple(FUNCTIONS["broadcast_tensors"](*values))


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def clamp_probs(probs: Tensor) -> Tensor:
    eps = finfo_eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()


class lazy_property:  # PyTorch's name
    """Computed (with grad enabled) on first access, then stored on the instance."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
