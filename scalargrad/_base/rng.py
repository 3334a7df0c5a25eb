"""Bit-exact reimplementation of PyTorch 2.13's CPU random number generation.

Pure Python, standard library only: this module never imports torch or numpy.

What is reproduced (x86-64 CPU whose ATen kernels run with the AVX2 or AVX512
capability, i.e. any x86-64 machine made since about 2013; on AVX512 machines
ATen runs the AVX2 build of the distribution kernels, so both give the same
numbers):

* ``Generator``: ATen's ``CPUGeneratorImpl``, a 32-bit Mersenne Twister
  (mt19937) seeded with the classic ``init_genrand`` recurrence from the low
  32 bits of the 64-bit seed (``initial_seed()`` still reports all 64 bits),
  plus the one cached Box-Muller sample ATen keeps between scalar ``normal_``
  calls.  ``get_state()`` returns exactly the 5056 bytes of
  ``torch.Generator.get_state()`` as a tuple of ints and ``set_state()``
  accepts them back, so states can be exchanged with real PyTorch.
* ``manual_seed`` / ``initial_seed`` / ``seed`` / ``get_rng_state`` /
  ``set_rng_state`` on a module-level ``default_generator``.  As in PyTorch,
  the default generator is seeded from the OS entropy source at import (so
  ``torch.rand`` differs between fresh processes), whereas a newly built
  ``Generator()`` starts from the fixed seed 67280421310721.
* ``uniform``: ``torch.rand`` and ``Tensor.uniform_(low, high)``.  float32
  takes the low 24 bits of one 32-bit draw, float64 the low 53 bits of a
  64-bit draw made of two 32-bit draws (first one is the high word).  The
  value is ``fma(x, high - low, low)`` computed in the tensor dtype (the
  compiler contracts ATen's ``x * (to - from) + from`` into an FMA), and a
  result that rounds up to ``high`` is replaced by ``low``.
* ``normal``: ``torch.randn`` and ``Tensor.normal_(mean, std)``.  Tensors with
  fewer than 16 elements (or non-contiguous ones) use the scalar double
  precision Box-Muller with ``log1p``, two 53-bit uniforms per pair, returning
  the cosine branch and caching the sine branch in the generator for the next
  scalar call (also across calls and dtypes, cleared by ``manual_seed``).
  Tensors of 16 or more elements first draw one uniform per element, then
  transform each block of 16 in place (element j pairs with j + 8); when the
  size is not a multiple of 16, 16 fresh uniforms are drawn and the last 16
  outputs are recomputed from them.  float64 blocks use libm ``log``/``cos``/
  ``sin`` (Python's ``math`` calls the same libm).  float32 blocks use the
  Cephes-derived ``log256_ps``/``sincos256_ps`` of ATen's ``avx_mathfun.h``,
  emulated here operation by operation in float32, including the places where
  GCC contracted a multiply and an add into one FMA.
* ``bernoulli_mask``: which elements ``F.dropout(x, p, training=True)`` keeps
  for a float32 CPU tensor.  On CPU dropout is ``noise.bernoulli_(1 - p)``,
  which (despite MKL being present) runs ATen's serial kernel: one 53-bit
  uniform ``u`` per element, kept iff ``u < 1 - p``.  ``p == 0``, ``p == 1``
  and empty tensors consume no draws.  ``dropout_scale`` gives the float32
  factor kept elements are multiplied by.
* ``randint``: ``torch.randint(low, high, (n,))`` (int64): ``draw % range +
  low``, with one 32-bit draw when ``range < 2**28`` and a 64-bit draw
  otherwise.

How it was verified: against real PyTorch 2.13.0+cpu on an AVX512 Xeon with
glibc 2.36 (see tests/test_random.py, which repeats these comparisons when
torch is installed and checks hard-coded figures otherwise): rand/uniform_/
randn/normal_/dropout/randint for many seeds, sizes and parameters, state
round-trips with ``torch.Generator.set_state``, and crafted generator states
that feed every possible 24-bit uniform through the float32 log and sin/cos
emulation.

Known limits: float64 ``normal`` for 16 or more elements relies on the host
libm's ``log``/``sin``/``cos`` being the ones torch uses (same machine, same
glibc).  Machines where ATen runs its DEFAULT (non-AVX2) kernels, such as
pre-AVX2 x86 or ``ATEN_CPU_CAPABILITY=default``, compute float32 ``randn`` of
16+ elements with libm ``logf``/``cosf``/``sinf`` and do not fuse the
``uniform_`` FMA; those variants are not reproduced.  Half/bfloat16 are not
supported.
"""

