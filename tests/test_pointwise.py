"""addcmul, addcdiv and lerp (``_ops/pointwise.py``): their rounding (fused multiply-adds where
PyTorch's kernel fuses), derivatives, spellings and errors.

The hand-derived references compute each documented formula in exact rational arithmetic and
round with ``struct`` (the hardware's float32 conversion), independently of scalargrad's own
rounding code; the ``torch_ref`` tests compare element by element with PyTorch, forward,
backward and double backward, for 0-dim tensors, 1, 7 and 1000 elements (vectorised body and
scalar tail) and broadcasting operands.
"""

from __future__ import annotations

import random
import struct
import zlib
from fractions import Fraction

import pytest

import scalargrad

F32, F64 = scalargrad.float32, scalargrad.float64


def f32(x) -> float:
    """The float32 nearest to ``x`` (a float or an exact Fraction)."""
    if isinstance(x, Fraction):
        x = float(x)  # correctly rounded to double first: exact for the sums below (<= 48+ bits)
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_exact(q: Fraction) -> float:
    """``q`` rounded once to float32 (no double rounding through float64)."""
    lo = f32(q)
    if Fraction(lo) == q:
        return lo
    # the two float32 neighbours of q, and the nearer one (ties to even)
    step = Fraction(abs(lo)) * Fraction(1, 1 << 23) if lo else Fraction(1, 1 << 149)
    cands = sorted({lo, f32(float(Fraction(lo) + step)), f32(float(Fraction(lo) - step))},
                   key=lambda c: (abs(Fraction(c) - q), struct.unpack("I", struct.pack("f", c))[0] & 1))
    return cands[0]


# ---------------------------------------------------------------- rounding, by hand


def test_addcmul_is_one_fused_multiply_add_after_rounding_value_times_tensor1():
    # self + value * t1 * t2: value * t1 is rounded, then multiplied by t2 and added to self in
    # one rounding; two roundings would give another float32 in many of these cases
    v = f32(0.1)
    differ = 0
    for k in range(200):
        rnd = random.Random(k)
        a, b, c = (f32(rnd.uniform(-2, 2)) for _ in range(3))
        vb = f32_exact(Fraction(v) * Fraction(b))
        want = f32_exact(Fraction(a) + Fraction(vb) * Fraction(c))
        differ += want != f32_exact(Fraction(a) + Fraction(f32_exact(Fraction(vb) * Fraction(c))))
        assert scalargrad.tensor(a).addcmul(scalargrad.tensor(b), scalargrad.tensor(c), value=0.1).item() == want
        x = scalargrad.tensor([a, a]).addcmul(scalargrad.tensor([b, b]), scalargrad.tensor(c), value=0.1)
        assert x.tolist() == [want, want]
    assert differ > 10, "the cases must tell a fused multiply-add from two roundings"


def test_addcdiv_rounds_each_step():
    v = f32(-0.37)
    for k in range(100):
        rnd = random.Random(k)
        a, b, c = (f32(rnd.uniform(-2, 2)) for _ in range(3))
        q = f32_exact(Fraction(f32_exact(Fraction(v) * Fraction(b))) / Fraction(c))
        want = f32_exact(Fraction(a) + Fraction(q))
        assert scalargrad.tensor(a).addcdiv(scalargrad.tensor(b), scalargrad.tensor(c), value=-0.37).item() == want


@pytest.mark.parametrize("weight", [0.1, -0.3, 0.5, 0.7, 0.999])
def test_lerp_takes_the_side_of_its_weight_and_fuses(weight):
    w = f32(weight)
    for k in range(100):
        rnd = random.Random(k)
        s, e = f32(rnd.uniform(-2, 2)), f32(rnd.uniform(-2, 2))
        d = f32_exact(Fraction(e) - Fraction(s))
        if abs(w) < 0.5:
            want = f32_exact(Fraction(s) + Fraction(w) * Fraction(d))
        else:
            want = f32_exact(Fraction(e) - Fraction(d) * Fraction(f32_exact(1 - Fraction(w))))
        assert scalargrad.tensor(s).lerp(scalargrad.tensor(e), weight).item() == want
        assert scalargrad.tensor([s]).lerp(scalargrad.tensor([e]), scalargrad.tensor([w])).tolist() == [want]


