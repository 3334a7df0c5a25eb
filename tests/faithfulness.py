"""Which results are the same on every processor, and the references the tests compare the others with.

PyTorch 2.13 computes these with the same bits on every machine, so the tests compare them with
live PyTorch bit for bit: IEEE-754 ``+ - * /`` (and ``x ** 2``, ``x ** 3``, ``x ** -1``,
``x ** -2``, ``x ** -0.5``, which its pow kernel computes with them and the processor's own
square root), comparisons, ``clamp``/``relu``/``abs``, the summation order of ``sum`` and
``mean`` that ``scalargrad._base.kernel_order`` models (exactly representable data, rounded after each
addition), whole scalar graphs of those ops, and the CPU random generator.

These come from kernels that pick their code path by processor vendor and vector width, and
differ in the last bit between machines (issue 11: an AMD EPYC gave other bits than the Intel
Xeon the figures were captured on):

* ``exp log sin cos tanh`` and ``sqrt`` (also ``x ** 0.5``): on the x86-64 wheels, MKL's vector
  math library (``vsExp``... in high-accuracy mode, within 1 ulp of the exact value, not always
  correctly rounded), for every contiguous float tensor, one element included. On the AMD
  machine, ``sqrt(83.95614)`` came out 1 ulp above the correctly rounded value, which made the
  float32 gradient of ``x ** 1.5`` (``1.5 * sqrt(x)``) 2 ulp away; ``log(5.0398)`` 1 ulp off
  made ``d(x ** y)/dy = y * log(x)`` 2 ulp away.
* ``sigmoid``: ``1 / (1 + exp(-x))``, with the C library's ``expf`` for one element and SLEEF's
  AVX2 or AVX512 ``exp`` for vectors.
* ``pow`` with any other exponent, ``tensor ** tensor`` and ``number ** tensor``: the C
  library's ``pow`` for one element, SLEEF's for vectors.
* matrix products (``mm``, ``mv``, ``dot``, ``nn.Linear``): MKL's sgemm/sgemv/sdot, whose order
  of additions depends on the kernel MKL picks for the processor.

scalargrad computes each transcendental function in double with the platform's libm and rounds
the result once to the tensor's dtype. In float32 that is the correctly rounded value, the same
on every machine, unless the exact value lies within a few double-precision ulps of a float32
rounding boundary (``rounding_margin`` tells; no test draw comes near). In float64 it is the
platform libm's value (glibc: within 1 ulp of the exact value).

The tests therefore assert scalargrad bit for bit against a machine-independent reference:
PyTorch's formula (derivatives.yaml, in PyTorch's evaluation order, each IEEE step rounded to the
dtype) with every transcendental sub-result correctly rounded from mpmath at 300 bits
(``reference``). Live PyTorch is compared only within ``hull``: the values PyTorch's same formula
takes when each transcendental sub-result is anywhere within 1 ulp of the correctly rounded value
(the accuracy MKL's VML in HA mode, SLEEF's u10 functions and glibc document). A printed line is
compared with live PyTorch exactly where scalargrad prints it the same computing as another
processor would (``another_processor``); elsewhere PyTorch's numbers must lie between those
runs' (``printed_within``). Matrix products: ``product_error_bound``, and ``mkl_golden.py``.

``python tests/faithfulness.py`` measures all of this on the machine it runs on (see README,
"How faithful it is").
"""

from __future__ import annotations

import itertools
import math
import re
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import mpmath

FLOAT32, FLOAT64 = "float32", "float64"
_FORMAT = {FLOAT32: (24, -126, 128), FLOAT64: (53, -1022, 1024)}  # precision, min exponent, overflow


# ---------------------------------------------------------------- floats, ulps and exact rounding


def round_exact(q: Fraction | float | int, dtype: str) -> float:
    """The exact rational ``q`` rounded to nearest-even in ``dtype`` (subnormals, overflow to inf)."""
    q = Fraction(q)
    if q == 0:
        return 0.0
    prec, emin, emax = _FORMAT[dtype]
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - prec + 1)
    n, rem = divmod(a, quantum)
    n = int(n)
    if rem * 2 > quantum or (rem * 2 == quantum and n % 2 == 1):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** emax:
        return sign * math.inf
    return sign * float(value)


