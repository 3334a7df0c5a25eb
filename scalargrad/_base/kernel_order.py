"""The order in which PyTorch's CPU kernels add numbers: sums, means and matrix products.

A float32 sum of several numbers rounds after every addition, so its result depends on the
order of the additions. scalargrad reproduces PyTorch 2.13's CPU order bit for bit:

* ``sum`` (and ``mean`` = sum, then one division by the count, as ATen's ``mean_out`` does on
  the CPU) runs ATen's ``cascade_sum`` (``aten/src/ATen/native/cpu/SumKernel.cpp``) over
  TensorIterator's walk of the input (see ``layout``): 4 interleaved accumulators
  (``row_sum``), cascaded partial sums (``multi_row_sum``), and 8-lane float32 / 4-lane float64
  vectors when the reduced dimension is contiguous and long enough (PyTorch's x86 builds run
  the AVX2 kernel for this reduction, on AVX2 and AVX512 machines alike). The accumulator is
  the tensor's own dtype and starts at +0.0. ``sum_program`` writes the additions down once per
  (shape, layout, dims) as a ``Program``: the forward evaluates it, and the backward of a
  broadcast (PyTorch's ``sum_to``) follows it to add gradients in the same order.
  Verified against PyTorch 2.13.0: contiguous float32 lengths 1..600, 1000, 1023-1025, 2047,
  2048, 4095, 4096; float32 and float64 reductions over every dim (and pair of dims) of 1-D
  (2..69), 2-D (up to 17x17) and 3-D (up to 6x6x6) shapes in contiguous, transposed, permuted,
  sliced and expanded layouts (13,000+ cases); tests/test_multi_element_tensors.py repeats a sample of this.
* ``mm`` (2-D @ 2-D with at least 2 result columns, and 1-D @ 2-D) is MKL's sgemm: each result
  element is one fused multiply-add chain over k in order, starting from +0.0 (verified for
  every shape up to 8x8x8 with a contiguous second operand, float32 and float64).
* ``dot`` (1-D @ 1-D) is MKL's sdot: products rounded, 8 at a time into two 4-lane
  accumulators (``i % 8``), a tail of fewer than 8 into the first one's lanes, the two added,
  then the lanes pairwise ((l0 + l1) + (l2 + l3)). Verified bit-exact for k <= 12 and k = 16;
  longer vectors follow other MKL code paths and may differ in the last bit.
* ``mm`` whose second operand is transposed in memory (``x @ w.t()``, ``nn.Linear``: MKL's
  sgemm with transb) adds rounded products in 8 lanes (``i % 8``), then the lanes as a tree
  ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)) (``mkl_lanes8``); with 4, 8... result columns MKL
  takes the fused chain instead. ``addmm`` (a bias) adds the bias to that product, rounding
  once. Verified bit-exact for 2 to 4 rows with 2 or 3 columns (k <= 16) and 4x4; other
  shapes (one row, one column) go through other MKL kernels and may differ in the last bit.
* ``mv`` (2-D @ 1-D, and mm with a single result column, which MKL routes to its gemv) is not
  modelled exactly: scalargrad uses the sgemm chain, which can differ from MKL's sgemv in the
  last bit for k >= 3.

``gemm_f32`` computes a whole float32 product with the sgemm chain or the 8-lane kernel, the same
bits as those per-element definitions, a row or column of the result at a time (issue 25).

The backward of a matrix product is itself a product in PyTorch (``grad @ other.T``); in the
scalar graph each input element receives one rounded product per output it fed, added in
arrival order, so those gradients are exact whenever an element feeds a single output (one
sample through ``nn.Linear``), and may differ from MKL's fused chains in the last bit otherwise.
"""

from __future__ import annotations

import math
import operator
import re
import struct
from collections.abc import Sequence

from .dtypes import FLOAT32_MAX, FLOAT32_MIN_NORMAL, round_f32
from .layout import coalesce, contiguous_strides, iteration_order, numel
from .program_code import HALF_F32_MAX, F32Program, compile_program

__all__ = ["Program", "sum_program", "fma_chain", "fma", "mkl_sdot", "mkl_lanes8", "gemm_f32", "VECTOR_LANES",
           "ELEMENTWISE_LANES", "vectorized_count"]

VECTOR_LANES = {"float32": 8, "float64": 4}
"""Lanes of the Vectorized<T> type ATen's sum kernel runs with (its AVX2 build)."""

