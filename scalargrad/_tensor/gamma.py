"""The spellings of the gamma family's ops whose arguments the op table's Api cannot state:
``torch.polygamma(n, input)`` / ``Tensor.polygamma(n)`` (the order first) and
``torch.mvlgamma(input, p)`` / ``Tensor.mvlgamma(p)`` (lgamma and digamma are bound from their
declarations in ``_ops/gamma.py``); mvlgamma's backward, composed of tensor ops as ATen's
``mvlgamma_backward``."""

from __future__ import annotations

from .._ops import gamma as GM
from .arguments import check_input
from .elementwise import elementwise
from .inplace import inplace
from .ranges import arange
from .tensor import Tensor, get_default_dtype
from .tensor_kernel import helper

__all__ = ["polygamma", "mvlgamma", "install"]


def _order(n, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


def polygamma(n: int, input: Tensor, _op=GM.Polygamma) -> Tensor:
    """``torch.polygamma(n, input)``: the n-th derivative of digamma (PolygammaBackward0;
    ``Tensor.polygamma_``'s node is PolygammaBackward1)."""
    n = _order(n, "polygamma")
    check_input("polygamma", input)
    return elementwise(_op, (input,), n)


def _check_mvlgamma(x: Tensor, p, pos: int = 2) -> int:
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"mvlgamma(): argument 'p' (position {pos}) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return p


def mvlgamma(input: Tensor, p: int, _pos: int = 2) -> Tensor:
    """``torch.mvlgamma(input, p)``: the multivariate log-gamma function of dimension p
    (MvlgammaBackward0). PyTorch 2.13 no longer checks the domain (every element above
    (p - 1) / 2): a point at a pole of lgamma gives inf, as there."""
    check_input("mvlgamma", input)
    return elementwise(GM.Mvlgamma, (input,), _check_mvlgamma(input, p, _pos))


@helper
def mvlgamma_backward(g: Tensor, x: Tensor, p: int) -> Tensor:
    """ATen's mvlgamma_backward: grad * (arange(-p / 2 + 1 / 2, 1 / 2, 1 / 2) + x.unsqueeze(-1))
    .digamma_().sum(-1)."""
    dt = x._t.dtype if x._t.dtype.is_floating_point else get_default_dtype()
    args = arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=dt).add(x.unsqueeze(-1))
    return g * args.digamma_().sum(-1)


def install(method, function) -> None:
    """polygamma and mvlgamma (and in place)."""
    function("polygamma", lambda n, input: polygamma(n, input))
    method("polygamma", lambda self, n: polygamma(n, self))
    method("polygamma_", lambda self, n: inplace(self, lambda t: polygamma(n, t, GM.PolygammaInplace)))
    function("mvlgamma", lambda input, p: mvlgamma(input, p))
    method("mvlgamma", lambda self, p: mvlgamma(self, p, 1))
    method("mvlgamma_", lambda self, p: inplace(self, lambda t: mvlgamma(t, p, 1)))

