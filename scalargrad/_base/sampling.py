"""Bit-exact draws of PyTorch 2.13's CPU sampling kernels beyond uniform/normal (``rng.py``):
``bernoulli``, ``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``, ``multinomial`` and ``poisson``.

Each follows the serial kernel ATen runs on a CPU (measured against live PyTorch, tests/test_sampling.py):

* ``bernoulli`` with a probability tensor: one uniform in the tensor's dtype per element (24 bits for
  float32, 53 for float64), a one where ``u < p``; with a scalar probability one 53-bit uniform per
  element compared in double (as ``dropout``).
* ``exponential_(lambd)``: ``-1 / lambd * log1p(-u)`` in double from one 53-bit uniform, rounded to the
  dtype; ``geometric_(p)``: ``ceil(log(u) / log1p(-p))``; ``cauchy_(median, sigma)``:
  ``median + sigma * tan(pi * (u - 0.5))`` (one rounding: GCC contracts it into an FMA);
  ``log_normal_(mean, std)``: ``exp`` of the scalar (Box-Muller with its cached second value) normal
  draw, whatever the size, computed in double.
* ``multinomial`` with replacement: per row the running sum in the dtype, the cumulative sums divided by
  it (the last one set to 1), then per sample one 53-bit uniform and a binary search for the first
  cumulative value not below it. Without replacement, or for a single sample: ``p / q`` with ``q`` an
  ``exponential_`` draw in the dtype, then the indices of the largest values.

* ``poisson``: ATen's ``sample_poisson`` per element in order, in double from 53-bit uniforms: below
  a rate of 10, uniforms multiplied until the product drops to ``exp(-rate)``; from 10, Hoermann's
  transformed rejection (two uniforms a try), whose last test calls ``lgamma`` (CPython's own
  implementation, not libm's: they may differ in the last bits, which would change a draw only
  when that test is decided within them).

``log1p``, ``log``, ``tan`` and ``exp`` are the host libm's, which ATen's serial kernels call too.
"""

from __future__ import annotations

import math
from typing import Any

from . import ieee
from .errors import Unsupported
from .rng import Generator, _f32, _gen, _uniform24, _uniform53, fma64, normal

__all__ = ["bernoulli_tensor", "bernoulli_scalar", "exponential", "geometric", "cauchy", "log_normal",
           "multinomial", "poisson"]


def _round(values: list[float], dtype_name: str) -> list[float]:
    return [_f32(v) for v in values] if dtype_name == "float32" else values


def bernoulli_tensor(probs: list[float], dtype_name: str, generator: Generator | None = None) -> list[float]:
    """``torch.bernoulli(p)`` / ``bernoulli_(p_tensor)``: one uniform of ``dtype_name`` per element."""
    for p in probs:
        if not 0.0 <= p <= 1.0:
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
    g = _gen(generator)
    draw = _uniform24 if dtype_name == "float32" else _uniform53
    return [1.0 if draw(g) < p else 0.0 for p in probs]


def bernoulli_scalar(n: int, p: float, generator: Generator | None = None) -> list[float]:
    """``bernoulli_(p)`` / ``torch.bernoulli(x, p)`` with a Python number: 53-bit uniforms."""
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    g = _gen(generator)
    return [1.0 if _uniform53(g) < p else 0.0 for _ in range(n)]


def exponential(n: int, dtype_name: str, lambd: float = 1.0, generator: Generator | None = None) -> list[float]:
    """``Tensor.exponential_(lambd)``."""
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    g = _gen(generator)
    scale = -1.0 / lambd
    return _round([scale * math.log1p(-_uniform53(g)) for _ in range(n)], dtype_name)


def geometric(n: int, dtype_name: str, p: float, generator: Generator | None = None) -> list[float]:
    """``Tensor.geometric_(p)``: the number of trials to the first success."""
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    g = _gen(generator)
    denominator = math.log1p(-p)
    out = []
    for _ in range(n):
        u = _uniform53(g)
        out.append(float(math.ceil(math.log(u) / denominator)) if u > 0.0 else math.inf)
    return _round(out, dtype_name)


def cauchy(n: int, dtype_name: str, median: float = 0.0, sigma: float = 1.0,
           generator: Generator | None = None) -> list[float]:
    """``Tensor.cauchy_(median, sigma)``."""
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    g = _gen(generator)
    return _round([fma64(sigma, math.tan(math.pi * (_uniform53(g) - 0.5)), median) for _ in range(n)],
                  dtype_name)


