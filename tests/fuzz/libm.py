"""The correctly rounded results of the C library's functions, with mpmath: the 1-ulp rule.

PyTorch computes exp, log, sin, cos, tanh and pow with its vectorised math library (SLEEF or
the C library, depending on the kernel and the processor), which is not always correctly
rounded; on this project's AVX512 machine even its sqrt misses the correctly rounded result
for about 0.7% of random float32 and float64 inputs. A result of
scalargrad that differs from PyTorch's in the last bit counts as agreement when it is the
correctly rounded one: ``sg_is_correct`` says so. ``PYTORCH_FORMULA`` gives what PyTorch's
kernel would compute with a correctly rounded C library where the kernel does more than one
call (sigmoid is ``1 / (1 + exp(-x))``, each step rounded to the dtype).
"""

from __future__ import annotations

import math
import struct

import mpmath

__all__ = ["correctly_rounded", "ulps_apart", "ulp", "sg_is_correct", "round_to"]

_PREC = 256


def round_to(x, dtype: str) -> float:
    """An mpmath number (or float) rounded to nearest-even in float32 or float64."""
    if isinstance(x, float):
        if dtype == "float64" or not math.isfinite(x) or x == 0:
            return x  # a zero keeps its sign (mpmath has no -0: g * (1 - y*y) at y = 1, g < 0, is -0)
        x = mpmath.mpf(x)
    if mpmath.isnan(x):
        return math.nan
    if mpmath.isinf(x):
        return math.inf if x > 0 else -math.inf
    if dtype == "float64":
        return float(x)  # mpmath rounds to nearest when converting
    # float32: 24 significant bits, subnormals on the 2**-149 grid, overflow beyond the last binade
    if x == 0:
        return 0.0
    with mpmath.workprec(_PREC):
        a = abs(x)
        if a < mpmath.mpf(2) ** -126:
            q = mpmath.nint(a * mpmath.mpf(2) ** 149)  # nint rounds half to even
            r = float(q) * 2.0**-149
        else:
            with mpmath.workprec(24):
                r = float(+a)
        if r >= 2.0**128 or r > 3.4028234663852886e38:
            r = math.inf
        return r if x > 0 else -r


def _f(name: str, args: list):
    with mpmath.workprec(_PREC):
        m = [mpmath.mpf(a) for a in args]
        x = m[0]
        if name == "exp":
            return mpmath.exp(x)
        if name == "log":
            if x < 0:
                return mpmath.mpf("nan")
            return mpmath.log(x) if x != 0 else mpmath.mpf("-inf")
        if name == "sin":
            return mpmath.sin(x)
        if name == "cos":
            return mpmath.cos(x)
        if name == "tanh":
            return mpmath.tanh(x)
        if name == "sqrt":
            return mpmath.sqrt(x) if x >= 0 else mpmath.mpf("nan")
        if name == "pow":
            return mpmath.power(x, m[1])
        if name == "log1p":
            return mpmath.log1p(x) if x > -1 else (mpmath.mpf("-inf") if x == -1 else mpmath.mpf("nan"))
        if name == "expm1":
            return mpmath.expm1(x)
    raise KeyError(name)


def correctly_rounded(name: str, args: list, dtype: str) -> float | None:
    """``name(*args)`` correctly rounded to ``dtype``; None where there is no single answer."""
    if any(not math.isfinite(a) for a in args):
        return None  # the IEEE special cases agree or differ for other reasons than rounding
    try:
        if name == "sigmoid":  # PyTorch's kernel: 1 / (1 + exp(-x)), each step in the dtype
            e = round_to(_f("exp", [-args[0]]), dtype)
            return round_to(1.0 / round_to(1.0 + e, dtype), dtype)
        if name == "pow" and args[0] < 0 and not float(args[1]).is_integer():
            return None
        return round_to(_f(name, args), dtype)
    except (KeyError, ValueError, ZeroDivisionError, OverflowError):
        return None


def _ordinal(x: float, dtype: str) -> int:
    if dtype == "float32":
        i = struct.unpack("<i", struct.pack("<f", x))[0]
    else:
        i = struct.unpack("<q", struct.pack("<d", x))[0]
    return i if i >= 0 else -(i & (2**31 - 1 if dtype == "float32" else 2**63 - 1))


def ulp(x: float, dtype: str) -> float:
    """The spacing of ``dtype``'s numbers at ``|x|``."""
    if dtype == "float64":
        return math.ulp(x)
    e = math.frexp(abs(x))[1] if x else -125
    return 2.0 ** (max(e, -125) - 24)


def ulps_apart(a: float, b: float, dtype: str) -> int | None:
    """How many representable numbers of ``dtype`` lie between a and b (None for nan/inf)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return None
    return abs(_ordinal(a, dtype) - _ordinal(b, dtype))


def sg_is_correct(name: str, args: list, dtype: str, sg: float, torch: float) -> bool:
    """The 1-ulp rule: scalargrad and PyTorch one ulp apart, scalargrad correctly rounded."""
    if dtype not in ("float32", "float64") or ulps_apart(sg, torch, dtype) != 1:
        return False
    want = correctly_rounded(name, args, dtype)
    return want is not None and want == sg
