"""Activation functions of ``torch.nn``: elementwise ops with their own backward kernels.

Each activation is an elementwise op (``Unary``, or ``Activation`` when it takes parameters:
the node's ``_c`` is then a named tuple of numbers, first the ones its formula uses, rounded to
the tensor's dtype as ATen's kernel converts its Scalars, then the Scalars as given, which
PyTorch shows as saved attributes). Its forward is ATen's CPU kernel, step by step, each step
rounded to the dtype (``r``); transcendental steps (exp, expm1, log1p, erf, tanh) are computed in
double and rounded once, so they are correctly rounded in float32 where PyTorch's vectorised
libraries are within an ulp (machine-dependent: see tests/faithfulness.py).

The backward of an activation is itself an op in PyTorch (``leaky_relu_backward``...), with
a derivative of its own: under ``create_graph`` double backward goes through these nodes
(``LeakyReluBackwardBackward0``), declared here beside the activation. SiLU and Mish are the
exception PyTorch makes: with grad mode on, their backward is composed of ordinary ops
(``infinitely_differentiable_silu_backward``).

``forward_scale(*args)``: what the rounding errors of a forward made of several rounded steps
are relative to, where the result itself can be much smaller (``expm1(x) * alpha`` is not;
GELU's ``x * (1 + erf(x))`` near -3 is): the symbolic check's tolerance.
"""

from __future__ import annotations

import math
from collections import namedtuple

from .._base import ieee
from .._base.kernel_order import vectorized_count
from . import comparison as CM
from . import unary as UN
from .elementwise import Binary, Elementwise, Unary, spellings
from .table import register

__all__ = ["ACTIVATIONS", "Activation", "LeakyParams", "EluParams", "SoftplusParams", "HardtanhParams",
           "ThresholdParams", "ShrinkParams", "SQRT1_2", "GELU_BETA", "GELU_KAPPA", "GELU_PDF"]

SQRT1_2 = 0.70710678118654752440  # M_SQRT1_2
GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # M_SQRT2 * M_2_SQRTPI * 0.5
GELU_KAPPA = 0.044715
GELU_PDF = (2.0 / math.sqrt(math.pi)) * SQRT1_2 * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5: 1/sqrt(2 pi)

LeakyParams = namedtuple("LeakyParams", "slope negative_slope")


# negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale (ATen's names), each in the
# dtype; then is_result (the backward reads the result, for the in-place op) and the Scalars
EluParams = namedtuple("EluParams", "negcoef poscoef negiptcoef is_result alpha scale input_scale")
SoftplusParams = namedtuple("SoftplusParams", "b th beta threshold")
HardtanhParams = namedtuple("HardtanhParams", "lo hi min_val max_val")
ThresholdParams = namedtuple("ThresholdParams", "th value threshold value_given")
ShrinkParams = namedtuple("ShrinkParams", "lam lambd")


class Activation(Elementwise):
    """An elementwise op of one tensor with parameters in ``_c``."""

    arity = 1
    uses_c = True


class ActivationBackward(Binary):
    """An activation's backward as an op of (grad_output, self or result), parameters in ``_c``."""

    uses_c = True


# ---------------------------------------------------------------- leaky_relu


@register
class LeakyReluBackward(ActivationBackward):
    """leaky_relu_backward(grad, self, negative_slope): grad where self > 0, else grad * slope."""

    name = "LeakyReluBackwardBackward0"
    saved = (("negative_slope", "c.negative_slope"), ("self", 1))
    forward = staticmethod(lambda r, g, x, c: g if x > 0 else g * c.slope)

    @staticmethod
    def backward(k, g, v):
        # grad_output: leaky_relu_backward(grad, self, negative_slope, false); self: zeros_like(grad)
        return k.pointwise(LeakyReluBackward, g, k.b(v), c=v._c), k.zero(g)

    sympy = staticmethod(lambda sp, g, x, c: sp.Piecewise((g, x > 0), (g * c[0], True)))


@register
class LeakyRelu(Activation):
    """leaky_relu(x, negative_slope): x where x > 0, else x * slope (the slope in the dtype)."""

    name = "LeakyReluBackward0"
    saved = (("negative_slope", "c.negative_slope"), ("self", 0))
    forward = staticmethod(lambda r, a, c: a if a > 0 else a * c.slope)
    backward = staticmethod(lambda k, g, v: (k.pointwise(LeakyReluBackward, g, k.a(v), c=v._c),))
    # x > 0 picks the first piece: the derivative at 0 is the slope, as leaky_relu_backward's
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((a, a > 0), (a * c[0], True)))


