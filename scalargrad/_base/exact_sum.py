"""Sums of products rounded once: the machine-independent value of a kernel whose order of
additions depends on the processor.

PyTorch's CPU convolution runs through oneDNN or an im2col + MKL GEMM, whose order of
additions (and use of fused multiply-adds) differs between processors; no fixed order
reproduces every machine. scalargrad gives such a result the exact value of the sum of
products rounded once to the dtype: the value every order approaches, within the classical
bound gamma_k * sum |a_i b_i| of any of them (``tests/faithfulness.py``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import compress, repeat
from operator import ne

from .dtypes import FLOAT32_MAX, round_f32, round_f32_list

__all__ = ["rounded_sum", "rounded_dot", "fixed_point", "round_scaled", "round_scaled_list", "round_f32_sums",
           "round_f32_near", "SUM_ERROR"]

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for doubles


def _two_product(a: float, b: float) -> tuple:
    """(p, e) with p + e == a * b exactly (Dekker), for products far from overflow/underflow."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _is_f32_midpoint(s: float) -> bool:
    """Is double ``s`` exactly halfway between two float32 numbers (or below float32's normal
    range, where the simple test does not apply)?"""
    if s == 0.0:
        return False
    if abs(s) < 2.0**-126:
        return True
    m, _ = math.frexp(s)
    q = m * 2.0**25  # exact: 25 bits of a 53-bit significand
    return q == int(q) and int(q) % 2 == 1


def _round_exact(terms: list, f32: bool) -> float:
    """The exact rational sum of ``terms`` rounded once (finite terms)."""
    exact = sum((Fraction(t) for t in terms), Fraction(0))
    d = float(exact)
    if not f32:
        return d
    r = round_f32(d)
    if Fraction(d) != exact and _is_f32_midpoint(d) and abs(d) >= 2.0**-126:
        # the double is a tie for float32 but the exact value is not: it rounds away from it
        r = round_f32(math.nextafter(d, math.inf if exact > d else -math.inf))
    return r


def rounded_sum(terms: Sequence[float], f32: bool) -> float:
    """The exact sum of ``terms`` (doubles) rounded once to float32 (``f32``) or double.

    An empty sum is +0.0; an inf or nan term gives IEEE's result of adding them."""
    try:
        s = math.fsum(terms)  # the exact sum correctly rounded to double
    except (OverflowError, ValueError):  # inf - inf, or a partial sum beyond double's range
        s = 0.0
        for t in terms:
            s += t
        return round_f32(s) if f32 else s
    if s - s != 0.0:  # inf or nan
        return round_f32(s) if f32 else s
    if not f32:
        return s
    if not _is_f32_midpoint(s):
        return round_f32(s)  # no float32 boundary lies between the exact value and s
    return _round_exact(list(terms), True)


def rounded_dot(pairs: Iterable[tuple], f32: bool, extra: float | None = None) -> float:
    """sum(a * b for a, b in pairs) (+ ``extra``), the exact value rounded once.

    float32 operands multiply exactly in double; float64 ones are split into exact
    two-products (Dekker) so that the sum is of the exact products."""
    pairs = list(pairs)
    if f32:
        terms = [a * b for a, b in pairs]
    else:
        terms = []
        for a, b in pairs:
            p = a * b
            if 1e-290 < abs(p) < 1e290 and abs(a) < 1e300 and abs(b) < 1e300:
                terms.extend(_two_product(a, b))
            elif p == 0.0 or p - p != 0.0:
                terms.append(p)
            else:  # near double's range limits: the exact product as a rational
                return _rounded_rational(pairs, extra)
    if extra is not None:
        terms.append(extra)
    return rounded_sum(terms, f32)


def _rounded_rational(pairs, extra) -> float:
    exact = sum((Fraction(a) * Fraction(b) for a, b in pairs), Fraction(extra or 0.0))
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf  # copysign would convert the Fraction: overflow


# Whole tensors as integers: a kernel that adds many products of the same elements (a
# convolution reads each input element once per tap) converts each element once, then adds
# exact integer products in C (``sum(map(mul, ...))``) and rounds each sum once: the same
# value as ``rounded_dot``, at a fraction of its cost per product.


def fixed_point(values: Sequence[float], at_least: int = 0) -> tuple | None:
    """``(ints, shift)`` with ``values[k] == ints[k] * 2**-shift`` exactly and ``shift >=
    at_least``, or None if a value is inf or nan (whose sums the integers cannot carry).

    The shift makes the smallest nonzero magnitude's last significand bit an integer, so every
    value is one; signed zeros become 0 (an exact sum that is zero rounds to +0.0, as
    ``rounded_dot``'s does)."""
    if not all(map(math.isfinite, values)):
        return None
    try:
        lo = min(map(abs, filter(None, values)))
    except ValueError:  # empty, or zeros only
        return [0] * len(values), at_least
    emin = math.frexp(lo)[1]
    emax = math.frexp(max(map(abs, values)))[1]
    shift = max(53 - emin, at_least, 0)
    if emax + shift <= 1023:  # every value * 2**shift is a double: scaling is exact
        return list(map(int, map(math.ldexp, values, repeat(shift)))), shift
    ints = []
    for v in values:  # a span too wide for a double: significand and exponent separately
        m, e = math.frexp(v)
        ints.append(int(math.ldexp(m, 53)) << (e - 53 + shift) if v else 0)
    return ints, shift


_F32_BITS, _F32_QUANTUM = 24, -149
_F64_BITS, _F64_QUANTUM = 53, -1074


