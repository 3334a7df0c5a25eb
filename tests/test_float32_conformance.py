"""float32 (and float64) arithmetic and backward, against PyTorch and against exact references.

scalargrad emulates float32 by rounding every double result to float32. For + - * / that is
exactly PyTorch's result (the double result of two float32 operands is exact enough for one
rounding to be correct); a Python number operand is rounded to float32 first, as PyTorch casts
the wrapped number. Backward sums gradients in PyTorch's order, so float32 gradients of whole
graphs of these ops are bit-equal too, on every processor: those tests compare with live PyTorch
bit for bit.

Transcendental functions are machine-dependent in PyTorch (MKL's VML, SLEEF, the C library; see
``faithfulness.py``): scalargrad is asserted bit for bit against PyTorch's formula evaluated with
correctly rounded sub-results (mpmath), and live PyTorch only within that formula's 1-ulp hull.
"""

from __future__ import annotations

import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scalargrad

from faithfulness import (
    EXPONENTS,
    POW,
    SAFE_MARGIN,
    TRANSCENDENTAL,
    f32,
    fuses,
    hull,
    inside,
    reference,
    rounded,
    run_op,
    same,
    ulps,
)

ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def run_binary(L, op, x, y, kind, dtype_name="float32"):
    """Forward value and gradients of ``x op y``: "tt" both tensors, "tn" y a Python number,
    "nt" x a Python number."""
    dt = getattr(L, dtype_name)
    a = L.tensor(x, dtype=dt, requires_grad=True) if kind in ("tt", "tn") else x
    b = L.tensor(y, dtype=dt, requires_grad=True) if kind in ("tt", "nt") else y
    out = ARITH[op](a, b)
    out.backward()
    grads = tuple(t.grad.item() for t in (a, b) if not isinstance(t, (int, float)))
    return (out.item(),) + grads


# torch_ref is a module: nothing to reset between examples
SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
floats32 = st.floats(width=32)  # every float32, nan, infinities and subnormals included
numbers = st.one_of(st.floats(), st.integers(-(2**40), 2**40))


@pytest.mark.parametrize("op", list(ARITH))
@settings(max_examples=300, **SETTINGS)
@given(x=floats32, y=floats32)
def test_tensor_op_tensor_is_bit_equal(torch_ref, op, x, y):
    ours, theirs = run_binary(scalargrad, op, x, y, "tt"), run_binary(torch_ref, op, x, y, "tt")
    assert all(map(same, ours, theirs)), (ours, theirs)


@pytest.mark.parametrize("op", list(ARITH))
@settings(max_examples=300, **SETTINGS)
@given(x=floats32, c=numbers)
def test_tensor_op_number_is_bit_equal(torch_ref, op, x, c):
    # PyTorch rounds the Python number to float32 before computing
    ours, theirs = run_binary(scalargrad, op, x, c, "tn"), run_binary(torch_ref, op, x, c, "tn")
    assert all(map(same, ours, theirs)), (ours, theirs)


@pytest.mark.parametrize("op", list(ARITH))
@settings(max_examples=300, **SETTINGS)
@given(c=numbers, x=floats32)
def test_number_op_tensor_is_bit_equal(torch_ref, op, c, x):
    ours, theirs = run_binary(scalargrad, op, c, x, "nt"), run_binary(torch_ref, op, c, x, "nt")
    assert all(map(same, ours, theirs)), (ours, theirs)


@pytest.mark.parametrize("op", list(ARITH))
@settings(max_examples=200, **SETTINGS)
@given(x=st.floats(), y=st.floats(), c=numbers)
def test_float64_arithmetic_is_bit_equal(torch_ref, op, x, y, c):
    for kind, (p, q) in (("tt", (x, y)), ("tn", (x, c)), ("nt", (c, y))):
        ours = run_binary(scalargrad, op, p, q, kind, "float64")
        theirs = run_binary(torch_ref, op, p, q, kind, "float64")
        assert all(map(same, ours, theirs)), (kind, ours, theirs)