def log_normal(n: int, dtype_name: str, mean: float = 1.0, std: float = 2.0,
               generator: Generator | None = None) -> list[float]:
    """``Tensor.log_normal_(mean, std)``: always the scalar normal path, ``exp`` in double."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    z = normal(n, "float64", mean, std, generator=generator, contiguous=False)
    return _round([math.exp(v) for v in z], dtype_name)


def _check_rows(rows: list[list[float]]) -> None:
    for row in rows:
        for v in row:
            if not v >= 0.0:  # nan too, as ATen's check reads
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            if not math.isfinite(v):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry = "
                                   "infinity or NaN)")


def _with_replacement(rows: list[list[float]], n_sample: int, rnd: Any, g: Generator) -> list[list[int]]:
    out = []
    for row in rows:
        total = 0.0
        cum = []
        for v in row:
            total = rnd(total + v)
            cum.append(total)
        if not total > 0.0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = [rnd(c / total) for c in cum]
        cum[-1] = 1.0
        picks = []
        for _ in range(n_sample):
            u = _uniform53(g)
            lo, hi = 0, len(cum)
            while hi > lo:
                mid = lo + (hi - lo) // 2
                if cum[mid] < u:
                    lo = mid + 1
                else:
                    hi = mid
            picks.append(lo)
        out.append(picks)
    return out


def _without_replacement(rows: list[list[float]], n_sample: int, dtype_name: str,
                         g: Generator) -> list[list[int]]:
    for row in rows:
        if any(not (0.0 <= v < math.inf) for v in row):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if any(sum(row) == 0.0 for row in rows):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    n_cat = len(rows[0])
    q = exponential(n_cat * len(rows), dtype_name, 1.0, g)
    rnd = _f32 if dtype_name == "float32" else float
    out = []
    for r, row in enumerate(rows):
        keys = [rnd(v / q[r * n_cat + j]) if q[r * n_cat + j] else math.inf for j, v in enumerate(row)]
        order = sorted(range(n_cat), key=lambda j: -keys[j])
        top = [keys[j] for j in order[:n_sample + 1]]
        if n_sample > 1 and len(set(top)) < len(top):
            raise Unsupported("torch.multinomial without replacement where equal weights tie for the last "
                              "places drawn", "PyTorch's topk breaks such ties in an order scalargrad does not "
                              "reproduce")
        out.append(order[:n_sample])
    return out


def multinomial(rows: list[list[float]], dtype_name: str, n_sample: int, replacement: bool = False,
                generator: Generator | None = None) -> list[list[int]]:
    """``torch.multinomial`` of each row of probabilities (the caller checks shapes and ``n_sample``)."""
    g = _gen(generator)
    if not replacement or n_sample == 1:  # ATen's fast path serves both
        return _without_replacement(rows, n_sample, dtype_name, g)
    _check_rows(rows)
    return _with_replacement(rows, n_sample, _f32 if dtype_name == "float32" else float, g)


_INT64_MIN = -(1 << 63)


def _to_int64(x: float) -> int:
    """C's ``(int64_t)`` of a double as x86's cvttsd2si does it: out of range or nan is INT64_MIN."""
    return int(x) if x == x and -9.223372036854775808e18 <= x < 9.223372036854775808e18 else _INT64_MIN


def _sample_poisson(lam: float, g: Generator) -> int:
    if lam >= 10:  # transformed rejection (Hoermann, 1993), as ATen's
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform53(g) - 0.5
            v = _uniform53(g)
            us = 0.5 - abs(u)
            t = (ieee.div(2 * a, us) + b) * u + lam + 0.43  # IEEE: us may be 0, lam inf
            k = _to_int64(math.floor(t)) if math.isfinite(t) else _INT64_MIN
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            bound = -lam + k * loglam - math.lgamma(k + 1.0)
            if ieee.log(v) + math.log(invalpha) - ieee.log(ieee.div(a, us * us) + b) <= bound:
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= _uniform53(g)
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(rates: list[float], dtype_name: str, generator: Generator | None = None) -> list[float]:
    """``torch.poisson(rates)``: one draw per rate, in order (a bad rate fails after the draws before it)."""
    g = _gen(generator)
    out = []
    for lam in rates:
        if not lam >= 0:
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out.append(float(_sample_poisson(float(lam), g)))
    return _round(out, dtype_name)