def f32(x: float) -> float:
    """``x`` rounded to float32."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # beyond float32's largest finite number: inf or the largest, by rounding
        return round_exact(x, FLOAT32)


def rounded(x: float, dtype: str) -> float:
    return f32(x) if dtype == FLOAT32 else x


def same(a: float | None, b: float | None) -> bool:
    """Bit-level equality (nan equals nan; 0.0 and -0.0 differ)."""
    if a is None or b is None:
        return a is b
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _ordinal(x: float, dtype: str) -> int:
    if dtype == FLOAT32:
        b = struct.unpack("<i", struct.pack("<f", x))[0]
        return b if b >= 0 else -(b & 0x7FFFFFFF)
    b = struct.unpack("<q", struct.pack("<d", x))[0]
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)


def ulps(a: float, b: float, dtype: str = FLOAT32) -> float:
    """How many representable numbers of ``dtype`` lie between ``a`` and ``b`` (0 when bit-equal,
    inf when only one is finite or they differ in nan-ness)."""
    if same(a, b):
        return 0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(_ordinal(a, dtype) - _ordinal(b, dtype))


def step(x: float, n: int, dtype: str) -> float:
    """The number ``n`` places from ``x`` on ``dtype``'s line (towards +inf for n > 0)."""
    if n == 0 or not math.isfinite(x):
        return x
    if dtype == FLOAT64:
        for _ in range(abs(n)):
            x = math.nextafter(x, math.copysign(math.inf, n))
        return x
    o = _ordinal(x, FLOAT32) + n
    bits = o if o >= 0 else ((-o) | 0x80000000)
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


# ---------------------------------------------------------------- correctly rounded transcendentals

_MP = {"exp": mpmath.exp, "log": mpmath.log, "sin": mpmath.sin, "cos": mpmath.cos, "tanh": mpmath.tanh,
       "sqrt": mpmath.sqrt, "pow": mpmath.power, "log1p": mpmath.log1p, "expm1": mpmath.expm1, "erf": mpmath.erf}


@lru_cache(maxsize=65536)
def exact(name: str, *args: float) -> Fraction | None:
    """``name(*args)`` at 300 bits, as an exact rational (the inputs are binary floats, exact);
    None where the value is not a finite real number in float64's range (log(0), a negative
    base to a fractional power, exp(1e300)): the tests compare those results bit for bit."""
    with mpmath.workprec(300):
        try:
            v = _MP[name](*[mpmath.mpf(a) for a in args])
        except (ZeroDivisionError, ValueError):  # 0 ** -1
            return None
    if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
        return None
    sign, man, exp, bc = v._mpf_
    if man == 0:
        return Fraction(0)
    if not -1200 < exp + bc < 1100:  # beyond float64's range: inf or 0, compared bit for bit
        return None
    return (-1) ** sign * Fraction(man) * Fraction(2) ** exp


def correctly_rounded(name: str, *args: float, dtype: str = FLOAT32) -> float:
    q = exact(name, *args)
    return math.nan if q is None else round_exact(q, dtype)


def rounding_margin(q: Fraction, dtype: str) -> float:
    """Relative distance of the exact value ``q`` from the nearest rounding boundary of ``dtype``
    (a midpoint between two neighbours). A value computed in double within ``margin * 2**52``
    double ulps of ``q`` rounds to the same ``dtype`` number as ``q`` itself."""
    if q is None or q == 0:
        return math.inf
    r = round_exact(q, dtype)
    if not math.isfinite(r):
        return math.inf
    lo = (Fraction(r) + Fraction(step(r, -1, dtype))) / 2
    hi = (Fraction(r) + Fraction(step(r, 1, dtype))) / 2
    return float(min(abs(q - lo), abs(q - hi)) / abs(q))


# ---------------------------------------------------------------- PyTorch's formulas, as a reference


