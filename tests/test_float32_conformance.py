"""float32 (and float64) arithmetic and backward, bit for bit against PyTorch.

scalargrad emulates float32 by rounding every double result to float32. For + - * / that is
exactly PyTorch's result (the double result of two float32 operands is exact enough for one
rounding to be correct); a Python number operand is rounded to float32 first, as PyTorch casts
the wrapped number. Backward sums gradients in PyTorch's order, so float32 gradients of whole
graphs are bit-equal too. Transcendental functions go through PyTorch's vectorised libm, which
may be one unit in the last place (ulp) away from the correctly rounded value scalargrad
computes: those are compared within 1 ulp.

Every test but the hard-coded ones needs PyTorch (``torch_ref``).
"""

from __future__ import annotations

import math
import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scalargrad

ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def same(a: float | None, b: float | None) -> bool:
    """Bit-level equality (nan equals nan; 0.0 and -0.0 differ)."""
    if a is None or b is None:
        return a is b
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def ordinal(x: float, dtype_name: str) -> int:
    """Position of ``x`` on the line of representable numbers of the dtype."""
    if dtype_name == "float32":
        b = struct.unpack("<i", struct.pack("<f", x))[0]
        return b if b >= 0 else -(b & 0x7FFFFFFF)
    b = struct.unpack("<q", struct.pack("<d", x))[0]
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)


def ulps(a: float, b: float, dtype_name: str = "float32") -> float:
    if same(a, b):
        return 0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(ordinal(a, dtype_name) - ordinal(b, dtype_name))


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


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


@pytest.mark.parametrize("seed", range(60))
def test_random_graph_gradients_are_bit_equal(torch_ref, seed):
    rng = random.Random(seed)
    program = random_program(rng)
    leaves = [f32(rng.uniform(-3, 3)) for _ in range(3)]
    ours, theirs = run_program(scalargrad, program, leaves), run_program(torch_ref, program, leaves)
    assert all(map(same, ours, theirs)), (ours, theirs)


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


# ---------------------------------------------------------------- transcendental ops, within 1 ulp


def _pow_exponent_grad(T, y, x, c):
    return (T.tensor(y) * T.tensor(x).log()).item()


# name: (build, inputs, PyTorch's backward formula evaluated on a given forward value ``y``
# (None when the gradient does not use the forward value))
TRANSCENDENTAL = {
    "log": (lambda a, c: a.log(), lambda r: 10 ** r.uniform(-30, 30), None),
    "exp": (lambda a, c: a.exp(), lambda r: r.uniform(-87, 88), lambda T, y, x, c: y),
    "sqrt": (lambda a, c: a.sqrt(), lambda r: 10 ** r.uniform(-30, 30),
             lambda T, y, x, c: (T.tensor(1.0) / (2 * T.tensor(y))).item()),
    "tanh": (lambda a, c: a.tanh(), lambda r: r.uniform(-9, 9),
             lambda T, y, x, c: T.ops.aten.tanh_backward(T.tensor(1.0), T.tensor(y)).item()),
    "sigmoid": (lambda a, c: a.sigmoid(), lambda r: r.uniform(-20, 20),
                lambda T, y, x, c: T.ops.aten.sigmoid_backward(T.tensor(1.0), T.tensor(y)).item()),
    "sin": (lambda a, c: a.sin(), lambda r: r.uniform(-100, 100), None),
    "cos": (lambda a, c: a.cos(), lambda r: r.uniform(-100, 100), None),
    "x ** c": (lambda a, c: a**c, lambda r: r.uniform(0, 100), None),
    "c ** x": (lambda a, c: c**a, lambda r: r.uniform(-40, 40),
               lambda T, y, x, c: (T.tensor(y) * math.log(c)).item()),
}
EXPONENTS = [1 / 3, 2.5, -1.7, 0.1, 4.0, 1.5, -3.0, 7.0, 1.3, 0.75]


def _fwd_grad(L, build, x, c, dtype_name):
    t = L.tensor(x, dtype=getattr(L, dtype_name), requires_grad=True)
    y = build(t, c)
    y.backward()
    return y.item(), t.grad.item()


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", list(TRANSCENDENTAL))
def test_transcendental_within_one_ulp(torch_ref, name, dtype_name):
    build, draw, grad_from_forward = TRANSCENDENTAL[name]
    rng = random.Random(name)
    for i in range(400):
        x = draw(rng)
        x = f32(x) if dtype_name == "float32" else x
        c = EXPONENTS[i % len(EXPONENTS)] if "c" in name else None
        (y, g), (ty, tg) = _fwd_grad(scalargrad, build, x, c, dtype_name), _fwd_grad(torch_ref, build, x, c, dtype_name)
        assert ulps(y, ty, dtype_name) <= 1, (x, c, y, ty)
        if same(y, ty) or grad_from_forward is None:
            assert ulps(g, tg, dtype_name) <= 1, (x, c, g, tg)
        else:
            # the forward values differ by the ulp of PyTorch's libm; the derivative then
            # follows PyTorch's formula applied to scalargrad's own forward value
            t_dtype = getattr(torch_ref, dtype_name)
            prev = torch_ref.get_default_dtype()
            torch_ref.set_default_dtype(t_dtype)
            try:
                want = grad_from_forward(torch_ref, y, x, c)
            finally:
                torch_ref.set_default_dtype(prev)
            assert ulps(g, want, dtype_name) <= 1, (x, c, g, want, tg)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_tensor_pow_tensor_within_one_ulp(torch_ref, dtype_name):
    rng = random.Random(5)

    def run(L, x, e):
        dt = getattr(L, dtype_name)
        a = L.tensor(x, dtype=dt, requires_grad=True)
        b = L.tensor(e, dtype=dt, requires_grad=True)
        y = a**b
        y.backward()
        return y.item(), a.grad.item(), b.grad.item()

    for _ in range(400):
        x, e = rng.uniform(0, 50), rng.uniform(-4, 4)
        if dtype_name == "float32":
            x, e = f32(x), f32(e)
        (y, ga, gb), (ty, tga, tgb) = run(scalargrad, x, e), run(torch_ref, x, e)
        assert ulps(y, ty, dtype_name) <= 1 and ulps(ga, tga, dtype_name) <= 1, (x, e)
        if same(y, ty):
            assert ulps(gb, tgb, dtype_name) <= 1, (x, e, gb, tgb)
        else:
            T = torch_ref
            want = (T.tensor(y, dtype=getattr(T, dtype_name)) * T.tensor(x, dtype=getattr(T, dtype_name)).log()).item()
            assert ulps(gb, want, dtype_name) <= 1, (x, e, gb, want)


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