NEGATIVE_SLOPE_INPLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is "
    "caused by calling in-place forward function with a negative slope, please call out-of-place version instead. "
    "File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
    "calculation with negative slope")


@register
class LeakyReluInplace(LeakyRelu):
    """leaky_relu_(x): the backward reads the result (LeakyReluBackward1)."""

    name, saves_inputs, saves_output = "LeakyReluBackward1", False, True
    saved = (("negative_slope", "c.negative_slope"), ("result", "result"))

    @staticmethod
    def backward(k, g, v):
        if v._c.slope < 0:
            raise RuntimeError(NEGATIVE_SLOPE_INPLACE)
        return (k.pointwise(LeakyReluBackward, g, k.out(v), c=v._c),)


# ---------------------------------------------------------------- elu, selu, celu


def _elu_backward_forward(r, g, b, c):
    if c.is_result:
        return r(g * c.negiptcoef) * r(b + c.negcoef) if b <= 0 else g * c.poscoef
    if b <= 0:
        return r(r(g * c.negiptcoef) * c.negcoef) * r(ieee.exp(r(b * c.negiptcoef)))
    return g * c.poscoef


def _elu_backward_sympy(sp, g, b, c):
    negcoef, poscoef, negiptcoef, is_result = c[0], c[1], c[2], c[3]
    if is_result:
        return sp.Piecewise((g * negiptcoef * (b + negcoef), b <= 0), (g * poscoef, True))
    return sp.Piecewise((g * negiptcoef * negcoef * sp.exp(b * negiptcoef), b <= 0), (g * poscoef, True))


@register
class EluBackward(ActivationBackward):
    """elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result)."""

    name = "EluBackwardBackward0"
    saved = (("alpha", "c.alpha"), ("grad_output", 0), ("input_scale", "c.input_scale"), ("scale", "c.scale"),
             ("self_or_result", 1))
    forward = staticmethod(_elu_backward_forward)

    @staticmethod
    def backward(k, g, v):
        go, b = k.ins(v)
        c = v._c
        # grad_output: elu_backward(grad, ...); self_or_result: elu_double_backward(grad, grad_output, ...)
        if c.is_result:
            # grad * grad_output * input_scale where self_or_result <= 0
            dd = k.mul(k.mul(g, go), k.const(c.negiptcoef))
        else:
            # elu_backward(grad * grad_output * input_scale, ...) where self_or_result <= 0
            dd = k.pointwise(EluBackward, k.mul(k.mul(g, go), k.const(c.negiptcoef)), b, c=c)
        return k.pointwise(EluBackward, g, b, c=c), k.where(b <= 0, dd, k.zero(dd))

    sympy = staticmethod(_elu_backward_sympy)


def _elu_forward(r, a, c):
    # ATen's elu kernel: expm1(x * input_scale) * (alpha * scale) for x <= 0, x * scale above
    if a <= 0:
        return r(ieee.expm1(r(a * c.negiptcoef))) * c.negcoef
    return a * c.poscoef


@register
class Elu(Activation):
    """elu(x, alpha, scale, input_scale): also selu (its constants) and, by name, celu."""

    name = "EluBackward0"
    saved = (("alpha", "c.alpha"), ("input_scale", "c.input_scale"), ("scale", "c.scale"), ("self", 0))
    forward = staticmethod(_elu_forward)
    backward = staticmethod(lambda k, g, v: (k.pointwise(EluBackward, g, k.a(v), c=v._c),))

    @staticmethod
    def sympy(sp, a, c):
        return sp.Piecewise((c[0] * (sp.exp(a * c[2]) - 1), a <= 0), (a * c[1], True))


@register
class EluInplace(Elu):
    """elu_(x): the backward reads the result (EluBackward1)."""

    name, saves_inputs, saves_output = "EluBackward1", False, True
    saved = (("alpha", "c.alpha"), ("input_scale", "c.input_scale"), ("result", "result"), ("scale", "c.scale"))

    @staticmethod
    def backward(k, g, v):
        if v._c.alpha < 0:
            raise RuntimeError(NEGATIVE_ALPHA_INPLACE)
        return (k.pointwise(EluBackward, g, k.out(v), c=v._c._replace(is_result=True)),)


NEGATIVE_ALPHA_INPLACE = (
    "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused "
    "by calling in-place forward function with a negative slope, please call out-of-place version instead.")


