"""tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, sinc, rad2deg, deg2rad
(``_ops/trigonometric.py``) against mpmath and live PyTorch 2.13.

PyTorch's float32 kernels for the transcendental ones are machine-dependent (MKL's vector math,
SLEEF, the C library: measured here, 1 ulp off the correctly rounded value in up to 9 % of draws,
under ATEN_CPU_CAPABILITY=default as well), so scalargrad's values are compared bit for bit with
the correctly rounded value (mpmath), and live PyTorch within 1 ulp of that value (float64: both
within 1 ulp). Gradients are PyTorch's formulas on those values: live PyTorch within ``GRAD_ULPS``
of them. rad2deg and deg2rad are one IEEE product: bit for bit with PyTorch. nan, inf and
signed zeros, node names, integer promotion, in-place forms and errors are compared exactly.
"""

from __future__ import annotations

import math
import random
import struct

import mpmath
import pytest

import scalargrad as sg


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """This module's references at 300 bits, set around each test: a module-level setting changed
    mpmath's precision for every test collected after this module."""
    with mpmath.workprec(300):
        yield



def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def ordinal(x: float, dtype: str) -> int:
    if dtype == "float32":
        b = struct.unpack("<i", struct.pack("<f", x))[0]
        return b if b >= 0 else -(b & 0x7FFFFFFF)
    b = struct.unpack("<q", struct.pack("<d", x))[0]
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)


def ulps(a: float, b: float, dtype: str) -> int:
    if a != a or b != b:
        return 0 if (a != a and b != b) else 1 << 40
    return abs(ordinal(a, dtype) - ordinal(b, dtype))


def correctly_rounded(fn, x: float, dtype: str) -> float:
    v = fn(mpmath.mpf(x))
    if isinstance(v, mpmath.mpc) or mpmath.isnan(v):
        return math.nan
    if dtype == "float64":
        return float(v)
    return f32(float(v)) if abs(v) < 2**128 else math.copysign(math.inf, float(v))


# op -> (mpmath function, draw of an argument)
OPS = {
    "tan": (mpmath.tan, lambda r: r.uniform(-10, 10)),
    "asin": (mpmath.asin, lambda r: r.uniform(-1, 1)),
    "acos": (mpmath.acos, lambda r: r.uniform(-1, 1)),
    "atan": (mpmath.atan, lambda r: r.uniform(-20, 20)),
    "sinh": (mpmath.sinh, lambda r: r.uniform(-20, 20)),
    "cosh": (mpmath.cosh, lambda r: r.uniform(-20, 20)),
    "asinh": (mpmath.asinh, lambda r: r.uniform(-50, 50)),
    "acosh": (mpmath.acosh, lambda r: r.uniform(1, 50)),
    "atanh": (mpmath.atanh, lambda r: r.uniform(-1, 1)),
}
ALIASES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
           "atanh": "arctanh"}
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 100.0, -100.0, 1e-30, -1e-30, math.inf, -math.inf, math.nan]
GRAD_ULPS = 4  # measured: 2 (float32 cosh' and sinh', tan' through tan's last bit)


def draws(name: str, dtype: str, n: int = 200) -> list:
    rnd = random.Random(name)
    draw = OPS[name][1] if name in OPS else (lambda r: r.uniform(-5, 5))
    return [f32(draw(rnd)) if dtype == "float32" else draw(rnd) for _ in range(n)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_values_are_correctly_rounded(name, dtype):
    xs = draws(name, dtype)
    got = getattr(sg, name)(sg.tensor(xs, dtype=getattr(sg, dtype))).tolist()
    fn = OPS[name][0]
    worst = max(ulps(g, correctly_rounded(fn, x, dtype), dtype) for g, x in zip(got, xs))
    assert worst <= (0 if dtype == "float32" else 1)  # float64: the platform's libm, within 1 ulp


def _special(L, name, dtype):
    return getattr(L, name)(L.tensor(SPECIAL, dtype=getattr(L, dtype))).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS) + ["sinc", "rad2deg", "deg2rad"])