class Kernel:
    """PyTorch's CPU arithmetic in one dtype: every IEEE step rounded exactly once, and each
    machine-dependent sub-result correctly rounded, then moved by the next of ``shifts`` ulps."""

    def __init__(self, dtype: str, shifts: tuple = (), fused: bool = True) -> None:
        self.dtype = dtype
        self.shifts = shifts
        self.fused = fused  # the multiply-adds of ATen's vector code fused (AVX2, AVX512), or not
        self.machine_dependent = 0  # sub-results taken so far
        self.margins: list = []  # their rounding margins

    def r(self, x: float) -> float:
        return rounded(x, self.dtype)

    # float32 operands: the double result of + - * / is exact enough that rounding it once more to
    # float32 is the correctly rounded float32 result (53 >= 2 * 24 + 2)
    def add(self, a, b):
        return self.r(a + b)

    def sub(self, a, b):
        return self.r(a - b)

    def mul(self, a, b):
        return self.r(a * b)

    def div(self, a, b):
        try:
            return self.r(a / b)
        except ZeroDivisionError:
            return math.nan if a != a or a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)

    def one_minus_square(self, y):
        """1 - y*y rounded once: PyTorch's tanh_backward, where the compiler fuses the product
        (ATen's generic code, ``ATEN_CPU_CAPABILITY=default``, rounds the product first)."""
        if not self.fused:
            return self.sub(1, self.mul(y, y))
        return round_exact(1 - Fraction(y) ** 2, self.dtype) if math.isfinite(y) else self.r(1 - y * y)

    def ieee_sqrt(self, x):
        """The processor's square-root instruction: correctly rounded, on every machine."""
        return correctly_rounded("sqrt", x, dtype=self.dtype)

    def libm(self, name: str, *args: float, dtype: str | None = None) -> float:
        """A machine-dependent sub-result: correctly rounded, then shifted as asked."""
        dtype = dtype or self.dtype
        q = exact(name, *args)
        self.margins.append(rounding_margin(q, self.dtype))  # the tensor dtype rounds it in the end
        i = self.machine_dependent
        self.machine_dependent += 1
        value = math.nan if q is None else round_exact(q, dtype)
        return step(value, self.shifts[i] if i < len(self.shifts) else 0, dtype)


def _pow_scalar(k: Kernel, x: float, e: float) -> float:
    # PyTorch's pow_tensor_scalar: these exponents are IEEE operations, the rest is libm's pow
    if e == 2.0:
        return k.mul(x, x)
    if e == 3.0:
        return k.mul(k.mul(x, x), x)
    if e == 0.5:
        return k.libm("sqrt", x)  # sqrt_kernel: MKL's vsSqrt
    if e == -0.5:
        return k.div(1, k.ieee_sqrt(x))  # rsqrt_kernel: 1 / std::sqrt(x)
    if e == -1.0:
        return k.div(1, x)
    if e == -2.0:
        return k.div(1, k.mul(x, x))
    if e == 0.0:
        return 1.0
    return k.libm("pow", x, e)


def _sigmoid(k, x, c):
    y = k.div(1, k.add(1, k.libm("exp", -x)))
    return y, (k.mul(k.sub(1, y), y),)  # sigmoid_backward: (grad * (1 - y)) * y


def _powc(k, x, c):
    # pow_backward: grad * (exponent * self.pow(exponent - 1)), the exponent a double
    return _pow_scalar(k, x, c), (0.0 if c == 0 else k.mul(k.r(c), _pow_scalar(k, x, c - 1.0)),)


def _rpowc(k, x, c):
    # the base is cast to the dtype; pow_backward_exponent takes the log of the double base
    y = k.libm("pow", k.r(c), x)
    return y, (k.mul(y, k.r(k.libm("log", c, dtype=FLOAT64))),)


def _pow(k, x, e):
    y = k.libm("pow", x, e)
    gx = 0.0 if e == 0 else k.mul(e, k.libm("pow", x, k.sub(e, 1)))
    ge = 0.0 if (x == 0 and e >= 0) else k.mul(y, k.libm("log", x))
    return y, (gx, ge)


def _exp(k, x, c):
    y = k.libm("exp", x)
    return y, (y,)


def _expm1(k, x):
    y = k.libm("expm1", x)
    return y, (k.add(y, 1),)  # grad * (result + 1)


def _sqrt(k, x, c):
    y = k.libm("sqrt", x)
    return y, (k.div(1, k.mul(2, y)),)  # grad / (2 * result)


