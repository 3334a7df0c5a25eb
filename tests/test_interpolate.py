"""F.interpolate's linear, bilinear, trilinear and bicubic modes, nn.Upsample and UpsamplingBilinear2d.

An interpolated element is a weighted sum of input elements. scalargrad computes ATen's taps and
weights as ATen's generic code does and gives each output (and gradient) element the exact sum of
its products rounded once; asserted bit for bit against a reference computed here independently
(the weights step by step in exact arithmetic rounded to the dtype, the sums in ``Fraction``). PyTorch's kernels
add the products in their own order and, in the AVX2 build, fuse multiply-adds (also in the
weights): live PyTorch is compared within ``BOUND[mode]`` * u * sum |w_i x_i| (``_error_ratio``),
bounds measured with ``python tests/test_interpolate.py`` under ATEN_CPU_CAPABILITY=default and
the machine's own (README: 1.8 and 3.6).
"""

from __future__ import annotations

import itertools
import math
import random
import sys
import warnings
from fractions import Fraction

import pytest

import scalargrad

from faithfulness import FLOAT32, FLOAT64, round_exact

BOUND = {"linear": 32, "bilinear": 32, "trilinear": 32, "bicubic": 32}

CASES = [
    # (input shape, interpolate's keyword arguments)
    ((1, 2, 3, 4), {"scale_factor": 2, "mode": "bilinear"}),
    ((1, 2, 3, 4), {"size": (5, 7), "mode": "bilinear", "align_corners": True}),
    ((2, 2, 6, 6), {"scale_factor": 0.5, "mode": "bilinear"}),
    ((2, 3, 5), {"scale_factor": 1.7, "mode": "linear"}),
    ((2, 3, 5), {"size": 9, "mode": "linear", "align_corners": True}),
    ((1, 1, 2, 3, 4), {"size": (3, 5, 6), "mode": "trilinear"}),
    ((1, 2, 2, 2, 3), {"scale_factor": (2, 1.5, 1), "mode": "trilinear", "align_corners": True}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "bicubic"}),
    ((1, 2, 4, 5), {"size": (3, 8), "mode": "bicubic", "align_corners": True}),
    ((1, 1, 3, 3), {"size": (1, 4), "mode": "bicubic"}),  # an output of one row: scale 3, not 0
    ((1, 1, 3, 3), {"size": (1, 2), "mode": "bilinear", "align_corners": True}),
]


def _rand(L, shape, seed, dtype):
    rng = random.Random(seed)
    return L.tensor([rng.uniform(-2, 2) for _ in range(math.prod(shape))], dtype=getattr(L, dtype)).reshape(*shape)


def _run(L, case, dtype, seed=0):
    shape, kw = case
    x = _rand(L, shape, seed, dtype).requires_grad_()
    y = L.nn.functional.interpolate(x, **kw)
    g = _rand(L, tuple(y.shape), seed + 1, dtype)
    (gx,) = L.autograd.grad(y, x, g)
    return x, y, g, gx


def _rounder(dtype):
    """Rounds an exact value (Fraction) to ``dtype`` and keeps it exact."""
    return lambda q: Fraction(round_exact(Fraction(q), dtype))


def _dim_taps(size, out, align, factor, cubic, r):
    """ATen's taps along one dim, each step of the arithmetic rounded by ``r`` (the op's type; the
    source index's ``scale * (i + 0.5) - 0.5`` in double)."""
    d = _rounder(FLOAT64)
    if align:
        scale = r(Fraction(size - 1) / (out - 1)) if out > 1 else Fraction(0)
    else:
        scale = r(d(1 / Fraction(factor))) if factor else r(Fraction(size, out))
    taps = []
    for i in range(out):
        src = r(scale * i) if align else r(d(d(scale * (i + Fraction(1, 2))) - Fraction(1, 2)))
        if src < 0 and not cubic:
            src = Fraction(0)
        idx = min(math.floor(src), size - 1)
        lam = min(max(r(src - idx), Fraction(0)), Fraction(1))
        if not cubic:
            taps.append([(idx, r(1 - lam)), (idx + (idx < size - 1), lam)])
            continue
        x2 = r(1 - lam)
        coeffs = [_far(r(lam + 1), r), _near(lam, r), _near(x2, r), _far(r(x2 + 1), r)]
        taps.append([(max(min(idx - 1 + j, size - 1), 0), coeffs[j]) for j in range(4)])
    return taps


_A = Fraction(-3, 4)  # ATen's cubic convolution parameter


