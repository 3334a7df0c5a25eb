"""``logit(eps=None)``: the spelling of the op table's Logit, whose optional ``eps`` the Api
cannot state (the other ops of ``_ops/logarithms.py`` are bound from their declarations)."""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._ops import logarithms as LG
from .arguments import check_input
from .elementwise import elementwise
from .inplace import inplace
from .tensor import Tensor, leaf
from .tensor_kernel import helper

__all__ = ["logit", "install", "xlogy_self_backward", "xlog1py_self_backward"]


def _check_eps(eps, name: str, pos: int):
    """``eps`` as PyTorch's parser takes a float: a number or a 0-dim tensor's value, else TypeError."""
    if isinstance(eps, Tensor) and not eps._t.ndim:
        return float(eps.item())
    if eps is not None and (eps.__class__ not in (int, float)):
        raise TypeError(f"{name}(): argument 'eps' (position {pos}) must be float, not {type(eps).__name__}")
    return eps


def logit(x: Tensor, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given (LogitBackward0)."""
    return elementwise(LG.Logit, (x,), None if eps is None else float(eps))


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    def method_logit(self, eps=None):
        return logit(self, _check_eps(eps, "logit", 1))

    def method_logit_(self, eps=None):
        e = _check_eps(eps, "logit_", 1)
        return inplace(self, lambda t: logit(t, e))

    method("logit", method_logit)
    method("logit_", method_logit_)

    def call(input, eps=None, *, out=None):  # PyTorch's names
        check_input("logit", input)
        return logit(input, _check_eps(eps, "logit", 2))

    function("logit", call)


@helper
def xlogy_self_backward(g: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """xlogy's gradient for self: ``at::xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)``."""
    if not isinstance(b, Tensor):  # xlogy(tensor, number): the number as a 0-dim tensor of grad's dtype
        b = leaf(g._t.dtype.round(b), TensorType(g._t.dtype, ()))
    return elementwise(LG.Xlogy, (g, b)).masked_fill((a == 0.0) & (b <= 0.0), 0.0)


@helper
def xlog1py_self_backward(g: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """xlog1py's gradient for self: ``at::xlog1py(grad, other).masked_fill((self == 0.) & (other <= -1.), 0.)``."""
    if not isinstance(b, Tensor):  # xlog1py(tensor, number): the number as a 0-dim tensor of grad's dtype
        b = leaf(g._t.dtype.round(b), TensorType(g._t.dtype, ()))
    return elementwise(LG.SpecialXlog1py, (g, b)).masked_fill((a == 0.0) & (b <= -1.0), 0.0)