def _tanh(k, x, c):
    y = k.libm("tanh", x)
    return y, (k.one_minus_square(y),)


@dataclass(frozen=True)
class Transcendental:
    """One machine-dependent op on a 0-dim tensor: how to build it, where to draw its inputs,
    and PyTorch's forward and backward as a ``Kernel`` formula (gradient output 1)."""

    build: object  # build(L, tensor, c[, tensor_exponent]) -> tensor
    draw: object  # draw(random.Random) -> x
    formula: object  # formula(Kernel, x, c) -> (forward, gradients)
    constant: bool = False  # takes a Python number c


TRANSCENDENTAL = {
    "log": Transcendental(lambda L, a, c: a.log(), lambda r: 10 ** r.uniform(-30, 30),
                          lambda k, x, c: (k.libm("log", x), (k.div(1, x),))),
    "exp": Transcendental(lambda L, a, c: a.exp(), lambda r: r.uniform(-87, 88), _exp),
    "sqrt": Transcendental(lambda L, a, c: a.sqrt(), lambda r: 10 ** r.uniform(-30, 30), _sqrt),
    "tanh": Transcendental(lambda L, a, c: a.tanh(), lambda r: r.uniform(-9, 9), _tanh),
    "sigmoid": Transcendental(lambda L, a, c: a.sigmoid(), lambda r: r.uniform(-20, 20), _sigmoid),
    "sin": Transcendental(lambda L, a, c: a.sin(), lambda r: r.uniform(-100, 100),
                          lambda k, x, c: (k.libm("sin", x), (k.libm("cos", x),))),
    "cos": Transcendental(lambda L, a, c: a.cos(), lambda r: r.uniform(-100, 100),
                          lambda k, x, c: (k.libm("cos", x), (-k.libm("sin", x),))),
    "log1p": Transcendental(lambda L, a, c: a.log1p(), lambda r: 10 ** r.uniform(-30, 30) - 0.5 * (r.random() < 0.3),
                            lambda k, x, c: (k.libm("log1p", x), (k.div(1, k.add(x, 1)),))),
    "expm1": Transcendental(lambda L, a, c: a.expm1(), lambda r: r.uniform(-87, 88),
                            lambda k, x, c: _expm1(k, x)),
    "x ** c": Transcendental(lambda L, a, c: a**c, lambda r: r.uniform(0, 100), _powc, True),
    "c ** x": Transcendental(lambda L, a, c: c**a, lambda r: r.uniform(-40, 40), _rpowc, True),
}
EXPONENTS = [1 / 3, 2.5, -1.7, 0.1, 4.0, 1.5, -3.0, 7.0, 1.3, 0.75]
POW = Transcendental(lambda L, a, b: a**b, lambda r: (r.uniform(0, 50), r.uniform(-4, 4)), _pow)
"""tensor ** tensor: ``x`` is the pair (base, exponent)."""

# how close a float32 draw's machine-dependent sub-results must be to a rounding boundary before
# scalargrad's double-then-round value could differ from the correctly rounded one: 2**-40 is
# 4096 double ulps, far beyond any libm's error
SAFE_MARGIN = 2.0**-40


def reference(formula, x, c, dtype: str, shifts: tuple = (), fused: bool = True) -> tuple[list, list]:
    """``[forward, *gradients]`` by PyTorch's formula with correctly rounded sub-results (moved by
    ``shifts`` ulps), and the rounding margins of those sub-results."""
    k = Kernel(dtype, shifts, fused)
    y, grads = formula(k, *x) if isinstance(x, tuple) else formula(k, x, c)
    return [y, *grads], k.margins


def hull(formula, x, c, dtype: str, reach: int = 1, fused: bool = True) -> list[tuple[float, float]]:
    """For each of ``[forward, *gradients]``, the least and greatest value PyTorch's formula gives
    when every machine-dependent sub-result is anywhere within ``reach`` ulps of correct (with
    its multiply-adds fused or not: ``fuses``)."""
    values, margins = reference(formula, x, c, dtype, fused=fused)
    n = len(margins)
    outs = [values]
    for shifts in itertools.product(range(-reach, reach + 1), repeat=n):
        if any(shifts):
            outs.append(reference(formula, x, c, dtype, shifts, fused)[0])
    return [(min(v), max(v)) for v in zip(*outs)]


