"""``Tensor.new(...)``: the legacy constructor with the tensor's dtype, against live PyTorch
(shapes, dtypes, data and errors; the contents of an uninitialised tensor are not compared)."""

from __future__ import annotations

import scalargrad


def _seen(L) -> list:
    w = L.tensor([[1.5, -2.0]], dtype=L.float64, requires_grad=True)
    i = L.tensor([3, 4])
    out = []
    for make in (lambda: w.new(2, 1, 3).zero_(), lambda: w.new([1, 2]), lambda: w.new(), lambda: i.new([1.7, -2.2]),
                 lambda: w.new(L.Size([2])).fill_(7), lambda: i.new(i), lambda: w.data.new(1, 2).zero_()):
        t = make()
        out.append((t.tolist(), tuple(t.shape), str(t.dtype), t.requires_grad, t.grad_fn is None))
    for bad in (lambda: w.new(i), lambda: w.new(2.5)):
        try:
            bad()
            out.append("no error")
        except TypeError as e:
            out.append(str(e).split("\n")[0])
    return out


def test_new_as_pytorchs(torch_ref):
    assert _seen(scalargrad) == _seen(torch_ref)
