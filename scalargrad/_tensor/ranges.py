"""The range factories: ``arange``, ``linspace``, ``logspace``, ``eye`` and the deprecated
``range`` (its end included), their values as ATen's CPU kernels compute them.
"""

from __future__ import annotations

import math
import warnings

from .._base import dtypes
from .._base.kernel_order import fma
from .._base.numpy_types import integer
from .._base.program_frame import program_stacklevel
from .factories import check_dtype, factory_device, factory_options, from_values, written_into
from .operands import check_size
from .tensor import Tensor, defaults

__all__ = ["install", "arange", "linspace", "logspace", "eye"]


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False) -> Tensor:
    """``torch.arange``: start, start + step, ... below end (int64 unless a bound is a float)."""
    factory_options("arange", layout, pin_memory)
    if out is not None:
        return written_into(out, "arange", lambda dt: arange(start, end, step, dtype=dt), dtype)
    factory_device(device)
    if end is None:
        start, end = 0, start
    vals = [x.item() if isinstance(x, Tensor) else x for x in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    floating = any(isinstance(x, float) for x in vals)
    dt = check_dtype(dtype, "arange") or (defaults["dtype"] if floating else dtypes.int64)
    n = max(0, math.ceil((end - start) / step))
    check_size((n,))
    if dt.is_floating_point:
        out = [start + i * step for i in range(n)]  # ATen: start + step * index, in double
    else:
        out = [int(start + i * step) for i in range(n)]
    return from_values(out, (n,), dt, requires_grad, "arange")


def linspace(start, end, steps: int, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False) -> Tensor:
    """``torch.linspace``: ``steps`` evenly spaced numbers from start to end, as ATen's CPU
    kernel computes them: ``start + step * i`` for the first half and ``end - step * (steps - 1 - i)``
    for the rest, each one fused multiply-add (the compiler contracts the expression)."""
    factory_options("linspace", layout, pin_memory)
    if out is not None:
        return written_into(out, "linspace", lambda dt: linspace(start, end, steps, dtype=dt), dtype)
    factory_device(device)
    if isinstance(steps, bool) or not isinstance(steps, int):
        if integer(steps) is None:
            raise TypeError(f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}")
        steps = integer(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    dt = check_dtype(dtype, "linspace") or defaults["dtype"]
    check_size((steps,))
    if steps <= 1:
        return from_values([start] * steps, (steps,), dt, requires_grad, "linspace")
    if dt.is_floating_point:
        r = dt.round
        f32 = dt is dtypes.float32
        s, e = r(start), r(end)
        step = r(r(e - s) / (steps - 1))  # ATen: (end - start) in the dtype, then the division
        half = steps // 2
        out = [fma(step, r(float(i)), s, f32) if i < half else fma(-step, r(float(steps - i - 1)), e, f32)
               for i in range(steps)]
    else:
        step = (end - start) / (steps - 1)
        out = [int(start + step * i) for i in range(steps)]
    return from_values(out, (steps,), dt, requires_grad, "linspace")


def logspace(start, end, steps: int, base: float = 10.0, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False) -> Tensor:
    """``torch.logspace``: ``base ** x`` for ``steps`` exponents evenly spaced from start to end,
    as ATen's CPU code computes them: start and end in the result's dtype, the step and each
    exponent in double (``start + step * i`` for the first half, ``end - step * (steps - 1 - i)``
    for the rest; this file is built without FMA), then libm's ``pow``, converted to the dtype."""
    factory_options("logspace", layout, pin_memory)
    if out is not None:
        return written_into(out, "logspace", lambda dt: logspace(start, end, steps, base, dtype=dt), dtype)
    factory_device(device)
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"logspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    dt = check_dtype(dtype, "logspace") or defaults["dtype"]
    check_size((steps,))
    base = float(base)
    if steps == 1:  # filled with the double pow(base, start)
        return from_values([_pow(base, float(start))], (1,), dt, requires_grad, "logspace")
    if dt.is_floating_point:
        s, e = dt.round(float(start)), dt.round(float(end))
        diff = dt.round(e - s)  # scalar_end - scalar_start, in the dtype
    else:
        s, e = dtypes.cast_values(dtypes.float64, dt, float(start)), dtypes.cast_values(dtypes.float64, dt,
                                                                                         float(end))
        diff = e - s
    step = float(diff) / (steps - 1) if steps > 1 else 0.0
    half = steps // 2
    vals = [_pow(base, s + step * i) if i < half else _pow(base, e - step * (steps - i - 1)) for i in range(steps)]
    if not dt.is_floating_point:
        vals = [dtypes.float_to_int(dt, v) for v in vals]
    return from_values(vals, (steps,), dt, requires_grad, "logspace")


def _pow(base: float, exponent: float) -> float:
    """C's pow (Python's math.pow is libm's), with IEEE's answers where Python raises."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf if base > 0 or exponent == int(exponent) and exponent % 2 == 0 else -math.inf
    except ValueError:  # zero to a negative power, or a negative base to a non-integer power
        return math.inf if base == 0 else math.nan


def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False) -> Tensor:
    """The n x m identity matrix (m = n unless given), in the default dtype unless given."""
    factory_options("eye", layout, pin_memory)
    if out is not None:
        return written_into(out, "eye", lambda dt: eye(n, m, dtype=dt), dtype)
    factory_device(device)
    m = n if m is None else m
    for letter, size in (("n", n), ("m", m)):
        if size < 0:
            raise RuntimeError(f"{letter} must be greater or equal to 0, got {size}")
    dt = check_dtype(dtype, "eye") or defaults["dtype"]
    check_size((n, m))
    return from_values([1 if i == j else 0 for i in range(n) for j in range(m)], (n, m), dt, requires_grad, "eye")


_RANGE_DEPRECATED = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                     "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                     "[start, end).")


def range_(start, end, step=1, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
           requires_grad=False) -> Tensor:
    """``torch.range`` (deprecated, a warning each call): start, start + step, ... up to end
    included, in the default dtype unless given. ATen's range_out: the bounds and step in the
    accumulation type (double for floating dtypes, int64 for integers), ``(end - start) / step + 1``
    elements truncated, element i = start + i * step in that type, then stored in the dtype."""
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=program_stacklevel())
    factory_options("range", layout, pin_memory)
    if out is not None:
        return written_into(out, "range", lambda dt: range_(start, end, step, dtype=dt), dtype)
    factory_device(device)
    dt = check_dtype(dtype, "range") or defaults["dtype"]
    acc = float if dt.is_floating_point else int
    given = [x.item() if isinstance(x, Tensor) else x for x in (start, end, step)]
    if acc is int:  # the Scalars converted checked to the accumulation type (int64) first
        for x in given:
            dtypes.check_fits(dtypes.int64, x)
    # then arange_check_bounds, in double (an int64 range with step -0.5 is inconsistent, not a
    # zero step); C++ prints the doubles as %g does
    ds, de, dst = (float(x) for x in given)
    if dst == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {ds:g} -> {de:g}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    xs, xe, xst = (acc(x) for x in given)
    if xst == 0:  # a step truncated to 0 (PyTorch 2.13 divides by it: SIGFPE); its older check
        raise RuntimeError("step must be nonzero")
    q = (xe - xs) / xst if acc is float else abs(xe - xs) // abs(xst)  # C++'s division: truncated
    n = int(q + 1)
    check_size((n,))
    return from_values([xs + i * xst for i in range(n)], (n,), dt, requires_grad, "range")


def install(method, function) -> None:
    for name in __all__[1:]:
        function(name, globals()[name], checked=False)
    function("range", range_, checked=False)
