"""IEEE-754 arithmetic on Python floats, as PyTorch computes it.

Python raises ZeroDivisionError, OverflowError and ``ValueError: math domain error`` where
IEEE (and PyTorch) return inf or nan; these functions return the IEEE value instead.
Every op of scalargrad computes through them, so no such exception reaches a user.
"""

from __future__ import annotations

import math

inf = math.inf
nan = math.nan
_copysign = math.copysign


def div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return nan
        return _copysign(inf, a) * _copysign(1.0, b)


def log(x: float) -> float:
    if x > 0:
        return math.log(x)  # math.log(inf) is inf
    if x == 0:
        return -inf
    return nan


def exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else nan


def sin(x: float) -> float:
    return math.sin(x) if -inf < x < inf else nan


def cos(x: float) -> float:
    return math.cos(x) if -inf < x < inf else nan


def tanh(x: float) -> float:
    return math.tanh(x)



def one_minus_square(y: float) -> float:
    """``1 - y*y`` rounded once, as a fused multiply-add gives it (PyTorch's tanh backward).

    y*y is split exactly (Dekker's product) and the subtraction carried in double-double, so
    the cancellation near |y| = 1 loses nothing.
    """
    p = y * y
    if p - p != 0.0:  # y*y overflowed, or y is inf or nan: 1 - inf is -inf (the split would give nan)
        return 1.0 - p
    c = 134217729.0 * y  # Veltkamp split: 2**27 + 1
    hi = c - (c - y)
    lo = y - hi
    err = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo  # y*y == p + err exactly
    s = 1.0 - p
    return s + (((1.0 - s) - p) - err)


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = exp(x)  # exp of a large negative x underflows to 0 instead of overflowing
    return e / (1.0 + e)


def pow(a: float, b: float) -> float:  # the IEEE pow
    """C's pow(): 0**-1 is inf, (-8)**(1/3) is nan, overflow is inf."""
    try:
        b = float(b)  # C's pow takes a double: an int exponent past 2**53 has the double's parity
    except OverflowError:
        b = _copysign(inf, b)
    try:
        return math.pow(a, b)
    except ZeroDivisionError:  # pragma: no cover - math.pow raises ValueError instead
        return inf
    except OverflowError:
        # |a| > 1 with a huge b, or |a| < 1 with a huge negative b: the sign follows C.
        if a < 0 and b.is_integer() and int(b) % 2 == 1:
            return -inf
        return inf
    except ValueError:
        if a == 0:  # 0 ** negative
            if b.is_integer() and int(b) % 2 == 1:
                return _copysign(inf, a)
            return inf
        return nan  # negative base, non-integer exponent


def log1p(x: float) -> float:
    """log(1 + x), accurate near 0: -1 gives -inf, below -1 nan."""
    if x > -1.0:
        return math.log1p(x)  # math.log1p(inf) is inf
    if x == -1.0:
        return -inf
    return nan


def expm1(x: float) -> float:
    """exp(x) - 1, accurate near 0; overflow is inf."""
    try:
        return math.expm1(x)
    except OverflowError:
        return inf


def erf(x: float) -> float:
    return math.erf(x)  # total on the reals, erf(nan) is nan