def _near(x, r):
    return r(r(r(r(r((_A + 2) * x) - (_A + 3)) * x) * x) + 1)


def _far(x, r):
    return r(r(r(r(r(r(_A * x) - 5 * _A) * x) + 8 * _A) * x) - 4 * _A)


def _reference_terms(case, dtype):
    """Per output flat position, its (input flat position, weight as a Fraction) terms."""
    shape, kw = case
    n = len(shape) - 2
    r = _rounder(dtype)
    if "size" in kw:
        size = kw["size"]
        outs, factors = ((size,) * n if isinstance(size, int) else tuple(size)), (None,) * n
    else:
        sf = kw["scale_factor"]
        factors = tuple(float(v) for v in (sf if isinstance(sf, tuple) else (sf,) * n))
        outs = tuple(int(s * v) for s, v in zip(shape[2:], factors))
    align = bool(kw.get("align_corners"))
    dims = [_dim_taps(s, o, align, fac, kw["mode"] == "bicubic", r) for s, o, fac in zip(shape[2:], outs, factors)]
    terms = []
    for plane in range(shape[0] * shape[1]):
        for pos in itertools.product(*[range(o) for o in outs]):
            row = []
            for combo in itertools.product(*[dims[d][p] for d, p in enumerate(pos)]):
                at, w = plane, Fraction(1)
                for d, (i, wd) in enumerate(combo):
                    at = at * shape[2 + d] + i
                    w *= wd
                row.append((at, w))
            terms.append(row)
    return terms


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64])
def test_interpolation_is_the_exact_sum_rounded_once(case, dtype):
    x, y, g, gx = _run(scalargrad, case, dtype)
    terms = _reference_terms(case, dtype)
    xv, gv = x.reshape(-1).tolist(), g.reshape(-1).tolist()
    assert y.reshape(-1).tolist() == [round_exact(sum((Fraction(xv[i]) * w for i, w in row), Fraction(0)), dtype)
                                      for row in terms]
    want = [Fraction(0)] * len(xv)
    for o, row in enumerate(terms):
        for i, w in row:
            want[i] += Fraction(gv[o]) * w
    assert gx.reshape(-1).tolist() == [round_exact(q, dtype) for q in want]


