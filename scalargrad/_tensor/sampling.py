"""Sampling ops (``_base/sampling.py`` draws the numbers): ``torch.multinomial``, ``torch.bernoulli``
and ``Tensor.bernoulli``/``bernoulli_``, the in-place fills ``exponential_``, ``geometric_``,
``cauchy_``, ``log_normal_``; no gradient flows through a draw."""

from __future__ import annotations

import math

from .._base import dtypes, sampling
from .._base.dtypes import TensorType, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .inplace import check_inplace, check_no_overlap
from .storage import write
from .tensor import Tensor, leaf

__all__ = ["multinomial", "bernoulli", "install"]


def _flat(t: Tensor) -> list:
    return list(t._val) if t._t.ndim else [t._val]


def _refuse_grad(t: Tensor, what: str) -> None:
    if t.requires_grad and is_grad_enabled():
        raise Unsupported(f"{what} of a tensor that requires grad", "scalargrad records no node for a draw; "
                          "draw under torch.no_grad() or from a detached tensor")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None) -> Tensor:
    """``torch.multinomial``: int64 indices drawn from each row of ``input`` (1-D or 2-D)."""
    if out is not None:
        raise Unsupported("torch.multinomial(out=...)")
    t = input._t
    if not 1 <= t.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {t.dtype.short}")
    if t.dtype.name not in ("float32", "float64"):
        raise Unsupported(f"torch.multinomial of a {t.dtype.name} tensor", "scalargrad draws from float32 "
                          "and float64 probabilities")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = t.shape[-1]
    if not replacement and n > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    flat = _flat(input)
    n_rows = t.shape[0] if t.ndim == 2 else 1
    if n_rows == 0 or n_cat == 0:
        shape = (n_rows, n) if t.ndim == 2 else (n,)
        if math.prod(shape):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        return leaf([], TensorType(dtypes.int64, shape))
    rows = [flat[r * n_cat:(r + 1) * n_cat] for r in range(n_rows)]
    picks = sampling.multinomial(rows, t.dtype.name, n, bool(replacement), generator)
    vals = [i for row in picks for i in row]
    return leaf(vals, TensorType(dtypes.int64, (n_rows, n) if t.ndim == 2 else (n,)))


def _check_float(t: Tensor, what: str) -> str:
    name = t._t.dtype.name
    if name not in ("float32", "float64"):
        raise Unsupported(f"{what} of a {name} tensor", "scalargrad draws float32 and float64 tensors")
    return name


def _result(t: Tensor, vals: list) -> Tensor:
    vals = round_list(t._t.dtype, vals)
    return leaf(vals if t._t.ndim else vals[0], TensorType(t._t.dtype, t._t.shape))


def bernoulli(input, p=None, *, generator=None, out=None) -> Tensor:
    """``torch.bernoulli(input)``: ones with the probabilities in ``input``; ``torch.bernoulli(input, p)``:
    ones with probability ``p`` in ``input``'s shape and dtype."""
    if out is not None:
        raise Unsupported("torch.bernoulli(out=...)")
    name = _check_float(input, "torch.bernoulli")
    _refuse_grad(input, "torch.bernoulli")
    if p is None:
        return _result(input, sampling.bernoulli_tensor(_flat(input), name, generator))
    return _result(input, sampling.bernoulli_scalar(input._t.numel, float(p), generator))


def _fill(self: Tensor, what: str, draw) -> Tensor:
    check_inplace(self)
    check_no_overlap(self)
    name = _check_float(self, f"Tensor.{what}")
    if not self._t.contiguous:
        raise Unsupported(f"Tensor.{what} of a non-contiguous tensor", "PyTorch fills it in memory order; "
                          f"call {what} on a contiguous tensor and copy it in")
    vals = round_list(self._t.dtype, draw(name))
    write(self, vals if self._t.ndim else vals[0])
    return self


def bernoulli_(self, p=0.5, *, generator=None) -> Tensor:
    """``Tensor.bernoulli_(p)``: ``p`` a number or a tensor of probabilities broadcast to ``self``."""
    if isinstance(p, Tensor):
        probs = _flat(p.expand(self.shape) if tuple(p.shape) != tuple(self.shape) else p)
        dt = p._t.dtype.name
        if dt not in ("float32", "float64"):
            raise Unsupported(f"Tensor.bernoulli_ with {dt} probabilities", "give float32 or float64 ones")
        return _fill(self, "bernoulli_", lambda name: sampling.bernoulli_tensor(probs, dt, generator))
    return _fill(self, "bernoulli_", lambda name: sampling.bernoulli_scalar(self._t.numel, float(p), generator))


def install(method, function) -> None:
    """multinomial, bernoulli(_), exponential_, geometric_, cauchy_, log_normal_."""
    method("multinomial", multinomial)
    function("multinomial", multinomial)
    method("bernoulli", lambda self, p=None, *, generator=None: bernoulli(self, p, generator=generator))
    function("bernoulli", bernoulli)
    method("bernoulli_", bernoulli_)
    method("exponential_", lambda self, lambd=1.0, *, generator=None: _fill(
        self, "exponential_", lambda name: sampling.exponential(self._t.numel, name, float(lambd), generator)))
    method("geometric_", lambda self, p, *, generator=None: _fill(
        self, "geometric_", lambda name: sampling.geometric(self._t.numel, name, float(p), generator)))
    method("cauchy_", lambda self, median=0.0, sigma=1.0, *, generator=None: _fill(
        self, "cauchy_", lambda name: sampling.cauchy(self._t.numel, name, float(median), float(sigma), generator)))
    method("log_normal_", lambda self, mean=1.0, std=2.0, *, generator=None: _fill(
        self, "log_normal_", lambda name: sampling.log_normal(self._t.numel, name, float(mean), float(std),
                                                              generator)))