@register
class Celu(Elu):
    """celu(x, alpha) = elu(x, alpha, 1, 1 / alpha); its backward takes input_scale as
    1.0 / float(alpha) (derivatives.yaml: ``1.0/alpha.toFloat()``), which ``_c`` carries in
    ``input_scale``: ``backward_params`` gives the backward's parameters."""

    name = "CeluBackward0"
    saved = (("alpha", "c.alpha"), ("self", 0))
    backward = staticmethod(lambda k, g, v: (k.pointwise(EluBackward, g, k.a(v), c=celu_backward_params(v)),))


def _celu_convention(x, negcoef, poscoef, negiptcoef, is_result, alpha, scale, input_scale):
    # float64: the backward's 1.0 / float32(alpha) is not the forward's 1 / alpha (alpha = 0.1...)
    if x <= 0 and negiptcoef != input_scale:
        partial = input_scale * negcoef * ieee.exp(x * input_scale)
        return (f"celu: PyTorch's backward takes 1/alpha as 1.0 / float32(alpha) = {input_scale!r}, the forward "
                f"1 / alpha = {negiptcoef!r}", (partial,))
    return None


Celu.convention = staticmethod(_celu_convention)


@register
class CeluInplace(Celu):
    name, saves_inputs, saves_output = "CeluBackward1", False, True
    saved = (("alpha", "c.alpha"), ("result", "result"))

    @staticmethod
    def backward(k, g, v):
        if v._c.alpha < 0:
            raise RuntimeError(NEGATIVE_ALPHA_INPLACE)
        return (k.pointwise(EluBackward, g, k.out(v), c=celu_backward_params(v)._replace(is_result=True)),)


def celu_backward_params(v) -> EluParams:
    """The elu_backward parameters of a celu node: input_scale = 1.0 / float32(alpha), in the dtype."""
    c = v._c
    return c._replace(negiptcoef=c.input_scale)


# ---------------------------------------------------------------- gelu


def _gelu_backward_forward(r, dy, x):
    cdf = r(0.5 * r(1.0 + r(ieee.erf(r(x * r(SQRT1_2))))))
    pdf = r(r(GELU_PDF) * r(ieee.exp(r(r(x * x) * -0.5))))
    return dy * r(cdf + r(x * pdf))


def _gelu_tanh_parts(r, x):
    beta, kappa = r(GELU_BETA), r(GELU_KAPPA)
    x_sq = r(x * x)
    x_cube = r(x_sq * x)
    inner = r(beta * r(x + r(kappa * x_cube)))
    return beta, kappa, x_sq, r(ieee.tanh(inner))


def _gelu_tanh_backward_forward(r, dy, x):
    beta, kappa, x_sq, t = _gelu_tanh_parts(r, x)
    left = r(0.5 * x)
    right = r(1.0 + t)
    left_derivative = r(0.5 * right)
    tanh_derivative = r(1.0 - r(t * t))
    inner_derivative = r(beta * r(1.0 + r(r(3.0 * kappa) * x_sq)))
    right_derivative = r(r(left * tanh_derivative) * inner_derivative)
    return dy * r(left_derivative + right_derivative)


def _gelu_sympy(sp, x):
    return x * (1 + sp.erf(x / sp.sqrt(2))) / 2


def _gelu_tanh_sympy(sp, x):
    return x * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (x + sp.Rational(44715, 1000000) * x**3))) / 2


def _gelu_double(k, g, go, x):
    """gelu_double_backward(ggI, gO, self, 'none'): ggI * gO * d/dx[cdf + x pdf] = ggI * gO * pdf * (2 - x^2)."""
    pdf = k.mul(k.const(GELU_PDF), k.exp(k.mul(k.mul(x, x), k.const(-0.5))))
    return k.mul(k.mul(g, go), k.mul(pdf, k.sub(k.const(2.0), k.mul(x, x))))


@register
class GeluBackward(Binary):
    """gelu_backward(grad, self, approximate='none'): grad * (cdf(x) + x * pdf(x))."""

    name = "GeluBackwardBackward0"
    saved = (("approximate", ("value", "none")), ("grad_output", 0), ("self", 1))
    # d/dgrad is cdf + x * pdf; d/dx is grad * pdf * (2 - x^2): both cancel near their roots
    backward_scale = staticmethod(lambda i, g, x: 1.0 + abs(x) if i == 0 else abs(g) * (1.0 + x * x))
    forward_scale = staticmethod(lambda g, x: g * (1.0 + abs(x)))
    forward = staticmethod(_gelu_backward_forward)

    @staticmethod
    def backward(k, g, v):
        go, x = k.ins(v)
        return k.pointwise(GeluBackward, g, x), _gelu_double(k, g, go, x)

    @staticmethod
    def sympy(sp, g, x):
        return g * ((1 + sp.erf(x / sp.sqrt(2))) / 2 + x * sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi))