def inside(value: float, bounds: tuple[float, float]) -> bool:
    lo, hi = bounds
    if value != value or lo != lo:
        return value != value and lo != lo
    return lo <= value <= hi


# ---------------------------------------------------------------- which kernels PyTorch runs


def fuses(torch) -> bool:
    """Does live PyTorch round ``a + alpha * b`` once (a fused multiply-add), as ATen's AVX2 and
    AVX512 kernels do (every x86-64 processor since 2013-2015; what scalargrad models), or the
    product first, as ATen's generic code does (``ATEN_CPU_CAPABILITY=default``)? Probed with
    ``add`` and alpha in both dtypes on 1, 7 and 17 elements (scalar, tail and vector code), on
    -1 + a * a with a = 1 + 2**-12 (float32; 1 + 2**-27 in float64), where the two differ."""
    found = set()
    for dt, e in ((torch.float32, 12), (torch.float64, 27)):
        a = 1 + 2.0**-e
        # a * a = 1 + 2**(1-e) + 2**-2e exactly; rounding it first drops the last term (a tie
        # to even in float32, under half an ulp in float64)
        fused, product_first = 2.0 ** (1 - e) + 2.0 ** (-2 * e), 2.0 ** (1 - e)
        for n in (1, 7, 17):
            got = set(torch.full((n,), -1.0, dtype=dt).add_(torch.full((n,), a, dtype=dt), alpha=a).tolist())
            assert got in ({fused}, {product_first}), got
            found.add(got == {fused})
    assert len(found) == 1, "PyTorch fuses the multiply-add in some of its kernels and not in others"
    return found == {True}


@contextmanager
def product_first() -> Iterator[None]:
    """While active, scalargrad rounds the product of each multiply-add first, as ATen's generic
    code computes (``fuses`` is False there): every fused multiply-add it models (``add`` with
    alpha, ``addcmul``, ``lerp``, the random generator's ``uniform_``, the optimizers' updates,
    the kernels that call ``kernel_order.fma``) becomes two roundings."""
    with _fmas_replaced(lambda fused, unfused: unfused):
        yield


@contextmanager
def fmas_used(used) -> Iterator[None]:
    """While active, scalargrad computes as always and calls ``used()`` whenever it reaches one
    of the fused multiply-adds ``product_first`` switches (tests/kernel_record.py: a test that
    never does computes the same under ``product_first``)."""

    def flagged(fused, unfused):
        def fma(*args):
            used()
            return fused(*args)

        return fma

    with _fmas_replaced(flagged):
        yield


@contextmanager
def _fmas_replaced(replace) -> Iterator[None]:
    """Every fused multiply-add scalargrad models, wherever a module holds it, replaced by
    ``replace(fused, unfused)`` (unfused: the same arguments, the product rounded first)."""
    import sys

    from scalargrad._base import kernel_order, rng
    from scalargrad._base.dtypes import round_f32
    from scalargrad._ops import pointwise
    from scalargrad._tensor import elementwise as tensor_elementwise
    from scalargrad.optim import elements

    def f32_first(a, b, c):
        return round_f32(round_f32(a * b) + c)

    def f64_first(a, b, c):
        return a * b + c

    unfused = {id(f): (f, replace(f, g)) for f, g in (
        (kernel_order.fma, lambda a, b, c, f32: f32_first(a, b, c) if f32 else f64_first(a, b, c)),
        (kernel_order.fma32, f32_first), (kernel_order.fma64, f64_first),
        (kernel_order.fma32_list, lambda xs, y, cs: [f32_first(x, y, c) for x, c in zip(xs, cs)]),
        (kernel_order.fma32_lists, lambda xs, ys, cs: [f32_first(x, y, c) for x, y, c in zip(xs, ys, cs)]),
        (rng.fma32, f32_first), (rng.fma64, f64_first),
        (pointwise.fused, lambda r, a, b, c: r(r(a * b) + c)),
        (tensor_elementwise._fma, lambda y, al, x, dt, f32: dt.round(dt.round(y * al) + x)))}
    saved = [(elements, "_ROUNDING", dict(elements._ROUNDING))]
    for name, module in list(sys.modules.items()):
        # kernel_order's own fma_chain models MKL's sgemm, which fuses whatever ATen runs: the
        # modules that import its fused multiply-adds for ATen's kernels are switched, not it
        if (name == "scalargrad" or name.startswith("scalargrad.")) and module is not kernel_order:
            for attr, value in list(vars(module).items()):
                hit = unfused.get(id(value))
                if hit is not None and hit[0] is value:
                    saved.append((module, attr, value))
                    setattr(module, attr, hit[1])
    elements._ROUNDING.update({dt: (r, unfused[id(fma)][1] if id(fma) in unfused else fma)
                               for dt, (r, fma) in saved[0][2].items()})
    try:
        yield
    finally:
        for module, attr, value in reversed(saved):
            if attr == "_ROUNDING":
                module._ROUNDING.clear()
                module._ROUNDING.update(value)
            else:
                setattr(module, attr, value)


