"""The numbers and dtypes programs are built from: ordinary values and the edges of IEEE and int64.

Edge operands are where implementations part: signed zeros, float32 and float64 subnormals,
the largest finite float32 and numbers just beyond it, infinities, nan, integers at the
limits of int64 and of exact float representation, and Python bools (which PyTorch treats as
integers of their own dtype).
"""

from __future__ import annotations

import random

__all__ = ["EDGE_FLOATS", "EDGE_INTS", "DTYPES", "ordinary", "number", "float_number", "int_number", "pick_dtype",
           "dtype_source"]

F32_MAX = 3.4028234663852886e38
EDGE_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 0.1, 1 / 3,
    1e-45, -1e-45, 1.401298464324817e-45, 1e-40, -1e-40, 1.1754943508222875e-38,  # float32 subnormals, min normal
    5e-324, 2.2250738585072014e-308,  # float64 subnormal, min normal
    F32_MAX, -F32_MAX, 3.4e38, 3.5e38, 1e38, 1e308, -1e308,  # float32 max, beyond it, float64 large
    88.72283935546875, 89.0, -103.97, -104.0, 709.8, 710.0,  # exp overflow / underflow thresholds
    16777217.0, 9007199254740993.0, 1e-8, 1e8,
    float("inf"), float("-inf"), float("nan"),
]
EDGE_INTS = [0, 1, -1, 2, 3, -2, 7, -7, 10, 2**24 + 1, 2**31, 2**53 + 1, 2**62, -(2**62), 2**63 - 1, -(2**63)]
DTYPES = ["float32", "float64", "int64", "bool"]


def ordinary(rng: random.Random) -> float:
    """A value where every op is smooth and finite: a few digits in [-3, 3]."""
    return round(rng.uniform(-3.0, 3.0), rng.choice([1, 2, 3, 6]))


def float_number(rng: random.Random, edge: float = 0.4) -> float:
    return rng.choice(EDGE_FLOATS) if rng.random() < edge else ordinary(rng)


def int_number(rng: random.Random, edge: float = 0.4) -> int:
    return rng.choice(EDGE_INTS) if rng.random() < edge else rng.randint(-5, 5)


def number(rng: random.Random, edge: float = 0.4):
    """A Python operand: mostly floats, sometimes ints and bools."""
    r = rng.random()
    if r < 0.7:
        return float_number(rng, edge)
    if r < 0.9:
        return int_number(rng, edge)
    return rng.random() < 0.5


def pick_dtype(rng: random.Random, weights=(0.6, 0.2, 0.12, 0.08)) -> str:
    return rng.choices(DTYPES, weights)[0]


def dtype_source(name: str) -> str:
    return f"torch.{name}"
