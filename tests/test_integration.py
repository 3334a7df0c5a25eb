"""The trapezoidal rule (``_tensor/integration.py``): trapezoid/trapz and cumulative_trapezoid
as ATen's composites, compared with live PyTorch (values, dtypes, each node of the graph, the
gradient, refusals) on numbers of a few binary digits, whose sums are exact on every processor;
the gradient proved by SymPy."""

from __future__ import annotations

from program_outcome import described

import scalargrad as sg
from scalargrad.symbolic import sympy_check


def _walk(f):
    return None if f is None else (f.name(),) + tuple(_walk(n) for n, _ in f.next_functions)


def _graph(L, fn, *args, **kw):
    y = L.tensor([[1.0, 5.0, 10.0], [2.0, -1.0, 0.5]], requires_grad=True)
    r = getattr(L, fn)(y, *args, **kw)
    (g,) = L.autograd.grad((r * (L.arange(r.numel(), dtype=L.float32).reshape(r.shape) + 1)).sum(), y)
    return r, g, _walk(r.grad_fn)


CASES = {
    # the docstrings' examples
    "trapezoid": lambda L: (L.trapezoid(L.tensor([1, 5, 10])), L.trapezoid(L.tensor([1, 5, 10]), dx=2),
                            L.trapezoid(L.tensor([1, 5, 10]), L.tensor([1, 3, 6])),
                            L.trapezoid(L.arange(9).reshape(3, 3)), L.trapezoid(L.arange(9).reshape(3, 3), dim=0),
                            L.trapezoid(L.ones(3, 3), L.tensor([1, 3, 6])),
                            L.trapezoid(L.ones(3, 3), L.tensor([[1, 2, 3], [1, 3, 5], [1, 4, 7]]))),
    "cumulative": lambda L: (L.cumulative_trapezoid(L.tensor([1, 5, 10])),
                             L.cumulative_trapezoid(L.tensor([1, 5, 10]), dx=2),
                             L.cumulative_trapezoid(L.tensor([1, 5, 10]), L.tensor([1, 3, 6])),
                             L.cumulative_trapezoid(L.arange(9).reshape(3, 3), dim=0),
                             L.cumulative_trapezoid(L.ones(3, 3), L.tensor([[1, 2, 3], [1, 3, 5], [1, 4, 7]]))),
    "grad": lambda L: _graph(L, "trapezoid"),
    "grad-x": lambda L: _graph(L, "trapezoid", L.tensor([0.0, 0.5, 2.0])),
    "grad-dx": lambda L: _graph(L, "trapezoid", dx=0.25, dim=0),
    "cgrad": lambda L: _graph(L, "cumulative_trapezoid"),
    "cgrad-x": lambda L: _graph(L, "cumulative_trapezoid", L.tensor([0.0, 0.5, 2.0])),
    "cgrad-dx": lambda L: _graph(L, "cumulative_trapezoid", dx=3),
    "trapz": lambda L: L.trapz(L.tensor([1.0, 2, 4])),
    "no-samples": lambda L: (L.trapezoid(L.zeros(2, 0)), L.cumulative_trapezoid(L.zeros(2, 0))),
    "one-sample": lambda L: (L.trapezoid(L.tensor([3.0])), L.cumulative_trapezoid(L.tensor([3.0]))),
    "bool": lambda L: L.trapezoid(L.tensor([True, False])),
    "x-length": lambda L: L.trapezoid(L.tensor([1.0, 2]), L.tensor([1.0, 2, 3])),
    "dx-bool": lambda L: L.trapezoid(L.tensor([1.0, 2]), dx=True),
}


def test_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in CASES.items()} == {k: described(f, torch_ref) for k, f in CASES.items()}


def test_by_hand_and_proved():
    y = sg.tensor([1.0, 5.0, 10.0], requires_grad=True)
    x = sg.tensor([1.0, 3.0, 6.0])
    r = sg.trapezoid(y, x)
    assert r.item() == ((3 - 1) * (1 + 5) + (6 - 3) * (5 + 10)) / 2
    report = sympy_check(r, {y: "y"})
    assert report.ok and report.verified, str(report)
    # d/dy_i: half the widths of the intervals beside sample i
    assert [float(report[f"y[{i}]"].symbolic) for i in range(3)] == [1.0, 2.5, 1.5]
    c = sg.cumulative_trapezoid(y)
    assert c.tolist() == [3.0, 10.5]