# ---------------------------------------------------------------- normal_'s draws


# Measured on the capture machine (Intel Xeon, AVX512), randn and normal_ of 1-40 elements for
# seeds 0-29 in both dtypes: |value - exact| / (eps * (std * radius + |mean|)) reached 6.65 for
# ATen's vector transform (and scalargrad's model of it), 4.0 for its generic code
# (ATEN_CPU_CAPABILITY=default) and 5.7 in float64 (eps: 2**-24 in float32, 2**-53 in float64);
# twice the largest, rounded up
NORMAL_BOUND = 16


def normal_reference(n: int, dtype: str, mean: float, std: float, generator) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """What ``torch.empty(n).normal_(mean, std)`` computes, exactly (mpmath, 120 bits), from the
    uniforms the generator (scalargrad's, in PyTorch's state) gives it in PyTorch's order: Box-Muller
    on 16-element blocks of 24- or 53-bit uniforms (the last block redrawn over the tail) from 16
    elements on, else pairs of 53-bit uniforms (the sine kept for the next draw). Per element: the
    exact value and its scale ``std * radius + |mean|`` for ``normal_outside``."""
    from scalargrad._base import rng

    with mpmath.workprec(120):
        two_pi = 2 * mpmath.pi
        if n >= 16:
            draw = rng._uniform24 if dtype == FLOAT32 else rng._uniform53
            buf = [draw(generator) for _ in range(n)]
            out: list = [None] * n

            def fill(i: int) -> None:
                for j in range(i, i + 8):
                    r = mpmath.sqrt(-2 * mpmath.log(1 - mpmath.mpf(buf[j])))
                    theta = two_pi * mpmath.mpf(buf[j + 8])
                    out[j] = (mean + std * r * mpmath.cos(theta), std * r + abs(mean))
                    out[j + 8] = (mean + std * r * mpmath.sin(theta), std * r + abs(mean))

            for i in range(0, n - 15, 16):
                fill(i)
            if n % 16:
                buf[n - 16:] = [draw(generator) for _ in range(16)]
                fill(n - 16)
            return out
        out, cached = [], None
        for _ in range(n):
            if cached is None:
                u1, u2 = mpmath.mpf(rng._uniform53(generator)), mpmath.mpf(rng._uniform53(generator))
                r = mpmath.sqrt(-2 * mpmath.log1p(-u2))
                z, cached = (r * mpmath.cos(two_pi * u1), r), (r * mpmath.sin(two_pi * u1), r)
            else:
                z, cached = cached, None
            out.append((mean + std * z[0], std * z[1] + abs(mean)))
        return out


def normal_outside(values: list[float], reference: list, dtype: str) -> list[tuple[int, float, float]]:
    """The elements of ``values`` farther than ``NORMAL_BOUND`` from ``normal_reference``'s."""
    eps = 2.0**-24 if dtype == FLOAT32 else 2.0**-53
    return [(i, v, float(e)) for i, (v, (e, scale)) in enumerate(zip(values, reference, strict=True))
            if not abs(mpmath.mpf(v) - e) <= NORMAL_BOUND * eps * scale]


# ---------------------------------------------------------------- matrix products


