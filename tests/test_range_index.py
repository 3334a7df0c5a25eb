"""A Python ``range`` in an index is a sequence of ints (``logprobs[range(n), Yb]`` in
makemore), and a list index is int64 unless it holds bools (an empty list too, floats
truncated), as PyTorch's indexing_tensor_from_data reads it; against live PyTorch."""

from __future__ import annotations

import scalargrad


def _seen(L) -> list:
    x = L.arange(12.0).view(3, 4).requires_grad_()
    out = []
    for idx in [(range(3), L.tensor([0, 1, 2])), range(2), (slice(None), range(1, 4, 2)), range(0),
                (range(3), [1, 1, 0]), range(-1, 1), [], [1.7, 0], [True, False, True], ([], 1)]:
        y = x[idx]
        out.append((y.tolist(), tuple(y.shape), type(y.grad_fn).__name__))
    z = L.zeros(3, 4)
    z[range(3), [0, 1, 2]] = 5.0
    z[range(1, 3)] += 1
    out.append(z.tolist())
    x[range(3), L.tensor([3, 2, 1])].sum().backward()
    out.append(x.grad.tolist())
    return out


def test_range_and_list_indices_as_pytorchs(torch_ref):
    assert _seen(scalargrad) == _seen(torch_ref)
