"""The unary elementwise functions: neg, reciprocal, log, exp, log1p, expm1, sqrt, rsqrt, tanh,
sigmoid, relu, abs, sgn/sign, sin, cos; and the ops their derivatives are made of (tanh_backward,
sigmoid_backward, threshold_backward), which are ops of their own in PyTorch: under
create_graph, double backward goes through their nodes.
"""

from __future__ import annotations

import math
import operator

from .._base import ieee
from .arithmetic import pow_scalar
from .correctly_rounded import tanh_correctly_rounded
from .elementwise import BOOL_NEG, Binary, Unary, spellings
from .float_kernel import helper
from .table import register

__all__ = ["Neg", "Reciprocal", "Log", "Exp", "Log1p", "Expm1", "Sqrt", "Rsqrt", "Tanh", "Sigmoid", "Relu", "Abs",
           "Sgn", "Sign", "Sin", "Cos", "TanhBackward", "SigmoidBackward", "ThresholdBackward", "SCALAR_DERIVATIVES"]


@register
class Neg(Unary):
    name, saves, saves_inputs = "NegBackward0", False, False
    api = spellings("neg", aliases=("negative",))
    bool_error = BOOL_NEG
    forward = staticmethod(lambda r, a: -a)
    fast = operator.neg
    backward = staticmethod(lambda k, g, v: (k.neg(g),))
    sympy = staticmethod(lambda sp, a: -a)


@register
class Reciprocal(Unary):
    """1 / tensor; ``number / tensor`` is ``reciprocal(tensor) * number`` as in PyTorch."""

    name, saves_inputs, saves_output = "ReciprocalBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("reciprocal")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.div(1.0, a))

    @staticmethod
    def backward(k, g, v):
        y = k.out(v)  # -grad * (result * result)
        return (k.mul(k.neg(g), k.mul(y, y)),)

    sympy = staticmethod(lambda sp, a: 1 / a)


@register
class Log(Unary):
    name = "LogBackward0"
    saved = (("self", 0),)
    api = spellings("log")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.log(a))
    fast = math.log
    backward = staticmethod(lambda k, g, v: (k.div(g, k.a(v)),))
    sympy = staticmethod(lambda sp, a: sp.log(a))


@register
class Exp(Unary):
    name, saves_inputs, saves_output = "ExpBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("exp")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.exp(a))
    fast = math.exp
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: sp.exp(a))


@register
class Log1p(Unary):
    name = "Log1PBackward0"
    saved = (("self", 0),)
    api = spellings("log1p")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.log1p(a))
    fast = math.log1p
    # log1p_backward: grad / (self + 1)
    backward = staticmethod(lambda k, g, v: (k.div(g, k.add(k.a(v), k.const(1.0))),))
    sympy = staticmethod(lambda sp, a: sp.log(1 + a))


@register
class Expm1(Unary):
    name, saves_inputs, saves_output = "Expm1Backward0", False, True
    saved = (("result", "result"),)
    api = spellings("expm1")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.expm1(a))
    fast = math.expm1
    # grad * (result + 1)
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.add(k.out(v), k.const(1.0))),))
    sympy = staticmethod(lambda sp, a: sp.exp(a) - 1)


@register
class Sqrt(Unary):
    name, saves_inputs, saves_output = "SqrtBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("sqrt")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.sqrt(a))
    fast = math.sqrt
    # grad / (2 * result)
    backward = staticmethod(lambda k, g, v: (k.div(g, k.mul(k.const(2), k.out(v))),))
    sympy = staticmethod(lambda sp, a: sp.sqrt(a))

    @staticmethod
    def convention(a):
        if a == 0:  # g / (2 * sqrt(0)): sqrt(-0.0) is -0.0, so at -0.0 it is -inf
            inf = math.copysign(math.inf, a)
            where = "0 is inf" if inf > 0 else "-0.0 is -inf"
            return (f"sqrt: PyTorch's derivative at {where} (calculus: no derivative; one-sided limit +inf)",
                    (inf,))
        return None