@register
class Gelu(Unary):
    """gelu(x): x * 0.5 * (1 + erf(x / sqrt 2)), ATen's order of roundings."""

    name = "GeluBackward0"
    saved = (("approximate", ("value", "none")), ("self", 0))
    result = "float"
    forward = staticmethod(lambda r, x: r(x * 0.5) * r(1.0 + r(ieee.erf(r(x * r(SQRT1_2))))))
    backward = staticmethod(lambda k, g, v: (k.pointwise(GeluBackward, g, k.a(v)),))
    sympy = staticmethod(_gelu_sympy)
    forward_scale = staticmethod(lambda x: x)
    backward_scale = staticmethod(lambda i, x: 1.0 + abs(x))  # cdf + x * pdf


def _gelu_tanh_double(k, g, go, x):
    """gelu_double_backward(ggI, gO, self, 'tanh'): ggI * gO * f''(x), with u = beta (x + kappa x^3),
    t = tanh(u): f'' = (1 - t^2) (u' - x t u'^2 + x u'' / 2)."""
    beta, kappa = k.const(GELU_BETA), k.const(GELU_KAPPA)
    x_sq = k.mul(x, x)
    u = k.mul(beta, k.add(x, k.mul(kappa, k.mul(x_sq, x))))
    t = k.pointwise(UN.Tanh, u)
    du = k.mul(beta, k.add(k.const(1.0), k.mul(k.const(3.0 * GELU_KAPPA), x_sq)))
    ddu_half = k.mul(k.const(3.0 * GELU_BETA * GELU_KAPPA), x)
    inner = k.add(k.sub(du, k.mul(k.mul(x, t), k.mul(du, du))), k.mul(x, ddu_half))
    return k.mul(k.mul(g, go), k.mul(k.sub(k.const(1.0), k.mul(t, t)), inner))


@register
class GeluTanhBackward(Binary):
    """gelu_backward(grad, self, approximate='tanh')."""

    name = "GeluBackwardBackward0"
    saved = (("approximate", ("value", "tanh")), ("grad_output", 0), ("self", 1))
    backward_scale = staticmethod(lambda i, g, x: 1.0 + abs(x) if i == 0 else abs(g) * (1.0 + x * x))
    forward_scale = staticmethod(lambda g, x: g * (1.0 + abs(x)))
    forward = staticmethod(_gelu_tanh_backward_forward)

    @staticmethod
    def backward(k, g, v):
        go, x = k.ins(v)
        return k.pointwise(GeluTanhBackward, g, x), _gelu_tanh_double(k, g, go, x)

    @staticmethod
    def sympy(sp, g, x):
        y = sp.Symbol("_gelu_x", real=True)
        return g * sp.diff(_gelu_tanh_sympy(sp, y), y).subs(y, x)


@register
class GeluTanh(Unary):
    """gelu(x, approximate='tanh'): 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))."""

    name = "GeluBackward0"
    saved = (("approximate", ("value", "tanh")), ("self", 0))
    result = "float"

    @staticmethod
    def forward(r, x):
        _, _, _, t = _gelu_tanh_parts(r, x)
        return r(0.5 * x) * r(1.0 + t)

    backward = staticmethod(lambda k, g, v: (k.pointwise(GeluTanhBackward, g, k.a(v)),))
    sympy = staticmethod(_gelu_tanh_sympy)
    forward_scale = staticmethod(lambda x: x)
    backward_scale = staticmethod(lambda i, x: 1.0 + abs(x))


# ---------------------------------------------------------------- silu, mish


def _sigmoid(r, x):
    return r(1.0 / r(1.0 + r(ieee.exp(-x))))


class SiluBackward(Binary):
    """silu_backward(grad, self): the kernel run by a backward without grad mode (with grad mode
    on, PyTorch composes it of ordinary ops instead, so it is never a node)."""

    name = "SiluBackwardBackward0"

    @staticmethod
    def forward(r, dy, x):
        s = _sigmoid(r, x)
        return r(dy * s) * r(1.0 + r(x * r(1.0 - s)))

    sympy = staticmethod(lambda sp, g, x: g * (1 + sp.exp(-x) + x * sp.exp(-x)) / (1 + sp.exp(-x)) ** 2)


