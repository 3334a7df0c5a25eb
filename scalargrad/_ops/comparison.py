"""Comparisons and what is built on them: == != < <= > >=, where, minimum/maximum and clamp
(with number or tensor bounds), as ATen's TensorCompare; their derivatives route the gradient
by the comparison's outcome, with PyTorch's choices at ties (halves for minimum/maximum, the
bounds inside for clamp).
"""

from __future__ import annotations

import operator

from .elementwise import NUMBER_OTHER, Binary, Elementwise, WithNumber, spellings
from .float_kernel import helper
from .table import Api, Op, register

__all__ = ["Minimum", "Maximum", "Clamp", "ClampMin", "ClampMax", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "COMPARISONS",
           "CompareInplace", "Where", "ClampT", "ClampMinT", "ClampMaxT", "clamp_value", "clamp_sympy", "min_forward",
           "max_forward", "Fmax", "Fmin", "SCALAR_DERIVATIVES"]


def min_forward(r, a, b):
    return a if (a <= b or a != a) else b


def max_forward(r, a, b):
    return a if (a >= b or a != a) else b


@register
class Minimum(Binary):
    name = "MinimumBackward0"
    saved = (("self", 0), ("other", 1))
    api = spellings("minimum", inplace=False)
    other_tensor_only = True
    forward = staticmethod(min_forward)

    @staticmethod
    def backward(k, g, v):
        a, b = k.a(v), k.b(v)
        # a tie splits the gradient in halves (where(self == other, grad / 2, grad)); with a nan
        # neither mask applies and both operands get the whole gradient
        return k.min_max_backward(g, a, b, True)

    @staticmethod
    def sympy(sp, a, b):
        # at a tie the value is (a + b) / 2, so each side's derivative is 1/2, as PyTorch splits it
        return sp.Piecewise((a, sp.StrictLessThan(a, b)), (b, sp.StrictGreaterThan(a, b)), ((a + b) / 2, True))


@register
class Maximum(Binary):
    name = "MaximumBackward0"
    saved = (("self", 0), ("other", 1))
    api = spellings("maximum", inplace=False)
    other_tensor_only = True
    forward = staticmethod(max_forward)

    @staticmethod
    def backward(k, g, v):
        return k.min_max_backward(g, k.a(v), k.b(v), False)

    @staticmethod
    def sympy(sp, a, b):
        return sp.Piecewise((a, sp.StrictGreaterThan(a, b)), (b, sp.StrictLessThan(a, b)), ((a + b) / 2, True))



def _fmax(r, a, b, is_min: bool):
    """std::fmax/fmin: a nan operand gives the other one."""
    if a != a:
        return b
    if b != b:
        return a
    return min_forward(r, a, b) if is_min else max_forward(r, a, b)


@register
class Fmax(Binary):
    """fmax (FmaxBackward0): the larger, a nan ignored; the gradient goes to self where
    ``self >= other`` or other is nan, to other elsewhere (no halving at ties)."""

    name = "FmaxBackward0"
    saved = (("other", 1), ("self", 0))
    api = spellings("fmax", inplace=False)
    other_tensor_only = True
    forward = staticmethod(lambda r, a, b: _fmax(r, a, b, False))
    backward = staticmethod(lambda k, g, v: k.fmax_backward(g, k.a(v), k.b(v), False))

    @staticmethod
    def sympy(sp, a, b):
        return sp.Piecewise((a, sp.GreaterThan(a, b)), (b, True))


@register
class Fmin(Fmax):
    name = "FminBackward0"
    api = spellings("fmin", inplace=False)
    forward = staticmethod(lambda r, a, b: _fmax(r, a, b, True))
    backward = staticmethod(lambda k, g, v: k.fmax_backward(g, k.a(v), k.b(v), True))

    @staticmethod
    def sympy(sp, a, b):
        return sp.Piecewise((a, sp.LessThan(a, b)), (b, True))


def clamp_value(r, a, c):
    lo, hi = c
    if a != a:
        return a
    if lo is not None and (a < lo or lo != lo):  # a nan bound gives nan, as in PyTorch
        a = lo
    if hi is not None and (a > hi or hi != hi):
        a = hi
    return a


def clamp_sympy(sp, a, c):
    lo, hi = c
    lo = sp.Float(lo) if isinstance(lo, float) else lo
    hi = sp.Float(hi) if isinstance(hi, float) else hi
    pieces = []
    if hi is not None:
        # min(max(a, lo), hi): the max bound wins everywhere when min > max
        above = sp.StrictGreaterThan(a, hi)
        pieces.append((hi, above if lo is None else above | sp.StrictGreaterThan(lo, hi)))
    if lo is not None:
        pieces.append((lo, sp.StrictLessThan(a, lo)))
    # the bounds fall in the last piece: derivative 1 at min and max, as in PyTorch
    return sp.Piecewise(*pieces, (a, True))


