"""Vector norms: ``linalg.vector_norm`` (also ``Tensor.norm``, ``torch.norm``, ``linalg.norm``
of vectors and the Frobenius norm of matrices) and ``dist``.

The tensor layer computes the values (``_tensor/norms.py``); these declarations hold PyTorch's
derivative, ``norm_backward`` of FunctionsManual.cpp, case by case on the order ``p``: 1 gives
``sgn(self) * grad``; 2 gives ``grad * self / norm``, 0 where the norm is 0 (the subgradient
PyTorch picks); +-inf shares the gradient evenly among the elements reaching the norm; other
orders ``grad * sgn(self) * |self|**(p-1) / norm**(p-1)`` (0 where the norm is 0). The node's
``_c`` is a ``Normed``: the reduction's shape, dims and keepdim, and the order.
"""

from __future__ import annotations

import math

from .arithmetic import pow_scalar
from .float_kernel import helper
from .reductions import Reduced
from .table import Api, Op, register

__all__ = ["Normed", "VectorNorm", "NormDim", "Dist", "NORMS", "norm_value", "norm_partials"]


class Normed(Reduced):
    """A norm's node constant: the reduction (``Reduced``) and the order ``ord`` as given."""

    __slots__ = ("ord",)

    def __init__(self, in_shape, dims, keepdim: bool, all: bool, ord, raw=None) -> None:
        super().__init__(in_shape, dims, keepdim, all, raw=raw)
        self.ord = ord


def norm_value(vals: list, p: float) -> float:
    """The p-norm of ``vals`` in double: the sum of powers added exactly (``math.fsum``), then
    one root; max/min of |x| for +-inf; the count of nonzeros for 0. nan in, nan out."""
    if any(x != x for x in vals):
        return math.nan
    if p == math.inf:
        return max((abs(x) for x in vals), default=0.0)
    if p == -math.inf:
        return min((abs(x) for x in vals), default=math.inf)
    if p == 0:
        return float(sum(1 for x in vals if x != 0))
    if any(x in (math.inf, -math.inf) for x in vals):
        return math.inf if p > 0 else 0.0
    if p == 1:
        return math.fsum(abs(x) for x in vals)
    if p == 2:
        try:
            return math.sqrt(math.fsum(x * x for x in vals))
        except OverflowError:
            return math.inf
    try:
        s = math.fsum(abs(x) ** p if x else (0.0 if p > 0 else math.inf) for x in vals)
        return s ** (1.0 / p) if s != math.inf else (math.inf if p > 0 else 0.0)
    except (OverflowError, ZeroDivisionError):
        return math.inf if p > 0 else 0.0


def _sgn(x: float) -> float:
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


def norm_partials(vals: list, p: float, norm: float) -> list:
    """d norm / d x_i as PyTorch's norm_backward takes it (its conventions at a zero norm)."""
    if p == 0:
        return [0.0] * len(vals)
    if p == 1:
        return [_sgn(x) for x in vals]
    if p == 2:
        return [0.0 if norm == 0 else x / norm for x in vals]
    if p in (math.inf, -math.inf):
        at = [i for i, x in enumerate(vals) if abs(x) == norm or x != x]
        out = [0.0] * len(vals)
        for i in at:
            out[i] = _sgn(vals[i]) / len(at)
        return out
    if p < 1:
        return [0.0 if x == 0 else _sgn(x) * abs(x) ** (p - 1) * norm ** (1 - p) for x in vals]
    if norm == 0:
        return [0.0] * len(vals)
    return [_sgn(x) * abs(x) ** (p - 1) / norm ** (p - 1) for x in vals]


def sympy_norm(sp, args, p):
    if p == 1:
        return sp.Add(*[sp.Abs(a) for a in args])
    if p == 2:
        return sp.sqrt(sp.Add(*[a * a for a in args]))
    if p == math.inf:
        return sp.Max(*[sp.Abs(a) for a in args])
    if p == -math.inf:
        return sp.Min(*[sp.Abs(a) for a in args])
    q = sp.nsimplify(p)
    return sp.Add(*[sp.Abs(a) ** q for a in args]) ** (1 / q)


@register
class VectorNorm(Op):
    """linalg_vector_norm(self, ord, dim, keepdim) (LinalgVectorNormBackward0)."""

    name = "LinalgVectorNormBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("ord", "c.ord"), ("result", "result"), ("self", 0))
    api = Api(method="norm", function=("norm",))

    @staticmethod
    def backward(k, g, v):
        return (k.norm_backward(g, k.a(v), k.out(v), v._c),)

    @staticmethod
    def forward(r, *args):
        return norm_value(list(args), 2.0)

    @staticmethod
    def sympy(sp, *args):
        return sympy_norm(sp, args, 2.0)


@register
class NormDim(VectorNorm):
    """norm(self, p, dim, keepdim) as ATen's C++ composites call it (``pairwise_distance``):
    NormBackward1, with linalg_vector_norm's value and derivative (PyTorch's Python ``norm``
    is linalg_vector_norm itself)."""

    name = "NormBackward1"
    saved = (("dim", "c.dims"), ("keepdim", "c.keepdim"), ("p", "c.ord"), ("result", "result"), ("self", 0))
    api = None


@register
class Dist(Op):
    """dist(self, other, p) (DistBackward0): the p-norm of self - other over every element;
    self: norm_backward(grad, self - other, p, result), other: its negation."""

    name = "DistBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("other", 1), ("p", "c.ord"), ("result", "result"), ("self", 0))
    api = Api(method="dist", function="dist")

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        d = k.norm_backward(g, k.sub(a, b), k.out(v), v._c)
        return d, k.neg(d)

    @staticmethod
    def forward(r, a, b):
        return abs(a - b)

    @staticmethod
    def sympy(sp, a, b):
        return sp.Abs(a - b)


NORMS = [VectorNorm, NormDim, Dist]


# ---------------------------------------------------------------- derivative helpers, on floats


def _pow(k, a, e):
    """``a ** e`` for a number ``e`` as the tensor twin computes it (PyTorch's pow_tensor_scalar,
    which takes its own path for 0.5, -0.5, 2, 3, -1, -2: ``x ** -0.5`` is 1 / sqrt(x))."""
    return k.r(pow_scalar(k.r, a, e))


@helper
def norm_backward(k, g, x, y, c):
    """norm_backward (FunctionsManual.cpp) of a 0-dim input: its norm is |x| for any order."""
    p = float(c.ord)
    sgn = k.sgn(x)
    if p == 0.0:  # an undefined gradient, as PyTorch's
        return None
    if p == 1.0:
        return k.mul(sgn, g)
    if p == 2.0:
        return k.mul(g, 0.0 if y == 0 else k.div(x, y))
    if p in (math.inf, -math.inf):
        hit = 1.0 if (abs(x) == y or x != x) else 0.0
        return k.mul(sgn, k.mul(k.div(g, hit), hit))
    if p < 1.0:
        scaled = k.mul(sgn, 0.0 if x == 0 else _pow(k, abs(x), p - 1.0))
        return k.mul(k.mul(scaled, g), _pow(k, y, 1.0 - p))
    scaled = k.mul(sgn, _pow(k, abs(x), p - 1.0)) if p < 2.0 else k.mul(x, _pow(k, abs(x), p - 2.0))
    scale = 0.0 if y == 0 else k.div(g, _pow(k, y, p - 1.0))
    return k.mul(scaled, scale)