@register
class Rsqrt(Unary):
    """1 / sqrt(x): ATen's CPU kernel (scalar and vectorised alike) divides 1 by the rounded
    square root, two correctly rounded steps."""

    name, saves_inputs, saves_output = "RsqrtBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("rsqrt")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.div(1.0, r(ieee.sqrt(a))))
    # derivatives.yaml: -0.5 * grad * result.pow(3)
    backward = staticmethod(lambda k, g, v: (k.mul(k.mul(k.const(-0.5), g), k.pow_number(k.out(v), 3.0)),))
    sympy = staticmethod(lambda sp, a: 1 / sp.sqrt(a))

    @staticmethod
    def convention(a):
        if a == 0:  # -0.5 * g * inf**3: at -0.0 rsqrt is -inf and the derivative +inf
            inf = -math.copysign(math.inf, a)
            where = "0 is -inf" if inf < 0 else "-0.0 is inf"
            return (f"rsqrt: PyTorch's derivative at {where} (calculus: no derivative; one-sided limit -inf)", (inf,))
        return None


@register
class Tanh(Unary):
    name, saves_inputs, saves_output = "TanhBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("tanh", functional="tanh")
    result = "float"
    # float64 correctly rounded (tanh_correctly_rounded); float32 rounds the double tanh,
    # whose error is far below float32's half ulp
    forward = staticmethod(lambda r, a: tanh_correctly_rounded(a) if r is float else ieee.tanh(a))
    fast = math.tanh
    fast64 = staticmethod(tanh_correctly_rounded)
    backward = staticmethod(lambda k, g, v: (k.tanh_backward(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: sp.tanh(a))


@register
class Sigmoid(Unary):
    name, saves_inputs, saves_output = "SigmoidBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("sigmoid", functional="sigmoid")
    result = "float"
    # PyTorch's kernel: 1 / (1 + exp(-x)) in the tensor's dtype, each step rounded (so a
    # float32 exp(-x) that overflows gives exactly 0, not a subnormal)
    forward = staticmethod(lambda r, a: 1.0 / r(1.0 + r(ieee.exp(-a))))
    backward = staticmethod(lambda k, g, v: (k.sigmoid_backward(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: 1 / (1 + sp.exp(-a)))


@register
class Relu(Unary):
    """max(x, 0); derivative 0 at 0 (PyTorch's threshold_backward on the result)."""

    name, saves_inputs, saves_output = "ReluBackward0", False, True
    saved = (("result", "result"),)
    api = spellings("relu", functional="relu")
    bool_error = "Boolean inputs not supported for relu"
    # clamp_min(x, 0): -0.0 and nan pass through unchanged
    forward = staticmethod(lambda r, a: 0.0 if a < 0 else a)
    # threshold_backward zeroes where result <= 0, so a nan result passes the gradient
    backward = staticmethod(lambda k, g, v: (k.threshold_backward(g, k.out(v), 0.0),))
    # 0 up to and including 0: the derivative at 0 is 0, as PyTorch's (SymPy's Heaviside(0) is 1/2)
    sympy = staticmethod(lambda sp, a: sp.Piecewise((0, a <= 0), (a, True)))


@register
class Abs(Unary):
    """|x|; derivative sgn(x), so 0 at 0 as in PyTorch."""

    name = "AbsBackward0"
    saved = (("self", 0),)
    api = spellings("abs", aliases=("absolute",))
    bool_kernel = "abs_cpu"
    forward = staticmethod(lambda r, a: abs(a))
    fast = abs
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.sgn(k.a(v))),))
    # d|a|/da = sign(a), and SymPy's sign(0) is 0: PyTorch's convention at 0
    sympy = staticmethod(lambda sp, a: sp.Abs(a))


@register
class Sgn(Unary):
    """sgn(x): -1, 0 or 1 (0 for nan); derivative 0 (sgn_backward of a real tensor)."""

    name, saves, saves_inputs = "SgnBackward0", False, False
    api = spellings("sgn")
    forward = staticmethod(lambda r, a: (a > 0) - (a < 0) if a == a else 0.0)
    # sgn_backward of a real tensor is an _efficientzerotensor: summed, it changes nothing
    backward = staticmethod(lambda k, g, v: (k.no_gradient(g),))
    sympy = staticmethod(lambda sp, a: sp.sign(a))


@register
class Sign(Sgn):
    name = "SignBackward0"
    api = spellings("sign")
    # derivatives.yaml: zeros_like(grad), an ordinary tensor (summed under create_graph: AddBackward0)
    backward = staticmethod(lambda k, g, v: (k.zeros_like(g),))


@register
class Sin(Unary):
    name = "SinBackward0"
    saved = (("self", 0),)
    api = spellings("sin")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.sin(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.cos(k.a(v))),))
    sympy = staticmethod(lambda sp, a: sp.sin(a))


