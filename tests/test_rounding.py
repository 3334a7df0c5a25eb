"""floor, ceil, round (with decimals), trunc/fix, frac, fmod (``_ops/rounding.py``).

Their results are exact in the dtype (IEEE rounding functions, exact differences), so the
``torch_ref`` tests compare bits with PyTorch, for 0-dim tensors, one element and long tensors
(vectorised body and scalar tail), float32 and float64, signed zeros, infinities and nan
included. The hand tests state C's semantics (floor(-0.5) is -1, ceil(-0.5) is -0.0, nearbyint
ties to even, fmod takes the dividend's sign) and PyTorch's derivatives (zeros for the
rounding functions, 1 for frac, ``-trunc(self / other)`` for fmod's other).
"""

from __future__ import annotations

import math
import random
import struct

import pytest
from program_outcome import described

import scalargrad as sg
from scalargrad.symbolic import sympy_check

SPECIAL = [1.5, -2.5, 0.5, -0.5, 2.5, -0.0, 0.0, 3.7, -3.7, 0.49999997, -1.0000001, 8388609.0, 1e10 + 0.5,
           123.456, -7.0, math.inf, -math.inf, math.nan]


def bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0] if x == x else -1


def same_bits(a: list, b: list) -> bool:
    return len(a) == len(b) and all(bits(float(x)) == bits(float(y)) for x, y in zip(a, b))


def _values(n: int, seed: int = 0) -> list:
    rnd = random.Random(seed)
    vals = SPECIAL + [rnd.choice([1, -1]) * rnd.uniform(0, 20) for _ in range(n)]
    vals += [rnd.randrange(-40, 40) / 4 for _ in range(n)]  # halves and quarters: ties
    return vals


# ---------------------------------------------------------------- by hand


def test_rounding_functions_follow_c():
    x = sg.tensor([1.5, -2.5, 0.5, -0.5, 2.5, -0.0, 3.7, -3.7], dtype=sg.float64)
    assert same_bits(x.floor().tolist(), [1.0, -3.0, 0.0, -1.0, 2.0, -0.0, 3.0, -4.0])
    assert same_bits(x.ceil().tolist(), [2.0, -2.0, 1.0, -0.0, 3.0, -0.0, 4.0, -3.0])
    assert same_bits(x.round().tolist(), [2.0, -2.0, 0.0, -0.0, 2.0, -0.0, 4.0, -4.0])  # ties to even
    assert same_bits(x.trunc().tolist(), [1.0, -2.0, 0.0, -0.0, 2.0, -0.0, 3.0, -3.0])
    assert same_bits(x.fix().tolist(), x.trunc().tolist())
    assert x.frac().tolist() == pytest.approx([0.5, -0.5, 0.5, -0.5, 0.5, 0.0, 0.7, -0.7])
    inf = sg.tensor([math.inf, -math.inf])
    assert inf.floor().tolist() == [math.inf, -math.inf] and all(math.isnan(v) for v in inf.frac().tolist())


def test_round_decimals_rounds_each_step_in_the_dtype():
    # 2.675 in float32 is 2.67499995...; times 100 rounds to 267.5 in float32, which ties to 268
    assert sg.tensor([1.25, 2.675]).round(decimals=2).tolist() == [struct.unpack("f", struct.pack("f", v))[0]
                                                                  for v in (1.25, 2.68)]
    # in float64 1.005 * 100 rounds to 100.49999999999999: 100, so 1.0
    assert sg.tensor([1.005], dtype=sg.float64).round(decimals=2).tolist() == [1.0]
    assert sg.tensor([1234.0, -1250.0]).round(decimals=-2).tolist() == [1200.0, -1200.0]


def test_fmod_takes_the_dividends_sign():
    a = sg.tensor([5.5, -5.5, 5.5, -5.5], dtype=sg.float64)
    assert a.fmod(sg.tensor([2.0, 2.0, -2.0, -2.0], dtype=sg.float64)).tolist() == [1.5, -1.5, 1.5, -1.5]
    assert a.remainder(2.0).tolist() == [1.5, 0.5, 1.5, 0.5]  # remainder: the divisor's sign
    assert sg.tensor([5, -5]).fmod(3).tolist() == [2, -2]
    assert sg.tensor([3, -3]).fmod(2.5).tolist() == [0.5, -0.5]
    z = sg.tensor([1.0, math.inf]).fmod(0.0).tolist()
    assert all(math.isnan(v) for v in z)
    assert sg.tensor(5.0).fmod(math.inf).item() == 5.0