@register
class Clamp(WithNumber):
    """clamp(x, min, max) with number bounds; ``_c`` is the pair (min, max), None = open.
    Gradient 1 inside [min, max] bounds included, 0 outside (PyTorch's clamp_backward)."""

    name = "ClampBackward1"
    saved = (("self", 0), ("min", "min"), ("max", "max"))
    extra_none = 0
    api = Api(method="clamp", aliases=("clip",), inplace="clamp_", function=("clamp", "clip"))
    forward = staticmethod(clamp_value)
    backward = staticmethod(lambda k, g, v: (k.clamp_backward(g, k.a(v), v._c),))
    sympy = staticmethod(clamp_sympy)


@register
class ClampMin(Clamp):
    name = "ClampMinBackward0"
    saved = (("self", 0), ("min", "min"))
    api = Api(method="clamp_min", inplace="clamp_min_", function="clamp_min")


@register
class ClampMax(Clamp):
    name = "ClampMaxBackward0"
    saved = (("self", 0), ("max", "max"))
    api = Api(method="clamp_max", inplace="clamp_max_", function="clamp_max")


class Compare(Binary):
    """A comparison: a bool result that never requires grad."""

    result = "bool"
    differentiable = False
    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: (None, None))


def _cmp(method, fn, symbol):
    return register(type(method.capitalize(), (Compare,), {
        "name": method.capitalize() + "Backward0", "api": spellings(method, aliases=()), "signatures": NUMBER_OTHER,
        "forward": staticmethod(lambda r, a, b: fn(a, b)), "fast": fn, "symbol": symbol,
        "sympy": staticmethod(lambda sp, a, b: fn(a, b))}))


Eq = _cmp("eq", operator.eq, "==")
Ne = _cmp("ne", operator.ne, "!=")
Lt = _cmp("lt", operator.lt, "<")
Le = _cmp("le", operator.le, "<=")
Gt = _cmp("gt", operator.gt, ">")
Ge = _cmp("ge", operator.ge, ">=")
Eq.api = Api(method="eq", inplace="eq_", function="eq")
Ne.api = Api(method="ne", aliases=("not_equal",), inplace="ne_", function=("ne", "not_equal"))
Lt.api = Api(method="lt", aliases=("less",), inplace="lt_", function=("lt", "less"))
Le.api = Api(method="le", aliases=("less_equal",), inplace="le_", function=("le", "less_equal"))
Gt.api = Api(method="gt", aliases=("greater",), inplace="gt_", function=("gt", "greater"))
Ge.api = Api(method="ge", aliases=("greater_equal",), inplace="ge_", function=("ge", "greater_equal"))
COMPARISONS = [Eq, Ne, Lt, Le, Gt, Ge]


class CompareInplace(Op):
    """``x.eq_(other)`` on a tensor in a graph: the tensor keeps its dtype and holds 1s and 0s;
    PyTorch records a node whose gradients are zeros (EqBackward0 with a number, EqBackward1
    with a tensor)."""

    saves, saves_inputs = False, False
    backward = staticmethod(lambda k, g, v: tuple(k.zero(g) for _ in v._in))

    @staticmethod
    def sympy(sp, a, *rest):
        return sp.Integer(0) * a


for _cmp_op in COMPARISONS:
    _cmp_op.inplace_number = register(type(_cmp_op.__name__ + "InplaceC", (CompareInplace,), {
        "name": _cmp_op.name, "forward": staticmethod(lambda r, a, c, _f=_cmp_op.fast: float(_f(a, c)))}))
    _cmp_op.inplace_tensor = register(type(_cmp_op.__name__ + "Inplace", (CompareInplace,), {
        "name": _cmp_op.name[:-1] + "1", "forward": staticmethod(lambda r, a, b, _f=_cmp_op.fast: float(_f(a, b)))}))


@register
class Where(Elementwise):
    """where(condition, self, other): inputs (self, other); the condition, a bool tensor of the
    result's shape, is the node's ``_c`` (not an input: it is not differentiable, and PyTorch's
    node has no edge for it)."""

    name = "WhereBackward0"
    arity = 2
    grad_order = (1, 0)  # other, then self
    uses_c = True
    c_per_element = True  # ``_c`` holds one value per element of the result
    saved = (("condition", "c"),)
    saves_inputs = False
    api = Api(method="where", function="where")
    forward = staticmethod(lambda r, a, b, c: a if c else b)

    @staticmethod
    def backward(k, g, v):
        cond = k.c(v)
        # self: where(condition, grad, 0); other: where(condition, 0, grad)
        return k.where(cond, g, k.zero(g)), k.where(cond, k.zero(g), g)

    sympy = staticmethod(lambda sp, a, b, c: a if c else b)


