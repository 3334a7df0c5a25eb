"""rrelu in training on tensors: ATen's ``_rrelu_with_noise_train``, element by element in
order, each element at or below 0 drawing its slope from ``uniform_real_distribution<double>(
lower, upper)`` (one random64 of the default generator; ``x * (upper - lower) + lower`` in
double, then the dtype), the output ``input * slope`` in the dtype."""

from __future__ import annotations

from .._base import rng
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._ops import rrelu as RR
from .tensor import Tensor, leaf, make

__all__ = ["rrelu_train"]


def rrelu_train(x: Tensor, lower: float, upper: float, in_place: bool = False) -> Tensor:
    """The training form of rrelu on a contiguous input: out of place, or (``in_place``) the
    result ``_tensor/inplace.inplace`` writes back into ``x`` (RreluWithNoiseBackward1)."""
    if not x._t.contiguous:
        raise Unsupported("rrelu in training mode on a non-contiguous input")
    dt = x._t.dtype
    r = dt.round
    xv = x._val if x._t.ndim else [x._val]
    lo, hi = r(lower), r(upper)  # Scalar::to<opmath_t>
    draws = iter(rng.uniform_real(sum(1 for v in xv if v <= 0), lo, hi))
    slopes = [r(next(draws)) if v <= 0 else 1.0 for v in xv]
    t = TensorType(dt, tuple(x._t.shape))
    noise = leaf(slopes if t.ndim else slopes[0], t)
    out = [v if s == 1.0 and v > 0 else r(v * s) for v, s in zip(xv, slopes)]
    op = RR.RreluTrainInplace if in_place else RR.RreluTrain
    return make(op, t, out if t.ndim else out[0], (x,), RR.RreluNoise(lower, upper, noise, slopes))
