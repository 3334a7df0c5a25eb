"""F.interpolate's nearest, nearest-exact and area modes, nn.Upsample, nn.UpsamplingNearest2d/Bilinear2d.

Nearest upsampling copies the element ATen's ``nearest_idx`` picks (in float32, as ATen computes
it) and its backward adds each gradient into that element, outputs in order: IEEE additions in a
fixed order, so values, gradients and double backward are compared with PyTorch 2.13 bit for bit,
with node names, saved sizes and scales, reprs and errors.
"""

from __future__ import annotations

import math
import random

import pytest

import scalargrad
from scalargrad import symbolic

from faithfulness import same


def _rand(L, shape, seed, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


CASES = [
    ((1, 2, 3, 3), {"scale_factor": 2}),
    ((2, 1, 3, 4), {"size": (5, 7)}),
    ((1, 2, 5, 4), {"size": 3}),  # downsampling
    ((1, 2, 3, 3), {"scale_factor": 1.5}),
    ((1, 1, 4, 5), {"scale_factor": (0.7, 2.3)}),
    ((2, 2, 5), {"scale_factor": 3}),  # 1-D
    ((1, 2, 7), {"size": 10}),
    ((1, 1, 2, 3, 2), {"scale_factor": (2, 1.5, 3)}),  # 3-D
    ((1, 2, 3, 3), {"scale_factor": 2, "recompute_scale_factor": True}),
    ((1, 2, 4, 6), {"scale_factor": 0.5, "mode": "area"}),
    ((1, 2, 5, 7), {"size": (3, 4), "mode": "area"}),
    # nearest-exact: floor((o + 0.5) * scale), the same copies and scatter-adds otherwise
    ((1, 2, 3, 3), {"scale_factor": 1.5, "mode": "nearest-exact"}),
    ((1, 1, 4, 5), {"scale_factor": (0.3, 2.5), "mode": "nearest-exact"}),
    ((2, 2, 5), {"size": 3, "mode": "nearest-exact"}),
    ((1, 2, 7), {"scale_factor": 1.7, "mode": "nearest-exact"}),
    ((1, 1, 2, 3, 2), {"size": (4, 2, 5), "mode": "nearest-exact"}),
]


@pytest.mark.parametrize("shape, kw", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_interpolate_matches_pytorch_bit_for_bit(torch_ref, shape, kw, dtype):
    def run(L):
        x = _rand(L, shape, 1, dtype).requires_grad_()
        y = L.nn.functional.interpolate(x, **kw)
        g = _rand(L, tuple(y.shape), 2, dtype).requires_grad_()
        (gx,) = L.autograd.grad(y, x, g, create_graph=True)
        saved = {k: getattr(y.grad_fn, k) for k in dir(y.grad_fn) if k.startswith("_saved_") and k != "_saved_self"}
        (gg,) = L.autograd.grad(gx, g, _rand(L, shape, 3, dtype))
        return y, gx, gg, (y.grad_fn.name(), gx.grad_fn.name(), saved)

    a, t = run(scalargrad), run(torch_ref)
    assert a[3] == t[3]
    for p, q in zip(a[:3], t[:3]):
        assert tuple(p.shape) == tuple(q.shape)
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


@pytest.mark.parametrize("kw", [{"scale_factor": 2}, {"size": (4, 5)}])
def test_nearest_gradients_are_proved_by_sympy(kw):
    x = _rand(scalargrad, (1, 2, 3, 2), 4, "float64").requires_grad_()
    y = scalargrad.nn.functional.interpolate(x * x, **kw)
    report = symbolic.sympy_check((y * _rand(scalargrad, tuple(y.shape), 5, "float64")).sum(), [x])
    assert report.ok, report


def test_upsample_modules_match_pytorch(torch_ref):
    def run(L):
        mods = [L.nn.Upsample(size=3), L.nn.Upsample(scale_factor=(2, 3)), L.nn.Upsample(scale_factor=2),
                L.nn.UpsamplingNearest2d(size=(3, 4)), L.nn.UpsamplingNearest2d(scale_factor=2),
                L.nn.UpsamplingBilinear2d(scale_factor=2), L.nn.Upsample(scale_factor=2, mode="bilinear")]
        x = _rand(L, (1, 2, 2, 3), 6)
        return ([repr(m) for m in mods], [(m.scale_factor, m.size, m.mode, m.align_corners, m.name) for m in mods],
                [m(x).tolist() for m in mods[:5]])

    assert run(scalargrad) == run(torch_ref)
    # the bilinear ones: tests/test_interpolate.py


ERRORS = [
    lambda F, x: F.interpolate(x, scale_factor=0.2),
    lambda F, x: F.interpolate(x),
    lambda F, x: F.interpolate(x, size=3, scale_factor=2),
    lambda F, x: F.interpolate(x, size=(3,)),
    lambda F, x: F.interpolate(x, size=3, align_corners=True),
    lambda F, x: F.interpolate(x, scale_factor=(2,)),
    lambda F, x: F.interpolate(x, size=(2.5, 2)),
    lambda F, x: F.interpolate(x, size=4, recompute_scale_factor=True),
    lambda F, x: F.interpolate(x[0, 0], scale_factor=2),
    lambda F, x: F.interpolate(x[0], scale_factor=0.2, mode="nearest-exact"),  # 1-D: ATen's words differ
    lambda F, x: F.interpolate(x, scale_factor=2, mode="foo"),
    lambda F, x: F.interpolate(x, scale_factor=2, antialias=True),
]


@pytest.mark.parametrize("call", ERRORS)
def test_interpolate_errors_are_pytorchs(torch_ref, call):
    msgs = []
    for L in (scalargrad, torch_ref):
        with pytest.raises(Exception) as e:  # the error's type and text are compared
            call(L.nn.functional, L.ones(1, 2, 3, 3))
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]