def product_error_bound(a, b, dtype: str = FLOAT32) -> float:
    """The classical bound on |computed - exact| for sum(a[i] * b[i]) evaluated in ``dtype`` in
    ANY order, with or without fused multiply-adds: gamma_k * sum |a[i] * b[i]| (Higham,
    Accuracy and Stability of Numerical Algorithms, 3.1), gamma_k = k u / (1 - k u), with one
    more term for the rounding of the products."""
    u = 2.0**-24 if dtype == FLOAT32 else 2.0**-53
    k = len(a) + 1
    gamma = k * u / (1 - k * u)
    return gamma * float(sum(abs(Fraction(p) * Fraction(q)) for p, q in zip(a, b)))


def exact_product(a, b) -> Fraction:
    return sum((Fraction(p) * Fraction(q) for p, q in zip(a, b)), Fraction(0))


# ---------------------------------------------------------------- another processor, simulated


@contextmanager
def another_processor(steps: int) -> Iterator[None]:
    """While active, scalargrad computes like a processor whose machine-dependent kernels land
    ``steps`` float32 ulps from the correctly rounded value: every transcendental result (exp,
    log, sqrt, sin, cos, tanh, pow; forward and backward) and every matrix product is moved by
    ``steps`` places on float32's line. Exact results (a double that already is a float32 number:
    125.0 = 5 ** 3, 2.0 = sqrt(4), log(1) = 0) stay, as every library returns them exactly.
    float64 results move by a float32 ulp too: coarser than any libm, on the safe side."""
    from scalargrad._base import ieee
    from scalargrad._ops import float_kernel, unary
    from scalargrad._tensor import products

    def moved(fn):
        def on_another_processor(*args):
            v = fn(*args)
            r = f32(v)
            if not math.isfinite(v) or r == v:
                return v
            return step(r, steps, FLOAT32)

        return on_another_processor

    saved = []
    # tensors with dimensions compute through C functions (``fast``): without them the elements
    # go through ``forward``, which calls the ieee functions moved below
    for op in (unary.Exp, unary.Log, unary.Sqrt, unary.Tanh):
        saved.append((op, "fast", op.__dict__["fast"]))
        op.fast = None
    for owner, names in ((ieee, ("exp", "log", "sqrt", "sin", "cos", "tanh", "pow")),
                         (float_kernel.FloatKernel, ("exp", "log", "sqrt", "sin", "cos", "pow")),  # bound at import
                         (products, ("fma_chain", "mkl_sdot", "mkl_lanes8"))):
        for name in names:
            original = owner.__dict__[name]
            saved.append((owner, name, original))
            fn = original.__func__ if isinstance(original, staticmethod) else original
            setattr(owner, name, staticmethod(moved(fn)) if isinstance(original, staticmethod) else moved(fn))
    # the bulk float32 kernel computes the same values as fma_chain / mkl_lanes8 a row at a time:
    # switched off, so every element goes through the moved functions
    saved.append((products, "gemm_f32", products.gemm_f32))
    products.gemm_f32 = lambda *args: None
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)")


def printed_within(live: str, ours: str, low: str, high: str) -> str | None:
    """Compare live PyTorch's printed output with scalargrad's: a line that scalargrad prints the
    same computing as another processor would (``low``, ``high``: ``another_processor(-2)`` and
    ``(+2)``) must be identical; in a line that depends on the processor, the text around the
    numbers must be identical and each of PyTorch's numbers must lie between the two simulated
    ones. None when they agree, else the first disagreement."""
    rows = [t.splitlines() for t in (live, ours, low, high)]
    if len({len(r) for r in rows}) != 1:
        return f"PyTorch prints {len(rows[0])} lines, scalargrad {len(rows[1])} (other processors: {len(rows[2])}, " \
            f"{len(rows[3])})"
    for i, (t, o, lo, hi) in enumerate(zip(*rows), 1):
        if o == lo == hi:
            if t != o:
                return f"line {i}: PyTorch prints {t!r}, scalargrad {o!r} (the same on every processor)"
            continue
        skeletons = {_NUMBER.sub("#", line) for line in (t, o, lo, hi)}
        numbers = [[float(n) for n in _NUMBER.findall(line)] for line in (t, lo, hi)]
        if len(skeletons) != 1 or not all(min(a, b) <= v <= max(a, b) for v, a, b in zip(*numbers)):
            return f"line {i}: PyTorch prints {t!r}; scalargrad {o!r}, on other processors {lo!r} .. {hi!r}"
    return None


