"""The products family's ops added for real programs (issue 23): ``addr`` (AddrBackward0), the
outer product of two vectors added to a matrix.

Compared with PyTorch bit for bit where every product is exact (dyadic operands, so the kernel's
fused or unfused multiply-add gives one number), and within a bound elsewhere: PyTorch's AVX2
kernel fuses the multiply-add in its scalar tail, its vectorised body and
``ATEN_CPU_CAPABILITY=default`` round the product first, as scalargrad does. Gradients are
``mv`` products (MvBackward0 under create_graph) and are proved by SymPy.

Also the bulk float32 kernel of mm, addmm, mv and linear (``kernel_order.gemm_f32``, issue 25):
the same bits as the per-element definitions (``fma_chain``, ``mkl_lanes8``), and, where the
double sum lands exactly halfway between two float32 numbers, the once-rounded exact value.
"""

from __future__ import annotations

import math
import random
import struct
from fractions import Fraction

import pytest
from program_outcome import described

import scalargrad
from scalargrad._base import kernel_order
from scalargrad.symbolic import sympy_check


def _f32_ulp(x: float) -> float:
    m = struct.unpack("<I", struct.pack("<f", abs(x)))[0]
    return 2.0 ** max(((m >> 23) & 0xFF) - 150, -149) if m else 2.0 ** -149


def _run(L, f):
    try:
        s = L.tensor([[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]], requires_grad=True)
        a = L.tensor([1.5, -2.0], requires_grad=True)
        b = L.tensor([0.25, 4.0, -1.0], requires_grad=True)
        y = f(L, s, a, b)
        w = L.arange(y.numel(), dtype=y.dtype).reshape(y.shape) - 2.5
        gs = L.autograd.grad((y * y * w).sum(), (s, a, b), create_graph=True, allow_unused=True)
        hs = L.autograd.grad(sum(g.sum() for g in gs if g is not None), (s, a, b), allow_unused=True)
        saved = {k: getattr(y.grad_fn, k) for k in dir(y.grad_fn) if k.startswith("_saved")}
        saved = {k: v.tolist() if hasattr(v, "tolist") else v for k, v in saved.items()}
        return (y.tolist(), str(y.dtype), y.grad_fn.name(), saved,
                [None if g is None else (g.tolist(), g.grad_fn.name() if g.grad_fn else None) for g in gs],
                [None if h is None else h.tolist() for h in hs])
    except Exception as e:  # the refusal is compared
        return (type(e).__name__, str(e).splitlines()[0])


