"""The joins family's ops added for real programs (issue 23): ``split_with_sizes`` (method and
function), ``block_diag``, against PyTorch 2.13 (values, nodes, gradients and errors; splitting copies no
number, so every processor agrees) and proved by SymPy."""

from __future__ import annotations

import pytest
from composite_cases import run as run_composite

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


# ---------------------------------------------------------------- ATen's composites of joins (issue 23)

COMPOSITES = {
    "ts": lambda L, x: x.tensor_split(2, dim=1),
    "ts3": lambda L, x: L.tensor_split(x, 4, 1),
    "tsi": lambda L, x: x.tensor_split([1, 2], dim=1),
    "tsi2": lambda L, x: x.tensor_split((2, 1, 5), dim=1),
    "tsneg": lambda L, x: x.tensor_split([-1], dim=1),
    "tst": lambda L, x: x.tensor_split(L.tensor([1]), dim=1),
    "tst0": lambda L, x: x.tensor_split(L.tensor(2), dim=1),
    "tsf": lambda L, x: x.tensor_split(L.tensor([1.]), dim=1),
    "ts0": lambda L, x: x.tensor_split(0),
    "ts0d": lambda L, x: x[0, 0].tensor_split(2),
    "hs": lambda L, x: x.hsplit(3), "hsl": lambda L, x: L.hsplit(x, [1]), "hsbad": lambda L, x: x.hsplit(2),
    "hst2": lambda L, x: x.hsplit(L.tensor([2])), "hst0": lambda L, x: x.hsplit(L.tensor(3)),
    "hstn": lambda L, x: x.hsplit(L.tensor([1, 2])),
    "hs1": lambda L, x: x[0].hsplit(3), "hs0": lambda L, x: x[0, 0].hsplit(1),
    "vs": lambda L, x: x.vsplit(2), "vs1": lambda L, x: x[0].vsplit(1), "vsl": lambda L, x: L.vsplit(x, [1]),
    "ds": lambda L, x: x.reshape(1, 2, 3).dsplit(3), "ds1": lambda L, x: x.dsplit(3),
    "hst": lambda L, x: L.hstack([x, x]), "hst1": lambda L, x: L.hstack((x[0], x[1], x[0, 0])),
    "vst": lambda L, x: L.vstack([x, x[0]]), "rst": lambda L, x: L.row_stack([x[1], x[0]]),
    "dst": lambda L, x: L.dstack([x, x]), "dst1": lambda L, x: L.dstack([x[0], x[1]]),
    "cst": lambda L, x: L.column_stack([x[0], x[1], x.t()]),
    "cp": lambda L, x: L.cartesian_prod(x[0], x[1, :2]), "cp1": lambda L, x: L.cartesian_prod(x[0]),
    "cp2d": lambda L, x: L.cartesian_prod(x, x[0]), "cpdt": lambda L, x: L.cartesian_prod(x[0], L.tensor([1, 2])),
    "al1": lambda L, x: L.atleast_1d(x[0, 0]), "al2": lambda L, x: L.atleast_2d(x[0], x[0, 0]),
    "al3": lambda L, x: L.atleast_3d([x, x[0], x[0, 0]]), "al2x": lambda L, x: L.atleast_2d(x),
    "df": lambda L, x: x.diff(), "df0": lambda L, x: L.diff(x, dim=0), "df2": lambda L, x: x.diff(n=2),
    "df5": lambda L, x: x.diff(n=5), "dfn0": lambda L, x: x.diff(n=0), "dfneg": lambda L, x: x.diff(n=-1),
    "dfp": lambda L, x: x.diff(prepend=L.ones(2, 2), append=L.zeros(2, 1)),
    "dfpbad": lambda L, x: x.diff(prepend=L.ones(1, 3)), "dfpdim": lambda L, x: x.diff(prepend=L.ones(3)),
    "dfb": lambda L, x: (x > 1).diff(), "dfi": lambda L, x: L.tensor([1, 4, 9, 2]).diff(n=2),
    "df0d": lambda L, x: x[0, 0].diff(),
    "bd": lambda L, x: L.block_diag(x, x[0], x[0, 0], x[1, :1], x.t()),
    "bddt": lambda L, x: L.block_diag(x, L.tensor([[1, 2]]), L.tensor([True]), L.tensor(2.5, dtype=L.float64)),
    "bde": lambda L, x: L.block_diag(x[:, :0], x, x[:0], L.zeros(0)),
    "bdn": lambda L, x: L.block_diag(), "bd3": lambda L, x: L.block_diag(x, x.reshape(1, 2, 3)),
    "bdi": lambda L, x: L.block_diag(x, 3), "bdl": lambda L, x: L.block_diag([x]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_split_stack_and_diff_composites_are_torchs(torch_ref, name):
    # tensor_split/hsplit/vsplit/dsplit (slices), hstack/vstack/dstack/column_stack/atleast_nd
    # (cat of views), diff (a difference of slices): values, nodes, strides, gradients, refusals
    assert run_composite(scalargrad, COMPOSITES[name]) == run_composite(torch_ref, COMPOSITES[name])


def test_block_diag_by_hand_and_by_sympy():
    a = scalargrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = scalargrad.tensor([5.0, 6.0], requires_grad=True)
    c = scalargrad.tensor(7.0, requires_grad=True)
    y = scalargrad.block_diag(a, b, c)
    assert y.tolist() == [[1.0, 2.0, 0.0, 0.0, 0.0], [3.0, 4.0, 0.0, 0.0, 0.0], [0.0, 0.0, 5.0, 6.0, 0.0],
                          [0.0, 0.0, 0.0, 0.0, 7.0]]
    w = scalargrad.arange(20.0).reshape(4, 5)
    report = sympy_check((y * y * w).sum(), {a: "a", b: "b", c: "c"})
    assert report.ok and report.verified, str(report)
    # d/da_ij of w_ij a_ij^2 is 2 w_ij a_ij: w = 0, 1, 5, 6 at a's places; 12, 13 at b's; 19 at c's
    assert [float(report[k].symbolic) for k in ("a[0, 1]", "a[1, 1]", "b[1]", "c")] == [4.0, 48.0, 156.0, 266.0]


@pytest.mark.no_sympy_check  # PyTorch's gradient is wrong here, on purpose reproduced: the test proves it
def test_block_diag_after_an_empty_vector_has_pytorchs_wrong_gradient_and_sympy_says_so(torch_ref):
    # block_diag gives an empty 1-D input a row (of no columns), but block_diag_backward skips it
    # without moving past that row: the next input gets the gradient of the rows above its own
    def grad(L):
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = L.block_diag(L.zeros(0), x)
        return y, x, L.autograd.grad((y * L.arange(6.0).reshape(3, 2)).sum(), x, retain_graph=True)[0]

    y, x, g = grad(scalargrad)
    assert g.tolist() == grad(torch_ref)[2].tolist() == [[0.0, 1.0], [2.0, 3.0]]  # calculus: [[2, 3], [4, 5]]
    report = sympy_check((y * scalargrad.arange(6.0).reshape(3, 2)).sum(), {x: "x"})
    assert not report.ok and float(report["x[0, 0]"].symbolic) == 2.0


def test_diff_and_tensor_split_by_hand_and_by_sympy():
    x = scalargrad.tensor([1.0, 4.0, 9.0, 16.0], requires_grad=True)
    d = x.diff(n=2)
    assert d.tolist() == [2.0, 2.0] and d.grad_fn.name() == "SubBackward0"
    a, b, c = x.tensor_split(3)
    assert (a.tolist(), b.tolist(), c.tolist()) == ([1.0, 4.0], [9.0], [16.0])
    report = sympy_check((d * scalargrad.tensor([1.0, 10.0])).sum() + (b * b).sum(), {x: "x"})
    assert report.ok and report.verified, str(report)
    # d = (x2 - 2 x1 + x0, x3 - 2 x2 + x1) weighted 1 and 10, plus x2^2
    assert [float(report[f"x[{i}]"].symbolic) for i in range(4)] == [1.0, 8.0, -19.0 + 18.0, 10.0]
