"""torch.histogramdd (``_tensor/counting.py``, issue 23) against live PyTorch 2.13: bins as an int,
a list of ints or a list of edge tensors, range, weight, density, the docstring's examples and
PyTorch's errors. Counting and linspace edges are the same on every processor: bit for bit.
A grad-requiring input is refused by name, as histogram's is (PyTorch records a NotImplemented
node there)."""

from __future__ import annotations

import random

import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported


def _points(L):
    rnd = random.Random(4)
    return L.tensor([[rnd.uniform(-2, 3) for _ in range(3)] for _ in range(40)])


CALLS = [
    lambda L: L.histogramdd(L.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), bins=[3, 3],
                            weight=L.tensor([1.0, 2.0, 4.0, 8.0])),
    lambda L: L.histogramdd(L.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), bins=[2, 2], range=[0.0, 1.0, 0.0, 1.0],
                            density=True),
    lambda L: L.histogramdd(_points(L), bins=4), lambda L: L.histogramdd(_points(L), bins=[2, 3, 5], density=True),
    lambda L: L.histogramdd(_points(L).reshape(5, 8, 3), bins=[L.tensor([-2.0, 0.0, 1.0, 3.0]), L.tensor([-1.0, 1.0]),
                                                              L.tensor([0.0, 0.5, 1.0, 2.0, 2.5])]),
    lambda L: L.histogramdd(_points(L), bins=3, range=[-1.0, 1.0, 0.0, 2.0, -3.0, 3.0], weight=L.arange(40.0)),
    lambda L: L.histogramdd(_points(L).double(), bins=[3, 1, 2]),
    lambda L: L.histogramdd(L.tensor([[1.0, 1.0], [1.0, 1.0]]), bins=2), lambda L: L.histogramdd(L.ones(0, 2), bins=2),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_matches_pytorch(torch_ref, i):
    assert repr(CALLS[i](sg)).replace("scalargrad", "torch") == repr(CALLS[i](torch_ref))


@pytest.mark.parametrize("call", [
    lambda L: L.histogramdd(L.ones(3), bins=2), lambda L: L.histogramdd(L.ones(3, 2), bins=[2]),
    lambda L: L.histogramdd(L.ones(3, 2), bins=2, range=[0.0, 1.0]),
    lambda L: L.histogramdd(L.ones(3, 2).long(), bins=2),
    lambda L: L.histogramdd(L.ones(3, 2), bins=2, weight=L.ones(2)),
    lambda L: L.histogramdd(L.tensor([[0.0, float("inf")]]), bins=2),
    lambda L: L.histogramdd(L.ones(3, 2), bins=[2, 0]),
    lambda L: L.histogramdd(L.ones(3, 2), bins=2, range=[0.0, 1.0, 3.0, 2.0]),
    lambda L: L.histogramdd(L.ones(3, 2), bins=2, weight=L.ones(3).double()),
    lambda L: L.histogramdd(L.ones(3, 2), bins=[L.ones(2), L.ones(2).double()]),
])
def test_errors_as_pytorch(torch_ref, call):
    got = []
    for L in (sg, torch_ref):
        with pytest.raises(Exception) as e:
            call(L)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert got[0] == got[1]


def test_requires_grad_is_refused_by_name():
    with pytest.raises(Unsupported, match="histogramdd of a tensor that requires grad"):
        sg.histogramdd(sg.ones(3, 2, requires_grad=True), bins=2)
    with sg.no_grad():
        assert sg.histogramdd(sg.ones(3, 2, requires_grad=True), bins=2).hist.tolist() == [[0.0, 0.0], [0.0, 3.0]]
