"""torch.unravel_index (``scalargrad/functional.py``), PyTorch's Python composite of floor_divide and
remainder on int64 strides, against live PyTorch: coordinates for every indices shape and integer
dtype (negative indices wrap as ``%`` does), shape as an int, list or Size, and its errors (integer
arithmetic: every processor agrees)."""

from __future__ import annotations

import scalargrad

CASES = [
    lambda L: L.unravel_index(L.tensor(4), (3, 2)),
    lambda L: L.unravel_index(L.tensor([0, 1, 2, 3, 4, 5]), (3, 2)),
    lambda L: L.unravel_index(L.tensor([[1234], [5678]]), (10, 10, 10, 10)),
    lambda L: L.unravel_index(L.tensor([-1, 7], dtype=L.int8), [2, 4]),
    lambda L: L.unravel_index(L.tensor([5]), 3),
    lambda L: L.unravel_index(L.tensor([5]), L.Size([2, 3])),
    lambda L: L.unravel_index(L.tensor([1]), ()),
    lambda L: L.unravel_index(L.tensor([1.0]), (2,)),
    lambda L: L.unravel_index(L.tensor([True]), (2,)),
    lambda L: L.unravel_index(L.tensor([1]), 2.0),
    lambda L: L.unravel_index(L.tensor([1]), (2.0, 1)),
    lambda L: L.unravel_index(L.tensor([1]), (-2, 1)),
    lambda L: L.unravel_index(L.tensor([1]), (2, 0)),
    lambda L: L.unravel_index([1], (2,)),
]


def _outcome(L, case):
    try:
        return repr(case(L))
    except Exception as e:  # the error is the outcome compared
        return type(e).__name__, str(e)


def test_unravel_index_as_pytorch(torch_ref):
    assert [_outcome(scalargrad, c) for c in CASES] == [_outcome(torch_ref, c) for c in CASES]


def test_torch_functional_has_it():
    import scalargrad.functional as F

    assert F.unravel_index is scalargrad.unravel_index
    assert [t.tolist() for t in F.unravel_index(scalargrad.tensor([7, 2]), (2, 4))] == [[1, 0], [3, 2]]
