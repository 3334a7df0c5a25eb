"""copysign, nextafter and heaviside: results made of an operand's magnitude and a sign or a
step, exact in every dtype (bit for bit with PyTorch on every machine).

copysign's derivative is derivatives.yaml's ``copysign_tensor_self_backward``: grad * (result /
self), 0 where self is 0; ``other`` gets zeros. nextafter's (derivatives.yaml in 2.13): ``self`` gets
``where(self != other, grad, 0)``, ``other`` zeros. PyTorch declares no derivative for heaviside (a
``NotImplemented`` node, with an edge for each input that requires grad).
"""

from __future__ import annotations

import math
import struct

from .arithmetic import step_function
from .elementwise import NUMBER_OTHER, Binary, WithNumber, spellings
from .table import inplace_without_derivative, no_derivative, register

__all__ = ["Copysign", "CopysignC", "Heaviside", "Nextafter"]


def _copysign(r, a, b):
    return math.copysign(a, b)


def _ratio_grad(k, g, a, out):
    # grad * (result / self).masked_fill_(self == 0, 0)
    return k.mul(g, k.where(k.le(a, 0.0) & k.ge(a, 0.0), k.zero(g), k.div(out, a))) if k.bulk else \
        k.mul(g, 0.0 if a == 0 else k.div(out, a))


_INF = (math.inf, -math.inf)


# result / self is inf / inf: PyTorch's gradient is nan where calculus gives +-1
_INFINITE_SELF = "copysign: PyTorch's derivative at an infinite self is nan (result / self = inf / inf)"


def _sign_of(sp, b):
    """+-1 by the sign bit of ``b`` (-0.0 and -nan negative): a step of derivative 0."""
    return step_function(sp, "sign_bit", lambda x, _y: math.copysign(1.0, float(x)))(b, 0)


@register
class Copysign(Binary):
    name, saves_output = "CopysignBackward0", True
    saved = (("self", 0), ("result", "result"))
    api = spellings("copysign")
    signatures = NUMBER_OTHER
    result = "float"
    forward = staticmethod(_copysign)

    @staticmethod
    def backward(k, g, v):
        return _ratio_grad(k, g, k.a(v), k.out(v)), k.zero(g)

    sympy = staticmethod(lambda sp, a, b: sp.Abs(a) * _sign_of(sp, b))

    @staticmethod
    def convention(a, b):
        return (_INFINITE_SELF, (math.nan, 0.0)) if a in _INF else None


@register
class CopysignC(WithNumber):
    """copysign(tensor, number) (CopysignBackward1)."""

    name, saves_output = "CopysignBackward1", True
    saved = (("self", 0), ("result", "result"))
    extra_none = 0
    result = "float"
    forward = staticmethod(_copysign)
    backward = staticmethod(lambda k, g, v: (_ratio_grad(k, g, k.a(v), k.out(v)),))
    sympy = staticmethod(lambda sp, a, c: sp.Abs(a) * _sign_of(sp, c))

    @staticmethod
    def convention(a, c):
        return (_INFINITE_SELF, (math.nan,)) if a in _INF else None


Copysign.with_number = CopysignC


# (pack, unpack) of a float's bits in each narrower format: the step is one unit of the integer
_BITS = {"float32": (struct.Struct("<f"), struct.Struct("<I"), 0),
         "float16": (struct.Struct("<e"), struct.Struct("<H"), 0),
         "bfloat16": (struct.Struct("<f"), struct.Struct("<I"), 16)}  # bfloat16: float32's upper 16 bits


def _format(r) -> str:
    """The binary format ``r`` (the result dtype's rounding) rounds to: the shortest fraction it keeps."""
    for name, bits in (("float64", 52), ("float32", 23), ("float16", 10)):
        if r(1.0 + 2.0 ** -bits) != 1.0:
            return name
    return "bfloat16"


def _nextafter(r, a, b):
    """C's nextafter in the result's format: the neighbour of ``a`` toward ``b``; ``b`` if equal."""
    if a != a or b != b:
        return math.nan
    if a == b:
        return b
    fmt = _format(r)
    if fmt == "float64":
        return math.nextafter(a, b)
    value, word, shift = _BITS[fmt]
    sign_bit = 1 << (8 * word.size - 1 - shift)
    if a == 0:
        bits = 1 | (sign_bit if b < 0 else 0)  # the smallest subnormal, toward b
    else:
        bits = word.unpack(value.pack(a))[0] >> shift
        bits += 1 if (a < b) == (a > 0) else -1  # away from zero: one more unit of magnitude
    return value.unpack(word.pack(bits << shift))[0]


@register
class Nextafter(Binary):
    """The next representable number after ``self`` toward ``other`` (floating dtypes only)."""

    name = "NextafterBackward0"
    saved = (("other", 1), ("self", 0))
    api = spellings("nextafter")
    float_only_kernel = "nextafter_cpu"
    other_tensor_only = True
    forward = staticmethod(_nextafter)

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        return k.where(k.le(a, b) & k.ge(a, b), k.zero(g), g), k.zero(g)

    # one unit in the last place from self: the value is self's, to first order
    sympy = staticmethod(lambda sp, a, b: a)

    @staticmethod
    def convention(a, b):
        return ("nextafter: PyTorch's derivative is 0 where self == other (where(self != other, grad, 0))",
                (0.0, 0.0)) if a == b else None


@register
class Heaviside(Binary):
    """0 below 0, 1 above, ``values`` at 0 (nan stays nan)."""

    name, saves, saves_inputs = "NotImplemented", False, False
    namespace = "torch::autograd::"
    grad_edges_only = True
    api = spellings("heaviside")
    other_tensor_only, other_name = True, "values"
    same_dtype_error = "heaviside is not yet implemented for tensors with different dtypes."
    forward = staticmethod(lambda r, a, b: b if a == 0 else (1 if a > 0 else 0))  # nan: 0, as ATen's a > 0
    backward = no_derivative("heaviside")
    sympy = staticmethod(lambda sp, a, b: sp.Piecewise((0, a < 0), (b, sp.Eq(a, 0)), (1, True)))


inplace_without_derivative(Heaviside)
