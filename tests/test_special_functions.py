"""The ops of ``_ops/bessel.py`` and ``_ops/error_functions.py`` on a machine-independent
reference: mpmath at 300 bits (computed here by other formulas where one exists: ``ncdf`` for
log_ndtr, a root of ``ncdf`` for ndtri, ``besseli`` times the exponential's own rounding for the
scaled ones), rounded once to a double. scalargrad's float64 values are that correctly rounded
double, so they are compared for equality; the comparison with PyTorch's machine-dependent kernels
is ``test_special.py``'s. Also: the special points, and the gradients at ordinary points against
the derivatives mpmath differentiates numerically."""

from __future__ import annotations

import math

import mpmath
import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported

POINTS = [1e-300, 1e-8, 0.1, 0.5, 1.0, 2.5, 7.0, 30.0, 150.0, 700.0]


def _ref(f, x: float) -> float:
    with mpmath.workprec(300):
        return float(f(mpmath.mpf(x)))


REFERENCES = {
    "i0": lambda x: mpmath.besseli(0, x),
    "i0e": lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x)),
    "i1": lambda x: mpmath.besseli(1, x),
    "i1e": lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x)),
    "erfcx": lambda x: mpmath.exp(x * x) * mpmath.erfc(x),
    # above 0, ncdf(x) = 1 - ncdf(-x) would round to 1 at any fixed precision: log1p of the tail
    "log_ndtr": lambda x: mpmath.log(mpmath.ncdf(x)) if x <= 0 else mpmath.log1p(-mpmath.ncdf(-x)),
}


def test_entr_is_atens_formula():
    """entr is ATen's ``-x * log(x)``: log rounded to the dtype first (mpmath's correctly rounded
    log here), then the product rounded."""
    xs = [1e-300, 1e-8, 0.1, 0.5, 1.0, 2.5, 7.0, 150.0, 3e300]
    got = sg.special.entr(sg.tensor(xs, dtype=sg.float64)).tolist()
    assert got == [-x * _ref(mpmath.log, x) for x in xs]


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_correctly_rounded_doubles(name):
    xs = POINTS + [-x for x in POINTS]
    if name == "log_ndtr":
        xs += [-40.0, -1e9 * 1.5, 6.0, 9.0, 35.0]
    if name == "erfcx":
        xs += [-26.0, 1e9 * 1.5]
    t = sg.tensor(xs, dtype=sg.float64)
    got = getattr(sg.special, name)(t).tolist()
    want = [_ref(REFERENCES[name], x) for x in xs]
    assert got == want, [(x, a, b) for x, a, b in zip(xs, got, want) if a != b]


def test_ndtri_is_the_quantile():
    """ndtri(p) is the double whose ncdf is p: the correctly rounded root (checked by bracketing
    with its neighbours), down to p = 1e-300 where 2p - 1 needs 1,000 bits."""
    ps = [1e-300, 1e-30, 1e-5, 0.025, 0.25, 0.5, 0.6, 0.975, 1 - 2**-40]
    got = sg.special.ndtri(sg.tensor(ps, dtype=sg.float64)).tolist()
    with mpmath.workprec(1200):
        for p, q in zip(ps, got):
            lo, hi = math.nextafter(q, -math.inf), math.nextafter(q, math.inf)
            err = abs(mpmath.ncdf(q) - p)
            assert err <= abs(mpmath.ncdf(lo) - p) and err <= abs(mpmath.ncdf(hi) - p), p


def test_special_points():
    inf, nan = math.inf, math.nan
    x = sg.tensor([0.0, -0.0, inf, -inf, nan], dtype=sg.float64)
    S = sg.special
    same = lambda a, b: all((u != u and v != v) or (u == v and math.copysign(1, u) == math.copysign(1, v))
                            for u, v in zip(a, b))
    assert same(S.i0(x).tolist(), [1.0, 1.0, nan, nan, nan])  # ATen's Cephes series: nan at the infinities
    assert same(S.i0e(x).tolist(), [1.0, 1.0, 0.0, 0.0, nan])
    assert same(S.i1(x).tolist(), [0.0, 0.0, nan, nan, nan])  # +0.0 at -0.0, as ATen's
    assert same(S.i1e(x).tolist(), [0.0, 0.0, 0.0, -0.0, nan])
    assert same(S.erfcx(x).tolist(), [1.0, 1.0, 0.0, inf, nan])
    assert same(S.log_ndtr(x).tolist(), [math.log(0.5), math.log(0.5), -0.0, -inf, nan])
    assert same(S.entr(x).tolist(), [0.0, 0.0, -inf, -inf, nan])
    p = sg.tensor([0.0, 1.0, -0.5, 1.5, nan], dtype=sg.float64)
    assert same(S.ndtri(p).tolist(), [-inf, inf, nan, nan, nan])


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr", "ndtri", "entr"])
def test_gradients_against_mpmath(name):
    xs = [0.125, 0.3, 0.7, 0.9] if name == "ndtri" else [0.125, 0.5, 2.0, -1.5 if name != "entr" else 3.0]
    x = sg.tensor(xs, dtype=sg.float64, requires_grad=True)
    (g,) = sg.autograd.grad(getattr(sg.special, name)(x).sum(), x)
    f = REFERENCES.get(name, {"ndtri": lambda v: mpmath.sqrt(2) * mpmath.erfinv(2 * v - 1),
                              "entr": lambda v: -v * mpmath.log(v)}.get(name))
    with mpmath.workprec(200):
        want = [float(mpmath.diff(f, mpmath.mpf(v))) for v in xs]
    for a, b in zip(g.tolist(), want):
        assert abs(a - b) <= 1e-14 * max(abs(b), 1.0), (name, a, b)


def test_half_precision_kernels_and_out_are_refused_as_pytorch():
    for name in ("erfcx", "log_ndtr", "ndtri"):
        with pytest.raises(NotImplementedError, match=f"^\"{name}_cpu\" not implemented for 'Half'$"):
            getattr(sg.special, name)(sg.ones(2, dtype=sg.float16))
    with pytest.raises(Unsupported, match=r"torch\.special\.i0e\(out=\.\.\.\)"):
        sg.special.i0e(sg.ones(2), out=sg.ones(2))