def test_matches_pytorch(torch_ref, name, dtype):
    xs = draws(name, dtype) + ([0.0, -0.0] if name == "sinc" else [])
    mine = getattr(sg, name)(sg.tensor(xs, dtype=getattr(sg, dtype))).tolist()
    live = getattr(torch_ref, name)(torch_ref.tensor(xs, dtype=getattr(torch_ref, dtype))).tolist()
    exact = name in ("rad2deg", "deg2rad")
    bound = 0 if exact else (1 if name in OPS else 2)  # sinc: its sin and a division
    if name in OPS:  # live within 1 ulp of the correctly rounded value, as scalargrad's is
        fn = OPS[name][0]
        assert max(ulps(v, correctly_rounded(fn, x, dtype), dtype) for v, x in zip(live, xs)) <= 1
    assert max(ulps(a, b, dtype) for a, b in zip(mine, live)) <= bound
    # nan, inf and signed zeros exactly PyTorch's; finite results of the special arguments within the bound
    for a, b in zip(_special(sg, name, dtype), _special(torch_ref, name, dtype)):
        if not math.isfinite(b) or b == 0:
            assert repr(a) == repr(b)
        else:
            assert ulps(a, b, dtype) <= max(bound, 1 if name in OPS else 0)


def _graph(L, name, dtype):
    lo, hi = (1.1, 3.0) if name == "acosh" else ((-0.9, 0.9) if name in ("asin", "acos", "atanh") else (-2.5, 2.5))
    rnd = random.Random(7)
    xs = [f32(rnd.uniform(lo, hi)) for _ in range(20)]
    x = L.tensor(xs, dtype=getattr(L, dtype), requires_grad=True)
    y = getattr(x, name)()
    (g,) = L.autograd.grad((y * y).sum(), x)
    x0 = L.tensor(xs[0], dtype=getattr(L, dtype), requires_grad=True)
    y0 = getattr(L, name)(x0)
    (g0,) = L.autograd.grad(y0, x0)
    ints = getattr(L, name)(L.tensor([1, 2]))
    z = L.tensor([xs[1], xs[2]], dtype=getattr(L, dtype))
    getattr(z, name + "_")()
    try:
        getattr(L.tensor([1, 2]), name + "_")()
        err = None
    except RuntimeError as e:
        err = str(e)
    return (y.grad_fn.name(), y0.grad_fn.name(), str(ints.dtype), z._version, err), g.tolist() + [g0.item()], \
        z.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS) + ["sinc", "rad2deg", "deg2rad"])
def test_graph_matches_pytorch(torch_ref, name, dtype):
    mine, live = _graph(sg, name, dtype), _graph(torch_ref, name, dtype)
    assert mine[0] == live[0]
    bound = 0 if name in ("rad2deg", "deg2rad") else GRAD_ULPS
    assert max(ulps(a, b, dtype) for a, b in zip(mine[1], live[1])) <= bound
    assert max(ulps(a, b, dtype) for a, b in zip(mine[2], live[2])) <= (0 if bound == 0 else 1)


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_aliases(name):
    x = sg.tensor([1.5, 2.25] if name == "acosh" else [0.5, -0.25])
    alias = ALIASES[name]
    assert getattr(sg, alias)(x).tolist() == getattr(sg, name)(x).tolist() == getattr(x, alias)().tolist()
    y = x.clone()
    getattr(y, alias + "_")()
    assert y.tolist() == getattr(x, name)().tolist()


def test_sinc_at_zero_has_gradient_zero(torch_ref):
    for L in (sg, torch_ref):
        x = L.tensor([0.0, -0.0, 0.5], requires_grad=True)
        (g,) = L.autograd.grad(L.sinc(x).sum(), x)
        assert g.tolist()[:2] == [0.0, 0.0]
        assert L.sinc(x).tolist()[:2] == [1.0, 1.0]