def _silu_backward(k, g, v):
    x = k.a(v)
    if k.graph:
        # infinitely_differentiable_silu_backward: grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid))
        s = k.pointwise(UN.Sigmoid, x)
        return (k.mul(k.mul(g, s), k.add(k.const(1.0), k.mul(x, k.sub(k.const(1.0), s)))),)
    return (k.pointwise(SiluBackward, g, x),)


@register
class Silu(Unary):
    """silu(x) = x / (1 + exp(-x))."""

    name = "SiluBackward0"
    saved = (("self", 0),)
    result = "float"
    forward = staticmethod(lambda r, x: x / r(1.0 + r(ieee.exp(-x))))
    backward = staticmethod(_silu_backward)
    backward_scale = staticmethod(lambda i, x: 1.0 + abs(x))  # sigmoid * (1 + x * (1 - sigmoid)), 0 at -1.28
    sympy = staticmethod(lambda sp, x: x / (1 + sp.exp(-x)))


def _softplus1(r, x):
    return r(ieee.log1p(r(ieee.exp(x))))


class MishBackward(Binary):
    """mish_backward(grad, self), the kernel (never a node: see SiluBackward)."""

    name = "MishBackwardBackward0"

    @staticmethod
    def forward(r, dy, x):
        s = _sigmoid(r, x)
        t = r(ieee.tanh(_softplus1(r, x)))
        return dy * r(t + r(r(x * s) * r(1.0 - r(t * t))))

    @staticmethod
    def sympy(sp, g, x):
        y = sp.Symbol("_mish_x", real=True)
        return g * sp.diff(y * sp.tanh(sp.log(1 + sp.exp(y))), y).subs(y, x)


def _mish_backward(k, g, v):
    x = k.a(v)
    if k.graph:
        # infinitely_differentiable_mish_backward
        s = k.pointwise(UN.Sigmoid, x)
        t = k.pointwise(UN.Tanh, k.pointwise(UN.Log1p, k.exp(x)))
        inner = k.add(t, k.mul(k.mul(x, s), k.sub(k.const(1.0), k.mul(t, t))))
        return (k.mul(g, inner),)
    return (k.pointwise(MishBackward, g, x),)


@register
class Mish(Unary):
    """mish(x) = x * tanh(log1p(exp(x)))."""

    name = "MishBackward0"
    saved = (("self", 0),)
    result = "float"
    forward = staticmethod(lambda r, x: x * r(ieee.tanh(_softplus1(r, x))))
    backward = staticmethod(_mish_backward)
    backward_scale = staticmethod(lambda i, x: 1.0 + abs(x))
    sympy = staticmethod(lambda sp, x: x * sp.tanh(sp.log(1 + sp.exp(x))))


# ---------------------------------------------------------------- softplus


def _softplus_magnitude(a, b):
    xb = a * b
    return abs(ieee.div(ieee.log1p(ieee.exp(min(xb, 700.0))), b)) + abs(a)


def _softplus_backward_forward(r, g, x, c):
    z = r(ieee.exp(r(x * c.b)))
    return g if r(x * c.b) > c.th else ieee.div(r(g * z), r(z + 1.0))


@register
class SoftplusBackward(ActivationBackward):
    """softplus_backward(grad, self, beta, threshold): grad * z / (z + 1), z = exp(x * beta)."""

    name = "SoftplusBackwardBackward0"
    saved = (("beta", "c.beta"), ("self", 1), ("threshold", "c.threshold"))
    forward = staticmethod(_softplus_backward_forward)
    # d/dself is grad * beta * y * (1 - y) with y = sigmoid(beta x) rounded: relative to grad * beta;
    # x * beta is rounded before exp, which magnifies that rounding by |x * beta|
    backward_scale = staticmethod(lambda i, g, x, c: (1.0 + abs(x * c[0])) * (1.0 if i == 0 else abs(g * c[0])))
    forward_scale = staticmethod(lambda g, x, c: abs(g) * (1.0 + abs(x * c[0])))

    @staticmethod
    def backward(k, g, v):
        go, x = k.ins(v)
        c = v._c
        # self: softplus_double_backward(grad * grad_output, self, beta, threshold):
        # sigmoid_backward(grad, (input * beta).sigmoid()) * (input * beta < threshold) * beta
        xb = k.mul(x, k.const(c.b))
        dd = k.mul(k.sigmoid_backward(k.mul(g, go), k.pointwise(UN.Sigmoid, xb)), k.const(c.b))
        return k.pointwise(SoftplusBackward, g, x, c=c), k.where(xb < c.th, dd, k.zero(dd))

    @staticmethod
    def sympy(sp, g, x, c):
        return sp.Piecewise((g, x * c[0] > c[1]), (g * sp.exp(x * c[0]) / (sp.exp(x * c[0]) + 1), True))