@register
class ClampT(Elementwise):
    """clamp(self, min, max) with tensor bounds (ClampBackward0); inputs (self, min, max)."""

    name = "ClampBackward0"
    arity = 3
    grad_order = (1, 2, 0)  # (min, max) together, then self
    saved = (("max", "opt.2"), ("min", "opt.1"), ("self", 0))  # None for a bound not given (``_c``)
    forward = staticmethod(lambda r, a, lo, hi: clamp_value(r, a, (lo, hi)))

    @staticmethod
    def backward(k, g, v):
        a, lo, hi = k.ins(v)
        return k.clamp_tensor_backward(g, a, lo, hi, v._c)  # _c: (min not given, max not given)

    # min(max(a, lo), hi), the derivative 1 at the bounds (PyTorch's subgradient): a wins ties
    # with lo and hi, hi wins when hi < lo
    sympy = staticmethod(lambda sp, a, lo, hi: sp.Piecewise((hi, sp.StrictLessThan(hi, lo)),
                                                            (lo, sp.StrictLessThan(a, lo)),
                                                            (hi, sp.StrictGreaterThan(a, hi)), (a, True)))


@register
class ClampMinT(Binary):
    """clamp_min(self, min) / clamp(self, min=tensor) (ClampMinBackward1): self where
    self >= min, min where self < min."""

    name = "ClampMinBackward1"
    saved = (("min", 1), ("self", 0))
    forward = staticmethod(lambda r, a, lo: clamp_value(r, a, (lo, None)))

    @staticmethod
    def backward(k, g, v):
        a, lo = k.a(v), k.b(v)
        return k.where(k.ge(a, lo), g, k.zero(g)), k.where(k.lt(a, lo), g, k.zero(g))

    sympy = staticmethod(lambda sp, a, lo: sp.Piecewise((lo, sp.StrictLessThan(a, lo)), (a, True)))


@register
class ClampMaxT(Binary):
    """clamp_max(self, max) / clamp(self, max=tensor) (ClampMaxBackward1)."""

    name = "ClampMaxBackward1"
    saved = (("max", 1), ("self", 0))
    forward = staticmethod(lambda r, a, hi: clamp_value(r, a, (None, hi)))

    @staticmethod
    def backward(k, g, v):
        a, hi = k.a(v), k.b(v)
        return k.where(k.le(a, hi), g, k.zero(g)), k.where(k.gt(a, hi), g, k.zero(g))

    sympy = staticmethod(lambda sp, a, hi: sp.Piecewise((hi, sp.StrictGreaterThan(a, hi)), (a, True)))


SCALAR_DERIVATIVES = [Minimum, Maximum, Clamp, ClampMin, ClampMax, Fmax, Fmin]
"""The ops of this family with a non-trivial derivative, for the catalogue tests."""


# ---------------------------------------------------------------- derivative helpers, on floats


@helper
def clamp_backward(g, a, c):
    lo, hi = c
    inside = (lo is None or a >= lo) and (hi is None or a <= hi)
    return g if inside else 0.0


@helper
def min_max_backward(k, g, a, b, is_min):
    # a tie splits the gradient in halves; with a nan neither mask applies
    if a == b:
        h = k.div(g, 2.0)
        return h, h
    if is_min:
        return (0.0 if a > b else g), (0.0 if a < b else g)
    return (0.0 if a < b else g), (0.0 if a > b else g)


@helper
def fmax_backward(k, g, a, b, is_min):
    # self takes it where (self >= other) or other is nan (<= for fmin), other elsewhere
    to_self = (a <= b if is_min else a >= b) or b != b
    return (g if to_self else 0.0), (0.0 if to_self else g)


@helper
def clamp_tensor_backward(g, a, lo, hi, open_sides):
    # clamp_backward and clamp_backward_min_max: min gets the gradient where self < min < max,
    # max where self > max or max < min. An open side's bound is an infinity, which never
    # binds, except min = inf with no max: PyTorch's test is then self < min alone
    inside = a >= lo and a <= hi
    return (g if inside else 0.0), (g if (a < lo and (open_sides[1] or lo < hi)) else 0.0), \
        (g if (a > hi or hi < lo) else 0.0)