# ---------------------------------------------------------------- measurement


def _measure(draws: int) -> None:  # pragma: no cover - a report, run by hand
    """Print, per op and dtype: scalargrad against the correctly rounded reference, live PyTorch
    against scalargrad, and the hull's width (all in ulps), over ``draws`` draws."""
    import random
    import sys

    import scalargrad

    try:
        import torch
    except ImportError:
        torch = None
    print(f"{draws} draws per op and dtype; PyTorch: "
          f"{'not installed' if torch is None else torch.__version__ + ' ' + torch.backends.cpu.get_cpu_capability()}")
    print(f"{'op':10} {'dtype':8} {'sg==ref':>9} {'sg-ref max':>10} {'torch-sg fwd':>12} {'torch-sg grad':>13} "
          f"{'torch in hull':>13} {'hull fwd':>8} {'hull grad':>9}")
    cases = [(name, op) for name, op in TRANSCENDENTAL.items()] + [("x ** y", POW)]
    for name, op in cases:
        for dtype in (FLOAT32, FLOAT64):
            rng = random.Random(name)
            equal = worst_ref = 0
            tf = tg = hf = hg = 0
            in_hull = 0
            for i in range(draws):
                x = op.draw(rng)
                x = tuple(rounded(v, dtype) for v in x) if isinstance(x, tuple) else rounded(x, dtype)
                c = EXPONENTS[i % len(EXPONENTS)] if op.constant else None
                ours = run_op(scalargrad, op, x, c, dtype)
                ref, _ = reference(op.formula, x, c, dtype)
                equal += all(map(same, ours, ref))
                worst_ref = max(worst_ref, *(ulps(p, q, dtype) for p, q in zip(ours, ref)))
                h = hull(op.formula, x, c, dtype)
                hf = max(hf, ulps(*h[0], dtype))
                hg = max(hg, *(ulps(*b, dtype) for b in h[1:]))
                if torch is not None:
                    theirs = run_op(torch, op, x, c, dtype)
                    tf = max(tf, ulps(ours[0], theirs[0], dtype))
                    tg = max(tg, *(ulps(p, q, dtype) for p, q in zip(ours[1:], theirs[1:])))
                    in_hull += all(inside(v, b) for v, b in zip(theirs, h))
            print(f"{name:10} {dtype:8} {equal:9} {worst_ref:10} {tf:12} {tg:13} {in_hull:13} {hf:8} {hg:9}")
            sys.stdout.flush()


def run_op(L, op: Transcendental, x, c, dtype: str) -> list:
    """``[forward, *gradients]`` of ``op`` on 0-dim tensors of library ``L`` (scalargrad or torch)."""
    dt = getattr(L, dtype)
    if isinstance(x, tuple):
        a, b = (L.tensor(v, dtype=dt, requires_grad=True) for v in x)
        y = op.build(L, a, b)
        y.backward()
        return [y.item(), a.grad.item(), b.grad.item()]
    a = L.tensor(x, dtype=dt, requires_grad=True)
    y = op.build(L, a, c)
    y.backward()
    return [y.item(), a.grad.item()]


if __name__ == "__main__":  # pragma: no cover
    import argparse

    parser = argparse.ArgumentParser(description="measure scalargrad and PyTorch against correctly rounded values")
    parser.add_argument("--draws", type=int, default=2000)
    _measure(parser.parse_args().draws)


def exact_det(m: list) -> Fraction:
    """The determinant of the float matrix ``m`` (rows of floats), exactly: Gaussian elimination
    in rationals."""
    n = len(m)
    a = [[Fraction(x) for x in row] for row in m]
    d = Fraction(1)
    for j in range(n):
        p = next((i for i in range(j, n) if a[i][j] != 0), None)
        if p is None:
            return Fraction(0)
        if p != j:
            a[p], a[j] = a[j], a[p]
            d = -d
        d *= a[j][j]
        for i in range(j + 1, n):
            f = a[i][j] / a[j][j]
            for c in range(j, n):
                a[i][c] -= f * a[j][c]
    return d
