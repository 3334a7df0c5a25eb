"""``logit(eps=None)``: the spelling of the op table's Logit, whose optional ``eps`` the Api
cannot state (the other ops of ``_ops/logarithms.py`` are bound from their declarations)."""

from __future__ import annotations

from .._ops import logarithms as LG
from .arguments import check_input
from .elementwise import elementwise
from .inplace import inplace
from .tensor import Tensor
from .tensor_kernel import helper

__all__ = ["logit", "install", "xlogy_self_backward"]


def logit(x: Tensor, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given (LogitBackward0)."""
    return elementwise(LG.Logit, (x,), None if eps is None else float(eps))


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    method("logit", lambda self, eps=None: logit(self, eps))
    method("logit_", lambda self, eps=None: inplace(self, lambda t: logit(t, eps)))

    def call(input, eps=None, *, out=None):  # PyTorch's names
        check_input("logit", input)
        return logit(input, eps)

    function("logit", call)


@helper
def xlogy_self_backward(g: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """xlogy's gradient for self: ``at::xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)``."""
    return elementwise(LG.Xlogy, (g, b)).masked_fill((a == 0.0) & (b <= 0.0), 0.0)