@register
class Softplus(Activation):
    """softplus(x, beta, threshold) = log1p(exp(x * beta)) / beta, x itself where x * beta > threshold."""

    name = "SoftplusBackward0"
    saved = (("beta", "c.beta"), ("self", 0), ("threshold", "c.threshold"))

    @staticmethod
    def forward(r, a, c):
        xb = r(a * c.b)
        return a if xb > c.th else ieee.div(r(ieee.log1p(r(ieee.exp(xb)))), c.b)

    backward = staticmethod(lambda k, g, v: (k.pointwise(SoftplusBackward, g, k.a(v), c=v._c),))

    @staticmethod
    def sympy(sp, a, c):
        return sp.Piecewise((a, a * c[0] > c[1]), (sp.log(1 + sp.exp(a * c[0])) / c[0], True))

    # x * beta is rounded before exp: exp magnifies that rounding by |x * beta|
    forward_scale = staticmethod(lambda a, c: (1.0 + abs(a * c[0])) * _softplus_magnitude(a, c[0]))
    backward_scale = staticmethod(lambda i, a, c: 1.0 + abs(a * c[0]))


# ---------------------------------------------------------------- hardtanh, relu6


@register
class HardtanhBackward(ActivationBackward):
    """hardtanh_backward(grad, self, min_val, max_val): 0 where self <= min or self >= max."""

    name = "HardtanhBackwardBackward0"
    saved = (("max_val", "c.max_val"), ("min_val", "c.min_val"), ("self", 1))
    forward = staticmethod(lambda r, g, x, c: 0.0 if (x <= c.lo or x >= c.hi) else g)
    backward = staticmethod(lambda k, g, v: (k.pointwise(HardtanhBackward, g, k.b(v), c=v._c), k.zero(g)))
    sympy = staticmethod(lambda sp, g, x, c: sp.Piecewise((0, x <= c[0]), (0, x >= c[1]), (g, True)))


@register
class Hardtanh(Activation):
    """hardtanh(x, min_val, max_val): clamp(x, min_val, max_val) (relu6 is hardtanh(x, 0, 6));
    the gradient is 0 at the bounds themselves, unlike clamp's."""

    name = "HardtanhBackward0"
    saved = (("max_val", "c.max_val"), ("min_val", "c.min_val"), ("self", 0))
    forward = staticmethod(lambda r, a, c: CM.clamp_value(r, a, (c.lo, c.hi)))
    backward = staticmethod(lambda k, g, v: (k.pointwise(HardtanhBackward, g, k.a(v), c=v._c),))

    @staticmethod
    def sympy(sp, a, c):
        return sp.Piecewise((c[0], a <= c[0]), (c[1], a >= c[1]), (a, True))


# ---------------------------------------------------------------- hardsigmoid, hardswish

ONE_SIXTH = 0.1666666716337204  # ATen's 1.0f / 6.0f, a float32 number also in float64


@register
class HardsigmoidBackward(Binary):
    """hardsigmoid_backward(grad, self): grad * (1.0f / 6.0f) for -3 < self < 3, else 0."""

    name, saves = "NotImplemented", False  # PyTorch has no derivative for it
    namespace = "torch::autograd::"
    saved = ()
    forward = staticmethod(lambda r, g, x: g * ONE_SIXTH if -3.0 < x < 3.0 else 0.0)

    @staticmethod
    def backward(k, g, v):
        # derivatives.yaml has no entry for hardsigmoid_backward
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")
    # the kernel's slope is the float32 number 1.0f / 6.0f, in every dtype
    sympy = staticmethod(lambda sp, g, x: sp.Piecewise((0, x <= -3), (0, x >= 3), (g * sp.Rational(ONE_SIXTH), True)))


@register
class Hardsigmoid(Unary):
    """hardsigmoid(x) = min(max(x + 3, 0), 6) / 6."""

    name = "HardsigmoidBackward0"
    saved = (("self", 0),)
    result = "float"
    forward = staticmethod(lambda r, x: CM.clamp_value(r, r(x + 3.0), (0.0, 6.0)) / 6.0)
    backward = staticmethod(lambda k, g, v: (k.pointwise(HardsigmoidBackward, g, k.a(v)),))
    sympy = staticmethod(lambda sp, x: sp.Piecewise((0, x <= -3), (1, x >= 3), ((x + 3) / 6, True)))

    @staticmethod
    def convention(x):
        # hardsigmoid_backward's grad is 1.0f/6.0f, a float32 number (in float64 too): 3e-9 from 1/6
        if -3.0 < x < 3.0:
            return ("hardsigmoid: PyTorch's slope is the float32 number 1.0f/6.0f = 0.1666666716337204 "
                    "(also in float64)", (ONE_SIXTH,))
        return None


