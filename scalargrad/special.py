"""``torch.special``: PyTorch's aliases of the elementwise ops scalargrad has, each the same
function as the op it names (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is
``digamma``, ``multigammaln`` is ``mvlgamma``...), so values and nodes are that op's
(SigmoidBackward0 under ``torch.special.expit``, as PyTorch prints it). Two are ATen composites
of their own: ``round`` always calls ``round.decimals`` (RoundBackward1, integer tensors
refused), ``ndtr`` is ``(1 + erf(x * M_SQRT1_2)) * 0.5`` with C++ Scalars (MulBackward1,
AddBackward1). Every other name of PyTorch 2.13's ``torch.special`` (the Bessel, Chebyshev,
Hermite, Laguerre and Legendre families, the Airy and Bessel J/Y/K functions...) raises
``Unsupported`` naming it. The ops of ``torch.special`` alone (``i0e``, ``i1``, ``i1e``...:
``special_i1`` has no ``torch.i1``) are declared in their families (``_ops/bessel.py``...) and
spelled here (``_OWN``)."""

from __future__ import annotations

import math

# absolute imports: a program that makes scalargrad its torch by hand (``sys.modules['torch'] =
# scalargrad``) loads this file as ``torch.special`` (see functional.py)
from scalargrad._base.dtypes import bfloat16, float16
from scalargrad._base.errors import Unsupported
from scalargrad._base.missing_api import missing_attribute
from scalargrad._ops import arithmetic as AR
from scalargrad._ops import bessel as BS
from scalargrad._ops import error_functions as EF
from scalargrad._ops import logarithms as LG
from scalargrad._tensor import complex_numbers
from scalargrad._tensor.arguments import check_input, not_tensor
from scalargrad._tensor.elementwise import binary, elementwise, with_number
from scalargrad._tensor.surface import FUNCTIONS
from scalargrad._tensor.tensor import Tensor

# torch.special's name -> the torch op it is (torch/special/__init__.py; ATen's special_* ops
# that redispatch to it: aten/src/ATen/native/UnaryOps.cpp, BinaryOps.cpp, SoftMax.cpp...)
_ALIASES = {
    "digamma": "digamma", "psi": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp2": "exp2",
    "expit": "sigmoid", "expm1": "expm1", "gammaln": "lgamma", "log1p": "log1p", "logit": "logit",
    "logsumexp": "logsumexp", "multigammaln": "mvlgamma", "polygamma": "polygamma", "sinc": "sinc",
    "xlogy": "xlogy", "softmax": "softmax", "log_softmax": "log_softmax", "i0": "i0",
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


# the kernels ATen builds for float and double alone
_FLOAT_AND_DOUBLE = {"erfcx", "log_ndtr", "ndtri"}


def _own(op, name: str):
    """``torch.special.<name>(input, *, out=None)`` of an op of its own (``special_<name>``: no
    torch or Tensor spelling), computed by the op's declaration."""

    def special(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        check_input(f"special_{name}", input)
        if name in _FLOAT_AND_DOUBLE and input.dtype in (float16, bfloat16):
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{input.dtype.short}'")
        if out is not None:
            raise Unsupported(f"torch.special.{name}(out=...)", "the op is computed without an out= tensor")
        return elementwise(op, (input,))

    special.__name__ = special.__qualname__ = f"special_{name}"
    special.__doc__ = f"``torch.special.{name}(input, *, out=None)``: see ``{op.__module__}.{op.__name__}``."
    return special


def xlog1py(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``torch.special.xlog1py(input, other)``: input * log1p(other), 0 where input is 0
    (SpecialXlog1PyBackward0; ``_ops/logarithms.py``). A Python number on either side is
    PyTorch's Scalar overload (SpecialXlog1PyBackward1 number first, 2 number second)."""
    numbers = (int, float)
    if not isinstance(input, (Tensor, *numbers)) or isinstance(input, bool):
        raise not_tensor(input, "special_xlog1py", "input", 1)
    if not isinstance(other, (Tensor, *numbers)) or isinstance(other, bool):
        raise not_tensor(other, "special_xlog1py", "other", 2)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise not_tensor(other, "special_xlog1py", "other", 2)
    if out is not None:
        raise Unsupported("torch.special.xlog1py(out=...)", "the op is computed without an out= tensor")
    return binary(LG.SpecialXlog1py, input, other)


_OWN = {"i0e": BS.SpecialI0e, "i1": BS.SpecialI1, "i1e": BS.SpecialI1e, "erfcx": EF.SpecialErfcx,
        "log_ndtr": EF.SpecialLogNdtr, "ndtri": EF.SpecialNdtri, "entr": EF.SpecialEntr}
globals().update({name: _own(op, name) for name, op in _OWN.items()})

__all__ = sorted([*_ALIASES, *_OWN, "ndtr", "round", "xlog1py"])
complex_numbers.register_namespace(globals(), "torch.special.")  # complex operands: refused by name


def __getattr__(name: str):
    return missing_attribute("torch.special", name)
