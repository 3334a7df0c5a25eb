"""``torch.cdist`` (``_tensor/distances.py``): both of ATen's paths (CdistBackward0, and
EuclideanDistBackward0 under a view for p = 2 with more than 25 rows or use_mm_for_euclid_dist),
values and gradients against live PyTorch (exact where the distances are integers on every
processor, else within a bound), gradients proved by SymPy, PyTorch's errors."""

from __future__ import annotations

import math

import pytest
from program_outcome import described

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

from graph_listing import node_chain

X1 = [[0.0, 1.0], [2.0, 3.0], [4.0, -1.0]]
X2 = [[1.0, 1.0], [0.0, 0.0]]
ORDERS = [2.0, 1.0, 0.0, math.inf, 3.0, 0.5]


def _run(L, p, mode="use_mm_for_euclid_dist_if_necessary", x1=X1, x2=X2):
    a, b = L.tensor(x1, requires_grad=True), L.tensor(x2, requires_grad=True)
    d = L.cdist(a, b, p, compute_mode=mode)
    meta = (node_chain(d), tuple(d.shape), d.stride())
    (d * (L.arange(d.numel() * 1.0).reshape(d.shape) + 1)).sum().backward()
    return meta, d.flatten().tolist(), a.grad.flatten().tolist(), b.grad.flatten().tolist()


@pytest.mark.parametrize("p", ORDERS, ids=str)
def test_direct_path_as_pytorch(torch_ref, p):
    ours, theirs = _run(sg, p), _run(torch_ref, p)
    assert ours[0] == theirs[0]
    if p in (1.0, 0.0, math.inf):  # integer distances and gradients: exact everywhere
        assert ours[1:] == theirs[1:]
        return
    for mine, ref in zip(ours[1:], theirs[1:]):  # float32 powers and roots: a few ulps
        assert all(abs(x - y) <= 16 * 2.0**-23 * (abs(y) + 1.0) for x, y in zip(mine, ref)), (mine, ref)


@pytest.mark.parametrize("mode, rows", [("use_mm_for_euclid_dist", 3), ("use_mm_for_euclid_dist_if_necessary", 30)])
def test_product_path_as_pytorch(torch_ref, mode, rows):
    x1 = [[(i % 7) * 0.5 - 1.0, (i % 5) * 0.25] for i in range(rows)]
    ours, theirs = _run(sg, 2.0, mode, x1), _run(torch_ref, 2.0, mode, x1)
    assert ours[0] == theirs[0] == (["ViewBackward0", "EuclideanDistBackward0"], (rows, 2), (2, 1))
    for mine, ref in zip(ours[1:], theirs[1:]):  # the product formula cancels: relative to the squared norms
        assert all(abs(x - y) <= 2e-3 * (abs(y) + 1.0) for x, y in zip(mine, ref)), (mine, ref)


def test_by_hand_and_saved():
    d = sg.cdist(sg.tensor(X1, requires_grad=True), sg.tensor(X2))
    assert d[0].tolist() == [1.0, 1.0] and d[1, 0].item() == sg.tensor(math.sqrt(5.0)).item()
    assert d.grad_fn._saved_p == 2.0 and d.grad_fn._saved_result.tolist() == d.tolist()


@pytest.mark.parametrize("p", ORDERS, ids=str)
def test_gradient_proved_by_sympy(p):
    a = sg.tensor(X1, dtype=sg.float64, requires_grad=True)
    b = sg.tensor([[1.0, 1.5], [0.25, 0.0]], dtype=sg.float64, requires_grad=True)
    assert sympy_check((sg.cdist(a, b, p) ** 2).sum(), {a: "a", b: "b"}).ok


def test_batches_and_refusals(torch_ref):
    for L in (sg, torch_ref):
        d = L.cdist(L.tensor(X1)[None].expand(2, 3, 2), L.tensor(X2))
        assert tuple(d.shape) == (2, 3, 2) and d[1].tolist() == L.cdist(L.tensor(X1), L.tensor(X2)).tolist()
    with pytest.raises(Unsupported, match="broadcast batch dimensions"):
        sg.cdist(sg.ones(2, 3, 2), sg.ones(2, 2, requires_grad=True))
    with pytest.raises(Unsupported, match="double backward of torch.cdist"):
        a = sg.tensor(X1, requires_grad=True)
        sg.autograd.grad(sg.cdist(a, sg.tensor(X2)).sum(), a, create_graph=True)


ERRORS = {
    "negative p": lambda L: L.cdist(L.ones(3, 2), L.ones(2, 2), -1.0),
    "columns": lambda L: L.cdist(L.ones(3, 2), L.ones(2, 3)),
    "long": lambda L: L.cdist(L.ones(3, 2).long(), L.ones(2, 2).long()),
    "1-d": lambda L: L.cdist(L.ones(3), L.ones(2, 2)),
    "mode": lambda L: L.cdist(L.ones(3, 2), L.ones(2, 2), compute_mode="x"),
    "dtypes": lambda L: L.cdist(L.ones(3, 2), L.ones(2, 2).double()),
    "half": lambda L: L.cdist(L.ones(3, 2).half(), L.ones(2, 2).half()),
    "empty": lambda L: L.cdist(L.ones(0, 2), L.ones(2, 2)),
}


def test_errors_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in ERRORS.items()} == {k: described(f, torch_ref) for k, f in ERRORS.items()}