def _error_ratio(case, dtype, ours, theirs):
    """The largest |ours - theirs| in units of u * sum (|w_i| + 1) |x_i| (forward, then backward):
    PyTorch's weights differ between its builds (fused multiply-adds in the AVX2 one, the cubic's
    terms up to 6), each by a few u absolute, not relative to itself."""
    x, y, g, gx = ours
    c = Fraction(1)
    terms = [[(i, abs(w) + c) for i, w in row] for row in _reference_terms(case, dtype)]
    u = 2.0**-24 if dtype == FLOAT32 else 2.0**-53
    xv, gv = x.reshape(-1).tolist(), g.reshape(-1).tolist()
    worst = [0.0, 0.0]
    for a, t, row in zip(y.reshape(-1).tolist(), theirs[1].reshape(-1).tolist(), terms):
        scale = sum(abs(xv[i] * float(w)) for i, w in row)
        worst[0] = max(worst[0], abs(a - t) / (u * scale) if scale else (0.0 if a == t else math.inf))
    scales = [0.0] * len(xv)
    for o, row in enumerate(terms):
        for i, w in row:
            scales[i] += abs(gv[o] * float(w))
    for a, t, s in zip(gx.reshape(-1).tolist(), theirs[3].reshape(-1).tolist(), scales):
        worst[1] = max(worst[1], abs(a - t) / (u * s) if s else (0.0 if a == t else math.inf))
    return worst


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64])
def test_interpolation_matches_pytorch_within_the_measured_bound(torch_ref, case, dtype):
    ours, theirs = _run(scalargrad, case, dtype), _run(torch_ref, case, dtype)
    fa, ft = ours[1].grad_fn, theirs[1].grad_fn
    assert fa.name() == ft.name()
    saved = [{k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved")} for fn in (fa, ft)]
    assert saved[0] == saved[1]
    assert tuple(ours[1].shape) == tuple(theirs[1].shape)
    fwd, bwd = _error_ratio(case, dtype, ours, theirs)
    assert fwd <= BOUND[case[1]["mode"]] and bwd <= BOUND[case[1]["mode"]]


def test_interpolation_double_backward_as_pytorch(torch_ref):
    def run(L):
        x = _rand(L, (1, 1, 2, 3), 4, FLOAT64).requires_grad_()
        y = L.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
        g = _rand(L, tuple(y.shape), 5, FLOAT64).requires_grad_()
        (gx,) = L.autograd.grad(y, x, g, create_graph=True)
        (gg,) = L.autograd.grad(gx, g, _rand(L, (1, 1, 2, 3), 6, FLOAT64))
        return gx.grad_fn.name(), gx, gg

    a, t = run(scalargrad), run(torch_ref)
    assert a[0] == t[0] == "UpsampleBilinear2DBackwardBackward0"
    for p, q in zip(a[1:], t[1:]):
        assert all(abs(u - v) <= 1e-14 * (1 + abs(v)) for u, v in zip(p.reshape(-1).tolist(), q.reshape(-1).tolist()))


def test_upsample_modules_as_pytorch(torch_ref):
    def run(L):
        nn = L.nn
        mods = [nn.Upsample(scale_factor=2, mode="bilinear"), nn.Upsample(size=(3, 5), mode="bicubic",
                                                                         align_corners=True),
                nn.UpsamplingBilinear2d(scale_factor=2), nn.Upsample(scale_factor=(1.5, 2.0), mode="bilinear")]
        x = L.arange(12.0).reshape(1, 1, 3, 4)
        return [repr(m) for m in mods], [m(x).reshape(-1).tolist() for m in mods], mods[2](x).grad_fn is None

    a, t = run(scalargrad), run(torch_ref)
    assert a[0] == t[0] and a[2] == t[2]
    for p, q in zip(a[1], t[1]):
        assert all(abs(u - v) <= 2**-20 * (1 + abs(v)) for u, v in zip(p, q))


def test_interpolation_by_hand():
    # align_corners=True doubles [0, 1] to [0, 1/3, 2/3, 1]: the corners kept, the rest linear
    x = scalargrad.tensor([[[0.0, 3.0]]])
    y = scalargrad.nn.functional.interpolate(x, size=4, mode="linear", align_corners=True)
    assert y.tolist() == [[[0.0, 1.0, 2.0, 3.0]]]
    # align_corners=False: sources (i + 0.5) / 2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25 (edge)
    y = scalargrad.nn.functional.interpolate(x, scale_factor=2, mode="linear")
    assert y.tolist() == [[[0.0, 0.75, 2.25, 3.0]]]


ERRORS = [
    lambda F, L: F.interpolate(L.ones(1, 1, 4), scale_factor=2, mode="bilinear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4, 4), scale_factor=2, mode="linear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4, 4), scale_factor=2, mode="trilinear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 2, 4, 4), scale_factor=2, mode="bilinear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4, 4), scale_factor=2, mode="nearest", align_corners=True),
    lambda F, L: F.interpolate(L.ones(1, 1, 4, 4), size=(2, 2, 2), mode="bilinear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4, 4), mode="bilinear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4), size=4, scale_factor=2, mode="linear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4, 4), scale_factor=0.1, mode="bilinear"),
    lambda F, L: F.interpolate(L.ones(1, 1, 4), scale_factor=2, mode="linear", antialias=True),
]


@pytest.mark.parametrize("make", ERRORS)
def test_interpolation_errors_in_pytorch_words(torch_ref, make):
    msgs = []
    for L in (scalargrad, torch_ref):
        with pytest.raises((RuntimeError, ValueError, NotImplementedError)) as e:
            make(L.nn.functional, L)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


def test_interpolation_gradients_are_proved_by_sympy():
    F = scalargrad.nn.functional
    x = _rand(scalargrad, (1, 1, 3, 3), 7, FLOAT64).requires_grad_()
    loss = (F.interpolate(x, size=(4, 5), mode="bilinear") ** 2).sum() \
        + F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True).sum()
    report = scalargrad.symbolic.sympy_check(loss, [x])
    assert report.ok, report


def _measure() -> None:  # pragma: no cover - a report, run by hand with torch installed
    import torch

    worst: dict = {}
    for seed in range(20):
        for case in CASES:
            for dtype in (FLOAT32, FLOAT64):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = _error_ratio(case, dtype, _run(scalargrad, case, dtype, seed), _run(torch, case, dtype, seed))
                key = (case[1]["mode"], dtype)
                worst[key] = max(worst.get(key, 0.0), *r)
    for key, v in sorted(worst.items()):
        print(key, f"{v:.2f} u * sum (|w_i| + 1) |x_i|")


if __name__ == "__main__":  # pragma: no cover
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    _measure()