from __future__ import annotations

import math
import operator
import os
import struct
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from .dtypes import FLOAT32_MAX

__all__ = [
    "random_integers",
    "DEFAULT_SEED",
    "STATE_SIZE",
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "set_draw_guard",
    "uniform",
    "normal",
    "bernoulli_mask",
    "dropout_scale",
    "randint",
]

# c10::default_rng_seed_val: the seed of every freshly constructed Generator.
DEFAULT_SEED = 67280421310721
# sizeof(at::detail::CPUGeneratorImplState), the length of get_state().
STATE_SIZE = 5056

_N = 624
_M = 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_U32 = 0xFFFFFFFF
_U64 = 0xFFFFFFFFFFFFFFFF
_MASK24 = (1 << 24) - 1
_MASK53 = (1 << 53) - 1


# Byte layout of CPUGeneratorImplState (x86-64, little endian): the legacy TH
# header, 624 state words widened to uint64, the legacy normal cache (only
# normal_y/normal_is_valid are meaningful today), then the float cache.
_HEADER = struct.Struct("<QiiQ")
_WORDS = struct.Struct("<624Q")
_LEGACY_NORMAL = struct.Struct("<dddi")
_FLOAT_CACHE = struct.Struct("<f?")
_OFF_WORDS = _HEADER.size
_OFF_NORMAL = _OFF_WORDS + _WORDS.size
_OFF_FLOAT = 5048  # _LEGACY_NORMAL ends at 5044, padded to 8-byte alignment

_F32 = struct.Struct("<f")
_I32 = struct.Struct("<I")


def _f32(x: float) -> float:
    """Round a double to the nearest float32 (what a C ``(float)`` cast does)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _f32_bits(x: float) -> int:
    return _I32.unpack(_F32.pack(x))[0]


def _f32_from_bits(b: int) -> float:
    return _F32.unpack(_I32.pack(b & _U32))[0]


def _f32_neighbour(r: float, up: bool) -> float:
    if r == 0.0:
        tiny = _f32_from_bits(1)
        return tiny if up else -tiny
    b = _f32_bits(r)
    return _f32_from_bits(b + 1 if (r > 0.0) == up else b - 1)


def fma32(a: float, b: float, c: float) -> float:
    """float32 fused multiply-add with a single rounding.

    The product of two float32 values is exact in a double, and rounding the
    double sum to float32 is then right except when that sum sits exactly on a
    float32 halfway point; the exact error term of the sum (TwoSum) decides
    those cases.
    """
    p = a * b
    s = p + c
    r = _f32(s)
    if r == s or s != s or math.isinf(s) or math.isinf(r):
        return r
    t = s - p
    err = (p - (s - t)) + (c - t)
    if err == 0.0:
        return r
    other = _f32_neighbour(r, s > r)
    if (r + other) * 0.5 == s:
        return max(r, other) if err > 0.0 else min(r, other)
    return r


def fma64(a: float, b: float, c: float) -> float:
    """Double fused multiply-add with a single rounding (math.fma needs 3.13)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # The IEEE sign rules for an exactly-zero result are what a*b + c gives.
        return a * b + c
    try:
        return float(exact)  # int/int true division rounds correctly
    except OverflowError:
        return math.inf if exact > 0 else -math.inf  # copysign would convert the Fraction: overflow


# --------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------


def _seed_words(seed: int) -> list[int]:
    s = seed & _U32
    words = [s]
    append = words.append
    for j in range(1, _N):
        s = (1812433253 * (s ^ (s >> 30)) + j) & _U32
        append(s)
    return words


def _as_uint64_seed(seed: Any) -> int:
    # Same acceptance rules as torch.Generator.manual_seed: ints only (bool and
    # float are rejected), negatives wrap to two's complement.
    if isinstance(seed, (bool, float)) or not hasattr(seed, "__index__"):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    value = operator.index(seed)
    if not -(1 << 63) <= value <= _U64:
        raise ValueError("Overflow when unpacking long long")
    return value & _U64


