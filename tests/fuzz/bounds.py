"""Machine-independent references for the kernel rule: exact values and the error each kernel may make.

Three kinds, each computed from one element's own operands, so that no unrelated value of the
program can widen it:

* correctly rounded (``libm.correctly_rounded``): the elementwise math functions;
* the two roundings of one multiply-add (``fma_pair``): PyTorch's vectorised kernels fuse
  ``a + alpha * b``, ``addcmul``, ``lerp``, ``1 - y*y`` where the build has FMA (AVX2,
  AVX512) and round twice where it has not (``ATEN_CPU_CAPABILITY=default``): a value must be
  one of the two;
* a running error bound (``Err``, Wilkinson's running error analysis): the kernel's textbook
  formula evaluated on numbers that carry their exact value (mpmath, 200 bits) and a bound on
  the error any floating-point evaluation of that formula in the dtype can have made: each
  operation adds u|result| (u the unit roundoff), a sum of n terms in any order adds
  ``gamma_(n-1) * sum |terms|``, exp and log add the 1 ulp their libraries document, and an
  operation on inexact operands propagates their bounds to first order (through the
  derivative, with the operands' bounds as the step). ``ALGORITHMIC`` widens the result by a
  stated factor, because PyTorch's kernels reassociate (vector lanes, Welford's moments)
  where the textbook formula does not.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from . import libm

__all__ = ["Err", "fma_pair", "unit_roundoff", "within", "ALGORITHMIC"]

ALGORITHMIC = 4
"""How much wider than the textbook formula's running bound a kernel's error may be: lanes and
cascades add in another order (another gamma_n of the same terms), Welford's update of the
mean and variance has twice the two-pass formula's first-order error. Measured: every value
of PyTorch under ATEN_CPU_CAPABILITY=default, avx2 and MKL_CBWR=COMPATIBLE on the fuzzer's
programs lies within the bound times 1 (tests/test_fuzz_machinery.py checks the factor
stays needed-free on a sample)."""

_PREC = 200


def unit_roundoff(dt: str) -> float:
    return 2.0**-24 if dt == "float32" else 2.0**-53


def _tiny(dt: str) -> float:
    # half the spacing of the subnormals: the absolute error of a result that underflows
    return 2.0**-150 if dt == "float32" else 2.0**-1075


class Err:
    """A number computed in floating point: its exact value (mpmath) and a bound on how far a
    floating-point evaluation of the same formula in ``dt`` may be from it."""

    __slots__ = ("v", "e", "dt")

    def __init__(self, v, e=0.0, dt: str = "float32") -> None:
        self.v = mpmath.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mpmath.mpf(v)
        self.e = mpmath.mpf(e)
        self.dt = dt

    def _round(self, v, e) -> Err:
        u = unit_roundoff(self.dt)
        return Err(v, e + u * abs(v) + _tiny(self.dt), self.dt)

    @staticmethod
    def _lift(x, dt) -> Err:
        return x if isinstance(x, Err) else Err(x, 0, dt)

    def __add__(self, o) -> Err:
        o = self._lift(o, self.dt)
        return self._round(self.v + o.v, self.e + o.e)

    __radd__ = __add__

    def __sub__(self, o) -> Err:
        o = self._lift(o, self.dt)
        return self._round(self.v - o.v, self.e + o.e)

    def __rsub__(self, o) -> Err:
        return self._lift(o, self.dt) - self

    def __neg__(self) -> Err:
        return Err(-self.v, self.e, self.dt)

    def __mul__(self, o) -> Err:
        o = self._lift(o, self.dt)
        return self._round(self.v * o.v, abs(self.v) * o.e + abs(o.v) * self.e + self.e * o.e)

    __rmul__ = __mul__

    def __truediv__(self, o) -> Err:
        o = self._lift(o, self.dt)
        low = abs(o.v) - o.e
        if low <= 0:
            return Err(self.v / o.v if o.v else mpmath.inf, mpmath.inf, self.dt)
        q = self.v / o.v
        return self._round(q, (self.e + abs(q) * o.e) / low)

    def __rtruediv__(self, o) -> Err:
        return self._lift(o, self.dt) / self

    def sqrt(self) -> Err:
        low = self.v - self.e
        if low <= 0:
            return Err(mpmath.sqrt(max(self.v, 0)), mpmath.sqrt(self.v + self.e), self.dt)
        r = mpmath.sqrt(self.v)
        return self._round(r, self.e / (2 * mpmath.sqrt(low)))

    def exp(self) -> Err:
        r = mpmath.exp(self.v)
        # the argument's error e moves exp by at most exp(v + e) - exp(v); the library: 1 ulp
        return self._round(r, mpmath.exp(self.v + self.e) - r + 2 * unit_roundoff(self.dt) * r)

    def log(self) -> Err:
        low = self.v - self.e
        if low <= 0:
            return Err(mpmath.log(self.v) if self.v > 0 else -mpmath.inf, mpmath.inf, self.dt)
        r = mpmath.log(self.v)
        return self._round(r, self.e / low + 2 * unit_roundoff(self.dt) * abs(r))

    def erf(self) -> Err:
        r = mpmath.erf(self.v)
        # |erf'| <= 2 / sqrt(pi); the library: 1 ulp
        return self._round(r, 2 / mpmath.sqrt(mpmath.pi) * self.e + 2 * unit_roundoff(self.dt) * abs(r))

    def tanh(self) -> Err:
        r = mpmath.tanh(self.v)
        return self._round(r, self.e + 2 * unit_roundoff(self.dt) * abs(r))  # |tanh'| <= 1

    @staticmethod
    def sum(terms: list, dt: str) -> Err:
        """A sum in any order: gamma_(n-1) * sum |terms| plus the terms' own bounds."""
        if not terms:
            return Err(0, 0, dt)
        terms = [Err._lift(t, dt) for t in terms]
        n = len(terms)
        u = unit_roundoff(dt)
        gamma = (n - 1) * u / (1 - (n - 1) * u)
        v = mpmath.fsum(t.v for t in terms)
        return Err(v, gamma * mpmath.fsum(abs(t.v) for t in terms) + mpmath.fsum(t.e for t in terms)
                   + n * _tiny(dt), dt)


