"""``Tensor.fill_diagonal_`` (``_tensor/fill.py``): PyTorch's elements, values and refusals.

Each element is the fill value or untouched (data movement), so results are compared with live
PyTorch exactly; in a graph (PyTorch: CopySlices over an as_strided view) scalargrad refuses by name.
"""

from __future__ import annotations

import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported


def _fills(L):
    out = []
    for shape, value, wrap in (((3, 3), 5, False), ((7, 3), 5, False), ((7, 3), 5, True), ((3, 7), 2.5, True),
                               ((2, 2, 2), -1, False), ((1, 4), 3, True), ((5, 3), 1, True)):
        a = L.zeros(shape)
        r = a.fill_diagonal_(value, wrap=wrap)
        out.append((r is a, a.tolist()))
    t = L.zeros(4, 3).t()  # a non-contiguous view: its own diagonal
    t.fill_diagonal_(7)
    out.append(t.tolist())
    out.append(L.zeros(3, 3, dtype=L.int64).fill_diagonal_(2.7).tolist())
    for shape in ((3,), (2, 3, 2)):
        try:
            L.zeros(shape).fill_diagonal_(1)
        except RuntimeError as e:
            out.append(str(e))
    try:
        L.zeros(3, 3, requires_grad=True).fill_diagonal_(1)
    except RuntimeError as e:
        out.append(str(e))
    with L.no_grad():
        w = L.zeros(2, 2, requires_grad=True)
        w.fill_diagonal_(1)
    out.append(w.tolist())
    return out


def test_fill_diagonal_is_torchs(torch_ref):
    assert _fills(sg) == _fills(torch_ref)


def test_fill_diagonal_in_a_graph_is_refused_by_name():
    y = sg.zeros(3, 3, requires_grad=True) * 1
    with pytest.raises(Unsupported, match="fill_diagonal_"):
        y.fill_diagonal_(2)
