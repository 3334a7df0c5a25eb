"""Pointwise ops of three operands, or of two and a number: addcmul, addcdiv, lerp.

These are the update steps of PyTorch's optimizers (``exp_avg.lerp_(grad, 1 - beta1)``,
``exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)``, ``param.addcdiv_(exp_avg, denom,
value=-step_size)``), and ordinary differentiable ops besides.

How PyTorch 2.13's CPU kernels round, found by experiment against torch on an Intel Xeon
(AVX512) for 1, 7, 16, 31-33 and 1000 contiguous elements, 0-dim tensors, float32 and float64
(every element agreed with the formula below, in the vectorised body and the scalar tail alike,
so the result does not depend on an element's position; ``tests/test_pointwise.py``
repeats the comparison):

* ``addcmul(self, t1, t2, value)`` = fma(value * t1, t2, self): the product ``value * t1`` is
  rounded, then multiplied by t2 and added to self in one fused multiply-add (the compiler
  contracts ``self + value * t1 * t2``; its vector form does the same);
* ``addcdiv(self, t1, t2, value)`` = self + (value * t1) / t2, each step rounded (a division
  cannot be fused);
* ``lerp(self, end, weight)`` = fma(weight, end - self, self) where |weight| < 0.5, else
  fma(-(end - self), 1 - weight, end) (ATen's two-sided formula, each form one fused
  multiply-add; ``end - self`` and ``1 - weight`` rounded first).

``value`` and a number ``weight`` are cast to the tensor's dtype before the kernel runs (a
Python float is rounded to float32 for a float32 tensor), and so is ``value`` where the
backward multiplies a tensor by it; lerp's backward reads the weight as it was given
(``derivatives.yaml``: ``1 - weight.toDouble()``), and ``_saved_value`` shows it so. The node's
``_c`` is the pair (the number as given, the number in the tensor's dtype); the SymPy form
takes the second, the number the forward computed with.
"""

from __future__ import annotations

from .._base import ieee
from .._base.dtypes import round_f32
from .._base.kernel_order import fma32, fma64
from .elementwise import Elementwise
from .table import Api, register

__all__ = ["Addcmul", "Addcdiv", "LerpScalar", "LerpTensor", "fused", "addcmul_element", "addcdiv_element",
           "lerp_element", "POINTWISE"]


def fused(r, a, b, c):
    """``a * b + c`` rounded once, to the dtype whose rounding is ``r`` (a fused multiply-add:
    float32 and float64; integers are exact anyway)."""
    if r is round_f32:
        return fma32(a, b, c)
    if r is float:
        return fma64(a, b, c)
    return r(a * b + c)


def addcmul_element(r, s, a, b, value):
    """One element of addcmul, ``value`` already in the dtype: rounded to it."""
    return fused(r, r(value * a), b, s)


def addcdiv_element(r, s, a, b, value):
    """One element of addcdiv, ``value`` already in the dtype: rounded to it."""
    return r(s + r(ieee.div(r(value * a), b)))


def lerp_element(r, s, e, w):
    """One element of lerp, ``w`` in the dtype: rounded to it."""
    d = r(e - s)
    if abs(w) < 0.5:
        return fused(r, w, d, s)
    return fused(r, -d, r(1.0 - w), e)


def _addcmul(r, s, a, b, c):
    return addcmul_element(r, s, a, b, c[1])


def _addcdiv(r, s, a, b, c):
    return addcdiv_element(r, s, a, b, c[1])


_lerp = lerp_element


def _lerp_magnitude(s, e, w):
    # end - self is rounded, then scaled by the weight (or 1 - weight) and added to an endpoint
    return max(abs(s), abs(e)) + (abs(w) + abs(1.0 - w)) * (abs(e) + abs(s))