CASES = {
    "addr": lambda L, s, a, b: L.addr(s, a, b), "method": lambda L, s, a, b: s.addr(a, b),
    "broadcast_row": lambda L, s, a, b: L.addr(s[0], a, b), "broadcast_0d": lambda L, s, a, b: L.addr(s[0, 0], a, b),
    "keywords": lambda L, s, a, b: L.addr(s, vec1=a, vec2=b),
    "float64": lambda L, s, a, b: L.addr(s.double(), a.double(), b.double()),
    "no_grad_operands": lambda L, s, a, b: L.addr(s.detach(), a, b.detach()),
    "wrong_size": lambda L, s, a, b: L.addr(s, a, L.ones(4)),
    "matrix_vec1": lambda L, s, a, b: L.addr(s, L.ones(2, 1), b),
    "no_broadcast": lambda L, s, a, b: L.addr(L.ones(2, 2), a, b),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_addr_is_torchs(torch_ref, name):
    assert _run(scalargrad, CASES[name]) == _run(torch_ref, CASES[name])


def test_addr_of_integers_and_mixed_dtypes_is_torchs(torch_ref):
    def run(L):
        return [L.addr(L.ones(2, 3, dtype=L.int64), L.tensor([1, 2]), L.tensor([1, 2, 3])).tolist(),
                str(L.addr(L.ones(2, 3), L.tensor([1, 2]), L.tensor([1, 2, 3])).dtype)]

    assert run(scalargrad) == run(torch_ref)


def test_addr_within_the_fused_kernels_bound(torch_ref):
    # random float32 operands: PyTorch's kernel may fuse the multiply-add, so the two agree within
    # half an ulp of the product plus an ulp of the result
    rnd = random.Random(5)
    s = [[rnd.uniform(-2, 2) for _ in range(19)] for _ in range(3)]
    a, b = [rnd.uniform(-2, 2) for _ in range(3)], [rnd.uniform(-2, 2) for _ in range(19)]
    ours = scalargrad.addr(scalargrad.tensor(s), scalargrad.tensor(a), scalargrad.tensor(b)).tolist()
    ta, tb = torch_ref.tensor(a).tolist(), torch_ref.tensor(b).tolist()
    theirs = torch_ref.addr(torch_ref.tensor(s), torch_ref.tensor(a), torch_ref.tensor(b)).tolist()
    for i in range(3):
        for j in range(19):
            bound = _f32_ulp(ta[i] * tb[j]) / 2 + _f32_ulp(theirs[i][j])
            assert abs(ours[i][j] - theirs[i][j]) <= bound


def test_addr_gradient_is_proved_by_sympy():
    s = scalargrad.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    a = scalargrad.tensor([1.5, -2.0], requires_grad=True)
    b = scalargrad.tensor([0.25, 4.0], requires_grad=True)
    y = scalargrad.addr(s, a, b)
    report = sympy_check((y * y).sum(), {s: "s", a: "a", b: "b"})
    assert report.ok and report.verified, str(report)
    # d/da0 of sum_j (s0j + a0 bj)^2 = 2 sum_j bj (s0j + a0 bj) = 2 (0.25 * 0.875 + 4 * 5) = 40.4375
    assert float(report["a[0]"].symbolic) == 40.4375


# ---------------------------------------------------------------- mm's bulk float32 kernel


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _round_f32_exact(v: Fraction) -> float:
    """The float32 nearest the rational ``v`` (ties to even), below float32's largest finite
    number: subnormals are multiples of 2**-149, and a nonzero ``v`` that rounds to zero keeps
    its sign."""
    if not v:
        return 0.0
    e = math.floor(math.log2(abs(v)))
    while abs(v) >= Fraction(2) ** (e + 1):
        e += 1
    while abs(v) < Fraction(2) ** e:
        e -= 1
    q = Fraction(2) ** (max(e, -126) - 23)
    return float(round(v / q) * q) or math.copysign(0.0, v)


def _fused_chain_exact(a, b) -> float:
    acc = 0.0
    for x, y in zip(a, b):
        acc = _round_f32_exact(Fraction(x) * Fraction(y) + Fraction(acc))
    return acc


def _operand(rng: random.Random) -> float:
    kind = rng.randrange(6)
    if kind == 0:
        return 0.0
    if kind == 1:
        return float(rng.randint(-8, 8))
    if kind == 2:  # 1 +- 2**-23, scaled: products whose double sums land on float32 halfway points
        return rng.choice((1.0 + 2.0**-23, 1.0 - 2.0**-24, 1.0 - 2.0**-23)) * 2.0 ** rng.randint(-26, 2)
    return _f32(rng.gauss(0.0, 1.0) * 2.0 ** rng.randint(-3, 3))


@pytest.mark.parametrize("seed", range(40))
def test_bulk_gemm_is_the_per_element_definition(seed):
    rng = random.Random(seed)
    n, k, m = rng.randint(1, 9), rng.randint(1, 12), rng.randint(1, 9)
    ea = [_operand(rng) for _ in range(n * k)]
    eb = [_operand(rng) for _ in range(k * m)]
    rows = [ea[i * k:(i + 1) * k] for i in range(n)]
    cols = [eb[j::m] for j in range(m)]
    chain = kernel_order.gemm_f32(ea, eb, n, k, m, False)
    assert chain == [kernel_order.fma_chain(r, c, True) for r in rows for c in cols]
    assert chain == [_fused_chain_exact(r, c) for r in rows for c in cols]
    lanes = kernel_order.gemm_f32(ea, eb, n, k, m, True)
    assert lanes == [kernel_order.mkl_lanes8(r, c, True) for r in rows for c in cols]


@pytest.mark.parametrize("seed", range(6))
def test_bulk_gemm_skips_zero_scalars_bit_for_bit(seed):
    # a ReLU's gradient: half the scalars of the lockstep steps are +-0.0, and those steps are
    # skipped; the results' bits (signed zeros included) are the per-element definitions', and a
    # vector holding inf or nan (lanes8 has no range check) keeps its nan products
    rng = random.Random(500 + seed)
    n, k, m = rng.choice([(3, 9, 5), (6, 10, 2), (4, 16, 4)])
    ea = [rng.choice((0.0, -0.0)) if rng.random() < 0.5 else _operand(rng) for _ in range(n * k)]
    eb = [rng.choice((0.0, -0.0)) if rng.random() < 0.5 else _operand(rng) for _ in range(k * m)]
    bits = lambda vs: [struct.pack("<d", v) for v in vs]
    for lanes8, one in ((False, kernel_order.fma_chain), (True, kernel_order.mkl_lanes8)):
        rows, cols = [ea[i * k:(i + 1) * k] for i in range(n)], [eb[j::m] for j in range(m)]
        want = [one(r, c, True) if lanes8 else _fused_chain_exact(r, c) for r in rows for c in cols]
        assert bits(kernel_order.gemm_f32(ea, eb, n, k, m, lanes8)) == bits(want)
    for bad in (math.inf, math.nan):
        ea2, eb2 = list(ea), list(eb)
        ea2[rng.randrange(n * k)] = bad
        eb2[rng.randrange(k * m)] = bad
        rows, cols = [ea2[i * k:(i + 1) * k] for i in range(n)], [eb2[j::m] for j in range(m)]
        got = kernel_order.gemm_f32(ea2, eb2, n, k, m, True)
        assert [str(v) for v in got] == [str(kernel_order.mkl_lanes8(r, c, True)) for r in rows for c in cols]


def test_bulk_gemm_rounds_a_halfway_double_sum_once():
    # 1 + 2**-23 then (2**-24 (1 + 2**-23)) (1 - 2**-23): the exact sum 1 + 2**-23 + 2**-24 - 2**-70
    # rounds to the double 1 + 3 * 2**-24, halfway between two float32 numbers; ties-to-even of
    # that double would give 1 + 2**-22, the fused result is 1 + 2**-23
    a = [1.0 + 2.0**-23, 2.0**-24 * (1.0 + 2.0**-23)]
    b = [1.0, 1.0 - 2.0**-23]
    assert kernel_order.gemm_f32(a * 3, b * 2, 3, 2, 1, False) == [1.0 + 2.0**-23] * 3
    assert kernel_order.gemm_f32(a, [v for v in b for _ in range(3)], 1, 2, 3, False) == [1.0 + 2.0**-23] * 3
    assert _fused_chain_exact(a, b) == 1.0 + 2.0**-23


@pytest.mark.parametrize("bad", [math.inf, math.nan, 3e38, 1e-30])
def test_bulk_gemm_leaves_values_outside_the_normal_range_to_the_element_kernels(bad):
    ea, eb = [1.0, _f32(bad), 2.0, 0.5], [1.5, -2.0, 0.25, 4.0]
    assert kernel_order.gemm_f32(ea, eb, 2, 2, 2, False) is None
    x = scalargrad.tensor(ea).reshape(2, 2) @ scalargrad.tensor(eb).reshape(2, 2)
    rows, cols = [ea[:2], ea[2:]], [eb[0::2], eb[1::2]]
    expect = [kernel_order.fma_chain(r, c, True) for r in rows for c in cols]
    assert [str(v) for v in x.flatten().tolist()] == [str(v) for v in expect]


@pytest.mark.parametrize("seed", range(8))
def test_bulk_fma32_is_the_exact_fused_rounding(seed):
    # the optimizers' float32 ``param.add_(grad, alpha=-lr)`` over a whole list (fma32_list)
    rng = random.Random(seed)
    y = _operand(rng)
    xs = [_operand(rng) for _ in range(60)]
    cs = [_operand(rng) for _ in range(60)]
    got = kernel_order.fma32_list(xs, y, cs)
    assert got == [_round_f32_exact(Fraction(x) * Fraction(y) + Fraction(c)) for x, c in zip(xs, cs)]
    assert got == [kernel_order.fma32(x, y, c) for x, c in zip(xs, cs)]
    ys = [_operand(rng) for _ in range(60)]  # addcmul's: every factor a list (fma32_lists)
    got = kernel_order.fma32_lists(xs, ys, cs)
    assert got == [_round_f32_exact(Fraction(x) * Fraction(y) + Fraction(c)) for x, y, c in zip(xs, ys, cs)]


def test_bulk_fma32_rounds_halfway_sums_and_edges_as_the_element_kernel():
    x, y, c = 1.0 + 2.0**-15, (1.0 - 2.0**-15) * 2.0**-24, 1.0 + 2.0**-23  # the double sum is halfway
    edges = [(x, y, c), (x, y, -c), (_f32(1e-40), 1.0, _f32(2e-45)), (2.0**-130, 1.0, _f32(1e-45)),
             (_f32(3.4e38), 1.0, _f32(3.4e38)), (math.inf, 1.0, -math.inf), (math.nan, 1.0, 0.0),
             (-0.0, 1.0, 0.0), (0.0, -1.0, -0.0)]
    got = kernel_order.fma32_list([e[0] for e in edges], 1.0, [e[2] for e in edges])
    want = [kernel_order.fma32(a, 1.0, b) for a, _, b in edges]
    assert [struct.pack("<d", v) for v in got] == [struct.pack("<d", v) for v in want]
    assert kernel_order.fma32_list([x], y, [c]) == [c]
    got = kernel_order.fma32_lists(*map(list, zip(*edges)))
    want = [kernel_order.fma32(a, b, c) for a, b, c in edges]
    assert [struct.pack("<d", v) for v in got] == [struct.pack("<d", v) for v in want]
    assert kernel_order.fma32_list([math.nan, 1e-40], 1.0, [0.0, 0.0])[1] == _f32(1e-40)
    # zeros beside normal numbers, and one sum just below FLT_MIN (2**-126 less half its ulp, which
    # the cast rounds up to FLT_MIN, the fused rounding too) or just above 2**-111
    for odd in (0.0, -0.0, 2.0**-126 - 2.0**-151 - 2.0**-160, _f32(1e-38), 2.0**-111, 2.0**-112):
        xs = [0.0, -0.0, 1.5, odd, 0.25]
        cs = [0.0, 0.0, -1.5, 0.0, 1.0]
        got = kernel_order.fma32_list(xs, 1.0, cs)
        want = [_round_f32_exact(Fraction(x) + Fraction(c)) for x, c in zip(xs, cs)]
        assert [struct.pack("<d", v) for v in got] == [struct.pack("<d", v) for v in want], odd


@pytest.mark.parametrize("seed", range(6))
def test_bulk_gemm_of_a_few_long_chains_is_the_exact_fused_chain(seed):
    # n * m < 8 <= k (polynomial_nn's backward: 1 x 2000 @ 2000 x 3) takes the chains one at a time
    rng = random.Random(100 + seed)
    n, m, k = rng.choice([(1, 3, 40), (3, 1, 33), (1, 1, 8), (2, 3, 17)])
    ea = [_operand(rng) for _ in range(n * k)]
    eb = [_operand(rng) for _ in range(k * m)]
    rows, cols = [ea[i * k:(i + 1) * k] for i in range(n)], [eb[j::m] for j in range(m)]
    assert kernel_order.gemm_f32(ea, eb, n, k, m, False) == [_fused_chain_exact(r, c) for r in rows for c in cols]
    # a double sum halfway between two float32 numbers that is not exact (see the test above)
    a = [0.5] * 6 + [1.0 + 2.0**-23, 2.0**-24 * (1.0 + 2.0**-23)]
    b = [0.0] * 6 + [1.0, 1.0 - 2.0**-23]
    assert kernel_order.gemm_f32(a, b, 1, 8, 1, False) == [1.0 + 2.0**-23] == [_fused_chain_exact(a, b)]
    # an exact tie (1 + 2**-24, two-sum's error zero) rounds to even, through the same re-check
    a, b = [0.5] * 7 + [2.0**-24], [0.0] * 6 + [2.0, 1.0]
    assert kernel_order.gemm_f32(a, b, 1, 8, 1, False) == [1.0] == [_fused_chain_exact(a, b)]


def test_bulk_gemm_of_one_term_chains_is_the_exact_fused_rounding():
    # k = 1 (a layer's weight gradient on one sample, grad.T @ x) is one cast of the exact
    # products: subnormal products, signed zeros (-0.0 + +0.0 is +0.0) and halfway products
    # included; an overflowing product or an operand that is not finite goes element by element
    ea = [_f32(1e-20), -0.0, 1.0 + 2.0**-23, _f32(-3e-30), 2.0**-70]
    eb = [_f32(1e-20), 1.0 + 2.0**-23, -2.0, 0.0, _f32(7e-10)]
    got = kernel_order.gemm_f32(ea, eb, 5, 1, 5, False)
    want = [_fused_chain_exact([x], [y]) for x in ea for y in eb]
    assert [struct.pack("<d", v) for v in got] == [struct.pack("<d", v) for v in want]
    assert any(0.0 < abs(v) < 2.0**-126 for v in got) and struct.pack("<d", got[5]) == struct.pack("<d", 0.0)
    assert kernel_order.gemm_f32([3e38, 1.0], [2.0], 2, 1, 1, False) is None
    assert kernel_order.gemm_f32([math.inf, 1.0], [2.0], 2, 1, 1, False) is None


def _in_range_by_definition(ea, eb, k) -> bool:
    # every operand finite, k * max|a| * max|b| * 4 <= FLT_MAX, min|a| * min|b| >= 2**-78 over nonzero ones
    if not all(math.isfinite(v) for v in ea + eb):
        return False
    big = k * max(map(abs, ea), default=0.0) * max(map(abs, eb), default=0.0)
    if not big:
        return True
    small = min(filter(None, map(abs, ea))) * min(filter(None, map(abs, eb)))
    return big * 4.0 <= 3.4028234663852886e38 and small >= 2.0**-78


@pytest.mark.parametrize("seed", range(4))
def test_bulk_gemm_range_check_is_the_definition_or_stricter(seed):
    # the bounds (hypot for the largest magnitude, float32 top bytes for the smallest) only ever
    # send a product to the element kernels, never a product that needs them to the bulk kernel
    rng = random.Random(300 + seed)
    tiny = [2.0**-39, -(2.0**-39), 2.0**-40, 2.0**-37, 2.0**-36, _f32(1e-40), 0.0, -0.0, math.inf, math.nan, 1e30]
    for _ in range(200):
        ea = [_operand(rng) for _ in range(rng.randint(1, 6))]
        eb = [_operand(rng) for _ in range(rng.randint(1, 6))]
        for e in (ea, eb):
            if rng.random() < 0.5:
                e[rng.randrange(len(e))] = rng.choice(tiny)
        got = kernel_order._chain_in_range(ea, eb, 4)
        want = _in_range_by_definition(ea, eb, 4)
        assert not got or want, (ea, eb)
        if all(abs(v) < 1e30 for v in ea + eb):  # hypot's bound is loose only near overflow
            assert got == want, (ea, eb)
    assert kernel_order._chain_in_range([2.0**-39, 1.0], [2.0**-39], 2)  # 2**-78 exactly: the exact path
    assert not kernel_order._chain_in_range([2.0**-40, 1.0], [2.0**-39, 0.0], 2)


@pytest.mark.parametrize("k", [16, 23, 2000])
def test_bulk_sdot_is_the_lane_definition(k):
    # mkl_sdot's float32 lanes cast by struct (k >= 16) against the same lanes rounded one at a time
    rng = random.Random(k)
    a, b = [_operand(rng) for _ in range(k)], [_operand(rng) for _ in range(k)]
    lanes = [[0.0] * 4, [0.0] * 4]
    full = k - k % 8
    for i in range(k):
        u, lane = divmod(i % 8, 4) if i < full else (0, (i - full) % 4)
        lanes[u][lane] = _f32(lanes[u][lane] + _f32(a[i] * b[i]))
    v = [_f32(x + y) for x, y in zip(*lanes)]
    assert kernel_order.mkl_sdot(a, b, True) == _f32(_f32(v[0] + v[1]) + _f32(v[2] + v[3]))
    big = [3e38] * 16  # overflowing products: the element kernel's infinities
    assert kernel_order.mkl_sdot(big, [2.0] * 16, True) == math.inf


def _kron_graph(L, sa, sb):
    a = (L.arange(float(math.prod(sa))) * 0.5 + 0.25).reshape(sa).requires_grad_()
    b = (L.arange(float(math.prod(sb))) - 1.5).reshape(sb).requires_grad_()
    y = L.kron(a, b)
    ga, gb = L.autograd.grad((y * L.arange(y.numel(), dtype=L.float32).reshape(y.shape)).sum(), (a, b))

    def walk(f):
        return None if f is None else (f.name(),) + tuple(walk(n) for n, _ in f.next_functions)

    return y, ga, gb, walk(y.grad_fn)


# operands of a few binary digits: every product and gradient sum is exact, on every processor
KRON = {
    "2x2": lambda L: _kron_graph(L, (2, 2), (3, 2)),
    "1x2": lambda L: _kron_graph(L, (2,), (3, 2)),
    "3x1": lambda L: _kron_graph(L, (2, 1, 2), (2,)),
    "0-d": lambda L: L.kron(L.tensor(2.0), L.tensor([1.0, 2.0])),
    "promoted": lambda L: L.kron(L.tensor([1, 2]), L.tensor([[1.5]])),
    "method": lambda L: L.tensor([1, 2]).kron(L.tensor([3, 4])),
    "keywords": lambda L: L.kron(input=L.tensor([1, 2]), other=L.tensor([3, 4])),
    "number": lambda L: L.kron(L.tensor([1, 2]), 3),
}


def test_kron_as_pytorch(torch_ref):
    ours = {k: described(f, scalargrad) for k, f in KRON.items()}
    assert ours == {k: described(f, torch_ref) for k, f in KRON.items()}


def test_kron_by_hand():
    a = scalargrad.tensor([[1.0, 2.0]], requires_grad=True)
    y = scalargrad.kron(a, scalargrad.tensor([[1.0], [10.0]]))
    assert y.tolist() == [[1.0, 2.0], [10.0, 20.0]] and y.grad_fn.name() == "UnsafeViewBackward0"
    y.sum().backward()
    assert a.grad.tolist() == [[11.0, 11.0]]


# addmv (AddmvBackward0) and vdot of real vectors (VdotBackward0), issue 23: the harness's operands
# are dyadic, so every product and sum is exact and any kernel order gives PyTorch's bits
MV_CASES = {
    "addmv": lambda L, s, a, b: L.addmv(a, s, b), "addmv_method": lambda L, s, a, b: a.addmv(s, b),
    "addmv_keywords": lambda L, s, a, b: L.addmv(input=a, mat=s, vec=b),
    "addmv_0d": lambda L, s, a, b: L.addmv(a[0], s, b), "addmv_one": lambda L, s, a, b: L.addmv(a[:1], s, b),
    "addmv_float64": lambda L, s, a, b: L.addmv(a.double(), s.double(), b.double()),
    "addmv_inplace": lambda L, s, a, b: (a * 1).addmv_(s, b),
    "addmv_no_grad_operands": lambda L, s, a, b: L.addmv(a.detach(), s, b.detach()),
    "addmv_deprecated": lambda L, s, a, b: L.addmv(1, a, 1, s, b),
    "addmv_wrong_input": lambda L, s, a, b: L.addmv(b, s, b), "addmv_wrong_vec": lambda L, s, a, b: L.addmv(a, s, a),
    "addmv_matrix_input": lambda L, s, a, b: L.addmv(s, s, b), "addmv_vector_mat": lambda L, s, a, b: L.addmv(a, b, b),
    "addmv_dtypes": lambda L, s, a, b: L.addmv(a, s, b.double()), "addmv_number": lambda L, s, a, b: L.addmv(a, s, 3),
    "vdot": lambda L, s, a, b: L.vdot(b, b * 2), "vdot_method": lambda L, s, a, b: a.vdot(other=a),
    "vdot_keywords": lambda L, s, a, b: L.vdot(input=b, other=b), "vdot_sizes": lambda L, s, a, b: L.vdot(a, b),
    "vdot_matrix": lambda L, s, a, b: L.vdot(s, b), "vdot_dtypes": lambda L, s, a, b: L.vdot(b, b.double()),
    "vdot_number": lambda L, s, a, b: L.vdot(b, 2), "dot_number": lambda L, s, a, b: L.dot(b, 2),
}


@pytest.mark.parametrize("name", sorted(MV_CASES))
def test_addmv_and_vdot_are_torchs(torch_ref, name):
    assert _run(scalargrad, MV_CASES[name]) == _run(torch_ref, MV_CASES[name])


def test_vdot_and_addmv_of_integers_are_torchs(torch_ref):
    def run(L):
        m, v = L.tensor([[1, 2, 3], [4, 5, 6]]), L.tensor([1, -1, 2])
        return [L.vdot(L.tensor([2, 3]), L.tensor([2, 1])).item(), L.addmv(L.tensor([1, 2]), m, v).tolist(),
                str(L.addmv(L.tensor([1, 2]), m, v).dtype)]

    assert run(scalargrad) == run(torch_ref)


def test_addmv_within_a_bound_of_the_exact_value(torch_ref):
    # random float32 operands: MKL's gemv order varies by processor, so each of the two is within
    # k ulps of the largest term's size plus an ulp of the result of the exact sum
    rnd = random.Random(7)
    n, k = 5, 23
    rows = [[rnd.uniform(-2, 2) for _ in range(k)] for _ in range(n)]
    vec, bias = [rnd.uniform(-2, 2) for _ in range(k)], [rnd.uniform(-2, 2) for _ in range(n)]
    L, T = scalargrad, torch_ref
    ours = L.addmv(L.tensor(bias), L.tensor(rows), L.tensor(vec)).tolist()
    theirs = T.addmv(T.tensor(bias), T.tensor(rows), T.tensor(vec)).tolist()
    r32, v32, b32 = T.tensor(rows).tolist(), T.tensor(vec).tolist(), T.tensor(bias).tolist()
    for i in range(n):
        exact = Fraction(b32[i]) + sum(Fraction(x) * Fraction(y) for x, y in zip(r32[i], v32))
        bound = (k + 2) * _f32_ulp(max(abs(x * y) for x, y in zip(r32[i], v32)) + abs(b32[i]))
        assert abs(Fraction(ours[i]) - exact) <= bound and abs(Fraction(theirs[i]) - exact) <= bound


def test_addmv_gradient_is_proved_by_sympy():
    s = scalargrad.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    a = scalargrad.tensor([1.5, -2.0], requires_grad=True)
    b = scalargrad.tensor([0.25, 4.0], requires_grad=True)
    report = sympy_check((scalargrad.addmv(a, s, b) ** 2).sum() + scalargrad.vdot(a, b) ** 2,
                         {s: "s", a: "a", b: "b"})
    assert report.ok and report.verified, str(report)


# addbmm (AddbmmBackward0, one addmm per batch into the result) and baddbmm, issue 23; dyadic
# operands again, so the kernels' orders agree bit for bit
def _batches(L, s, b):
    return L.stack([s, -s * 0.5]), b.reshape(1, 3, 1).expand(2, 3, 2) * L.tensor([1.0, -2.0])


BATCH_CASES = {
    "addbmm": lambda L, s, a, b: L.addbmm(a, *_batches(L, s, b)),
    "addbmm_method": lambda L, s, a, b: L.ones(2, 2).addbmm(*_batches(L, s, b)),
    "addbmm_keywords": lambda L, s, a, b: L.addbmm(input=a[:1], batch1=_batches(L, s, b)[0],
                                                   batch2=_batches(L, s, b)[1]),
    "addbmm_inplace": lambda L, s, a, b: (L.ones(2, 2) * a).addbmm_(*_batches(L, s, b)),
    "addbmm_empty_batch": lambda L, s, a, b: L.addbmm(a, L.ones(0, 2, 3), L.ones(0, 3, 2)),
    "addbmm_float64": lambda L, s, a, b: L.addbmm(a.double(), *[x.double() for x in _batches(L, s, b)]),
    "addbmm_no_grad_input": lambda L, s, a, b: L.addbmm(a.detach(), *_batches(L, s, b)),
    "addbmm_wrong_input": lambda L, s, a, b: L.addbmm(b, *_batches(L, s, b)),
    "addbmm_matrix": lambda L, s, a, b: L.addbmm(a, s, _batches(L, s, b)[1]),
    "addbmm_batches": lambda L, s, a, b: L.addbmm(a, s[None], _batches(L, s, b)[1]),
    "addbmm_inner": lambda L, s, a, b: L.addbmm(a, _batches(L, s, b)[0], _batches(L, s, b)[0]),
    "addbmm_dtypes": lambda L, s, a, b: L.addbmm(a.double(), *_batches(L, s, b)),
    "addbmm_number": lambda L, s, a, b: L.addbmm(a, _batches(L, s, b)[0], 2),
    "addbmm_deprecated": lambda L, s, a, b: L.addbmm(1, a, 1, *_batches(L, s, b)),
    "baddbmm": lambda L, s, a, b: L.baddbmm(a, *_batches(L, s, b)),
    "baddbmm_method": lambda L, s, a, b: L.ones(2, 2, 2).baddbmm(*_batches(L, s, b)),
    "baddbmm_wrong_input": lambda L, s, a, b: L.baddbmm(b, *_batches(L, s, b)),
}


@pytest.mark.parametrize("name", sorted(BATCH_CASES))
def test_addbmm_and_baddbmm_are_torchs(torch_ref, name):
    assert _run(scalargrad, BATCH_CASES[name]) == _run(torch_ref, BATCH_CASES[name])


def test_addbmm_gradient_is_proved_by_sympy():
    b1 = scalargrad.tensor([[[0.5, -1.0]], [[2.0, 3.0]]], requires_grad=True)
    b2 = scalargrad.tensor([[[1.5], [-2.0]], [[0.25], [4.0]]], requires_grad=True)
    m = scalargrad.tensor([[0.75]], requires_grad=True)
    report = sympy_check((scalargrad.addbmm(m, b1, b2) ** 2).sum(), {b1: "p", b2: "q", m: "m"})
    assert report.ok and report.verified, str(report)
