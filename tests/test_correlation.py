"""cov and corrcoef (``_tensor/correlation.py``, issue 23) against live PyTorch 2.13: composed as
ATen's Correlation.cpp, so the graph, the dtypes, the warning and the errors are PyTorch's. Values
are compared bit for bit where the operands keep every product and sum exact (dyadic data over
a power-of-two count of observations: only the final divisions and square roots round, each
correctly), within a bound where weights make the centred values inexact (``mm`` adds in MKL's
machine-dependent order); gradients, which pass through ``mm``'s backward, within a bound."""

from __future__ import annotations

import math
import warnings

import pytest

import scalargrad as sg

from graph_listing import grad_fn_tree

X = [[0.0, 1.0, 2.0, 3.5], [2.0, 1.0, 0.5, -1.0], [1.0, 1.0, 1.0, 1.0], [-0.25, 4.0, 0.75, 2.0]]
FW, AW = [1, 2, 1, 3], [0.5, 1.0, 2.0, 0.25]
CALLS = {
    "cov": (lambda L, x: L.cov(x), True), "method_correction_0": (lambda L, x: x.cov(correction=0), True),
    "corrcoef": (lambda L, x: L.corrcoef(x), True), "method_corrcoef": (lambda L, x: x.corrcoef(), True),
    "vector": (lambda L, x: L.cov(x[0]), True), "vector_corrcoef": (lambda L, x: L.corrcoef(x[1]), True),
    "correction_4": (lambda L, x: L.cov(x, correction=4), True),
    "fweights": (lambda L, x: L.cov(x, fweights=L.tensor(FW)), False),
    "aweights": (lambda L, x: L.cov(x, aweights=L.tensor(AW)), False),
    "both": (lambda L, x: L.cov(x, correction=2, fweights=L.tensor(FW), aweights=L.tensor(AW)), False),
    "fweights_correction_0": (lambda L, x: L.cov(x, correction=0, fweights=L.tensor(FW)), False),
    "float64": (lambda L, x: L.corrcoef(x.double()), True),
}


def _graph(f) -> list:
    return grad_fn_tree(f, 14)


def _run(L, call):
    x = L.tensor(X, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = call(L, x)
    (g,) = L.autograd.grad((y * L.arange(1.0, 1.0 + y.numel(), dtype=y.dtype).reshape(y.shape)).sum(), x)
    return (y.flatten().tolist(), str(y.dtype), tuple(y.shape), _graph(y.grad_fn), [str(m.message) for m in w],
            g.flatten().tolist())


def _close(a: float, b: float, scale: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= 1e-5 * scale


@pytest.mark.parametrize("name", sorted(CALLS))
def test_matches_pytorch(torch_ref, name):
    call, exact = CALLS[name]
    ours, theirs = _run(sg, call), _run(torch_ref, call)
    assert ours[1:5] == theirs[1:5]
    scale = max([abs(v) for v in theirs[0] + theirs[5] if math.isfinite(v)] + [1.0])
    if exact:
        assert [repr(v) for v in ours[0]] == [repr(v) for v in theirs[0]]
    else:
        assert all(_close(a, b, scale) for a, b in zip(ours[0], theirs[0]))
    assert all(_close(a, b, scale) for a, b in zip(ours[5], theirs[5]))


def test_docstring_examples_and_integers(torch_ref):
    def run(L):
        x = L.tensor([[0, 2], [1, 1], [2, 0]]).T
        fw, aw = L.tensor([1, 6, 9]), L.tensor([0.4282, 0.0255, 0.4144])
        y = L.tensor([[-0.2678, -0.0908, -0.3766, 0.2780], [-0.5812, 0.1535, 0.2387, 0.2350]])
        r = [L.cov(x), L.cov(x, correction=0), L.cov(x, fweights=fw, aweights=aw), L.corrcoef(x), L.corrcoef(y),
             L.corrcoef(y[0]), L.cov(L.tensor([1, 2, 4])), L.corrcoef(L.tensor([[1, 2, 4], [3, 3, 3]])),
             L.cov(L.tensor(2.5)), L.cov(L.tensor([[1.0, 2.0]]), aweights=L.tensor([0.5, 1.0]))]
        return [repr(v).replace("scalargrad", "torch") for v in r]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cov of one observation: the degrees-of-freedom warning
        assert run(sg) == run(torch_ref)
        assert run(sg)[0] == "tensor([[ 1., -1.],\n        [-1.,  1.]])"


@pytest.mark.parametrize("call", [
    lambda L: L.cov(L.ones(2, 2, 2)), lambda L: L.cov(L.ones(2, dtype=L.bool)),
    lambda L: L.cov(L.ones(2, 3), fweights=L.ones(3)), lambda L: L.cov(L.ones(2, 3), fweights=L.tensor([1, 2])),
    lambda L: L.cov(L.ones(2, 3), fweights=L.tensor([[1, 2, 3]])),
    lambda L: L.cov(L.ones(2, 3), fweights=L.tensor([1, -2, 3])),
    lambda L: L.cov(L.ones(2, 3), aweights=L.tensor([1, 2, 3])),
    lambda L: L.cov(L.ones(2, 3), aweights=L.tensor([0.0, 0.0, 0.0])),
    lambda L: L.cov(L.ones(2, 3), aweights=L.tensor([0.5, -1.0, 0.0])),
    lambda L: L.corrcoef(L.ones(2, 2, 2)), lambda L: L.cov([1.0]), lambda L: L.corrcoef([1.0]),
])
def test_errors_as_pytorch(torch_ref, call):
    got = []
    for L in (sg, torch_ref):
        with pytest.raises(Exception) as e:
            call(L)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert got[0] == got[1]


def test_one_weighted_observation_zeroes_the_input_as_pytorch(torch_ref):
    # ATen's corner case zeroes the input's one observation in place (the weighted mean of one
    # value is that value): PyTorch changes the caller's tensor, and so does scalargrad
    def run(L):
        x = L.tensor([[3.0], [5.0]])
        return [repr(L.cov(x, fweights=L.tensor([2]))).replace("scalargrad", "torch"), x.tolist()]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(sg) == run(torch_ref)
