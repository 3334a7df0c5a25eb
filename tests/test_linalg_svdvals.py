"""``torch.linalg.svdvals`` (``_tensor/linalg_svdvals.py``): singular values computed with mpmath at
40 digits and rounded once, against live PyTorch's LAPACK within the backward-stable bound
(a few float32/float64 epsilons of the largest singular value, per dimension), against values
known by hand exactly, and PyTorch's refusals; the gradient is refused by name."""

from __future__ import annotations

import math

import pytest
from program_outcome import described

import scalargrad as sg
from scalargrad.errors import Unsupported

MATRICES = {
    "2x2": lambda L: L.tensor([[1.0, 2], [3, 4]]),
    "wide": lambda L: L.tensor([[1.0, 2, 3], [4, 5, 6]]),
    "batch": lambda L: L.arange(24.0).reshape(2, 3, 4) * 0.37 - 2,
    "rank-1": lambda L: L.ones(3, 3),
    "float64": lambda L: L.tensor([[1.0, 2], [3, 4]], dtype=L.float64),
    "1x1": lambda L: L.tensor([[-3.0]]),
}


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_within_the_bound_of_lapack(torch_ref, name):
    ours, theirs = sg.linalg.svdvals(MATRICES[name](sg)), torch_ref.linalg.svdvals(MATRICES[name](torch_ref))
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    a, b = MATRICES[name](sg), ours.tolist()
    eps = 2.0**-23 if a.dtype is sg.float32 else 2.0**-52
    rows = [b] if not isinstance(b[0], list) else b
    for mine, ref in zip(rows, theirs.reshape(len(rows), -1).tolist()):
        bound = 8 * eps * max(a.shape[-2:]) * ref[0]
        assert all(abs(x - y) <= bound for x, y in zip(mine, ref)), (mine, ref)


def test_by_hand():
    # diag(3, 2) rotated: singular values 3 and 2 exactly; a rank-1 matrix: 3 and exact zeros
    c, s = 0.6, 0.8
    m = sg.tensor([[3 * c, -2 * s], [3 * s, 2 * c]], dtype=sg.float64)
    assert sg.linalg.svdvals(m).tolist() == pytest.approx([3.0, 2.0], rel=1e-15)
    assert sg.linalg.svdvals(sg.ones(3, 3)).tolist() == [3.0, 0.0, 0.0]
    assert sg.linalg.svdvals(sg.tensor([[0.0, 4.0], [0.0, 0.0]])).tolist() == [4.0, 0.0]
    with pytest.raises(Unsupported, match="LinalgSvdBackward0"):
        sg.linalg.svdvals(sg.ones(2, 2, requires_grad=True))


REFUSALS = {
    "1-d": lambda L: L.linalg.svdvals(L.ones(3)),
    "long": lambda L: L.linalg.svdvals(L.ones(2, 2, dtype=L.long)),
    "empty": lambda L: (L.linalg.svdvals(L.zeros(2, 0)), L.linalg.svdvals(L.zeros(0, 2, 2))),
    "nan": lambda L: L.linalg.svdvals(L.tensor([[math.nan, 2.0], [3.0, 4.0]])),
}


def test_refusals_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in REFUSALS.items()} == {k: described(f, torch_ref)
                                                                   for k, f in REFUSALS.items()}
