"""``torch.special``: PyTorch's aliases of the elementwise ops scalargrad has, each the same
function as the op it names (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is
``digamma``, ``multigammaln`` is ``mvlgamma``...), so values and nodes are that op's
(SigmoidBackward0 under ``torch.special.expit``, as PyTorch prints it). Two are ATen composites
of their own: ``round`` always calls ``round.decimals`` (RoundBackward1, integer tensors
refused), ``ndtr`` is ``(1 + erf(x * M_SQRT1_2)) * 0.5`` with C++ Scalars (MulBackward1,
AddBackward1). Every other name of PyTorch 2.13's ``torch.special`` (the Bessel, Chebyshev,
Hermite, Laguerre and Legendre families, ``entr``, ``i0``, ``zeta``, ``gammainc``...) raises
``Unsupported`` naming it."""

from __future__ import annotations

import math

# absolute imports: a program that makes scalargrad its torch by hand (``sys.modules['torch'] =
# scalargrad``) loads this file as ``torch.special`` (see functional.py)
from scalargrad._base.errors import Unsupported
from scalargrad._base.missing_api import missing_attribute
from scalargrad._ops import arithmetic as AR
from scalargrad._tensor import complex_numbers
from scalargrad._tensor.arguments import not_tensor
from scalargrad._tensor.elementwise import with_number
from scalargrad._tensor.surface import FUNCTIONS
from scalargrad._tensor.tensor import Tensor

# torch.special's name -> the torch op it is (torch/special/__init__.py; ATen's special_* ops
# that redispatch to it: aten/src/ATen/native/UnaryOps.cpp, BinaryOps.cpp, SoftMax.cpp...)
_ALIASES = {
    "digamma": "digamma", "psi": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp2": "exp2",
    "expit": "sigmoid", "expm1": "expm1", "gammaln": "lgamma", "log1p": "log1p", "logit": "logit",
    "logsumexp": "logsumexp", "multigammaln": "mvlgamma", "polygamma": "polygamma", "sinc": "sinc",
    "xlogy": "xlogy", "softmax": "softmax", "log_softmax": "log_softmax",
}

globals().update({name: FUNCTIONS[op] for name, op in _ALIASES.items()})


def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:
    """``torch.special.round(input, *, decimals=0)``: ATen's ``special_round`` calls
    ``round.decimals`` even for 0 decimals, so the node is RoundBackward1 and integer tensors are
    refused, unlike ``torch.round(x)``."""
    return FUNCTIONS["round"](input, decimals=decimals, out=out)


def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``torch.special.ndtr(input)``: the standard normal distribution function, as ATen's
    composite ``(1 + erf(input * M_SQRT1_2)) * 0.5`` (the numbers C++ Scalars: MulBackward1,
    AddBackward1; an integer or bool input computes in the default dtype)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "special_ndtr", "input", 1)
    if out is not None:
        raise Unsupported("torch.special.ndtr(out=...)", "the composite is computed without an out= tensor")
    scaled = with_number(AR.MulScalar, input, math.sqrt(0.5))  # M_SQRT1_2
    return with_number(AR.MulScalar, with_number(AR.AddScalar, FUNCTIONS["erf"](scaled), 1), 0.5)


__all__ = sorted([*_ALIASES, "ndtr", "round"])
complex_numbers.register_namespace(globals(), "torch.special.")  # complex operands: refused by name


def __getattr__(name: str):
    return missing_attribute("torch.special", name)