@register
class Addcmul(Elementwise):
    """addcmul(self, tensor1, tensor2, *, value=1): self + value * tensor1 * tensor2."""

    name = "AddcmulBackward0"
    arity = 3
    uses_c = True
    saved = (("tensor1", 1), ("tensor2", 2), ("value", "number"))
    api = Api(method="addcmul", inplace="addcmul_", function="addcmul")
    forward = staticmethod(_addcmul)
    # the size of the terms the forward rounds (value * tensor1 is rounded before the fused
    # step): the SymPy check's tolerance scales with it where the terms cancel
    magnitude = staticmethod(lambda vals, c: abs(vals[0]) + abs(c[1] * vals[1] * vals[2]))

    @staticmethod
    def backward(k, g, v):
        _, t1, t2 = k.ins(v)
        c = k.const(v._c[1])
        # self: grad; tensor1: grad * (tensor2 * value); tensor2: grad * (tensor1 * value)
        return g, k.mul(g, k.mul(t2, c)), k.mul(g, k.mul(t1, c))

    sympy = staticmethod(lambda sp, s, a, b, c: s + c[1] * a * b)


@register
class Addcdiv(Elementwise):
    """addcdiv(self, tensor1, tensor2, *, value=1): self + value * tensor1 / tensor2."""

    name = "AddcdivBackward0"
    arity = 3
    uses_c = True
    saved = (("tensor1", 1), ("tensor2", 2), ("value", "number"))
    api = Api(method="addcdiv", inplace="addcdiv_", function="addcdiv")
    forward = staticmethod(_addcdiv)
    magnitude = staticmethod(lambda vals, c: abs(vals[0]) + abs(c[1] * vals[1] / vals[2]) if vals[2] else 0.0)

    @staticmethod
    def backward(k, g, v):
        _, t1, t2 = k.ins(v)
        c = v._c[1]
        # tensor1: grad * (value / tensor2), the number divided by the tensor in one rounding;
        # tensor2: -grad * (value * tensor1 / (tensor2 * tensor2))
        return (g, k.mul(g, k.rdiv(c, t2)),
                k.mul(k.neg(g), k.div(k.mul(t1, k.const(c)), k.mul(t2, t2))))

    sympy = staticmethod(lambda sp, s, a, b, c: s + c[1] * a / b)


@register
class LerpScalar(Elementwise):
    """lerp(self, end, weight) with a number weight."""

    name = "LerpBackward0"
    arity = 2
    uses_c = True
    saves_inputs = False
    saved = (("weight", "number"),)
    api = Api(method="lerp", inplace="lerp_", function="lerp")
    forward = staticmethod(lambda r, s, e, c: _lerp(r, s, e, c[1]))
    magnitude = staticmethod(lambda vals, c: _lerp_magnitude(*vals, c[1]))

    @staticmethod
    def backward(k, g, v):
        given, w = v._c
        # self: grad * (1 - weight.toDouble()); end: grad * weight
        return k.mul(g, k.const(1.0 - given)), k.mul(g, k.const(w))

    sympy = staticmethod(lambda sp, s, e, c: s + c[1] * (e - s))


@register
class LerpTensor(Elementwise):
    """lerp(self, end, weight) with a tensor weight."""

    name = "LerpBackward1"
    arity = 3
    saved = (("end", 1), ("self", 0), ("weight", 2))
    forward = staticmethod(_lerp)
    magnitude = staticmethod(lambda vals, c: _lerp_magnitude(*vals))

    @staticmethod
    def backward(k, g, v):
        s, e, w = k.ins(v)
        # self: grad * (1 - weight); end: grad * weight; weight: grad * (end - self). PyTorch's
        # generated backward computes end's term first: under create_graph the order of the
        # nodes decides how second-order gradients add up (checked against torch in float32)
        ge = k.mul(g, w)
        gs = k.mul(g, k.sub(k.const(1.0), w))
        return gs, ge, k.mul(g, k.sub(e, s))

    sympy = staticmethod(lambda sp, s, e, w: s + w * (e - s))


POINTWISE = [Addcmul, Addcdiv, LerpScalar, LerpTensor]
"""The ops of this module, for the catalogue tests."""
