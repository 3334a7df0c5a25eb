"""rrelu in training: ``rrelu_with_noise(self, noise, lower, upper, training=True)``
(RreluWithNoiseBackward0), one node over its input: each element at or below 0 times its own
random slope, the slopes (1 above 0) the ``noise`` PyTorch saves; self: ``grad * noise``. (In
evaluation rrelu is leaky_relu under this name: ``activations.RreluEval``.) In place
(``rrelu_``), RreluWithNoiseBackward1 saves the result instead of self."""

from __future__ import annotations

from .table import Op, register

__all__ = ["RreluNoise", "RreluTrain", "RreluTrainInplace", "RRELU_OPS"]


class RreluNoise:
    """What the node keeps: the Scalars PyTorch saves and the noise tensor (with its values)."""

    __slots__ = ("lower", "upper", "training", "noise", "slopes")

    def __init__(self, lower: float, upper: float, noise, slopes: list) -> None:
        self.lower, self.upper, self.training, self.noise, self.slopes = lower, upper, True, noise, slopes


@register
class RreluTrain(Op):
    """rrelu_with_noise(self, noise, lower, upper, training=True)."""

    name = "RreluWithNoiseBackward0"
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("self", 0), ("training", "c.training"),
             ("upper", "c.upper"))
    # self: rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false) = grad * noise
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.held(v._c.noise)),))

    @staticmethod
    def sympy(sp, a, noise):
        return a * noise


@register
class RreluTrainInplace(RreluTrain):
    """rrelu_with_noise_(self, noise, lower, upper, training=True) (RreluWithNoiseBackward1): the
    same slopes and backward, the result saved in place of the overwritten input."""

    name, saves_inputs, saves_output = "RreluWithNoiseBackward1", False, True
    saved = (("lower", "c.lower"), ("noise", "c.noise"), ("result", "result"), ("training", "c.training"),
             ("upper", "c.upper"))


RRELU_OPS = [RreluTrain, RreluTrainInplace]
