"""nansum and nanmean (``_tensor/nan_reductions.py``) against live PyTorch 2.13: values, node
names (NansumBackward0; nanmean is PyTorch's composite nansum / count: DivBackward0), gradients
(0 at the nan elements), dims, keepdim, dtype, integer inputs and PyTorch's refusal of an integer
nanmean. The data are quarters, whose float32 sums are exact in any order, so the comparison is
bit for bit under every kernel setting (sum's order itself is tested in test_reductions.py)."""

from __future__ import annotations

import math
import random

import pytest

import scalargrad as sg


def _data(seed: int, n: int) -> list:
    rnd = random.Random(seed)
    return [math.nan if rnd.random() < 0.25 else rnd.randint(-40, 40) / 4 for _ in range(n)]


CALLS = [
    ("nansum()", lambda L, x: L.nansum(x)),
    ("x.nansum(1)", lambda L, x: x.nansum(1)),
    ("nansum(dim=0, keepdim)", lambda L, x: L.nansum(x, dim=0, keepdim=True)),
    ("nansum(dim=(0, 2))", lambda L, x: L.nansum(x, (0, 2))),
    ("nansum(dtype=float64)", lambda L, x: x.nansum(dtype=L.float64)),
    ("nanmean()", lambda L, x: x.nanmean()),
    ("nanmean(-1)", lambda L, x: L.nanmean(x, -1)),
    ("nanmean(1, keepdim)", lambda L, x: x.nanmean(1, keepdim=True)),
]


def _run(L, call, shape, seed):
    n = math.prod(shape)
    x = L.tensor(_data(seed, n)).reshape(shape).requires_grad_()
    y = call(L, x)
    (g,) = L.autograd.grad((y * L.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum(), x)
    return [repr(v) for v in y.detach().flatten().tolist()], y.grad_fn.name(), str(y.dtype), tuple(y.shape), \
        [repr(v) for v in g.flatten().tolist()]


@pytest.mark.parametrize("shape, seed", [((2, 3, 4), 1), ((3, 5, 2), 2), ((4, 1, 9), 3)])
@pytest.mark.parametrize("text, call", CALLS)
def test_matches_pytorch(torch_ref, text, call, shape, seed):
    assert _run(sg, call, shape, seed) == _run(torch_ref, call, shape, seed)


def test_without_nan_it_is_sum():
    x = sg.tensor([[0.5, 1.25], [-2.0, 4.0]], requires_grad=True)
    y = sg.nansum(x * x)
    assert y.item() == (x * x).sum().item()
    (g,) = sg.autograd.grad(y, x)  # the suite's SymPy check proves NansumBackward0 on this pass
    assert g.tolist() == [[1.0, 2.5], [-4.0, 8.0]]


def test_integers(torch_ref):
    out = []
    for L in (sg, torch_ref):
        x = L.tensor([[1, 2], [3, 4]])
        try:
            x.nanmean()
            err = None
        except RuntimeError as e:
            err = str(e)
        out.append((L.nansum(x).item(), str(L.nansum(x).dtype), x.nansum(0).tolist(), err))
    assert out[0] == out[1]