# ---------------------------------------------------------------- whole graphs, backward order


def random_program(rng: random.Random, n_leaves: int = 3, n_nodes: int = 25) -> list:
    """A random expression DAG as instructions; later nodes reuse earlier ones freely, so
    gradients meet in sums whose float32 rounding depends on the engine's order."""
    program = []
    for i in range(n_nodes):
        avail = n_leaves + i
        kind = rng.random()
        if kind < 0.6:
            program.append(("tt", rng.choice("+-*/"), rng.randrange(avail), rng.randrange(avail)))
        elif kind < 0.8:
            number = rng.choice([1e8, -1e8, 3.7, 0.1, -2, 1e-3])
            program.append(("tn", rng.choice("+-*/"), rng.randrange(avail), number))
        else:
            program.append(("nt", rng.choice("+-*/"), rng.choice([1.0, 1e8, -0.3, 7]), rng.randrange(avail)))
    return program


def run_program(L, program, leaves, dtype=None):
    xs = [L.tensor(v, dtype=dtype, requires_grad=True) for v in leaves]
    vals = list(xs)
    for kind, op, p, q in program:
        a = vals[p] if kind in ("tt", "tn") else p
        b = vals[q] if kind in ("tt", "nt") else q
        vals.append(ARITH[op](a, b))
    # the result: a sum of the last few nodes (more meeting points for gradients)
    out = vals[-1]
    for v in vals[-4:-1]:
        out = out + v
    out.backward()
    return [out.item()] + [None if x.grad is None else x.grad.item() for x in xs]  # None: leaf unused


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("seed", range(60))
def test_random_graph_gradients_are_bit_equal(torch_ref, seed):
    rng = random.Random(seed)
    program = random_program(rng)
    leaves = [f32(rng.uniform(-3, 3)) for _ in range(3)]
    ours, theirs = run_program(scalargrad, program, leaves), run_program(torch_ref, program, leaves)
    assert all(map(same, ours, theirs)), (ours, theirs)


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("seed", range(20))
def test_random_graph_gradients_are_bit_equal_in_float64(torch_ref, seed):
    rng = random.Random(1000 + seed)
    program = random_program(rng)
    leaves = [rng.uniform(-3, 3) for _ in range(3)]
    ours = run_program(scalargrad, program, leaves, dtype=scalargrad.float64)
    theirs = run_program(torch_ref, program, leaves, dtype=torch_ref.float64)
    assert all(map(same, ours, theirs)), (ours, theirs)


def test_set_default_dtype_float64_graph(torch_ref):
    rng = random.Random(77)
    program = random_program(rng)
    leaves = [rng.uniform(-3, 3) for _ in range(3)]
    results = []
    for L in (scalargrad, torch_ref):
        L.set_default_dtype(L.float64)
        try:
            results.append(run_program(L, program, leaves))
        finally:
            L.set_default_dtype(L.float32)
    assert all(map(same, *results)), results


def cancellation(L):
    """The notes' measurement (section 3c): PyTorch's engine order decides the float32 sums."""
    x = L.tensor(1.0, requires_grad=True)
    a, b, d = x * 1e8, x * -1e8, x * 1
    ((a + b) + d).backward()  # x.grad = (g_d + g_b) + g_a = (1 - 1e8) + 1e8 = 0 in float32
    first = x.grad.item()
    x = L.tensor(1.0, requires_grad=True)
    e, f, g = x * 1, x * 1e8, x * -1e8
    (e + (f + g)).backward()  # = (g_g + g_f) + g_e = 1
    return first, x.grad.item()


def test_cancellation_follows_pytorchs_order():
    # figures printed by PyTorch 2.13.0 (also in the notes, section 3c)
    assert cancellation(scalargrad) == (0.0, 1.0)


def test_cancellation_matches_torch(torch_ref):
    assert cancellation(scalargrad) == cancellation(torch_ref) == (0.0, 1.0)


# ---------------------------------------------------------------- transcendental ops: machine-dependent