def test_float64_fused_multiply_add_is_exactly_rounded():
    # float64: fma(value * t1, t2, self) rounded once, checked with exact rationals
    for k in range(200):
        rnd = random.Random(k)
        s, a, b = (rnd.uniform(-2, 2) for _ in range(3))
        v = 0.1
        va = float(Fraction(v) * Fraction(a))
        want = float(Fraction(s) + Fraction(va) * Fraction(b))
        got = scalargrad.tensor(s, dtype=F64).addcmul(scalargrad.tensor(a, dtype=F64),
                                                       scalargrad.tensor(b, dtype=F64), value=v).item()
        assert got == want


# ---------------------------------------------------------------- derivatives, by hand


def test_derivatives_by_hand(assert_grads):
    s, a, b = (scalargrad.tensor(x, dtype=F64, requires_grad=True) for x in (1.5, -0.75, 2.5))
    assert_grads(s.addcmul(a, b, value=0.5), {s: 1.0, a: 0.5 * 2.5, b: 0.5 * -0.75})
    assert_grads(s.addcdiv(a, b, value=0.5), {s: 1.0, a: 0.5 / 2.5, b: -(0.5 * -0.75) / (2.5 * 2.5)})
    assert_grads(s.lerp(a, 0.25), {s: 0.75, a: 0.25})
    assert_grads(s.lerp(a, b), {s: 1 - 2.5, a: 2.5, b: -0.75 - 1.5})


def test_grad_fn_names_and_saved_values():
    s, a, b = (scalargrad.tensor(x, requires_grad=True) for x in (1.0, 2.0, 3.0))
    y = s.addcmul(a, b, value=0.5)
    assert y.grad_fn.name() == "AddcmulBackward0"
    assert y.grad_fn._saved_tensor1 is a and y.grad_fn._saved_tensor2 is b and y.grad_fn._saved_value == 0.5
    y = scalargrad.addcdiv(s, a, b, value=2)
    assert y.grad_fn.name() == "AddcdivBackward0" and y.grad_fn._saved_value == 2
    y = s.lerp(a, 0.3)
    assert y.grad_fn.name() == "LerpBackward0" and y.grad_fn._saved_weight == 0.3
    assert len(y.grad_fn.next_functions) == 2
    y = scalargrad.lerp(s, a, b)
    assert y.grad_fn.name() == "LerpBackward1"
    assert (y.grad_fn._saved_self, y.grad_fn._saved_end, y.grad_fn._saved_weight) == (s, a, b)


def test_in_place_variants_and_their_rules():
    x = scalargrad.tensor([1.0, 2.0])
    assert x.addcmul_(scalargrad.tensor([1.0, 1.0]), scalargrad.tensor(2.0), value=0.5) is x
    assert x.tolist() == [2.0, 3.0] and x._version == 1
    x.lerp_(scalargrad.tensor([4.0, 5.0]), 0.5)
    assert x.tolist() == [3.0, 4.0]
    x.addcdiv_(scalargrad.tensor([1.0, 1.0]), scalargrad.tensor([2.0, 4.0]))
    assert x.tolist() == [3.5, 4.25]
    leaf = scalargrad.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        leaf.addcmul_(leaf, leaf)
    with pytest.raises(RuntimeError, match=r"output with shape \[\] doesn't match the broadcast shape \[2\]"):
        scalargrad.tensor(1.0).addcmul_(x, x)