def round_scaled(s: int, shift: int, f32: bool) -> float:
    """``s * 2**-shift`` rounded once (to nearest, ties to even) to float32 (``f32``) or
    double, as a Python float: +-inf beyond the range, subnormals rounded at their own quantum,
    +0.0 for zero, -0.0 for a negative value that rounds to zero."""
    if not s:
        return 0.0
    bits, quantum = (_F32_BITS, _F32_QUANTUM) if f32 else (_F64_BITS, _F64_QUANTUM)
    m = -s if s < 0 else s
    q = max(m.bit_length() - shift - bits, quantum)  # the exponent of the result's last bit
    drop = q + shift
    if drop > 0:
        half = 1 << (drop - 1)
        rest = m & ((half << 1) - 1)
        m >>= drop
        if rest > half or (rest == half and m & 1):
            m += 1
    else:
        q = -shift
    try:
        r = math.ldexp(float(m), q)
    except OverflowError:
        r = math.inf
    if f32 and r > FLOAT32_MAX:
        r = math.inf
    return -r if s < 0 else r


def round_scaled_list(sums: list, shift: int, f32: bool) -> list:
    """``[round_scaled(s, shift, f32) for s in sums]``, in C where it can: an int divided by an
    int is correctly rounded to double (subnormals and ties included); float32 rounds that
    double again, which is the correct rounding unless the double is exactly halfway between
    two float32 numbers (a double lies between the exact value and that halfway point only if
    it is the point itself), told by its two neighbours rounding apart."""
    try:
        d = 1 << shift
        ds = [s / d for s in sums]
    except OverflowError:  # beyond double's range: each sum rounded on its own
        return [round_scaled(s, shift, f32) for s in sums]
    if not f32:
        return ds
    out = round_f32_list(ds)
    up = round_f32_list(list(map(math.nextafter, ds, repeat(math.inf))))
    down = round_f32_list(list(map(math.nextafter, ds, repeat(-math.inf))))
    for k in compress(range(len(ds)), map(ne, up, down)):
        out[k] = round_scaled(sums[k], shift, True)
    return out


def round_f32_sums(ds: list, exact) -> list:
    """float32 sums of products of float32 numbers, from ``ds``: each sum's exact value correctly
    rounded to double (``math.fsum`` of the products, which are exact in double). Rounding that
    double to float32 is the exact value's float32 unless the double is exactly halfway between
    two float32 numbers (told as in ``round_scaled_list``); for those ``exact(k)`` gives element
    ``k`` from its terms. A zero is +0.0 (an exact zero sum's). Done a block at a time: the
    neighbours' lists of a 2-million-element output would cost as much memory as the output."""
    out = []
    for at in range(0, len(ds), _BLOCK):
        part = ds[at:at + _BLOCK]
        got = round_f32_list(part)
        up = round_f32_list(list(map(math.nextafter, part, repeat(math.inf))))
        down = round_f32_list(list(map(math.nextafter, part, repeat(-math.inf))))
        for k in compress(range(len(part)), map(ne, up, down)):
            got[k] = exact(at + k)
        out += got
    return out


_BLOCK = 1 << 16

SUM_ERROR = 2.0**-51
"""``(k + 2) * SUM_ERROR * A`` is twice a bound of the error of Python's ``sum`` of ``k`` doubles
whose magnitudes add up to at most ``A``: a left-to-right sum (Python 3.11) errs by at most
``gamma_(k-1) * A`` (Higham, Accuracy and Stability, 4.2), a compensated one (3.12 on) by at most
``(2u + O(k u^2)) * A``, with u = 2**-53, both below ``(k + 2) * u * A`` for any list that fits
in memory."""

_SLACK = 2.0**-50  # widens each end of ``round_f32_near``'s interval by more than its own rounding


def round_f32_near(ds: list, es: list, exact) -> list:
    """float32 values of sums known to within a bound: the exact value of sum ``k`` lies within
    ``es[k] / 2`` of the double ``ds[k]``. Rounding to nearest is monotonic, so where both ends of
    ``ds[k] -+ es[k]`` (each widened past its own rounding) round to the same float32, with the
    same sign for a zero, that is the exact value's float32; elsewhere (the interval holds a
    float32 rounding boundary, or a zero of either sign) ``exact(k)`` gives element ``k``. A sum of
    ``k`` float32 products in plain double arithmetic (each product exact) is this correct
    rounding at a bound of ``(k + 2) * SUM_ERROR * sum |products|``, for half ``math.fsum``'s cost."""
    out = []
    for at in range(0, len(ds), _BLOCK):
        part, bounds = ds[at:at + _BLOCK], es[at:at + _BLOCK]
        lo = [d - (e + abs(d) * _SLACK) for d, e in zip(part, bounds)]
        hi = [d + (e + abs(d) * _SLACK) for d, e in zip(part, bounds)]
        pf = struct.Struct(f"{len(part)}f")
        try:
            blo, bhi = pf.pack(*lo), pf.pack(*hi)
        except (OverflowError, struct.error):  # beyond float32's range: element by element
            got = [a if a == b and math.copysign(1.0, a) == math.copysign(1.0, b) else exact(at + k)
                   for k, (a, b) in enumerate(zip(map(round_f32, lo), map(round_f32, hi)))]
        else:
            got = list(pf.unpack(blo))
            if blo != bhi:
                for k in compress(range(len(part)), map(ne, memoryview(blo).cast("I"), memoryview(bhi).cast("I"))):
                    got[k] = exact(at + k)
        out += got
    return out