@register
class Cos(Unary):
    name = "CosBackward0"
    saved = (("self", 0),)
    api = spellings("cos")
    result = "float"
    forward = staticmethod(lambda r, a: ieee.cos(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.neg(k.sin(k.a(v)))),))
    sympy = staticmethod(lambda sp, a: sp.cos(a))


# ---------------------------------------------------------------- the derivatives' own ops


def _tanh_bw(r, g, y):
    return g * r(ieee.one_minus_square(y))


@register
class TanhBackward(Binary):
    """tanh_backward(grad, y) = grad * (1 - y*y); PyTorch's CPU kernel rounds 1 - y*y once."""

    name = "TanhBackwardBackward0"
    saved = (("grad_output", 0), ("output", 1))
    forward = staticmethod(_tanh_bw)

    @staticmethod
    def backward(k, g, v):
        go, y = k.ins(v)
        # grad_output: tanh_backward(grad, output); output: grad * (-2 * output * grad_output)
        return k.tanh_backward(g, y), k.mul(g, k.mul(k.mul(k.const(-2), y), go))

    sympy = staticmethod(lambda sp, g, y: g * (1 - y * y))


@register
class SigmoidBackward(Binary):
    """sigmoid_backward(grad, y) = grad * (1 - y) * y."""

    name = "SigmoidBackwardBackward0"
    saved = (("grad_output", 0), ("output", 1))
    forward = staticmethod(lambda r, g, y: r(g * r(1.0 - y)) * y)

    @staticmethod
    def backward(k, g, v):
        go, y = k.ins(v)
        # grad_output: sigmoid_backward(grad, output); output: grad * grad_output * (-2 * output + 1)
        return (k.sigmoid_backward(g, y),
                k.mul(k.mul(g, go), k.add(k.mul(k.const(-2), y), k.const(1))))

    sympy = staticmethod(lambda sp, g, y: g * (1 - y) * y)


@register
class ThresholdBackward(Binary):
    """threshold_backward(grad, self, threshold): grad where self > threshold, else 0; ``_c`` is
    the threshold."""

    name = "ThresholdBackwardBackward0"
    saved = (("self", 1), ("threshold", "c"))
    uses_c = True
    forward = staticmethod(lambda r, g, y, c: 0.0 if y <= c else g)

    @staticmethod
    def backward(k, g, v):
        # grad_output: threshold_backward(grad, self, threshold); self: zeros_like(grad)
        return k.threshold_backward(g, k.ins(v)[1], v._c), k.zero(g)

    sympy = staticmethod(lambda sp, g, y, c: sp.Piecewise((0, y <= c), (g, True)))


SCALAR_DERIVATIVES = [Neg, Log, Log1p, Exp, Expm1, Sqrt, Rsqrt, Tanh, Sigmoid, Relu, Abs, Sin, Cos, Reciprocal]
"""The ops of this family with a non-trivial derivative, for the catalogue tests."""


# ---------------------------------------------------------------- derivative helpers, on floats


@helper
def tanh_backward(k, g, y):
    # PyTorch's CPU kernel fuses 1 - y*y into one rounding
    return k.mul(g, k.r(ieee.one_minus_square(y)))


@helper
def sigmoid_backward(k, g, y):
    return k.mul(k.mul(g, k.sub(1.0, y)), y)


@helper
def pow_number(k, x, e):
    """``x.pow(e)`` for a number ``e`` (pow_tensor_scalar's special cases, each step rounded)."""
    return k.r(pow_scalar(k.r, x, e))


@helper
def threshold_backward(g, y, threshold):
    return 0.0 if y <= threshold else g


@helper
def sgn(x):
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)  # sgn(nan) is 0 in PyTorch