def _draws(op, dtype_name: str, seed: str, n: int = 400):
    rng = random.Random(seed)
    for i in range(n):
        x = op.draw(rng)
        x = tuple(rounded(v, dtype_name) for v in x) if isinstance(x, tuple) else rounded(x, dtype_name)
        yield x, (EXPONENTS[i % len(EXPONENTS)] if op.constant else None)


CASES = dict(TRANSCENDENTAL, **{"x ** y": POW})


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_transcendental_is_the_correctly_rounded_reference(name, dtype_name):
    # float32: bit for bit PyTorch's formula with every libm sub-result correctly rounded (mpmath),
    # the same on every machine; the draws stay clear of rounding boundaries, where a double
    # computed by any libm could round the other way. float64: scalargrad's sub-results are the
    # platform libm's (glibc: within 1 ulp), so the values lie in the reference's 1-ulp hull.
    op = CASES[name]
    for x, c in _draws(op, dtype_name, name):
        ours = run_op(scalargrad, op, x, c, dtype_name)
        ref, margins = reference(op.formula, x, c, dtype_name)
        if dtype_name == "float32":
            assert min(margins) > SAFE_MARGIN, (x, c, margins)
            assert all(map(same, ours, ref)), (x, c, ours, ref)
        else:
            bounds = hull(op.formula, x, c, dtype_name)
            assert all(inside(v, b) for v, b in zip(ours, bounds)), (x, c, ours, bounds)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_transcendental_is_within_pytorchs_kernel_accuracy(torch_ref, name, dtype_name):
    # live PyTorch computes these with MKL's VML, SLEEF or the C library, whose last bit depends
    # on the processor: its forward value and gradients must lie in the hull of its own formula
    # over sub-results within 1 ulp of correct (scalargrad's values are the hull's centre). On
    # the capture machine (Intel Xeon, AVX512) PyTorch is within 1 ulp of scalargrad's forward;
    # its gradients differ by up to 7 ulp (float32 tanh near saturation, where 1 - y*y magnifies
    # the last bit of y) and 2**24 ulp (float64 tanh, the same effect): see README.
    # (ATen's generic code, ATEN_CPU_CAPABILITY=default, does not fuse tanh_backward's 1 - y*y:
    # the formula follows what a probe of the live kernels finds)
    op = CASES[name]
    fused = fuses(torch_ref)
    for x, c in _draws(op, dtype_name, name):
        theirs = run_op(torch_ref, op, x, c, dtype_name)
        bounds = hull(op.formula, x, c, dtype_name, fused=fused)
        assert all(inside(v, b) for v, b in zip(theirs, bounds)), (x, c, theirs, bounds)


def test_the_issue_11_figures_lie_in_the_hull():
    # what PyTorch 2.13 gave on an AMD EPYC (AVX512, MKL) where the capture machine's bits differ:
    # VML's sqrt(83.95614) 1 ulp high makes d(x ** 1.5)/dx 2 ulp high; its log(5.0398) 1 ulp high
    # makes d(x ** y)/dy 2 ulp high. Both are PyTorch's formula on sub-results within 1 ulp, and
    # the correctly rounded reference (mpmath; what scalargrad computes) is 2 ulp away.
    rounded = reference(TRANSCENDENTAL["x ** c"].formula, 83.95613861083984, 1.5, "float32")[0][1]
    bounds = hull(TRANSCENDENTAL["x ** c"].formula, 83.95613861083984, 1.5, "float32")[1]
    amd = 13.744138717651367
    assert rounded == 13.744136810302734 and amd == bounds[1] and ulps(rounded, amd) == 2
    rounded = reference(POW.formula, (5.039822101593018, -2.4517805576324463), None, "float32")[0][2]
    bounds = hull(POW.formula, (5.039822101593018, -2.4517805576324463), None, "float32")[2]
    amd = 0.03066490776836872
    assert rounded == 0.030664904043078423 and inside(amd, bounds) and ulps(rounded, amd) == 2


