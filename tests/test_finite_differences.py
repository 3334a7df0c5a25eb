"""torch.gradient (``_tensor/finite_differences.py``, issue 23) against live PyTorch 2.13: every
spacing form (a number, a list of numbers, coordinate tensors), dim as an int or a list,
edge_order 1 and 2, integer inputs. Composed of elementwise ops as ATen composes it, so values
(each op correctly rounded in turn) and graphs are compared bit for bit; the gradients too where
the spacing is numbers. With coordinate tensors the gradients gather many contributions into the
coordinates and scalargrad adds them in another order than PyTorch's engine in places: compared
within a bound (noted in the report of issue 23's round)."""

from __future__ import annotations

import math

import pytest

import scalargrad as sg

from graph_listing import grad_fn_tree


def _graph(f) -> list:
    return grad_fn_tree(f, 10)


CALLS = {
    "default": (lambda L, x, m, c, c0, c1: L.gradient(x), True),
    "edge_order_2": (lambda L, x, m, c, c0, c1: L.gradient(x, edge_order=2), True),
    "coordinates": (lambda L, x, m, c, c0, c1: L.gradient(x, spacing=(c,)), False),
    "coordinates_edge_2": (lambda L, x, m, c, c0, c1: L.gradient(x, spacing=[c], edge_order=2), False),
    "matrix": (lambda L, x, m, c, c0, c1: L.gradient(m), True),
    "number": (lambda L, x, m, c, c0, c1: L.gradient(m, spacing=2.0), True),
    "dim": (lambda L, x, m, c, c0, c1: L.gradient(m, dim=1), True),
    "numbers": (lambda L, x, m, c, c0, c1: L.gradient(m, spacing=[3.0, 2.0]), True),
    "matrix_coordinates": (lambda L, x, m, c, c0, c1: L.gradient(m, spacing=(c0, c1), edge_order=2), False),
    "coordinates_dim": (lambda L, x, m, c, c0, c1: L.gradient(m, spacing=(c1,), dim=1), False),
    "int_step_dims": (lambda L, x, m, c, c0, c1: L.gradient(m, spacing=3, dim=[1, 0], edge_order=2), True),
    "negative_dim": (lambda L, x, m, c, c0, c1: L.gradient(m, spacing=[0.5], dim=-1), True),
    "float64": (lambda L, x, m, c, c0, c1: L.gradient(m.double(), spacing=(c0.double(), c1.double())), False),
}


def _run(L, call):
    x = L.tensor([1.0, 2.0, 4.0, 8.0, 3.0], requires_grad=True)
    m = L.tensor([[1.0, 2.0, 4.0, 8.5], [10.0, 20.0, 40.0, 80.0], [0.5, -1.0, 3.0, 2.0]], requires_grad=True)
    c = L.tensor([0.0, 1.0, 3.0, 4.0, 7.0], requires_grad=True)
    c0, c1 = L.tensor([0.0, 2.0, 3.0], requires_grad=True), L.tensor([0.0, 3.0, 6.0, 10.0], requires_grad=True)
    out = call(L, x, m, c, c0, c1)
    s = sum((t * L.arange(1.0, 1.0 + t.numel(), dtype=t.dtype).reshape(t.shape)).sum() for t in out)
    grads = L.autograd.grad(s, (x, m, c, c0, c1), allow_unused=True)
    return ([repr(t).replace("scalargrad", "torch") for t in out],
            [[repr(v) for v in t.flatten().tolist()] for t in out],
            [_graph(t.grad_fn) for t in out], [None if g is None else g.flatten().tolist() for g in grads])


@pytest.mark.parametrize("name", sorted(CALLS))
def test_matches_pytorch(torch_ref, name):
    call, exact_grads = CALLS[name]
    ours, theirs = _run(sg, call), _run(torch_ref, call)
    assert ours[:3] == theirs[:3]
    if exact_grads:
        assert ours[3] == theirs[3]
    else:
        for a, b in zip(ours[3], theirs[3]):
            assert (a is None) == (b is None)
            if a is not None:
                scale = max(abs(v) for v in b)
                assert all(math.isclose(u, v, rel_tol=0, abs_tol=1e-6 * scale) for u, v in zip(a, b))


def test_docstring_examples(torch_ref):
    def run(L):
        t = L.tensor([[1, 2, 4, 8], [10, 20, 40, 80]])
        r = [L.gradient(L.tensor([4.0, 1.0, 1.0, 16.0]), spacing=(L.tensor([-2.0, -1.0, 1.0, 4.0]),)), L.gradient(t),
             L.gradient(t, spacing=2.0), L.gradient(t, dim=1), L.gradient(t, spacing=[3.0, 2.0]),
             L.gradient(t, spacing=(L.tensor([0, 2]), L.tensor([0, 3, 6, 9]))),
             L.gradient(L.tensor([1, 2, 4, 7]), spacing=2, edge_order=2)]
        return [repr(v).replace("scalargrad", "torch") for v in r]

    assert run(sg) == run(torch_ref)
    assert run(sg)[0] == "(tensor([-3., -2.,  2.,  5.]),)"


@pytest.mark.parametrize("call", [
    lambda L: L.gradient(L.tensor([1, 2], dtype=L.uint8)), lambda L: L.gradient(L.ones(5), edge_order=3),
    lambda L: L.gradient(L.ones(2), edge_order=2), lambda L: L.gradient(L.ones(5), spacing=[1.0, 2.0]),
    lambda L: L.gradient(L.ones(5), spacing=[1.0, 2.0], dim=[0]),
    lambda L: L.gradient(L.ones(5), spacing=(L.ones(1, 5),)), lambda L: L.gradient(L.ones(5), dim=1),
    lambda L: L.gradient(L.ones(3, 3), dim=[0, 0]), lambda L: L.gradient([1.0, 2.0]),
])
def test_errors_as_pytorch(torch_ref, call):
    got = []
    for L in (sg, torch_ref):
        with pytest.raises(Exception) as e:
            call(L)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert got[0] == got[1]
