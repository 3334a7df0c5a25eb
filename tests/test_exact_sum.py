"""Sums of products rounded once (``_base/exact_sum``): the integer path (``fixed_point``,
``round_scaled``, ``round_scaled_list``) that convolution uses, and ``rounded_dot``, against the
exact rational value (``Fraction``) and an independent test that the result is a nearest float
(ties to even): its neighbours in the format are no nearer.

Inputs: random, and adversarial (cancellation to a tiny remainder, subnormals, magnitudes near
the format's limits, signed zeros, float32 halfway points). The convolution's integer kernels
(dense and the sparse scatter that gradcheck's one-hot rows take) are compared with the
product-by-product ``rounded_dot`` path.
"""

from __future__ import annotations

import math
import random
import struct
from fractions import Fraction
from operator import mul

import pytest

from scalargrad._base.dtypes import FLOAT32_MAX, round_f32
from scalargrad._base.exact_sum import (
    SUM_ERROR,
    fixed_point,
    round_f32_near,
    round_scaled,
    round_scaled_list,
    rounded_dot,
)

F64_MAX = 1.7976931348623157e308


def _bits(x: float, f32: bool) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0] if f32 else struct.unpack("<q", struct.pack("<d", x))[0]


def _from_bits(b: int, f32: bool) -> float:
    return struct.unpack("<f", struct.pack("<i", b))[0] if f32 else struct.unpack("<d", struct.pack("<q", b))[0]


def nearest(exact: Fraction, f32: bool) -> float:
    """The float32/double nearest ``exact`` (ties to even), told by comparing a candidate with its
    neighbours in the format: +0.0 for zero, -0.0 for a negative value that rounds to zero."""
    if exact == 0:
        return 0.0
    top = Fraction(FLOAT32_MAX if f32 else F64_MAX)
    half_ulp = Fraction(2 ** (103 if f32 else 970))
    if abs(exact) >= top + half_ulp:
        return math.inf if exact > 0 else -math.inf
    c = float(min(abs(exact), top))
    if f32:
        c = min(round_f32(c), FLOAT32_MAX)
    b = _bits(c, f32)
    near = [_from_bits(k, f32) for k in (b - 1, b, b + 1) if k >= 0]
    near = [v for v in near if math.isfinite(v)]
    best = min(near, key=lambda v: (abs(Fraction(v) - abs(exact)), _bits(v, f32) & 1))
    return best if exact > 0 else -best


