"""copysign and heaviside: results made of an operand's magnitude and a sign or a step, exact in
every dtype (bit for bit with PyTorch on every machine).

copysign's derivative is derivatives.yaml's ``copysign_tensor_self_backward``: grad * (result /
self), 0 where self is 0; ``other`` gets zeros. PyTorch declares no derivative for heaviside (a
``NotImplemented`` node, with an edge for each input that requires grad).
"""

from __future__ import annotations

import math

from .arithmetic import step_function
from .elementwise import NUMBER_OTHER, Binary, WithNumber, spellings
from .table import inplace_without_derivative, no_derivative, register

__all__ = ["Copysign", "CopysignC", "Heaviside"]


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
