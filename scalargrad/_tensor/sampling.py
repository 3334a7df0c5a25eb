"""Sampling ops (``_base/sampling.py`` draws the numbers): ``torch.multinomial``, ``torch.bernoulli``,
``torch.poisson`` and ``Tensor.bernoulli``/``bernoulli_``, the in-place fills ``exponential_``, ``geometric_``,
``cauchy_``, ``log_normal_``; no gradient flows through a draw."""

from __future__ import annotations

import math

from .._base import dtypes, sampling
from .._base.dtypes import TensorType, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.numpy_types import is_numpy_scalar, numpy_type_name
from .arguments import check_input
from .inplace import check_inplace, check_no_overlap
from .storage import dual_memory, write
from .tensor import Tensor, leaf

__all__ = ["multinomial", "bernoulli", "poisson", "refuse_graph", "install"]


def _flat(t: Tensor) -> list:
    return list(t._val) if t._t.ndim else [t._val]


def _int_arg(x, fn: str, name: str, pos: int) -> int:
    """An int argument as PyTorch's parser reads it (a bool or a float is refused)."""
    if x.__class__ is bool or not (isinstance(x, int) or is_numpy_scalar(x) and float(x).is_integer()
                                   and "int" in type(x).__name__):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not {numpy_type_name(x)}")
    return int(x)


def _float_arg(x, fn: str, name: str, pos: int) -> float:
    """A float argument as PyTorch's parser reads it (a bool or an int is a number too)."""
    if not isinstance(x, (int, float)) and not is_numpy_scalar(x):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be float, not {numpy_type_name(x)}")
    return float(x)


def _refuse_grad(t: Tensor, what: str) -> None:
    if t.requires_grad and is_grad_enabled():
        raise Unsupported(f"{what} of a tensor that requires grad", "scalargrad records no node for a draw; "
                          "draw under torch.no_grad() or from a detached tensor")
    if dual_memory() is not None and dual_memory()[2](t) is not None:
        raise Unsupported(f"{what} of a tensor that has a forward-mode tangent",
                          "scalargrad records no node for a draw; draw from a detached tensor")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None) -> Tensor:
    """``torch.multinomial``: int64 indices drawn from each row of ``input`` (1-D or 2-D)."""
    if out is not None:
        raise Unsupported("torch.multinomial(out=...)")
    check_input("multinomial", input)
    n = _int_arg(num_samples, "multinomial", "num_samples", 2)
    t = input._t
    if not 1 <= t.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {t.dtype.short}")
    if t.dtype.name not in ("float32", "float64"):
        raise Unsupported(f"torch.multinomial of a {t.dtype.name} tensor", "scalargrad draws from float32 "
                          "and float64 probabilities")
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
    check_input("bernoulli", input)
    if p is not None and not isinstance(p, (int, float)) and not is_numpy_scalar(p):
        raise TypeError(f"bernoulli() received an invalid combination of arguments - got (Tensor, "
                        f"{'Tensor' if isinstance(p, Tensor) else numpy_type_name(p)}), but expected one of:\n"
                        " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
                        " * (Tensor input, float p, *, torch.Generator generator = None)\n")
    if p is None and not input._t.dtype.is_floating_point:
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{input._t.dtype.short}'")
    _refuse_grad(input, "torch.bernoulli")
    if p is None:
        name = _check_float(input, "torch.bernoulli")
        return _result(input, sampling.bernoulli_tensor(_flat(input), name, generator))
    if input._t.dtype.is_complex:
        raise Unsupported("torch.bernoulli of a complex tensor")
    return _result(input, sampling.bernoulli_scalar(input._t.numel, float(p), generator))


def poisson(input, generator=None) -> Tensor:
    """``torch.poisson(input, generator=None)``: a draw from Poisson(rate) for each element."""
    check_input("poisson", input)
    if not input._t.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{input._t.dtype.short}'")
    _refuse_grad(input, "torch.poisson")
    name = _check_float(input, "torch.poisson")
    return _result(input, sampling.poisson(_flat(input), name, generator))


def refuse_graph(self: Tensor, what: str) -> None:
    """A draw written into a tensor of a graph would need a node whose gradient is zero
    (``NormalBackward0``...), which scalargrad does not record: refused, never a stale graph."""
    if self.requires_grad and is_grad_enabled():
        raise Unsupported(f"Tensor.{what} of a tensor that requires grad", "scalargrad records no node for a draw "
                          "written in place; draw under torch.no_grad() or into a detached tensor")


def _fill(self: Tensor, what: str, draw, any_dtype: bool = False) -> Tensor:
    check_inplace(self)
    refuse_graph(self, what)
    check_no_overlap(self)
    name = "float64" if any_dtype else _check_float(self, f"Tensor.{what}")
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
        if not p._t.dtype.is_floating_point:
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{p._t.dtype.short}'")
        dt = _check_float(p, "Tensor.bernoulli_ with probabilities")
        return _fill(self, "bernoulli_", lambda name: sampling.bernoulli_tensor(probs, dt, generator))
    if not isinstance(p, (int, float)) and not is_numpy_scalar(p):
        raise TypeError(f"bernoulli_() received an invalid combination of arguments - got ({numpy_type_name(p)}), "
                        "but expected one of:\n * (Tensor p, *, torch.Generator generator = None)\n"
                        " * (float p = 0.5, *, torch.Generator generator = None)\n")
    if self._t.dtype.is_complex:
        raise Unsupported("Tensor.bernoulli_ of a complex tensor")
    return _fill(self, "bernoulli_", lambda name: sampling.bernoulli_scalar(self._t.numel, float(p), generator),
                 any_dtype=True)


def _continuous(self: Tensor, what: str, draw, *args) -> Tensor:
    """exponential_, cauchy_, log_normal_: float arguments, a floating-point tensor."""
    values = [_float_arg(a, what, name, i) for i, (name, a) in enumerate(args, 1)]
    if what == "exponential_" and not self._t.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self._t.dtype.short}")
    return _fill(self, what, lambda name: draw(self._t.numel, name, *values))


def install(method, function) -> None:
    """multinomial, bernoulli(_), exponential_, geometric_, cauchy_, log_normal_."""
    method("multinomial", multinomial)
    function("multinomial", multinomial)
    method("bernoulli", lambda self, p=None, *, generator=None: bernoulli(self, p, generator=generator))
    function("bernoulli", bernoulli)
    function("poisson", poisson)
    method("bernoulli_", bernoulli_)
    method("exponential_", lambda self, lambd=1.0, *, generator=None: _continuous(
        self, "exponential_", lambda n, name, a: sampling.exponential(n, name, a, generator), ("lambd", lambd)))
    method("geometric_", lambda self, p, *, generator=None: _continuous(
        self, "geometric_", lambda n, name, a: sampling.geometric(n, name, a, generator), ("p", p)))
    method("cauchy_", lambda self, median=0.0, sigma=1.0, *, generator=None: _continuous(
        self, "cauchy_", lambda n, name, a, b: sampling.cauchy(n, name, a, b, generator), ("median", median),
        ("sigma", sigma)))
    method("log_normal_", lambda self, mean=1.0, std=2.0, *, generator=None: _continuous(
        self, "log_normal_", lambda n, name, a, b: sampling.log_normal(n, name, a, b, generator), ("mean", mean),
        ("std", std)))
