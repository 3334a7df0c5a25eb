"""``torch.distributions.Normal``: samples are ``torch.normal`` draws (``rsample``: ``loc + eps * scale``
with ``eps`` from ``normal_``), so PyTorch's under one seed."""

from __future__ import annotations

import math

from .._base.dtypes import Size
from .._base.grad_mode import no_grad
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from . import constraints
from .distribution import EMPTY_SHAPE, Distribution
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(Distribution):
    """``Normal(loc, scale, validate_args=None)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = not isinstance(loc, Tensor) and not isinstance(scale, Tensor)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape=EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return FUNCTIONS["normal"](self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = FUNCTIONS["empty"](shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