class Generator:
    """ATen's CPU generator: mt19937 plus the cached scalar normal sample."""

    __slots__ = (
        "_state",
        "_left",
        "_next",
        "_seeded",
        "_seed",
        "_next_double_normal",
        "_next_float_normal",
        "_entropy",
    )

    def __init__(self, device: str = "cpu") -> None:
        if str(device) != "cpu":
            raise RuntimeError(f"scalargrad only has a CPU generator, got {device!r}")
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None
        self._set_seed(DEFAULT_SEED)

    @property
    def device(self) -> str:
        return "cpu"

    def _set_seed(self, seed: int) -> None:
        self._seed = seed
        self._state = _seed_words(seed)
        self._left = 1
        self._next = 0
        self._seeded = True
        self._next_double_normal = None
        self._next_float_normal = None
        self._entropy = False

    def manual_seed(self, seed: int) -> Generator:
        """Seed like ``torch.Generator.manual_seed``; returns ``self``."""
        self._set_seed(_as_uint64_seed(seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Reseed from the OS entropy source and return the new 64-bit seed."""
        value = int.from_bytes(os.urandom(8), "little")
        self._set_seed(value)
        self._entropy = True
        return value

    def get_state(self) -> tuple[int, ...]:
        """The 5056 bytes torch's ``Generator.get_state()`` would hold."""
        buf = bytearray(STATE_SIZE)
        _HEADER.pack_into(buf, 0, self._seed, self._left, int(self._seeded), self._next)
        _WORDS.pack_into(buf, _OFF_WORDS, *self._state)
        cached = self._next_double_normal
        _LEGACY_NORMAL.pack_into(buf, _OFF_NORMAL, 0.0, 0.0 if cached is None else cached, 0.0, cached is not None)
        fcached = self._next_float_normal
        _FLOAT_CACHE.pack_into(buf, _OFF_FLOAT, 0.0 if fcached is None else fcached, fcached is not None)
        if self._entropy:
            ENTROPY.states.add(hash(bytes(buf)))
        return tuple(buf)

    def set_state(self, new_state: Iterable[int]) -> Generator:
        """Load a state from ``get_state()`` (here or torch's, as ints)."""
        if hasattr(new_state, "tolist"):
            new_state = new_state.tolist()
        raw = bytes(new_state)
        if len(raw) != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                f"the input RNG state size to be {len(raw)}"
            )
        seed, left, seeded, nxt = _HEADER.unpack_from(raw, 0)
        nxt &= _U32
        if not (seeded != 0 and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        _, normal_y, _, normal_valid = _LEGACY_NORMAL.unpack_from(raw, _OFF_NORMAL)
        fsample, fvalid = _FLOAT_CACHE.unpack_from(raw, _OFF_FLOAT)
        self._seed = seed
        self._left = left
        self._next = nxt
        self._seeded = True
        self._state = [w & _U32 for w in _WORDS.unpack_from(raw, _OFF_WORDS)]
        self._next_double_normal = normal_y if normal_valid else None
        self._next_float_normal = fsample if fvalid else None
        self._entropy = hash(raw) in ENTROPY.states
        return self

    def _twist(self) -> None:
        mt = self._state
        for i in range(_N - _M):
            y = (mt[i] & _UPPER) | (mt[i + 1] & _LOWER)
            mt[i] = mt[i + _M] ^ (y >> 1) ^ (_MATRIX_A if mt[i + 1] & 1 else 0)
        for i in range(_N - _M, _N - 1):
            y = (mt[i] & _UPPER) | (mt[i + 1] & _LOWER)
            mt[i] = mt[i + _M - _N] ^ (y >> 1) ^ (_MATRIX_A if mt[i + 1] & 1 else 0)
        y = (mt[_N - 1] & _UPPER) | (mt[0] & _LOWER)
        mt[_N - 1] = mt[_M - 1] ^ (y >> 1) ^ (_MATRIX_A if mt[0] & 1 else 0)
        self._left = _N
        self._next = 0

    def random(self) -> int:
        """Next 32-bit output (``CPUGeneratorImpl::random``)."""
        self._left -= 1
        if self._left == 0:
            self._twist()
        y = self._state[self._next]
        self._next += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y

    def random64(self) -> int:
        """Next 64-bit output: the first 32-bit draw is the high word."""
        hi = self.random()
        return (hi << 32) | self.random()


class _Entropy:
    """Draws from a state that came from the OS entropy source rather than ``manual_seed``
    (the default generator's at start-up, ``seed()``, a state saved from one and loaded back):
    the numbers they give differ from run to run. ``scalargrad verify`` reads ``draws`` to
    know whether a document's output can depend on them."""

    __slots__ = ("draws", "states")

    def __init__(self) -> None:
        self.draws = 0  # calls that drew from such a state
        self.states: set = set()  # hashes of the states get_state() returned while in one


ENTROPY = _Entropy()

default_generator = Generator()
# PyTorch seeds its default CPU generator from the OS at start-up.
default_generator.seed()


def manual_seed(seed: int) -> Generator:
    """``torch.manual_seed``: ``int(seed)`` then seed the default generator."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> tuple[int, ...]:
    """The default generator's state bytes, as ints (the tensor layer's ``torch.get_rng_state`` wraps them)."""
    return Generator.get_state(default_generator)


def set_rng_state(new_state: Iterable[int]) -> None:
    """Restore the default generator from state bytes ``get_rng_state()`` gave."""
    Generator.set_state(default_generator, new_state)


# --------------------------------------------------------------------------
# Distributions
# --------------------------------------------------------------------------


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None)
    name = str(dtype if not isinstance(name, str) else name)
    name = name.rsplit(".", 1)[-1]
    name = {"float": "float32", "double": "float64"}.get(name, name)
    if name not in ("float32", "float64"):
        raise ValueError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
    return name


_draw_guard = None  # vmap's fn() called before any random draw (func/vmap.py: its randomness mode)


def set_draw_guard(guard) -> None:
    """Install (None: remove) the function every random draw calls first; vmap's refuses them."""
    global _draw_guard
    _draw_guard = guard


def _gen(generator: Generator | None) -> Generator:
    if _draw_guard is not None:
        _draw_guard()
    g = default_generator if generator is None else generator
    if g._entropy:
        ENTROPY.draws += 1
    return g


def _check_count(n: int) -> int:
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    return n


def _uniform24(g: Generator) -> float:
    return (g.random() & _MASK24) * 5.9604644775390625e-08  # 2**-24


def _uniform53(g: Generator) -> float:
    return (g.random64() & _MASK53) * 1.1102230246251565e-16  # 2**-53


def uniform_real(n: int, low: float, high: float, generator: Generator | None = None) -> list[float]:
    """``n`` draws of ATen's ``at::uniform_real_distribution<double>(low, high)`` (one random64
    each, ``x * (high - low) + low`` in double), as rrelu's training kernel takes them."""
    g = _gen(generator)
    return [_uniform53(g) * (high - low) + low for _ in range(_check_count(n))]


def uniform(
    n: int,
    dtype: Any = "float32",
    low: float = 0.0,
    high: float = 1.0,
    generator: Generator | None = None,
) -> list[float]:
    """``torch.empty(n, dtype=dtype).uniform_(low, high)``; ``torch.rand`` for 0, 1."""
    n = _check_count(n)
    dt = _dtype_name(dtype)
    low = float(low)
    high = float(high)
    if dt == "float32":
        for name, v in (("from", low), ("to", high)):
            if not -FLOAT32_MAX <= v <= FLOAT32_MAX:
                raise RuntimeError(f"{name} is out of bounds for float")
    if not low <= high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    if n == 0:
        return []
    g = _gen(generator)
    if dt == "float32":
        lo, hi = _f32(low), _f32(high)
        span = _f32(hi - lo)
        if span > FLOAT32_MAX:
            raise RuntimeError("uniform_ expects to-from <= std::numeric_limits<float>::max()")
        out = []
        for _ in range(n):
            v = fma32(_uniform24(g), span, lo)
            out.append(lo if v == hi else v)
        return out
    span = high - low
    if math.isinf(span):
        raise RuntimeError("uniform_ expects to-from <= std::numeric_limits<double>::max()")
    out = []
    for _ in range(n):
        v = fma64(_uniform53(g), span, low)
        out.append(low if v == high else v)
    return out


# Constants of ATen's avx_mathfun.h, as the float32 values the C code holds.
_SQRTHF = _f32(0.707106781186547524)
_LOG_P = tuple(
    _f32(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
_LOG_Q1 = _f32(-2.12194440e-4)
_LOG_Q2 = _f32(0.693359375)
_DP = (_f32(-0.78515625), _f32(-2.4187564849853515625e-4), _f32(-3.77489497744594108e-8))
_SIN_P = (_f32(-1.9515295891e-4), _f32(8.3321608736e-3), _f32(-1.6666654611e-1))
_COS_P = (_f32(2.443315711809948e-005), _f32(-1.388731625493765e-003), _f32(4.166664568298827e-002))
_FOPI = _f32(1.27323954473516)
_TWO_PI_F32 = _f32(2.0 * math.pi)


def _log256(x: float) -> float:
    """One lane of ``log256_ps`` for a positive normal float32 ``x``.

    GCC fuses the Horner steps and ``y * z + e * q1`` (the ``y * z`` side);
    ``- z * 0.5`` and ``+ e * q2`` are exact products either way.
    """
    b = _f32_bits(x)
    m = _f32_from_bits((b & ~0x7F800000) | 0x3F000000)  # mantissa in [0.5, 1)
    e = float((b >> 23) - 0x7F) + 1.0
    if m < _SQRTHF:
        e -= 1.0
        m = _f32(_f32(m - 1.0) + m)
    else:
        m = _f32(m - 1.0)
    z = _f32(m * m)
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = fma32(y, m, p)
    y = _f32(y * m)
    y = fma32(y, z, _f32(e * _LOG_Q1))
    y = _f32(y - z * 0.5)
    r = _f32(m + y)
    return fma32(e, _LOG_Q2, r)


def _sincos256(x: float) -> tuple[float, float]:
    """One lane of ``sincos256_ps`` (returns sin, cos) for float32 ``x``."""
    sin_negative = math.copysign(1.0, x) < 0.0
    x = abs(x)
    j = int(_f32(x * _FOPI))
    j = (j + 1) & ~1
    y = float(j)
    sin_negative ^= bool(j & 4)
    cos_negative = ((j - 2) & 4) == 0
    small_branch = (j & 2) == 0
    for dp in _DP:
        x = fma32(y, dp, x)
    z = _f32(x * x)
    yc = fma32(_COS_P[0], z, _COS_P[1])
    yc = fma32(yc, z, _COS_P[2])
    yc = _f32(yc * z)
    yc = fma32(yc, z, -(z * 0.5))
    yc = _f32(yc + 1.0)
    ys = fma32(_SIN_P[0], z, _SIN_P[1])
    ys = fma32(ys, z, _SIN_P[2])
    ys = _f32(ys * z)
    ys = fma32(ys, x, x)
    # Blend exactly as the masked and/sub/add sequence does, signed zeros included.
    ysin2 = ys if small_branch else 0.0
    ysin1 = 0.0 if small_branch else yc
    s = ysin1 + ysin2
    c = (yc - ysin1) + (ys - ysin2)
    return (-s if sin_negative else s), (-c if cos_negative else c)


def _fill16_f32(buf: list[float], i: int, mean: float, std: float) -> None:
    for j in range(i, i + 8):
        u1 = 1.0 - buf[j]  # exact: buf[j] is a multiple of 2**-24 in [0, 1)
        u2 = buf[j + 8]
        radius = _f32(math.sqrt(-2.0 * _log256(u1)))
        s, c = _sincos256(_f32(_TWO_PI_F32 * u2))
        buf[j] = fma32(_f32(radius * c), std, mean)
        buf[j + 8] = fma32(_f32(radius * s), std, mean)


def _fill16_f64(buf: list[float], i: int, mean: float, std: float) -> None:
    two_pi = 2.0 * math.pi
    for j in range(i, i + 8):
        u1 = 1.0 - buf[j]
        u2 = buf[j + 8]
        radius = math.sqrt(-2.0 * math.log(u1))
        theta = two_pi * u2
        buf[j] = fma64(radius * math.cos(theta), std, mean)
        buf[j + 8] = fma64(radius * math.sin(theta), std, mean)


def normal(
    n: int,
    dtype: Any = "float32",
    mean: float = 0.0,
    std: float = 1.0,
    generator: Generator | None = None,
    *,
    contiguous: bool = True,
) -> list[float]:
    """``torch.empty(n, dtype=dtype).normal_(mean, std)``; ``torch.randn`` for 0, 1.

    ``contiguous=False`` reproduces ``normal_`` on a non-contiguous view, which
    always takes the scalar path; values come out in the view's memory order.
    """
    n = _check_count(n)
    dt = _dtype_name(dtype)
    mean = float(mean)
    std = float(std)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    g = _gen(generator)
    if n >= 16 and contiguous:
        if dt == "float32":
            draw, fill = _uniform24, _fill16_f32
            mean, std = _f32(mean), _f32(std)
        else:
            draw, fill = _uniform53, _fill16_f64
        buf = [draw(g) for _ in range(n)]
        for i in range(0, n - 15, 16):
            fill(buf, i, mean, std)
        if n % 16:
            for k in range(n - 16, n):
                buf[k] = draw(g)
            fill(buf, n - 16, mean, std)
        return buf
    out = []
    two_pi = 2.0 * math.pi
    for _ in range(n):
        cached = g._next_double_normal
        if cached is not None:
            g._next_double_normal = None
            z = cached
        else:
            u1 = _uniform53(g)
            u2 = _uniform53(g)
            r = math.sqrt(-2.0 * math.log1p(-u2))
            theta = two_pi * u1
            g._next_double_normal = r * math.sin(theta)
            z = r * math.cos(theta)
        v = fma64(z, std, mean)
        out.append(_f32(v) if dt == "float32" else v)
    return out


def _check_dropout_p(p: float) -> float:
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def bernoulli_mask(n: int, p: float, generator: Generator | None = None) -> list[bool]:
    """Which of n elements ``F.dropout(x, p, training=True)`` keeps (True = kept).

    ``p`` is the drop probability, as in dropout.
    """
    n = _check_count(n)
    p = _check_dropout_p(p)
    if n == 0 or p == 0.0:
        return [True] * n
    if p == 1.0:
        return [False] * n
    keep = 1.0 - p
    g = _gen(generator)
    return [_uniform53(g) < keep for _ in range(n)]


def dropout_scale(p: float) -> float:
    """The float32 factor dropout multiplies kept elements by: ``1 / (1 - p)``."""
    p = _check_dropout_p(p)
    if p == 1.0:
        raise ValueError("dropout with p=1 multiplies by zero; there is no scale")
    return _f32(1.0 / _f32(1.0 - p))


def randint(low: int, high: int, n: int, generator: Generator | None = None) -> list[int]:
    """``torch.randint(low, high, (n,))`` (int64)."""
    low = operator.index(low)
    high = operator.index(high)
    n = _check_count(n)
    for v in (low, high):
        if not -(1 << 63) <= v <= (1 << 63):
            raise RuntimeError("randint bounds must fit in int64")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    span = high - low
    g = _gen(generator)
    draw = g.random64 if span >= 1 << 28 else g.random
    return [draw() % span + low for _ in range(n)]


def randperm(n: int, generator: Generator | None = None) -> list[int]:
    """``torch.randperm(n)``: ATen's ``randperm_cpu`` for n below 2**32 / 20: the identity, then
    for each i < n - 1 a swap of i with i + (random() % (n - i)), one 32-bit draw per step."""
    n = operator.index(n)
    if n >= 0xFFFFFFFF // 20:
        raise RuntimeError(f"randperm of {n} elements: scalargrad draws permutations below {0xFFFFFFFF // 20}")
    out = list(range(n))
    g = _gen(generator)
    for i in range(n - 1):
        z = g.random() % (n - i)
        out[i], out[i + z] = out[i + z], out[i]
    return out


# random_()'s range for each dtype (uniform_int_distribution): [0, 2**digits] for a float, [0, max]
# for an integer, one bit for bool; the 64-bit ones draw 64-bit words
_RANDOM_MODULUS = {"float32": ((1 << 24) + 1, False), "float64": ((1 << 53) + 1, True),
                   "int64": (1 << 63, True), "int32": (1 << 31, False), "int16": (1 << 15, False),
                   "int8": (1 << 7, False), "uint8": (1 << 8, False), "bool": (2, False)}


def random_integers(n: int, dtype_name: str, low: int | None = None, high: int | None = None,
                    generator: Generator | None = None) -> list[int]:
    """``Tensor.random_()`` (``low`` None) or ``random_(low, high)`` of ``n`` elements of the
    dtype named: ATen's ``uniform_int_distribution`` (a word modulo the dtype's range) or
    ``uniform_int_from_to_distribution`` (a 32-bit word modulo ``high - low``, a 64-bit one for a
    range of 2**28 or more in int64, float32 and float64: 2.13's threshold, measured, as
    ``randint``'s), drawn in order."""
    n = _check_count(n)
    g = _gen(generator)
    if low is None:
        modulus, wide = _RANDOM_MODULUS[dtype_name]
        draw = g.random64 if wide else g.random
        if dtype_name == "bool":
            return [draw() & 1 for _ in range(n)]
        return [draw() % modulus for _ in range(n)]
    span = high - low
    wide = span >= 1 << 28 and dtype_name in ("int64", "float32", "float64")
    draw = g.random64 if wide else g.random
    return [draw() % span + low for _ in range(n)]


def random_int64(generator: Generator | None = None) -> int:
    """One element of ``torch.empty((), dtype=torch.int64).random_()``: ATen draws a 64-bit word
    and keeps it modulo 2**63 (the non-negative int64 range), which is how DataLoader and
    RandomSampler draw their seeds."""
    return _gen(generator).random64() % (1 << 63)