def _hardswish_backward_forward(r, g, x):
    # PyTorch 2.13's kernel (both its scalar and vectorised code): 0 at -3 itself, grad at 3
    if x <= -3.0:
        return 0.0
    if x < 3.0:
        return g * r(r(x / 3.0) + 0.5)
    return g


@register
class HardswishBackward(Binary):
    """hardswish_backward(grad, self): 0 up to -3, grad * (x / 3 + 0.5) between, grad from 3 on."""

    name = "HardswishBackwardBackward0"
    saved = (("self", 1),)
    forward = staticmethod(_hardswish_backward_forward)

    @staticmethod
    def backward(k, g, v):
        go, x = k.ins(v)
        # self: where(-3 < self < 3, grad * grad_output / 3.0, 0)
        dd = k.div(k.mul(g, go), k.const(3.0))
        return k.pointwise(HardswishBackward, g, x), k.where(x > -3.0, k.where(x < 3.0, dd, k.zero(dd)), k.zero(dd))

    @staticmethod
    def sympy(sp, g, x):
        return sp.Piecewise((0, x <= -3), (g * (x / 3 + sp.Rational(1, 2)), x < 3), (g, True))


@register
class Hardswish(Unary):
    """hardswish(x) = x * min(max(x + 3, 0), 6) / 6."""

    name = "HardswishBackward0"
    saved = (("self", 0),)
    result = "float"
    forward = staticmethod(lambda r, x: r(x * CM.clamp_value(r, r(x + 3.0), (0.0, 6.0))) / 6.0)
    backward = staticmethod(lambda k, g, v: (k.pointwise(HardswishBackward, g, k.a(v)),))
    sympy = staticmethod(lambda sp, x: sp.Piecewise((0, x <= -3), (x, x >= 3), (x * (x + 3) / 6, True)))


# ---------------------------------------------------------------- threshold, shrinks


