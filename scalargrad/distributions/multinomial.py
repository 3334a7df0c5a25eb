"""``torch.distributions.Multinomial``: counts of ``total_count`` Categorical draws (PyTorch's draws:
``Categorical.sample`` then a scatter-add). ``log_prob`` and ``entropy`` need ``lgamma``, which
scalargrad does not have: refused by name."""

from __future__ import annotations

from .._base.dtypes import Size, int64
from .._base.errors import Unsupported
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import EMPTY_SHAPE, Distribution

__all__ = ["Multinomial"]


class _Multinomial(constraints.Constraint):
    """Nonnegative integer counts summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: int) -> None:
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


class Multinomial(Distribution):
    """``Multinomial(total_count=1, probs=None, logits=None, validate_args=None)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return _Multinomial(self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=EMPTY_SHAPE) -> Tensor:
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        order = list(range(samples.dim()))
        order.append(order.pop(0))
        samples = samples.permute(*order)
        counts = FUNCTIONS["zeros"](self._extended_shape(sample_shape), dtype=int64)
        counts.scatter_add_(-1, samples, FUNCTIONS["ones_like"](samples))
        return counts.type_as(self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        raise Unsupported("torch.distributions.Multinomial.log_prob", "it needs torch.lgamma, which scalargrad "
                          "does not implement")

    def entropy(self) -> Tensor:
        raise Unsupported("torch.distributions.Multinomial.entropy", "it needs torch.lgamma, which scalargrad "
                          "does not implement")
