"""rrelu in training: ``rrelu_with_noise(self, noise, lower, upper, training=True)``
(RreluWithNoiseBackward0), one node over its input: each element at or below 0 times its own
random slope, the slopes (1 above 0) the ``noise`` PyTorch saves; self: ``grad * noise``, itself
one node of (grad, self, noise) under create_graph (RreluWithNoiseBackwardBackward0, whose self
derivative is zero). In evaluation rrelu is leaky_relu (``activations.LeakyRelu``) under rrelu's
node names, slope (lower + upper) / 2 (``RreluEval``)."""

from __future__ import annotations

from collections import namedtuple

from .activations import LeakyParams, LeakyRelu, LeakyReluBackward, LeakyReluInplace
from .elementwise import Elementwise
from .table import Op, register

__all__ = ["RreluNoise", "RreluTrain", "RreluTrainInplace", "RreluTrainBackward", "RreluTrainParams", "RreluParams",
           "RreluEval", "RreluEvalInplace", "RreluEvalBackward", "RRELU_OPS"]

RreluTrainParams = namedtuple("RreluTrainParams", "lower upper training")
"""The Scalars rrelu_with_noise_backward's node saves (numbers: an elementwise op's parameters)."""


class RreluNoise:
    """What the node keeps: the Scalars PyTorch saves and the noise tensor (with its values)."""

    __slots__ = ("lower", "upper", "training", "noise", "slopes")

    def __init__(self, lower: float, upper: float, noise, slopes: list) -> None:
        self.lower, self.upper, self.training, self.noise, self.slopes = lower, upper, True, noise, slopes


@register
class RreluTrainBackward(Elementwise):
    """rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training=True):
    grad_output * noise; edges to grad_output and self only (the noise is not differentiable)."""

    name = "RreluWithNoiseBackwardBackward0"
    arity = 3
    uses_c = True
    edges = 2
    saved = (("lower", "c.lower"), ("noise", 2), ("self", 1), ("training", "c.training"), ("upper", "c.upper"))
    forward = staticmethod(lambda r, g, x, n, c: g * n)

    @staticmethod
    def backward(k, g, v):
        # grad_output: rrelu_with_noise_backward(grad, self, noise, ...); self: zeros_like(grad)
        _, x, n = k.ins(v)
        return k.pointwise(RreluTrainBackward, g, x, n, c=v._c), k.zero(g), None

    sympy = staticmethod(lambda sp, g, x, n, c: g * n)


@register
class RreluTrain(Op):
    """rrelu_with_noise(self, noise, lower, upper, training=True)."""

    name = "RreluWithNoiseBackward0"
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("self", 0), ("training", "c.training"),
             ("upper", "c.upper"))
    @staticmethod
    def backward(k, g, v):
        # self: rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false) = grad * noise
        c = v._c
        p = RreluTrainParams(c.lower, c.upper, c.training)
        return (k.pointwise(RreluTrainBackward, g, k.a(v), k.held(c.noise), c=p),)

    @staticmethod
    def sympy(sp, a, noise):
        return a * noise


@register
class RreluTrainInplace(RreluTrain):
    """rrelu_with_noise_(self, noise, lower, upper, training=True) (RreluWithNoiseBackward1): the
    same slopes; the result is saved in place of the overwritten input, and the backward reads it
    (derivatives.yaml: ``rrelu_with_noise_backward(grad, result, noise, ..., is_result=true)``)."""

    name, saves_inputs, saves_output = "RreluWithNoiseBackward1", False, True
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("result", "result"), ("training", "c.training"),
             ("upper", "c.upper"))

    @staticmethod
    def backward(k, g, v):
        c = v._c
        p = RreluTrainParams(c.lower, c.upper, c.training)
        return (k.pointwise(RreluTrainBackward, g, k.out(v), k.held(c.noise), c=p),)


class RreluParams(LeakyParams):
    """rrelu in evaluation: leaky_relu's; PyTorch's saved lower, upper, training, noise as attributes."""


@register
class RreluEvalBackward(LeakyReluBackward):
    """rrelu_with_noise_backward(grad, self, noise, lower, upper, training=False): leaky_relu_backward
    with slope (lower + upper) / 2, under rrelu's node name (its noise is not an edge)."""

    name = "RreluWithNoiseBackwardBackward0"
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("self", 1), ("training", "c.training"),
             ("upper", "c.upper"))

    @staticmethod
    def backward(k, g, v):
        # grad_output: rrelu_with_noise_backward(grad, self, noise, ...); self: zeros_like(grad)
        return k.pointwise(RreluEvalBackward, g, k.b(v), c=v._c), k.zero(g)


@register
class RreluEval(LeakyRelu):
    """rrelu_with_noise(x, noise, lower, upper, training=False): leaky_relu, slope (lower + upper) / 2."""

    name = "RreluWithNoiseBackward0"
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("self", 0), ("training", "c.training"),
             ("upper", "c.upper"))
    backward = staticmethod(lambda k, g, v: (k.pointwise(RreluEvalBackward, g, k.a(v), c=v._c),))


@register
class RreluEvalInplace(LeakyReluInplace):
    """rrelu_with_noise_(x, ...) in evaluation: the backward reads the result."""

    name = "RreluWithNoiseBackward1"
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("result", "result"), ("training", "c.training"),
             ("upper", "c.upper"))
    backward = staticmethod(lambda k, g, v: (k.pointwise(RreluEvalBackward, g, k.out(v), c=v._c),))


RRELU_OPS = [RreluTrain, RreluTrainInplace, RreluTrainBackward, RreluEval, RreluEvalInplace, RreluEvalBackward]