ELEMENTWISE_LANES = {"float32": 8, "float64": 4}
"""Lanes of ATen's elementwise kernels (``cpu_kernel_vec``): their AVX2 build, which ATen runs on
AVX512 machines too (REGISTER_DISPATCH leaves AVX512 out; measured on the capture machine).
``cpu_kernel_vec`` runs its vectorised function on chunks of twice this many elements and its
scalar function on the rest; the few kernels whose two functions round differently (smooth_l1
and huber's backward) follow this split."""


def vectorized_count(n: int, dtype_name: str) -> int:
    """How many of ``n`` contiguous elements ``cpu_kernel_vec`` computes with its vectorised
    function (the rest, at the end, go through its scalar one)."""
    chunk = 2 * ELEMENTWISE_LANES.get(dtype_name, 8)
    return (n // chunk) * chunk


class Program:
    """A fixed sequence of additions: ``steps[k] = (a, b)`` makes value ``n + 1 + k`` from
    values ``a`` and ``b``; values ``0..n-1`` are the inputs (logical, row-major order) and
    ``n`` is the accumulators' starting +0.0. ``outs[o]`` is the value of output ``o``."""

    __slots__ = ("n", "steps", "outs", "_compiled", "_evals")

    def __init__(self, n: int) -> None:
        self.n = n
        self.steps: list = []
        self.outs: list = []
        self._compiled: dict = {}
        self._evals = 0

    def evaluate(self, values: Sequence, dtype) -> list:
        """The outputs for these input numbers, each addition rounded to ``dtype``."""
        fn = self._compiled.get(dtype.name)
        if fn is not None:
            return fn(values)
        if dtype.name in ("float32", "float64") and len(self.steps) <= _COMPILE_MAX:
            self._evals += 1
            if self._evals >= min(_COMPILE_AFTER, max(2, len(self.steps) // 64)):
                fn = self._compiled[dtype.name] = (F32Program(self) if dtype.name == "float32"
                                                   else compile_program(self, False))
                return fn(values)
        regs = list(values)
        rnd = dtype.round
        regs.append(rnd(0))
        for a, b in self.steps:
            regs.append(rnd(regs[a] + regs[b]))
        return [regs[o] for o in self.outs]

    def fold(self, out: int) -> list:
        """The additions of output ``out`` as nested left folds: a list whose items are input
        indices (ints) or nested lists, meaning ((item0 + item1) + item2) + ... Additions of
        the starting zero are left out (they only turn -0.0 into +0.0)."""
        n = self.n
        steps = self.steps
        zero = n

        def spine(x: int) -> list:
            rights = []
            while x > n:
                a, b = steps[x - n - 1]
                rights.append(b)
                x = a
            items = [x] + rights[::-1]
            return [i for i in items if i != zero]

        root = spine(self.outs[out])
        work = [root]
        while work:
            items = work.pop()
            for j, x in enumerate(items):
                while isinstance(x, int) and x > n:  # an addition: unfold it
                    sub = spine(x)
                    x = sub[0] if len(sub) == 1 else sub
                if isinstance(x, list):
                    work.append(x)
                items[j] = x
        while len(root) == 1 and isinstance(root[0], list):
            root = root[0]
        return root


_COMPILE_MAX = 200_000  # programs up to this many additions are compiled to straight-line code
# Compiling costs about 300 interpreted evaluations of the program (some 70 us an addition against
# 250 ns, and more per addition in long programs): a program is compiled at its second evaluation
# if short, after one evaluation per 64 additions if longer, and after 256 at most (a one-off
# sum of 160,000 elements took 21 s to compile and 0.05 s to interpret).
_COMPILE_AFTER = 256


class _Recorder:
    """Runs the kernel's loops, writing each addition into a Program."""

    __slots__ = ("prog", "zero", "where")

    def __init__(self, prog: Program, where: dict) -> None:
        self.prog = prog
        self.zero = prog.n
        self.where = where  # memory offset -> logical input index

    def add(self, a: int, b: int) -> int:
        if a == self.zero and b == self.zero:
            return self.zero
        p = self.prog
        p.steps.append((a, b))
        return p.n + len(p.steps)

    def load(self, offset: int) -> int:
        return self.where[offset]


def _multi_row_sum(rec: _Recorder, load, nrows: int, size: int) -> list:
    """ATen's ``multi_row_sum``: ``nrows`` sums over ``size`` rows, cascaded in levels.
    ``load(i, k)`` is the value of row ``i``, column ``k``; a value may be a list (a vector)."""
    num_levels = 4
    ceil_log2 = 1 if size <= 2 else (size - 1).bit_length()
    level_power = max(4, ceil_log2 // num_levels)
    level_step = 1 << level_power
    level_mask = level_step - 1
    zero = rec.zero
    acc = [[zero] * nrows for _ in range(num_levels)]
    add = rec.add
    i = 0
    while i + level_step <= size:
        for _ in range(level_step):
            for k in range(nrows):
                acc[0][k] = _vadd(add, acc[0][k], load(i, k))
            i += 1
        for j in range(1, num_levels):
            for k in range(nrows):
                acc[j][k] = _vadd(add, acc[j][k], acc[j - 1][k])
                acc[j - 1][k] = zero
            if i & (level_mask << (j * level_power)):
                break
    while i < size:
        for k in range(nrows):
            acc[0][k] = _vadd(add, acc[0][k], load(i, k))
        i += 1
    for j in range(1, num_levels):
        for k in range(nrows):
            acc[0][k] = _vadd(add, acc[0][k], acc[j][k])
    return acc[0]


def _vadd(add, a, b):
    # lane-wise for vectors; the zero accumulator (an int) stands for a zero vector
    if isinstance(a, list) or isinstance(b, list):
        lanes = len(a) if isinstance(a, list) else len(b)
        a = a if isinstance(a, list) else [a] * lanes
        b = b if isinstance(b, list) else [b] * lanes
        return [add(x, y) for x, y in zip(a, b)]
    return add(a, b)


def _row_sum(rec: _Recorder, load, size: int):
    """ATen's ``row_sum``: 4 interleaved accumulators (``load(i)`` is element ``i``)."""
    ilp = 4
    size_ilp = size // ilp
    partial = _multi_row_sum(rec, lambda i, k: load(i * ilp + k), ilp, size_ilp)
    for i in range(size_ilp * ilp, size):
        partial[0] = _vadd(rec.add, partial[0], load(i))
    for k in range(1, ilp):
        partial[0] = _vadd(rec.add, partial[0], partial[k])
    return partial[0]


def _loop2d(rec: _Recorder, out_acc: dict, out_base: int, in_base: int, os: tuple, ins: tuple,
            size0: int, size1: int, lanes: int) -> None:
    """One call of cascade_sum's 2-D loop (strides in elements)."""
    add = rec.add
    load = rec.load
    os0, os1 = os
    is0, is1 = ins

    def store(offset: int, value) -> None:
        out_acc[offset] = add(out_acc[offset], value)

    if os0 != 0 and os1 == 0:
        is0, is1 = is1, is0
        os0, os1 = os1, os0
        size0, size1 = size1, size0
    if os0 != 0 and os1 != 0:  # not a true reduction: out[i] += in[i]
        for j in range(size1):
            for i in range(size0):
                store(out_base + j * os[1] + i * os[0], load(in_base + j * ins[1] + i * ins[0]))
        return
    out_stride = os1
    if is0 == 1 and size0 >= lanes:
        # vectorized_inner_sum: vectors of `lanes` along the reduced dimension
        vec_size = size0 // lanes
        for j in range(size1):
            row = in_base + j * is1
            vacc = _row_sum(rec, lambda i, row=row: [load(row + i * lanes + m) for m in range(lanes)], vec_size)
            final = rec.zero
            for k in range(vec_size * lanes, size0):
                final = add(final, load(row + k))
            if not isinstance(vacc, list):
                vacc = [vacc] * lanes
            for m in range(lanes):
                final = add(final, vacc[m])
            store(out_base + j * out_stride, final)
    elif is1 == 1 and size1 >= lanes:
        # vectorized_outer_sum: vectors of `lanes` across the outputs
        nrows = 4
        j = 0
        while j + nrows * lanes <= size1:
            base = in_base + j

            def vload(i, k, base=base):
                return [load(base + i * is0 + k * lanes + m) for m in range(lanes)]

            sums = _multi_row_sum(rec, vload, nrows, size0)
            for k in range(nrows):
                vec = sums[k] if isinstance(sums[k], list) else [sums[k]] * lanes
                for m in range(lanes):
                    store(out_base + (j + k * lanes + m) * out_stride, vec[m])
            j += nrows * lanes
        while j + lanes <= size1:
            base = in_base + j
            vec = _row_sum(rec, lambda i, base=base: [load(base + i * is0 + m) for m in range(lanes)], size0)
            vec = vec if isinstance(vec, list) else [vec] * lanes
            for m in range(lanes):
                store(out_base + (j + m) * out_stride, vec[m])
            j += lanes
        while j < size1:
            base = in_base + j
            store(out_base + j * out_stride, _row_sum(rec, lambda i, base=base: load(base + i * is0), size0))
            j += 1
    elif is0 < is1:
        # scalar_inner_sum
        for j in range(size1):
            row = in_base + j * is1
            store(out_base + j * out_stride, _row_sum(rec, lambda i, row=row: load(row + i * is0), size0))
    else:
        # scalar_outer_sum: 4 outputs at a time, then one by one
        nrows = 4
        j = 0
        while j + nrows - 1 < size1:
            row = in_base + j * is1
            sums = _multi_row_sum(rec, lambda i, k, row=row: load(row + i * is0 + k * is1), nrows, size0)
            for k in range(nrows):
                store(out_base + (j + k) * out_stride, sums[k])
            j += nrows
        while j < size1:
            row = in_base + j * is1
            store(out_base + j * out_stride, _row_sum(rec, lambda i, row=row: load(row + i * is0), size0))
            j += 1


_programs: dict = {}


def sum_program(shape: tuple, strides: tuple, dims: tuple, dtype_name: str) -> Program:
    """The additions of ``sum(dims)`` over an input of this shape and memory layout (element
    strides). Outputs are in row-major order of the non-reduced dimensions."""
    key = (shape, strides, dims, dtype_name)
    prog = _programs.get(key)
    if prog is not None:
        return prog
    lanes = VECTOR_LANES.get(dtype_name, 8)
    n = numel(shape)
    prog = Program(n)
    ndim = len(shape)
    # memory offset of each logical element (the first one, where the layout repeats an element)
    where: dict = {}
    logical = contiguous_strides(shape)
    for flat in range(n):
        off = 0
        rem = flat
        for d in range(ndim):
            idx, rem = divmod(rem, logical[d])
            off += idx * strides[d]
        where.setdefault(off, flat)
    # the output: contiguous over the kept dimensions, stride 0 over the reduced ones
    kept = [d for d in range(ndim) if d not in dims]
    out_shape = [shape[d] for d in kept]
    ocontig = contiguous_strides(out_shape)
    ostrides = [0] * ndim
    for i, d in enumerate(kept):
        ostrides[d] = ocontig[i]
    rec = _Recorder(prog, where)
    n_out = numel(out_shape)
    out_acc = dict.fromkeys(range(n_out), rec.zero)
    if n == 0:
        prog.outs = [out_acc[o] for o in range(n_out)]
        _programs[key] = prog
        return prog
    perm = iteration_order(list(shape), [(tuple(ostrides), True), (tuple(strides), False)], reduction=True)
    ishape = [shape[d] for d in perm]
    cshape, (cos, cis) = coalesce(ishape, [[ostrides[d] for d in perm], [strides[d] for d in perm]])
    if not cshape:
        cshape, cos, cis = [1], [0], [0]
    size0 = cshape[0]
    size1 = cshape[1] if len(cshape) > 1 else 1
    os = (cos[0], cos[1] if len(cshape) > 1 else 0)
    ins = (cis[0], cis[1] if len(cshape) > 1 else 0)
    outer = cshape[2:]
    idx = [0] * len(outer)
    base_in = min(where)  # offsets are relative to the lowest element the tensor touches
    while True:
        ob = sum(i * s for i, s in zip(idx, cos[2:]))
        ib = base_in + sum(i * s for i, s in zip(idx, cis[2:]))
        _loop2d(rec, out_acc, ob, ib, os, ins, size0, size1, lanes)
        d = 0
        while d < len(outer):
            idx[d] += 1
            if idx[d] < outer[d]:
                break
            idx[d] = 0
            d += 1
        if d == len(outer):
            break
    prog.outs = [out_acc[o] for o in range(n_out)]
    _programs[key] = prog
    return prog


def fma32(a: float, b: float, c: float) -> float:
    """float32 fused multiply-add: round(a*b + c) once. a*b is exact in double for float32 a, b;
    the double sum s loses ``err`` (two-sum), which only matters when s falls exactly halfway
    between two float32 numbers: then the sign of ``err`` picks the side."""
    p = a * b
    s = p + c
    r = round_f32(s)
    if r == s or s - s != 0.0:  # already a float32, or inf/nan
        return r
    bp = s - c
    err = (p - bp) + (c - (s - bp))
    if err == 0.0:
        return r
    other = 2.0 * s - r
    if s - r == other - s or r - s == s - other:
        if round_f32(other) == other and (err > 0) == (other > r):
            return other
    return r


def fma32_list(xs: Sequence[float], y: float, cs: Sequence[float]) -> list:
    """``[fma32(x, y, c) for x, c in zip(xs, cs)]`` for float32 numbers, the same bits, cast in C:
    the double x*y + c rounds to the fused result except where it lands exactly halfway between
    two float32 numbers (found by its bit pattern) or below FLT_MIN, or overflows; those
    elements are redone with ``fma32``."""
    s = [x * y + c for x, c in zip(xs, cs)]
    r = _cast_fused(s)
    if r is None:
        return [fma32(x, y, c) for x, c in zip(xs, cs)]
    for i in r[1]:
        r[0][i] = fma32(xs[i], y, cs[i])
    return r[0]


def fma32_lists(xs: Sequence[float], ys: Sequence[float], cs: Sequence[float]) -> list:
    """``[fma32(x, y, c) for x, y, c in zip(xs, ys, cs)]`` for float32 numbers, the same bits, as
    ``fma32_list`` computes them (an element-wise ``addcmul``: each factor a list)."""
    s = [x * y + c for x, y, c in zip(xs, ys, cs)]
    r = _cast_fused(s)
    if r is None:
        return [fma32(x, y, c) for x, y, c in zip(xs, ys, cs)]
    for i in r[1]:
        r[0][i] = fma32(xs[i], ys[i], cs[i])
    return r[0]


def _cast_fused(s: list) -> tuple | None:
    """``(float32 casts of the doubles s, the positions to redo with fma32)``, or None if a cast
    overflows: the positions whose double is exactly halfway between two float32 numbers (its
    bit pattern) or below FLT_MIN."""
    n = len(s)
    pf = struct.Struct(f"<{n}f")
    try:
        r = list(pf.unpack(pf.pack(*s)))
    except (OverflowError, struct.error):
        return None
    packed = struct.pack(f"<{n}d", *s)
    fix = [m.start() >> 3 for m in _HALFWAY.finditer(packed) if not m.start() & 7]
    # a double below 2**-111 (zeros too) has a top byte (its eighth: sign and the exponent's top
    # 7 bits) of 56 or less, sign aside: only if such a one is not a zero are the elements below
    # FLT_MIN looked for (one C pass each: pack, slice, delete)
    small = len(packed[7::8].translate(None, _LARGE_TOPS64))
    if small and small != s.count(0.0):
        fix.extend(i for i, v in enumerate(s) if v and -FLOAT32_MIN_NORMAL < v < FLOAT32_MIN_NORMAL)
    return r, fix


_LARGE_TOPS64 = bytes(b for b in range(256) if b & 0x7F > 56)  # doubles' top bytes of magnitudes >= 2**-111


def fma_chain(a: Sequence[float], b: Sequence[float], f32: bool) -> float:
    """sum(a[i] * b[i]) as one multiply-add chain from +0.0, each step rounded once (sgemm)."""
    acc = 0.0
    if f32:
        for x, y in zip(a, b):
            acc = fma32(x, y, acc)
        return acc
    fma = _math_fma
    for x, y in zip(a, b):
        acc = fma(x, y, acc) if fma is not None else fma64(x, y, acc)
    return acc


def fma(a: float, b: float, c: float, f32: bool) -> float:
    """a * b + c rounded once (float32 when ``f32``), as a fused multiply-add gives it."""
    if f32:
        return fma32(a, b, c)
    f = _math_fma
    return f(a, b, c) if f is not None else fma64(a, b, c)


def _ieee_fma(a: float, b: float, c: float) -> float:
    """Python 3.13's math.fma, with IEEE's nan for an invalid operation (0 * inf, inf - inf),
    where math.fma raises ValueError, and IEEE's signed infinity where the rounded result
    overflows, where it raises OverflowError (the emulation gives it)."""
    try:
        return math.fma(a, b, c)
    except ValueError:
        return math.nan
    except OverflowError:
        return fma64(a, b, c)


_math_fma = _ieee_fma if hasattr(math, "fma") else None


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for doubles
_PACK = struct.Struct("<d")
_UNPACK = struct.Struct("<q")


def fma64(a: float, b: float, c: float) -> float:
    """float64 fused multiply-add, a*b + c rounded once (Python < 3.13 has no math.fma).

    Boldo and Melquiond's emulation ("Emulation of FMA and correctly rounded sums: proved
    algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008): the exact product
    uh + ul (Dekker), the exact sum th + tl = c + uh (Knuth's two-sum), v = tl + ul rounded
    to odd, then th + v rounded to nearest is the correctly rounded result. Where a partial
    result could leave the normal range (huge or tiny operands) the exact rational sum is
    rounded instead."""
    p = a * b
    if not (1e-270 < abs(p) < 1e300 and abs(a) < 1e290 and abs(b) < 1e290
            and (c == 0.0 or 1e-270 < abs(c) < 1e300)):
        return _fma64_exact(a, b, c)
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    ul = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th = c + p
    bb = th - c
    tl = (c - (th - bb)) + (p - bb)
    v = tl + ul
    bb = v - tl
    err = (tl - (v - bb)) + (ul - bb)
    if err != 0.0 and not _UNPACK.unpack(_PACK.pack(v))[0] & 1:
        v = math.nextafter(v, math.inf if err > 0.0 else -math.inf)  # round to odd
    return th + v


def _fma64_exact(a: float, b: float, c: float) -> float:
    from fractions import Fraction

    if not all(map(_finite, (a, b, c))):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # the sign of an exact zero: IEEE's (+0 unless both are -0)
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf  # copysign would convert the Fraction: overflow


def _finite(x: float) -> bool:
    return x - x == 0.0


def _sdot_f32(a: Sequence[float], b: Sequence[float]) -> float:
    """``mkl_sdot`` in float32: the products at once, cast by struct, then each of the 8 lanes
    by Veltkamp splitting (a float32 sum or product of float32 numbers rounded through a double
    is correctly rounded). Raises OverflowError where a product overflows (struct refuses it) or
    a lane's sum might (the bound of ``program_code.F32Program``)."""
    k = len(a)
    full = k - k % 8
    pk = struct.Struct(f"<{k}f")
    prods = pk.unpack(pk.pack(*map(operator.mul, a, b)))
    if not math.hypot(*prods) * math.sqrt(k) < HALF_F32_MAX:
        raise OverflowError
    acc = [_lane_f32(prods[lane:full:8]) for lane in range(8)]
    lo, hi = list(acc[:4]), acc[4:]
    for j, i in enumerate(range(full, k)):
        lo[j % 4] = round_f32(lo[j % 4] + prods[i])
    v = [round_f32(x + y) for x, y in zip(lo, hi)]
    return round_f32(round_f32(v[0] + v[1]) + round_f32(v[2] + v[3]))


def _lane_f32(xs: Sequence[float]) -> float:
    # float32 values added from +0.0, each sum rounded by Veltkamp splitting (the caller bounds them:
    # see program_code.F32Program)
    acc = 0.0
    for x in xs:
        t = acc + x
        c = 536870913.0 * t
        acc = c - (c - t)
    return acc


def mkl_sdot(a: Sequence[float], b: Sequence[float], f32: bool) -> float:
    """1-D @ 1-D as MKL's sdot adds it (see the module docstring)."""
    if f32 and len(a) >= 16:
        try:
            return _sdot_f32(a, b)
        except OverflowError:
            pass  # element by element below: round_f32 gives the infinities
    r = round_f32 if f32 else float
    acc = [[0.0] * 4, [0.0] * 4]
    k = len(a)
    full = k - k % 8
    for i in range(full):
        u, lane = divmod(i % 8, 4)
        acc[u][lane] = r(acc[u][lane] + r(a[i] * b[i]))
    for j, i in enumerate(range(full, k)):
        lane = j % 4
        acc[0][lane] = r(acc[0][lane] + r(a[i] * b[i]))
    v = [r(x + y) for x, y in zip(acc[0], acc[1])]
    return r(r(v[0] + v[1]) + r(v[2] + v[3]))


def mkl_lanes8(a: Sequence[float], b: Sequence[float], f32: bool) -> float:
    """sum(a[i] * b[i]) as MKL's sgemm adds it for a transposed second operand (see above)."""
    r = round_f32 if f32 else float
    lanes = [0.0] * 8
    for i, (x, y) in enumerate(zip(a, b)):
        lanes[i % 8] = r(lanes[i % 8] + r(x * y))
    while len(lanes) > 1:
        h = len(lanes) // 2
        lanes = [r(lanes[i] + lanes[i + h]) for i in range(h)]
    return lanes[0]


# ---------------------------------------------------------------- float32 products in bulk

# A double whose low 29 mantissa bits are 1 followed by 28 zeros lies exactly halfway between two
# float32 numbers. In little-endian bytes: bytes 0-2 zero, byte 3 with bit 4 set and bits 0-3 clear.
# A match never overlaps another, so finditer sees every one that starts a double.
_HALFWAY = re.compile(rb"\x00\x00\x00[\x10\x30\x50\x70\x90\xb0\xd0\xf0]")
_FAST_MIN = 2.0**-78  # operands' smallest magnitudes whose product keeps every partial sum normal


def _chain_in_range(ea: Sequence, eb: Sequence, k: int) -> bool:
    """Whether every partial sum of every chain stays in float32's normal range (or is zero):
    operands finite, k * max|a| * max|b| far below FLT_MAX, and the products' quantum (at least
    min|a| * min|b| * 2**-48 over nonzero operands, so every partial sum is a multiple of it)
    at least FLT_MIN. Bounds first, each one C pass: ``hypot`` is at least the largest
    magnitude (inf or nan with an inf or nan operand), ``_smallest_bound`` at most the smallest
    nonzero one; the exact smallest magnitudes only where the bounds do not decide."""
    big = k * math.hypot(*ea) * math.hypot(*eb) * 4.0
    if not big <= FLOAT32_MAX:
        return False  # an operand not finite (nan fails the comparison), or too large
    if not big:
        return True  # an operand all zeros
    if _smallest_bound(ea) * _smallest_bound(eb) >= _FAST_MIN:
        return True
    return _smallest(ea) * _smallest(eb) >= _FAST_MIN


_TINY_TOPS = bytes(range(45)) + bytes(range(128, 128 + 45))  # float32 top bytes of magnitudes below 2**-37


def _smallest_bound(e: Sequence) -> float:
    """2**-38 if every nonzero number of the finite ``e`` is at least that large (then two such
    operands pass ``_FAST_MIN``), else 0.0: their float32 images' top bytes (little-endian, the
    fourth byte of each) hold the sign and the exponent's top 7 bits, and a top byte of 45 or
    more (sign aside) is an exponent field of 90 or more, a magnitude of at least 2**-37 (a double
    packs within half a float32 ulp of itself). One C pass each: pack, slice, delete; the bytes
    deleted must all be the zeros."""
    try:
        top = struct.pack(f"<{len(e)}f", *e)[3::4]
    except (OverflowError, struct.error):
        return 0.0
    tiny = len(top) - len(top.translate(None, _TINY_TOPS))
    if tiny and tiny != e.count(0.0):
        return 0.0  # a nonzero number below 2**-37
    return 2.0**-38


def _smallest(e: Sequence) -> float:
    """The smallest nonzero magnitude of finite numbers (1.0 for none)."""
    if not e:
        return 1.0
    small = min(map(abs, e))
    if not small:
        small = min(filter(None, map(abs, e)), default=1.0)
    return small


def _chains(vecs: list, scalars: list, length: int) -> list:
    """Fused float32 chains in lockstep: ``acc[i] = fma32(vecs[t][i], scalars[t], acc[i])`` for
    t in order, from +0.0. The double sum x*y + a (the product is exact) rounds to the fused
    result except where it lands exactly halfway between two float32 numbers without being
    exact (two-sum's error is not zero); those elements are redone with ``fma32``. A step whose
    scalar is zero (a ReLU's gradient) is skipped: the operands are finite (``_chain_in_range``),
    so x * 0 is a zero, and a chain from +0.0 that stays in the normal range never holds -0.0, so
    acc + (+-0) is acc. The first step's sums (from +0.0) are exact: the cast alone rounds them."""
    pf, pd = struct.Struct(f"<{length}f"), struct.Struct(f"<{length}d")
    search, finditer = _HALFWAY.search, _HALFWAY.finditer
    acc = [0.0] * length
    first = True
    for vec, y in zip(vecs, scalars):
        if not y:
            continue
        s = [x * y + a for x, a in zip(vec, acc)]
        r = pf.unpack(pf.pack(*s))
        if first:
            first = False
            acc = r
            continue
        packed = pd.pack(*s)
        hit = search(packed)
        if hit is not None:
            fixed = None
            for match in finditer(packed, hit.start()):
                pos = match.start()
                if pos & 7:
                    continue  # not at a double's first byte
                i = pos >> 3
                x, a, d = vec[i], acc[i], s[i]
                if (x * y - (d - a)) + (a - (d - (d - a))):
                    fixed = fixed or list(r)
                    fixed[i] = fma32(x, y, a)
            r = fixed or r
        acc = r
    return list(acc)


_SPLIT_F32 = 536870913.0  # 2**29 + 1: c - (c - x) keeps x's top 24 bits, ties to even (dtypes.round_f32)
_SPLIT_25 = 268435457.0  # 2**28 + 1: c - (c - x) == x exactly when x fits in 25 bits


def _chain_one(a: Sequence, b: Sequence) -> float:
    """``fma_chain(a, b, True)`` for a chain that stays in float32's normal range (see
    ``_chain_in_range``): each double sum s rounds (Veltkamp) to the nearest float32, the fused
    result unless s is halfway between two float32 numbers and not exact (rare): only if a kept
    sum has a halfway bit pattern (one C pass) is the chain redone step by step."""
    acc = 0.0
    split = _SPLIT_F32
    sums: list = []
    keep = sums.append
    for x, y in zip(a, b):
        s = x * y + acc
        keep(s)
        c = split * s
        acc = c - (c - s)
    if _HALFWAY.search(struct.pack(f"<{len(sums)}d", *sums)) is None:
        return acc
    return _chain_checked(a, b)


def _chain_checked(a: Sequence, b: Sequence) -> float:
    """``_chain_one`` step by step: s is halfway when it fits in 25 bits, not 24; two-sum's error
    then picks the side."""
    acc = 0.0
    split, split25 = _SPLIT_F32, _SPLIT_25
    for x, y in zip(a, b):
        s = x * y + acc
        c = split * s
        r = c - (c - s)
        if r != s:
            c = split25 * s
            if c - (c - s) == s and ((x * y - (s - acc)) + (acc - (s - (s - acc)))):
                r = fma32(x, y, acc)
        acc = r
    return acc


def _lanes8(vecs: list, scalars: list, length: int, finite: bool = False) -> list:
    """``mkl_lanes8`` in lockstep: rounded products added into 8 lanes (``t % 8``), then the lanes
    as a tree. A float32 sum or product of float32 numbers rounded through a double is correctly
    rounded (53 >= 2 * 24 + 2), so struct's cast rounds it; it refuses an overflow (OverflowError).
    With ``finite`` (every vector element finite) a zero scalar's step is skipped: its products are
    zeros, and a lane from +0.0 never holds -0.0 (a nonzero sum of float32 numbers is at least the
    smallest subnormal), so lane + (+-0) is the lane."""
    pf = struct.Struct(f"<{length}f")
    lanes = [[0.0] * length for _ in range(8)]
    for t, (vec, y) in enumerate(zip(vecs, scalars)):
        if finite and not y:
            continue
        prods = pf.unpack(pf.pack(*[x * y for x in vec]))
        lane = lanes[t % 8]
        lanes[t % 8] = pf.unpack(pf.pack(*[a + p for a, p in zip(lane, prods)]))
    while len(lanes) > 1:
        h = len(lanes) // 2
        lanes = [pf.unpack(pf.pack(*[a + b for a, b in zip(lanes[i], lanes[i + h])])) for i in range(h)]
    return list(lanes[0])


def _outer_f32(ea: Sequence, eb: Sequence) -> list | None:
    """A chain of one multiply-add from +0.0 per element (k = 1: ``grad.T @ x`` of a layer on
    one sample): the product of two float32 numbers is exact in a double, so struct's cast
    rounds it once, as fma32 does, subnormals included (+ 0.0 turns -0.0 into +0.0, as the
    chain's addition does). None where an operand is not finite or a product overflows."""
    total = sum(ea) + sum(eb)
    if total - total != 0.0:
        return None
    pf = struct.Struct(f"<{len(ea) * len(eb)}f")
    try:
        return list(pf.unpack(pf.pack(*[x * y + 0.0 for x in ea for y in eb])))
    except OverflowError:
        return None


def gemm_f32(ea: Sequence, eb: Sequence, n: int, k: int, m: int, lanes8: bool) -> list | None:
    """The float32 product of a (n x k) and b (k x m), both in row-major order, as a row-major
    list: each element ``fma_chain(row, column, True)``, or ``mkl_lanes8`` when ``lanes8``, bit for
    bit the same, computed a whole row (or column) of the result at a time. None where a value
    may leave float32's normal range (infinities, nans, overflow, subnormals): then the caller
    computes element by element."""
    if not (n and m and k):
        return None
    if k == 1 and not lanes8:
        return _outer_f32(ea, eb)
    if not lanes8 and not _chain_in_range(ea, eb, k):
        return None
    if not lanes8 and n * m < 8 <= k:  # a few long chains: each alone beats lockstep over a short list
        return [_chain_one(ea[i * k:(i + 1) * k], eb[j::m]) for i in range(n) for j in range(m)]
    try:
        if m >= n:  # a result row at a time: a[i, t] times b's row t
            brows = [eb[t * m:(t + 1) * m] for t in range(k)]
            finite = lanes8 and math.isfinite(math.hypot(*eb))  # the vectors' (for _lanes8's zero skip)
            out = []
            for i in range(n):
                out.extend(_lanes8(brows, ea[i * k:(i + 1) * k], m, finite) if lanes8
                           else _chains(brows, ea[i * k:(i + 1) * k], m))
            return out
        acols = [ea[t::k] for t in range(k)]  # a result column at a time: a's column t times b[t, j]
        finite = lanes8 and math.isfinite(math.hypot(*ea))
        cols = [_lanes8(acols, eb[j::m], n, finite) if lanes8 else _chains(acols, eb[j::m], n) for j in range(m)]
    except OverflowError:
        return None
    return [v for row in zip(*cols) for v in row]