def test_scalar_exponent_is_not_rounded_to_float32():
    # PyTorch's pow kernel takes a Python exponent as a double: 1000 ** (1/3) is exactly 10 in
    # float32 (PyTorch 2.13 prints 10.0; with the exponent rounded to float32 it would be 10.000001)
    x = scalargrad.tensor(1000.0, requires_grad=True)
    y = x ** (1 / 3)
    y.backward()
    assert y.item() == 10.0
    assert x.grad.item() == 0.0033333334140479565  # PyTorch's figure


def test_repeated_number_operands_round_the_same_every_time():
    # scalargrad keeps the float32 rounding of a Python number between ops (value.py); as dict
    # keys 0.0 == -0.0 and 2 == 2.0, so signs and ints must not take each other's entries.
    # By hand: 1.5 * 0.0 = 0.0 and 1.5 * -0.0 = -0.0 (IEEE sign rule); float32(0.1) is
    # 13421773 / 2^27, and 1.5 * that = 20132659.5 / 2^27 rounds to the nearest multiple of
    # 2^-26 (float32's spacing in [1/8, 1/4)), 20132660 / 2^27.
    def f32(v: float) -> float:
        return struct.unpack("f", struct.pack("f", v))[0]

    x = scalargrad.tensor(1.5)
    for _ in range(2):
        assert same((x * 0.0).item(), 0.0)
        assert same((x * -0.0).item(), -0.0)
        assert same((x - 0.0).item(), 1.5) and same((x * 2).item(), 3.0) and same((x * 2.0).item(), 3.0)
        assert (x * 0.1).item() == 20132660 / 2**27 == f32(1.5 * f32(0.1))
        assert (x + 2**-30).item() == 1.5  # 2^-30 is a float32 and is lost in the sum's rounding


def test_float64_tanh_is_correctly_rounded():
    # the C library's tanh is 1 ulp off for a few percent of arguments (-0.42574982459892396 is
    # the fuzzer's case; PyTorch gives the correctly rounded -0.4257498245989239 there)
    import mpmath

    rng = random.Random("tanh64")
    xs = [-0.42574982459892396, 0.036983124907407135, 1e-9, 19.9, -20.5, 2.0**-30]
    xs += [rng.uniform(-6, 6) for _ in range(300)] + [rng.uniform(-1e-3, 1e-3) for _ in range(50)]
    with mpmath.workprec(200):
        want = [float(mpmath.tanh(mpmath.mpf(x))) for x in xs]
    ours = scalargrad.tensor(xs, dtype=scalargrad.float64).tanh().tolist()
    assert ours == want
    assert [scalargrad.tensor(x, dtype=scalargrad.float64).tanh().item() for x in xs] == want


@pytest.mark.parametrize("c", [2.0, -4.0, 1.0, 0.5, 3.0, 2, -1])
def test_tensor_times_a_power_of_two_is_the_rounded_product(c):
    # a float32 tensor times a power of two of magnitude >= 1 is left unrounded where that is exact
    # (dtypes.round_scaled): against the product of the same float32 numbers rounded one by one,
    # overflow to inf, subnormals, signed zeros, inf and nan included
    f32 = struct.Struct("<f")
    rnd = random.Random(7)
    xs = [f32.unpack(f32.pack(rnd.uniform(-1e3, 1e3)))[0] for _ in range(40)]
    for extra in ([], [3.0e38], [1e-45, -0.0, 0.0], [float("inf")], [float("nan")]):
        vals = xs + [f32.unpack(f32.pack(v))[0] for v in extra]
        got = (scalargrad.tensor(vals) * c).tolist()
        want = []
        for v in vals:
            try:
                want.append(f32.unpack(f32.pack(v * c))[0])
            except OverflowError:
                want.append(v * c * float("inf"))
        assert [struct.pack("<d", v) if v == v else "nan" for v in got] == \
            [struct.pack("<d", v) if v == v else "nan" for v in want], extra