def within(value: float, ref: Err, factor: float | None = None) -> bool:
    """Whether ``value`` lies within ``factor`` (default ``ALGORITHMIC``) times ``ref``'s bound
    of its exact value (nan and inf must match exactly: no bound covers them)."""
    factor = ALGORITHMIC if factor is None else factor
    if not math.isfinite(value):
        v = ref.v
        return bool((value != value and mpmath.isnan(v)) or (mpmath.isinf(v) and value == float(v)))
    if not mpmath.isfinite(ref.e):
        return True  # the formula itself is ill-conditioned here: no bound can be given
    with mpmath.workprec(_PREC):
        return abs(mpmath.mpf(value) - ref.v) <= factor * ref.e


def fma_pair(a: float, b: float, c: float, dt: str) -> tuple[float, float]:
    """``c + a * b`` rounded once (fused) and rounded twice, in ``dt``."""
    if not all(math.isfinite(x) for x in (a, b, c)):
        r = libm.round_to(c + libm.round_to(a * b, dt), dt) if math.isfinite(a * b) or True else math.nan
        return r, r
    fused = _round(Fraction(c) + Fraction(a) * Fraction(b), dt)
    prod = _round(Fraction(a) * Fraction(b), dt)
    unfused = libm.round_to(c + prod, dt) if not math.isfinite(prod) else _round(Fraction(c) + Fraction(prod), dt)
    return fused, unfused


def _round(q: Fraction, dt: str) -> float:
    from tests.faithfulness import round_exact

    return round_exact(q, dt)