def test_rounding_gradients_are_zero_and_frac_fmod_pass_it():
    x = sg.tensor([1.3, -2.5, 0.5], requires_grad=True)
    for name in ("floor", "ceil", "round", "trunc", "fix"):
        y = getattr(x, name)()
        (g,) = sg.autograd.grad(y.sum(), x)
        assert g.tolist() == [0.0, 0.0, 0.0]
    (g,) = sg.autograd.grad(x.round(decimals=1).sum(), x)
    assert g.tolist() == [0.0, 0.0, 0.0]
    (g,) = sg.autograd.grad(x.frac().sum(), x)
    assert g.tolist() == [1.0, 1.0, 1.0]
    o = sg.tensor([0.7, 2.0, -0.2], requires_grad=True)
    y = x.fmod(o)
    # d fmod(a, b)/db = -trunc(a / b): trunc(1.3/0.7) = 1, trunc(-2.5/2) = -1, trunc(0.5/-0.2) = -2
    gx, go = sg.autograd.grad(y.sum(), (x, o))
    assert gx.tolist() == [1.0, 1.0, 1.0] and go.tolist() == [-1.0, 1.0, 2.0]


def test_rounding_refusals():
    for name in ("floor", "ceil", "round", "trunc"):
        with pytest.raises(NotImplementedError, match=f'"{name}_vml_cpu" not implemented for \'Bool\''):
            getattr(sg.tensor([True]), name)()
        assert getattr(sg.tensor([3, -2]), name)().tolist() == [3, -2]
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        sg.tensor([3]).frac()
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Int'"):
        sg.tensor([3], dtype=sg.int32).frac()
    with pytest.raises(NotImplementedError, match="\"round_cpu\" not implemented for 'Long'"):
        sg.tensor([3]).round(decimals=1)
    with pytest.raises(NotImplementedError, match="\"fmod_cpu\" not implemented for 'Bool'"):
        sg.tensor([True]).fmod(sg.tensor([True]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        sg.tensor([3]).fmod(0)


def test_node_names_and_edges():
    x = sg.tensor([1.5, -2.5], requires_grad=True)
    names = {n: type(getattr(x, n)().grad_fn).__name__ for n in ("floor", "ceil", "round", "trunc", "fix", "frac")}
    assert names == {"floor": "FloorBackward0", "ceil": "CeilBackward0", "round": "RoundBackward0",
                     "trunc": "TruncBackward0", "fix": "TruncBackward0", "frac": "FracBackward0"}
    assert type(x.round(decimals=0).grad_fn).__name__ == "RoundBackward1"
    y = sg.fmod(x, 2.0)
    assert type(y.grad_fn).__name__ == "FmodBackward0" and len(y.grad_fn.next_functions) == 1
    o = sg.tensor([2.0, 3.0])
    y = sg.fmod(x, o)
    assert type(y.grad_fn).__name__ == "FmodBackward1"
    assert y.grad_fn._saved_other is None and y.grad_fn._saved_self is None  # only other's formula reads them
    o.requires_grad_()
    y = sg.fmod(x, o)
    assert y.grad_fn._saved_other.tolist() == [2.0, 3.0] and y.grad_fn._saved_self.tolist() == [1.5, -2.5]


# ---------------------------------------------------------------- against PyTorch


def _both(torch, fn, vals, dtype, shape0=False):
    if shape0:
        return ([fn(sg.tensor(v, dtype=getattr(sg, dtype))).item() for v in vals],
                [fn(torch.tensor(v, dtype=getattr(torch, dtype))).item() for v in vals])
    return (fn(sg.tensor(vals, dtype=getattr(sg, dtype))).tolist(),
            fn(torch.tensor(vals, dtype=getattr(torch, dtype))).tolist())


UNARY = {"floor": lambda t: t.floor(), "ceil": lambda t: t.ceil(), "round": lambda t: t.round(),
         "trunc": lambda t: t.trunc(), "fix": lambda t: t.fix(), "frac": lambda t: t.frac(),
         "round1": lambda t: t.round(decimals=1), "round3": lambda t: t.round(decimals=3),
         "round-1": lambda t: t.round(decimals=-1), "fmod2.5": lambda t: t.fmod(2.5),
         "fmod-0.75": lambda t: t.fmod(-0.75), "fmod0": lambda t: t.fmod(0.0)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_are_torchs_bit_for_bit(torch_ref, name, dtype):
    fn = UNARY[name]
    vals = _values(300)
    ours, theirs = _both(torch_ref, fn, vals, dtype)
    assert same_bits(ours, theirs)
    ours, theirs = _both(torch_ref, fn, vals[:40], dtype, shape0=True)
    assert same_bits(ours, theirs)
    ours, theirs = _both(torch_ref, fn, vals[:1], dtype)
    assert same_bits(ours, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_fmod_tensor_tensor_is_torchs(torch_ref, dtype):
    rnd = random.Random(5)
    if dtype.startswith("int"):
        a = [rnd.randrange(-50, 50) for _ in range(100)]
        b = [rnd.choice([-7, -3, -1, 1, 2, 5]) for _ in range(100)]
    else:
        a = _values(40)
        b = [rnd.choice([0.0, -0.0, 0.3, -2.5, 1.0, math.inf, 7.25, -1e-3]) for _ in a]
    ours = sg.tensor(a, dtype=getattr(sg, dtype)).fmod(sg.tensor(b, dtype=getattr(sg, dtype))).tolist()
    theirs = torch_ref.tensor(a, dtype=getattr(torch_ref, dtype)).fmod(
        torch_ref.tensor(b, dtype=getattr(torch_ref, dtype))).tolist()
    assert same_bits(ours, theirs)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "frac", "round1", "fmod2.5"])
def test_integer_and_bool_behaviour_is_torchs(torch_ref, name, dtype):
    vals = [3, -2, 0, 1] if dtype != "bool" else [True, False]

    def run(L):
        try:
            y = UNARY[name](L.tensor(vals, dtype=getattr(L, dtype)))
            return str(y.dtype), y.tolist()
        except Exception as e:  # the refusal is what is compared
            return type(e).__name__, str(e)

    assert run(sg) == run(torch_ref)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_nodes_and_double_backward_are_torchs(torch_ref, dtype):
    vals = [1.3, -2.5, 0.5, 7.75, -0.2]
    other = [0.7, 2.0, -0.2, 3.0, 0.3]

    def run(L):
        dt = getattr(L, dtype)
        x = L.tensor(vals, dtype=dt, requires_grad=True)
        o = L.tensor(other, dtype=dt, requires_grad=True)
        out = []
        for y in (x.floor(), x.ceil(), x.round(), x.round(decimals=2), x.trunc(), x.frac(), x.fmod(1.5),
                  x.fmod(o), L.fmod(x, o) * x):
            fn = y.grad_fn
            edges = [type(n).__name__ if n is not None else None for n, _ in fn.next_functions]
            gs = L.autograd.grad((y * y).sum(), (x, o), create_graph=True, allow_unused=True)
            row = [type(fn).__name__, edges, y.tolist()]
            for g in gs:
                row.append(None if g is None else (g.tolist(), g.requires_grad,
                                                   None if g.grad_fn is None else type(g.grad_fn).__name__))
            second = [g for g in gs if g is not None and g.requires_grad]
            if second:
                hh = L.autograd.grad(sum(g.sum() for g in second), (x, o), allow_unused=True)
                row.append([None if h is None else h.tolist() for h in hh])
            out.append(row)
        return out

    assert run(sg) == run(torch_ref)


def _frexp_graph(L, v, dt=None):
    x = L.tensor(v, requires_grad=True, dtype=dt or L.float32)
    m, e = L.frexp(x)
    (g,) = L.autograd.grad((m * (L.arange(m.numel(), dtype=L.float32).reshape(m.shape) + 1)).sum(), x)
    return m, e, g, type(L.frexp(x)).__name__, e.requires_grad


# exact: the mantissas and gradients are powers of two apart from the inputs (subnormals, the
# largest numbers, zeros, infinities and nan included)
FREXP = {
    "float32": lambda L: _frexp_graph(L, [8.0, 0.3, -0.0, math.inf, math.nan, 1e-40, -3e38, 1.0]),
    "float64": lambda L: _frexp_graph(L, [8.0, 1e-310, 1.7e308, -0.75], L.float64),
    "0-d": lambda L: (_frexp_graph(L, 5.0), _frexp_graph(L, 1e-310, L.float64)),
    "ints": lambda L: L.frexp(L.tensor([1, 2])),
    "method": lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]]).frexp(),
    "repr": lambda L: repr(L.frexp(L.tensor([1.0, 6.0]))),
}


def test_frexp_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in FREXP.items()} == {k: described(f, torch_ref) for k, f in FREXP.items()}


def test_frexp_gradient_is_proved():
    x = sg.tensor([6.0, -0.375], requires_grad=True)
    m, e = sg.frexp(x)
    assert m.tolist() == [0.75, -0.75] and e.tolist() == [3, -1]
    report = sympy_check((m * sg.tensor([1.0, 2.0])).sum(), {x: "x"})
    assert report.ok and report.verified, str(report)
    assert [float(report[f"x[{i}]"].symbolic) for i in range(2)] == [0.125, 4.0]