def test_errors_in_pytorchs_words():
    x = scalargrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"addcmul\(\): argument 'tensor2' \(position 2\) must be Tensor, not float"):
        x.addcmul(x, 2.0)
    with pytest.raises(TypeError, match=r"addcmul\(\): argument 'input' \(position 1\) must be Tensor, not float"):
        scalargrad.addcmul(1.0, x, x)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        scalargrad.tensor([1, 2]).addcdiv(scalargrad.tensor([1, 2]), scalargrad.tensor([3, 4]))
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        scalargrad.tensor([1, 2]).lerp(scalargrad.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        x.lerp(x.double(), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype double"):
        x.lerp(x, x.double())
    assert x.lerp(x + 1, scalargrad.tensor(0.5, dtype=F64)).tolist() == [1.5, 2.5]  # a 0-dim weight is cast
    assert scalargrad.tensor([1, 2]).addcmul(scalargrad.tensor([1, 2]), scalargrad.tensor([3, 4]), value=2).tolist() \
        == [7, 18]


# ---------------------------------------------------------------- against PyTorch


def _values(rnd, shape):
    n = 1
    for s in shape:
        n *= s
    return [rnd.uniform(-2, 2) * 2.0 ** rnd.randint(-3, 3) for _ in range(n)]


def _make(L, vals, shape, dt):
    t = L.tensor(vals, dtype=getattr(L, dt)).reshape(shape)
    return t.detach().requires_grad_(True)


SHAPES = [((), (), ()), ((1,), (1,), (1,)), ((7,), (7,), (7,)), ((1000,), (1000,), (1000,)), ((3, 1), (1, 4), ()),
          ((5,), (), (5,)), ((), (6,), (2, 1))]
OPS = {
    "addcmul": lambda x, a, b, v: x.addcmul(a, b, value=v),
    "addcdiv": lambda x, a, b, v: x.addcdiv(a, b, value=v),
    "lerp number": lambda x, a, b, v: x.lerp(a, v) * b,
    "lerp tensor": lambda x, a, b, v: x.lerp(a, b * 0 + v),
}


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", list(OPS))
def test_forward_and_backward_bit_equal_to_pytorch(torch_ref, dt, shapes, op):
    rnd = random.Random(zlib.crc32(repr((dt, str(shapes), op)).encode()) & 0xFFFF)
    vals = [_values(rnd, s) for s in shapes]
    for value in (0.1, -0.37, 2, 0.7):
        out = {}
        for L in (torch_ref, scalargrad):
            ts = [_make(L, v, s, dt) for v, s in zip(vals, shapes)]
            y = OPS[op](*ts, value)
            y.backward(L.ones_like(y) * 0.3)
            out[L] = (y.detach().reshape(-1).tolist(), [t.grad.reshape(-1).tolist() for t in ts],
                      y.grad_fn.name())
        assert out[scalargrad] == out[torch_ref], (op, value)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("op", list(OPS))
def test_double_backward_bit_equal_to_pytorch(torch_ref, dt, op):
    rnd = random.Random(11)
    for _ in range(10):
        v = [rnd.uniform(-3, 3) for _ in range(3)]
        out = {}
        for L in (torch_ref, scalargrad):
            x, a, b = (L.tensor(t, dtype=getattr(L, dt)).requires_grad_(True) for t in v)
            y = OPS[op](x, a, b, 0.3 if op != "lerp tensor" else 0.8) * (x * 1.3 + a * 0.7 - b * b)
            gs = L.autograd.grad(y, [x, a, b], create_graph=True)
            s = gs[0] * 1.1 + gs[1] * gs[2] - gs[2] * gs[0] * 0.3
            out[L] = [g.item() for g in L.autograd.grad(s, [x, a, b])]
        assert out[scalargrad] == out[torch_ref]


def test_gradient_reaches_the_version_before_an_in_place_op_of_three_inputs():
    # y used s before s.addcmul_(...) changed it: backward routes y's gradient to the older
    # version through the in-place node's first input (a three-input node keeps its inputs as
    # a tuple). d/da of 3 * (a + 1) + (a + 0.5 * b * c) = 4; d/db = 0.5 * c; d/dc = 0.5 * b
    a, b, c = (scalargrad.tensor(v, requires_grad=True) for v in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]))
    s = a.clone()
    y = s + 1
    s.addcmul_(b, c, value=0.5)
    (y * 3 + s).sum().backward()
    assert (a.grad.tolist(), b.grad.tolist(), c.grad.tolist()) == ([4.0, 4.0], [2.5, 3.0], [1.5, 2.0])
    # the same with clamp_ between tensor bounds (inside them: gradient 1 to self)
    a, lo, hi = (scalargrad.tensor(v, requires_grad=True) for v in ([1.0, 2.0], [0.0, 0.0], [5.0, 6.0]))
    s = a.clone()
    y = s + 1
    s.clamp_(lo, hi)
    (y * 3 + s).sum().backward()
    assert (a.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()) == ([4.0, 4.0], [0.0, 0.0], [0.0, 0.0])


def test_float64_fused_multiply_add_emulation_is_correctly_rounded():
    # kernel_order.fma64 (round-to-odd emulation) against the exact rational sum, on random
    # operands and on the hard cases: c cancelling a*b, and a*b + c at or near a halfway point
    from scalargrad._base.kernel_order import fma64

    rnd = random.Random(5)
    for i in range(20000):
        a = rnd.choice([-1, 1]) * rnd.random() * 2.0 ** rnd.randint(-40, 40)
        b = rnd.choice([-1, 1]) * rnd.random() * 2.0 ** rnd.randint(-40, 40)
        p = a * b
        c = [rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-40, 40), -p, -p + (p - p * (1 + 2.0 ** -52)),
             abs(p) * 2.0 ** -53 * rnd.choice([-1, 1])][i % 4]
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        assert fma64(a, b, c) == float(exact), (a.hex(), b.hex(), c.hex())
