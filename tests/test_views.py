"""The views family's spellings added for real programs (issue 23): ``movedim``/``moveaxis``
(one permute, PermuteBackward0; a 0-dim tensor's alias), against PyTorch 2.13: shapes,
strides, nodes, values, gradients and errors (no arithmetic: every machine agrees)."""

from __future__ import annotations

import pytest

import scalargrad

MOVES = [lambda lib, x: x.movedim(0, 2), lambda lib, x: x.movedim((0, 1), (2, 0)),
         lambda lib, x: lib.movedim(x, -1, 0), lambda lib, x: lib.moveaxis(x, 0, 1),
         lambda lib, x: x.moveaxis([2, 0], [0, -1]), lambda lib, x: x.movedim((), ()),
         lambda lib, x: x.movedim(source=1, destination=-1)]
BAD_MOVES = [lambda lib, x: x.movedim((0, 1), (2,)), lambda lib, x: x.movedim(0, 3),
             lambda lib, x: x.movedim((0, 0), (1, 2)), lambda lib, x: x.movedim((0, 1), (1, 1))]


@pytest.mark.parametrize("i", range(len(MOVES)))
def test_movedim_is_pytorchs(torch_ref, i):
    out = []
    for lib in (scalargrad, torch_ref):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = MOVES[i](lib, x)
        (y * lib.arange(24.0).reshape(y.shape)).sum().backward()
        out.append((tuple(y.shape), y.stride(), y.grad_fn.name(), y.tolist(), x.grad.tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize("i", range(len(BAD_MOVES)))
def test_movedim_refuses_as_pytorch(torch_ref, i):
    out = []
    for lib in (scalargrad, torch_ref):
        with pytest.raises((RuntimeError, IndexError)) as e:
            BAD_MOVES[i](lib, lib.zeros(2, 3, 4))
        out.append((type(e.value).__name__, str(e.value)))
    assert out[0] == out[1]


def test_movedim_of_a_0dim_tensor_is_its_alias(torch_ref):
    out = []
    for lib in (scalargrad, torch_ref):
        x = lib.tensor(2.0, requires_grad=True)
        y = x.movedim(0, -1)
        out.append((y.grad_fn.name(), y._base is x, y.item()))
    assert out[0] == out[1]
