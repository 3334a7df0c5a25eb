"""quantile and nanquantile (``_tensor/quantiles.py``, issue 23) against live PyTorch 2.13: every
interpolation mode, q a number, a 0-dim or a 1-dim tensor, with and without dim and keepdim, nans;
the values, the graph PyTorch records (sort, gather, lerp_, the in-place squeezes) and the
gradients; PyTorch's errors. The values are picks and ATen's lerp of two neighbours, which
scalargrad computes as the live kernels do (the suite's faithfulness fixture)."""

from __future__ import annotations

import math
import random

import pytest

import scalargrad as sg

from graph_listing import grad_fn_tree

MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


def _graph(f) -> list:
    return grad_fn_tree(f, 10)


def _run(L, mode: str, seed: int) -> list:
    rnd = random.Random(seed)
    x = L.tensor([[rnd.uniform(-3, 3) for _ in range(5)] for _ in range(3)], requires_grad=True)
    out = []
    for q in (0.4, 0.6, 1.0, L.tensor([0.0, 0.25, 0.5, 0.9]), L.tensor(0.3)):
        for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": -1, "keepdim": True}, {"keepdim": True}):
            y = L.quantile(x, q, interpolation=mode, **kw)
            (g,) = L.autograd.grad((y * L.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum(), x)
            out.append((str(kw), [repr(v) for v in y.flatten().tolist()], tuple(y.shape), _graph(y.grad_fn),
                        g.tolist()))
    nans = L.tensor([[1.0, math.nan, 3.0, 2.0], [math.nan] * 4, [5.0, 1.0, math.nan, 0.0]])
    for q in (0.3, L.tensor([0.0, 0.5, 1.0])):
        for fn in (L.quantile, L.nanquantile):
            out.append(repr(fn(nans, q, dim=1, interpolation=mode)).replace("scalargrad", "torch"))
        out.append(repr(nans.nanquantile(q, interpolation=mode)).replace("scalargrad", "torch"))
        out.append(repr(nans.double().quantile(q if not isinstance(q, L.Tensor) else q.double(), 0, True,
                                               interpolation=mode)).replace("scalargrad", "torch"))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_quantile_matches_pytorch(torch_ref, mode):
    assert _run(sg, mode, 3) == _run(torch_ref, mode, 3)


def test_docstring_examples(torch_ref):
    def run(L):
        a = L.tensor([[0.0795, -1.2117, 0.9765], [1.1707, 0.6706, 0.4884]])
        q = L.tensor([0.25, 0.5, 0.75])
        r = [L.quantile(a, q, dim=1, keepdim=True), L.quantile(a, q, dim=1, keepdim=True).shape]
        r += [L.quantile(L.arange(4.0), 0.6, interpolation=m) for m in MODES]
        r += [L.quantile(L.arange(4.0), 0.4, interpolation="nearest"), L.quantile(L.tensor(2.0), 0.3, 0, True)]
        t = L.tensor([float("nan"), 1, 2])
        r += [t.quantile(0.5), t.nanquantile(0.5), L.nanquantile(L.tensor([[float("nan"), float("nan")], [1, 2]]),
                                                                  0.5, dim=0), L.nanquantile(L.tensor([[float(
                                                                      "nan"), float("nan")], [1, 2]]), 0.5, dim=1)]
        return [repr(v).replace("scalargrad", "torch") for v in r]

    assert run(sg) == run(torch_ref)
    assert run(sg)[1] == "torch.Size([3, 2, 1])" and run(sg)[2] == "tensor(1.8000)"


@pytest.mark.parametrize("call", [
    lambda L: L.quantile(L.ones(2, 2), 1.5), lambda L: L.quantile(L.ones(2), -0.1),
    lambda L: L.quantile(L.ones(2), 0.5, interpolation="foo"), lambda L: L.quantile(L.ones(0), 0.5),
    lambda L: L.quantile(L.ones(2, dtype=L.int64), 0.5), lambda L: L.quantile(L.ones(2), L.tensor([0.5]).double()),
    lambda L: L.quantile(L.ones(2), L.tensor([[0.5]])), lambda L: L.quantile(L.ones(2), L.tensor([1.5])),
    lambda L: L.quantile(L.ones(2, 2), 0.5, dim=3), lambda L: L.nanquantile(L.ones(0), 0.5),
    lambda L: L.quantile([1.0, 2.0], 0.5), lambda L: L.quantile(L.ones(2), "0.5"),
])
def test_errors_as_pytorch(torch_ref, call):
    got = []
    for L in (sg, torch_ref):
        with pytest.raises(Exception) as e:
            call(L)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert got[0] == got[1]