@register
class Threshold(Activation):
    """threshold(x, threshold, value): value where x <= threshold, else x."""

    name = "ThresholdBackward0"
    saved = (("self", 0), ("threshold", "c.threshold"))
    forward = staticmethod(lambda r, a, c: c.value if a <= c.th else a)
    backward = staticmethod(lambda k, g, v: (k.threshold_backward(g, k.a(v), v._c.th),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((c[1], a <= c[0]), (a, True)))


@register
class ThresholdInplace(Threshold):
    """threshold_(x, ...): ThresholdBackward1, the original self saved."""

    name = "ThresholdBackward1"


class _ShrinkBackward(ActivationBackward):
    saved = (("lambd", "c.lambd"), ("self", 1))
    forward = staticmethod(lambda r, g, x, c: 0.0 if -c.lam <= x <= c.lam else g)
    sympy = staticmethod(lambda sp, g, x, c: sp.Piecewise((0, sp.And(x >= -c[0], x <= c[0])), (g, True)))


@register
class SoftshrinkBackward(_ShrinkBackward):
    name = "SoftshrinkBackwardBackward0"
    backward = staticmethod(lambda k, g, v: (k.pointwise(SoftshrinkBackward, g, k.b(v), c=v._c), k.zero(g)))


@register
class HardshrinkBackward(_ShrinkBackward):
    name = "HardshrinkBackwardBackward0"
    backward = staticmethod(lambda k, g, v: (k.pointwise(HardshrinkBackward, g, k.b(v), c=v._c), k.zero(g)))


def _softshrink_vector(r, a, c):
    # PyTorch 2.13's vectorised code: +0.0 between the bounds (nan falls through to a + lambd)
    return a - c.lam if a > c.lam else (0.0 if a >= -c.lam else a + c.lam)


def _softshrink_by_position(dt, cols, n, c):
    r = dt.round
    nv = vectorized_count(n, dt.name)
    return [r(_softshrink_vector(r, a, c) if i < nv else _softshrink(r, a, c)) for i, a in enumerate(cols[0])]


def _softshrink(r, a, c):
    # the scalar code: x * 0 between the bounds (-0.0 for a negative x, nan for nan)
    return a - c.lam if a > c.lam else (a + c.lam if a < -c.lam else a * 0.0)


@register
class Softshrink(Activation):
    """softshrink(x, lambd): x - lambd above lambd, x + lambd below -lambd, 0 between (ATen's
    scalar and vectorised code differ in the sign of that zero)."""

    name = "SoftshrinkBackward0"
    saved = (("lambd", "c.lambd"), ("self", 0))
    forward = staticmethod(_softshrink)
    by_position = staticmethod(_softshrink_by_position)
    backward = staticmethod(lambda k, g, v: (k.pointwise(SoftshrinkBackward, g, k.a(v), c=v._c),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((a - c[0], a > c[0]), (a + c[0], a < -c[0]), (0, True)))


@register
class Hardshrink(Activation):
    """hardshrink(x, lambd): 0 for -lambd <= x <= lambd, else x."""

    name = "HardshrinkBackward0"
    saved = (("lambd", "c.lambd"), ("self", 0))
    forward = staticmethod(lambda r, a, c: 0.0 if -c.lam <= a <= c.lam else a)
    backward = staticmethod(lambda k, g, v: (k.pointwise(HardshrinkBackward, g, k.a(v), c=v._c),))
    sympy = staticmethod(lambda sp, a, c: sp.Piecewise((0, sp.And(a >= -c[0], a <= c[0])), (a, True)))


# ---------------------------------------------------------------- log_sigmoid


def _log_sigmoid_backward_forward(r, g, x):
    b = r(ieee.exp(-abs(x)))  # the buffer the forward kept
    negative = x < 0
    max_deriv = 1.0 if negative else 0.0
    sign = 1.0 if negative else -1.0
    return r(max_deriv - r(sign * r(b / r(1.0 + b)))) * g


@register
class LogSigmoidBackward(Binary):
    """log_sigmoid_backward(grad, self, buffer), buffer = exp(-|self|) (recomputed: the same bits)."""

    name = "LogSigmoidBackwardBackward0"
    saved = (("self", 1),)
    forward = staticmethod(_log_sigmoid_backward_forward)
    backward_scale = staticmethod(lambda i, g, x: 1.0 if i == 0 else abs(g))  # (z - 1) * z, z rounded

    @staticmethod
    def backward(k, g, v):
        go, x = k.ins(v)
        # self: log_sigmoid_double_backward(grad * grad_output, self) = that * (z - 1) * z, z = sigmoid(self)
        z = k.pointwise(UN.Sigmoid, x)
        return k.pointwise(LogSigmoidBackward, g, x), k.mul(k.mul(k.mul(g, go), k.sub(z, k.const(1.0))), z)

    sympy = staticmethod(lambda sp, g, x: g / (1 + sp.exp(x)))


@register
class LogSigmoid(Unary):
    """log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)); ``_c`` holds the buffer exp(-|x|) PyTorch saves."""

    name = "LogSigmoidBackward0"
    saved = (("buffer", "c"), ("self", 0))
    result = "float"
    forward = staticmethod(lambda r, x: min(x, 0.0) - r(ieee.log1p(r(ieee.exp(-abs(x))))) if x == x else x)
    backward = staticmethod(lambda k, g, v: (k.pointwise(LogSigmoidBackward, g, k.a(v)),))
    sympy = staticmethod(lambda sp, x: -sp.log(1 + sp.exp(-x)))


@register
class PreluKernel(Binary):
    """_prelu_kernel(self, weight): self where self > 0, else weight * self (weight broadcast over self)."""

    name = "PreluKernelBackward0"
    saved = (("self", 0), ("weight", 1))
    api = spellings("_prelu_kernel", inplace=False, function=True)
    other_tensor_only = True
    forward = staticmethod(lambda r, a, b: a if a > 0 else b * a)

    @staticmethod
    def backward(k, g, v):
        # _prelu_kernel_backward: (self > 0 ? grad : weight * grad, self > 0 ? 0 : self * grad)
        x, w = k.a(v), k.b(v)
        pos = x > 0.0
        return k.where(pos, g, k.mul(w, g)), k.where(pos, k.zero(g), k.mul(x, g))

    sympy = staticmethod(lambda sp, a, b: sp.Piecewise((a, a > 0), (b * a, True)))


ACTIVATIONS = [LeakyRelu, LeakyReluInplace, Elu, EluInplace, Celu, CeluInplace, Gelu,
               GeluTanh, Silu, Mish, Softplus, Hardtanh, Hardsigmoid, Hardswish, Threshold, ThresholdInplace,
               Softshrink, Hardshrink, LogSigmoid, PreluKernel]
"""Every activation op a program may call (through ``nn.functional``)."""
