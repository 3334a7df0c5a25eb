"""The joins family's ops added for real programs (issue 23): ``split_with_sizes`` (method and
function), against PyTorch 2.13 (values, nodes, gradients and errors; splitting copies no
number, so every processor agrees) and proved by SymPy."""

from __future__ import annotations

import pytest

import scalargrad
from scalargrad.symbolic import sympy_check

CALLS = {
    "method": lambda lib, x: x.split_with_sizes([1, 3, 0, 2], dim=1),
    "function": lambda lib, x: lib.split_with_sizes(x, (2, 1), dim=0),
    "keywords": lambda lib, x: x.split_with_sizes(split_sizes=[4, 2], dim=-1),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_split_with_sizes_is_pytorchs(torch_ref, call):
    out = {}
    for lib in (scalargrad, torch_ref):
        x = lib.arange(18.0).reshape(3, 6).requires_grad_()
        parts = CALLS[call](lib, x)
        loss = sum(((i + 1.5) * p * p).sum() for i, p in enumerate(parts))
        loss.backward()
        out[lib] = ([p.tolist() for p in parts], [p.grad_fn.name() for p in parts], x.grad.tolist())
    assert out[scalargrad] == out[torch_ref]
    assert out[scalargrad][1][0] == "SplitWithSizesBackward0"


ERRORS = [lambda lib, x: x.split_with_sizes(2), lambda lib, x: x.split_with_sizes([2, -1, 5]),
          lambda lib, x: x.split_with_sizes([2, 3]), lambda lib, x: x.split_with_sizes((2.0, 4)),
          lambda lib, x: lib.split(x, [7, -1])]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_split_with_sizes_refuses_as_pytorch(torch_ref, i):
    seen = []
    for lib in (scalargrad, torch_ref):
        with pytest.raises(Exception) as e:
            ERRORS[i](lib, lib.arange(6.0))
        seen.append((type(e.value).__name__, str(e.value)))
    assert seen[0] == seen[1]


def test_split_with_sizes_gradient_is_proved_by_sympy():
    x = scalargrad.tensor([0.5, -1.0, 2.0, 3.0], requires_grad=True)
    a, b = x.split_with_sizes([1, 3])
    report = sympy_check((a * a).sum() + (b * scalargrad.tensor([1.0, 2.0, 3.0])).sum(), {x: "x"})
    assert report.ok and report.verified, str(report)
    # d/dx0 of x0^2 is 2 x0 = 1; d/dx_{i} of the rest is its weight
    assert [float(report[f"x[{i}]"].symbolic) for i in range(4)] == [1.0, 1.0, 2.0, 3.0]
