"""Index patterns and combinations (``_tensor/combinatorics.py``): tril_indices, triu_indices and
combinations compared with live PyTorch (values, dtype, strides, node names, the gradient
through combinations' composite, refusals); the gradient proved by SymPy."""

from __future__ import annotations

from program_outcome import described

import scalargrad as sg
from scalargrad.symbolic import sympy_check


def _combinations_graph(L, **kw):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = L.combinations(x, **kw)
    w = L.arange(y.numel(), dtype=L.float32).reshape(y.shape)
    (g,) = L.autograd.grad((y * w).sum(), x)
    first = y.grad_fn.next_functions[0][0]
    return y, g, first.name(), first.next_functions[0][0].name()


CASES = {
    "tri": lambda L: (L.tril_indices(3, 3), L.tril_indices(4, 3, -1), L.triu_indices(4, 3, 1),
                      L.triu_indices(3, 5, -1), L.tril_indices(row=3, col=2, offset=1, device="cpu")),
    "tri-empty": lambda L: (L.tril_indices(0, 3).shape, L.triu_indices(3, 0).tolist()),
    "tri-int32": lambda L: L.triu_indices(3, 3, dtype=L.int32),
    "tri-row": lambda L: L.tril_indices(-1, 3),
    "tri-col": lambda L: L.triu_indices(1, -3),
    "tri-float": lambda L: L.tril_indices(3, 3, dtype=L.float32),
    "tri-int8": lambda L: L.tril_indices(3, 3, dtype=L.int8),
    "tri-arg": lambda L: L.tril_indices(3.0, 3),
    "tri-grad": lambda L: L.tril_indices(3, 3, requires_grad=True),
    "comb": lambda L: _combinations_graph(L),
    "comb-repl": lambda L: _combinations_graph(L, r=3, with_replacement=True),
    "comb-ints": lambda L: (L.combinations(L.tensor([1, 2, 3]), 1), L.combinations(L.tensor([1, 2, 3]), 4),
                            L.combinations(input=L.tensor([1, 2, 3, 4]), with_replacement=True)),
    "comb-r0": lambda L: L.combinations(L.tensor([1.0, 2.0, 3.0]), r=0),
    "comb-neg": lambda L: L.combinations(L.tensor([1.0, 2.0, 3.0]), r=-1),
    "comb-2d": lambda L: L.combinations(L.ones(2, 2)),
    "comb-0d": lambda L: L.combinations(L.tensor(3), 2),
}


def test_as_pytorch(torch_ref):
    ours = {k: described(f, sg) for k, f in CASES.items()}
    theirs = {k: described(f, torch_ref) for k, f in CASES.items()}
    assert ours == theirs


def test_by_hand_and_proved():
    assert sg.tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert sg.triu_indices(2, 3, 1).tolist() == [[0, 0, 1], [1, 2, 2]]
    x = sg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = sg.combinations(x)
    assert y.tolist() == [[0.5, -1.0], [0.5, 2.0], [-1.0, 2.0]]
    report = sympy_check((y[:, 0] * y[:, 1]).sum(), {x: "x"})
    assert report.ok and report.verified, str(report)
    # d/dx0 of x0 x1 + x0 x2 + x1 x2 is x1 + x2 = 1
    assert [float(report[f"x[{i}]"].symbolic) for i in range(3)] == [1.0, 2.5, -0.5]