def _same(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _value(rng: random.Random, f32: bool) -> float:
    c = rng.random()
    if c < 0.1:
        x = rng.choice([0.0, -0.0])
    elif c < 0.2:  # subnormal and smallest normal magnitudes of both formats
        x = rng.choice([5e-324, 1e-310, 2.2e-308, 1.4e-45, 1e-40, 1.2e-38]) * rng.uniform(-3, 3)
    elif c < 0.3:
        x = math.ldexp(rng.uniform(-1, 1), rng.randint(-149, 127) if f32 else rng.randint(-1074, 1023))
    elif c < 0.35:  # near the top of the range
        x = rng.choice([F64_MAX, FLOAT32_MAX, 1e300, 1e154, 1e19]) * rng.choice([1, -1])
    else:
        x = rng.gauss(0, 1)
    if f32:
        x = round_f32(x)
    return x if math.isfinite(x) else FLOAT32_MAX


def _pairs(rng: random.Random, f32: bool) -> list:
    pairs = [(_value(rng, f32), _value(rng, f32)) for _ in range(rng.choice([0, 1, 2, 3, 5, 27]))]
    if pairs and rng.random() < 0.3:  # an exact cancellation
        a, b = pairs[0]
        pairs.append((-a, b))
    if pairs and rng.random() < 0.2:  # a cancellation leaving a remainder far below the terms
        a, b = pairs[0]
        b2 = math.nextafter(b, 0.0)
        pairs.append((-a, round_f32(b2) if f32 else b2))
    return pairs


def _integer_dot(pairs: list, extra: float | None, f32: bool) -> float:
    """The dot product through ``fixed_point`` and ``round_scaled``, as convolution takes it."""
    xs, ws = [a for a, _ in pairs], [b for _, b in pairs]
    fx, fw = fixed_point(xs), fixed_point(ws)
    fe = fixed_point([extra or 0.0], fx[1] + fw[1])
    if fe[1] > fx[1] + fw[1]:
        fx = fixed_point(xs, fe[1] - fw[1])
    s = sum(map(mul, fx[0], fw[0]), fe[0][0] << (fx[1] + fw[1] - fe[1]))
    return round_scaled(s, fx[1] + fw[1], f32)


@pytest.mark.parametrize("f32", [False, True], ids=["float64", "float32"])
def test_integer_dot_is_the_nearest_float_to_the_exact_sum(f32):
    rng = random.Random(2024 + f32)
    for _ in range(500):
        pairs = _pairs(rng, f32)
        extra = _value(rng, f32) if rng.random() < 0.3 else None
        exact = sum((Fraction(a) * Fraction(b) for a, b in pairs), Fraction(extra or 0.0))
        want = nearest(exact, f32)
        got = _integer_dot(pairs, extra, f32)
        assert _same(got, want), (pairs, extra, got, want)


@pytest.mark.parametrize("f32", [False, True], ids=["float64", "float32"])
def test_rounded_dot_is_the_nearest_float_away_from_the_limits(f32):
    """``rounded_dot``'s two-products and fsum, on products away from double's range limits
    (near them it falls back to rationals, or to IEEE's sum where a product overflows) and above
    its underflow (a product below 1e-290 that rounds to zero is taken as that zero)."""
    rng = random.Random(7 + f32)
    for _ in range(500):
        pairs = [(a, b) for a, b in _pairs(rng, f32) if 1e-140 < abs(a) < 1e140 and 1e-140 < abs(b) < 1e140]
        exact = sum((Fraction(a) * Fraction(b) for a, b in pairs), Fraction(0))
        assert _same(rounded_dot(pairs, f32), nearest(exact, f32)), pairs


def test_fixed_point_is_exact_and_refuses_inf_and_nan():
    rng = random.Random(3)
    for _ in range(300):
        values = [_value(rng, False) for _ in range(rng.randint(0, 9))]
        ints, shift = fixed_point(values)
        assert shift >= 0
        assert all(Fraction(i, 2**shift) == Fraction(v) for i, v in zip(ints, values))
    assert fixed_point([1.0, math.inf]) is None
    assert fixed_point([math.nan]) is None
    assert fixed_point([-0.0, 0.0], 5) == ([0, 0], 5)
    ints, shift = fixed_point([5e-324, -F64_MAX])  # the widest span: integers of 2,000 bits and more
    assert Fraction(ints[0], 2**shift) == Fraction(5e-324) and Fraction(ints[1], 2**shift) == Fraction(-F64_MAX)
    assert fixed_point([0.75], 60) == ([0.75 * 2**60], 60)  # at_least: more fraction bits than needed


@pytest.mark.parametrize("f32", [False, True], ids=["float64", "float32"])
def test_round_scaled_list_rounds_each_as_round_scaled(f32):
    rng = random.Random(11 + f32)
    for _ in range(150):
        shift = rng.choice([0, 10, 60, 200, 1100, 1200, 1300])
        sums = [rng.randint(-2 ** rng.randint(0, 2500), 2 ** rng.randint(0, 2500)) for _ in range(rng.randint(0, 9))]
        got = round_scaled_list(sums, shift, f32)
        for s, g in zip(sums, got):
            want = nearest(Fraction(s, 2**shift), f32)
            assert _same(g, want) and _same(round_scaled(s, shift, f32), want), (s, shift, g, want)


def test_round_scaled_list_rounds_float32_halfway_points_once():
    """A sum within 2**-shift of a float32 halfway point: its double is the halfway point itself,
    which rounding to float32 again would send to the even neighbour, not the nearer one."""
    rng = random.Random(13)
    for _ in range(800):
        shift = rng.choice([80, 150, 300])
        odd = rng.randint(2**23, 2**24 - 1) * 2 + 1  # 25 significant bits: halfway between float32s
        e = rng.randint(-175, 100)
        if e + shift < 0:
            continue
        s = rng.choice([1, -1]) * odd * 2 ** (e + shift) + rng.choice([-1, 0, 1])
        got = round_scaled_list([s], shift, True)[0]
        assert _same(got, nearest(Fraction(s, 2**shift), True)), (s, shift)


def test_round_f32_near_gives_each_sums_float32_from_its_double_sum():
    """Plain double sums of float32 products (Python's ``sum``: left to right before 3.12,
    compensated after) with the bound convolution gives them: each result must be the float32
    nearest the exact rational sum, through products that cancel to zero (+0.0) or to a tiny
    remainder (a signed zero in float32), integer sums that land on float32 halfway points, and
    sums beyond float32's range; the elements a double sum settles (most of a random set) must
    not be redone."""
    rng = random.Random(31)
    lists = []
    for case in range(900):
        k = rng.choice([1, 2, 9, 75])
        kind = case % 7
        if kind == 0:  # random normal values: the common case
            xs = [round_f32(rng.gauss(0, 1)) for _ in range(k)]
            ws = [round_f32(rng.gauss(0, 0.1)) for _ in range(k)]
        elif kind == 1:  # integers: exact sums of 25 bits fall on float32 halfway points
            xs = [float(rng.randint(-8192, 8192)) for _ in range(k)]
            ws = [float(rng.randint(-2048, 2048)) * 2.0**-30 for _ in range(k)]
        elif kind == 2:  # exact cancellation: +0.0 whatever the order
            xs = [round_f32(rng.gauss(0, 1)) for _ in range(k)]
            xs, ws = xs + [-x for x in xs], [0.75] * (2 * k)
        elif kind == 3:  # cancellation to a remainder below float32's smallest subnormal
            x = round_f32(rng.gauss(0, 1))
            xs, ws = [x, -x, rng.choice([1.0, -1.0]) * 2.0**-126], [1.0, 1.0, 2.0**-25]
        elif kind == 4:  # near float32's largest values: overflow to inf or not
            xs = [rng.choice([1.0, -1.0]) * FLOAT32_MAX * rng.choice([0.5, 0.999, 1.0]) for _ in range(k)]
            ws = [rng.choice([1.0, 0.5, 2.0]) for _ in range(k)]
        elif kind == 5:  # tiny products: float32's subnormal range
            xs = [round_f32(rng.gauss(0, 1)) * 2.0**-70 for _ in range(k)]
            ws = [round_f32(rng.gauss(0, 1)) * 2.0**-70 for _ in range(k)]
        else:  # a term absorbed by a larger one that cancels later: a double sum far from the exact one
            big = rng.choice([1.0, -1.0]) * 2.0**60
            xs, ws = [big, round_f32(rng.gauss(0, 1)) * 64, -big, round_f32(rng.gauss(0, 1))], [1.0] * 4
        lists.append([x * w for x, w in zip(xs, ws)])  # each exact in double
    ds = [sum(p) for p in lists]
    es = [(len(p) + 2) * SUM_ERROR * sum(map(abs, p)) for p in lists]
    redone = []

    def exact(k: int) -> float:
        redone.append(k)
        return nearest(sum(map(Fraction, lists[k]), Fraction(0)), True)

    got = round_f32_near(ds, es, exact)
    want = [nearest(sum(map(Fraction, p), Fraction(0)), True) for p in lists]
    assert all(map(_same, got, want))
    common = sum(1 for k in redone if k % 7 == 0)
    assert common <= 2, common  # 129 random sums: the double decides nearly all of them
    assert any(k % 7 == 2 for k in redone)  # zeros of either sign are decided exactly


@pytest.mark.parametrize("f32", [False, True], ids=["float64", "float32"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "one-hot"])
def test_convolution_integer_kernels_match_rounded_dot(f32, sparse, monkeypatch):
    from scalargrad._ops.convolution import ConvGeometry
    from scalargrad._tensor import convolution as TC
    from scalargrad._tensor.convolution import _dot_backward, _exact_backward, _exact_forward

    monkeypatch.setattr(TC, "_SPARSE", 4)  # the scatter for 2 nonzero gradients in 80 (else 1 in 64)

    rng = random.Random(17 + f32 + 2 * sparse)
    geo = ConvGeometry((2, 4, 5, 4), (4, 2, 3, 2), (1, 2), (1, 0), (1, 1), 2, (4,))
    n_in, n_w, n_out = 2 * 4 * 5 * 4, 4 * 2 * 3 * 2, len(geo.taps)
    for _ in range(3):
        xv = [_value(rng, f32) / 4 for _ in range(n_in)]  # within range: rounded_dot is exact there
        wv = [_value(rng, f32) / 4 for _ in range(n_w)]
        xv = [v if abs(v) < 1e100 else 1.5 for v in xv]
        wv = [v if abs(v) < 1e100 else -2.5 for v in wv]
        bv = [_value(rng, f32) for _ in range(4)]
        gv = [0.0] * n_out
        for o in rng.sample(range(n_out), 2 if sparse else n_out):
            gv[o] = rng.gauss(0, 1)
        got = _exact_forward(geo, xv, wv, bv, f32)
        want = [rounded_dot([(xv[i], wv[j]) for i, j in taps], f32, bv[oc])
                for taps, oc in zip(geo.taps, geo.channel)]
        assert all(map(_same, got, want))
        got_x, got_w = _exact_backward(geo, gv, xv, wv, True, True, f32)
        want_x, want_w = _dot_backward(geo, gv, xv, wv, True, True, f32)
        assert all(map(_same, got_x, want_x)) and all(map(_same, got_w, want_w))
    assert _exact_forward(geo, [math.inf] * n_in, wv, bv, f32) is None  # IEEE's sums instead
    assert _exact_backward(geo, gv, xv, [math.nan] * n_w, True, True, f32) is None


@pytest.mark.parametrize("transposed", [False, True], ids=["conv", "transposed"])
def test_convolution_float32_double_sum_kernels_match_rounded_dot(transposed, monkeypatch):
    """Large float32 convolutions sum each element's products in plain doubles (exact products)
    and round that to float32 where the sum's error bound allows, redoing the elements near a
    float32 rounding boundary exactly (``round_f32_near``): forced here on small shapes. Integer
    operands make many exact sums of 25 bits, half of them halfway between two float32 numbers;
    each element must equal ``rounded_dot``'s."""
    from scalargrad._ops.convolution import ConvGeometry, TransposedConvGeometry
    from scalargrad._tensor import convolution as TC

    monkeypatch.setattr(TC, "_FLOAT_FROM", 0)
    rng = random.Random(29 + transposed)
    if transposed:
        geo = TransposedConvGeometry((2, 4, 3, 4), (4, 2, 3, 2), (2, 1), (1, 0), (1, 2), 2, (4,), (1, 0))
    else:
        geo = ConvGeometry((2, 4, 5, 4), (4, 2, 3, 2), (1, 2), (1, 0), (1, 1), 2, (4,))
    n_in, n_w = math.prod(geo.in_shape), math.prod(geo.weight_shape)
    xv = [float(rng.randint(-8192, 8192)) for _ in range(n_in)]
    wv = [float(rng.randint(-2048, 2048)) * 2.0**-30 for _ in range(n_w)]
    bv = [rng.choice([1.0, -0.0, 3.0]) * 2.0**-30 for _ in range(geo.out_shape[1])]
    gv = [float(rng.randint(-2048, 2048)) for _ in range(len(geo.taps))]
    got = TC._exact_forward(geo, xv, wv, bv, True)
    want = [rounded_dot([(xv[i], wv[j]) for i, j in taps], True, bv[oc]) for taps, oc in zip(geo.taps, geo.channel)]
    assert all(map(_same, got, want))
    got_x, got_w = TC._exact_backward(geo, gv, xv, wv, True, True, True)
    want_x, want_w = TC._dot_backward(geo, gv, xv, wv, True, True, True)
    assert all(map(_same, got_x, want_x)) and all(map(_same, got_w, want_w))
    doubles = [rounded_dot([(xv[i], wv[j]) for i, j in taps], False, bv[oc]) for taps, oc in zip(geo.taps, geo.channel)]
    ties = sum(round_f32(math.nextafter(d, math.inf)) != round_f32(math.nextafter(d, -math.inf)) for d in doubles)
    assert ties > 5, ties  # the test reaches the elements whose double is halfway between two float32 numbers


@pytest.mark.parametrize("f32", [False, True], ids=["float64", "float32"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_convolution_incremental_forward_is_the_exact_sum_after_each_edit(f32, bias, monkeypatch):
    """Forwards on one geometry whose operands change in a few elements between calls (as in
    gradcheck's numerical Jacobian) take the incremental update of the previous call's integer
    sums: each output must still be the nearest float to the exact rational sum (``Fraction``),
    through edits that need more fraction bits (subnormals), magnitudes near the range's top,
    signed zeros, exact cancellations, inf and nan (the IEEE path, then back), and edits of many
    elements at once (the whole forward again); and a one-hot backward on the same lists, changed
    in place between calls (its operands' integers are kept by content, ``_fixed``)."""
    from scalargrad._ops.convolution import ConvGeometry
    from scalargrad._tensor import convolution as TC

    rng = random.Random(23 + f32 + 2 * bias)
    geo = ConvGeometry((1, 4, 4, 3), (4, 2, 3, 2), (1, 2), (1, 0), (1, 1), 2, (4,) if bias else (0,))
    n_in, n_w = 4 * 4 * 3, 4 * 2 * 3 * 2
    updated = []
    update = TC._Incremental.update
    monkeypatch.setattr(TC._Incremental, "update", lambda *a: updated.append(update(*a)) or updated[-1])
    tame = lambda: round_f32(rng.gauss(0, 1)) if f32 else rng.gauss(0, 1)
    xv = [tame() for _ in range(n_in)]
    wv = [tame() for _ in range(n_w)]
    bv = [tame() for _ in range(4)] if bias else None
    for step in range(200):
        edits = rng.choice([1, 1, 2, 2, 3, 5, 100])
        for _ in range(edits):
            which = rng.random()
            v = _value(rng, f32) / 4
            v = v if abs(v) < 1e100 else rng.choice([1e100, -3e90, 0.5])  # products stay in range
            if which < 0.6:
                k = rng.randrange(n_in)
                if rng.random() < 0.2:  # cancel an output's product exactly
                    v = -xv[k]
                xv[k] = v
            elif which < 0.9 or not bias:
                wv[rng.randrange(n_w)] = v
            else:
                bv[rng.randrange(4)] = rng.choice([v, -0.0, math.ldexp(1.0, -1074 if not f32 else -149)])
        if step % 50 == 49:  # a nan or an inf for one call: IEEE's sums, then the integers again
            k = rng.randrange(n_in)
            saved, xv[k] = xv[k], rng.choice([math.nan, math.inf])
            assert TC._exact_forward(geo, xv, wv, bv, f32) is None
            xv[k] = saved
        got = TC._exact_forward(geo, xv, wv, bv, f32)
        want = [nearest(sum((Fraction(xv[i]) * Fraction(wv[j]) for i, j in taps),
                            Fraction(bv[oc]) if bias else Fraction(0)), f32)
                for taps, oc in zip(geo.taps, geo.channel)]
        assert all(map(_same, got, want)), step
        got.clear()  # the caller owns its list: the state keeps its own
        if step % 20 == 0:  # a backward on the same lists, changed in place since the last one
            gv = [0.0] * len(geo.taps)
            gv[rng.randrange(len(gv))] = tame()
            gx, gw = TC._exact_backward(geo, gv, xv, wv, True, True, f32)
            exact_x, exact_w = [Fraction(0)] * n_in, [Fraction(0)] * n_w
            for o, taps in enumerate(geo.taps):
                for i, j in taps:
                    exact_x[i] += Fraction(gv[o]) * Fraction(wv[j])
                    exact_w[j] += Fraction(gv[o]) * Fraction(xv[i])
            assert all(_same(g, nearest(e, f32)) for g, e in zip(gx + gw, exact_x + exact_w)), step
    assert sum(u is not None for u in updated) > 120  # the incremental update was taken
    TC._LAST.pop(geo, None)


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0] if x == x else -1


def _f32_by_struct(x: float) -> float:
    """The float32 nearest x (ties to even) by the C cast, inf beyond the range."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _interpret_by_struct(prog, values: list) -> list:
    regs = list(values) + [0.0]
    for a, b in prog.steps:
        regs.append(_f32_by_struct(regs[a] + regs[b]))
    return [regs[o] for o in prog.outs]


@pytest.mark.parametrize("shape,strides,dims", [((2000,), (1,), (0,)), ((37, 5), (1, 37), (0,)),
                                                ((6, 40), (0, 1), (0, 1)), ((9, 9), (9, 1), (1,))])
def test_float32_sum_programs_round_every_addition_as_float32(shape, strides, dims):
    # The compiled float32 programs leave out the range check when a bound says no sum can
    # overflow (program_code.F32Program): every addition must still round as float32 does,
    # subnormal sums and overflow to inf included. Reference: each addition cast by struct.
    from scalargrad._base.kernel_order import sum_program
    from scalargrad._base.program_code import F32Program, compile_program

    prog = sum_program(shape, strides, dims, "float32")
    fn = F32Program(prog)
    n = prog.n
    rng = random.Random(25)
    tiny = 2.0**-149
    kinds = [
        lambda: _f32_by_struct(rng.gauss(0.0, 1.0)),
        lambda: rng.randint(-2**23, 2**23) * tiny,  # subnormals: their sums stay exact
        lambda: rng.choice([1.0, -1.0]) * rng.randint(1, 2**20) * 2.0**-126,  # normal/subnormal edge
        lambda: _f32_by_struct(rng.uniform(-1.0, 1.0) * FLOAT32_MAX),  # overflow to inf
        lambda: _f32_by_struct(rng.uniform(-1.0, 1.0) * FLOAT32_MAX / (4 * n)),  # just inside the bound
        lambda: _f32_by_struct(rng.gauss(0.0, 1.0) * 2.0**rng.randint(-149, 127)),
    ]
    for kind in kinds:
        for _ in range(3):
            values = [kind() for _ in range(n)]
            want = _interpret_by_struct(prog, values)
            assert [_f32_bits(v) for v in fn(values)] == [_f32_bits(v) for v in want]
    values = [1.0] * n
    for special in (math.inf, -math.inf, math.nan):
        values[n // 2] = special
        want = _interpret_by_struct(prog, values)
        assert [_f32_bits(v) for v in fn(values)] == [_f32_bits(v) for v in want]
    # the float64 version of the same code (its variables reused as values die), against a loop
    prog64 = sum_program(shape, strides, dims, "float64")
    f64 = compile_program(prog64, False)
    values = [rng.gauss(0.0, 1.0) * 2.0**rng.randint(-60, 60) for _ in range(n)]
    regs = values + [0.0]
    for a, b in prog64.steps:
        regs.append(regs[a] + regs[b])
    assert [v.hex() for v in f64(values)] == [regs[o].hex() for o in prog64.outs]


@pytest.mark.parametrize("plain_sum", [True, False])
@pytest.mark.parametrize("shape,strides,dims", [((2000,), (1,), (0,)), ((64, 97), (97, 1), (0,)),
                                                ((128, 97), (1, 128), (1,))])
def test_float64_sum_program_chains_add_in_the_programs_order(shape, strides, dims, plain_sum, monkeypatch):
    # A lane's chain of additions compiles to one sum() of a slice where sum() adds in plain
    # double order (Python < 3.12), to straight-line additions otherwise: both against the
    # program's steps one at a time, signed zeros and infinities included.
    import sys

    from scalargrad._base import program_code
    from scalargrad._base.kernel_order import sum_program

    if plain_sum and sys.version_info >= (3, 12):
        pytest.skip("sum() of floats is compensated from Python 3.12 on")
    monkeypatch.setattr(program_code, "_PLAIN_SUM", plain_sum)
    prog = sum_program(shape, strides, dims, "float64")
    fn = program_code.compile_program(prog, False)
    rng = random.Random(11)
    pools = (([-0.0], False), ([-0.0, 0.0, 1e300, -1e300, 2.0**-1074], True), ([math.inf, -0.0, 1.5], False))
    for pool, scale in pools:
        values = [rng.choice(pool) * (rng.gauss(0.0, 1.0) if scale else 1.0) for _ in range(prog.n)]
        regs = values + [0.0]
        for a, b in prog.steps:
            regs.append(regs[a] + regs[b])
        assert [v.hex() for v in fn(values)] == [regs[o].hex() for o in prog.outs]


@pytest.mark.parametrize("k", [16, 23, 2000])
def test_float32_sdot_rounds_every_product_and_addition_as_float32(k):
    # mkl_sdot's float32 lanes are added by Veltkamp splitting when a bound says no lane can
    # overflow, element by element otherwise: both must give the order of the module docstring
    # with every product and addition cast to float32 (reference: struct, one operation at a time).
    from scalargrad._base.kernel_order import mkl_sdot

    def reference(a: list, b: list) -> float:
        full = k - k % 8
        acc = [0.0] * 8
        for i in range(full):
            acc[i % 8] = _f32_by_struct(acc[i % 8] + _f32_by_struct(a[i] * b[i]))
        for j, i in enumerate(range(full, k)):
            acc[j % 4] = _f32_by_struct(acc[j % 4] + _f32_by_struct(a[i] * b[i]))
        v = [_f32_by_struct(acc[i] + acc[i + 4]) for i in range(4)]
        return _f32_by_struct(_f32_by_struct(v[0] + v[1]) + _f32_by_struct(v[2] + v[3]))

    rng = random.Random(k)
    scales = [1.0, 2.0**-75, 2.0**-140, 2.0**63, 2.0**64 / math.sqrt(k)]
    for scale in scales:
        for _ in range(4):
            a = [_f32_by_struct(rng.gauss(0.0, 1.0) * scale) for _ in range(k)]
            b = [_f32_by_struct(rng.gauss(0.0, 1.0) * rng.choice([1.0, scale])) for _ in range(k)]
            assert _f32_bits(mkl_sdot(a, b, True)) == _f32_bits(reference(a, b)), scale
    a = [1.0] * k
    for special in (math.inf, math.nan, FLOAT32_MAX):
        a[k // 3] = special
        assert _f32_bits(mkl_sdot(a, a, True)) == _f32_bits(reference(a, a))
