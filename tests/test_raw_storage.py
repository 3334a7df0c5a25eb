"""``Tensor.data_ptr``, ``untyped_storage`` and ``storage`` (issue 23; PyTorch's own tests ask
``a.data_ptr() == b.data_ptr()``): a synthetic address per storage, consistent with sharing,
offsets and sizes as PyTorch's; the bytes themselves refused by name."""

from __future__ import annotations

import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _answers(L):
    out = []
    a = L.ones(3, 4)
    b = a[1:, 2:]
    out.append(b.data_ptr() - a.data_ptr())
    out.append([b.untyped_storage().data_ptr() == a.data_ptr(), a.untyped_storage() is b.untyped_storage(),
                a.untyped_storage().nbytes(), a.untyped_storage().size(), len(a.untyped_storage()),
                b.storage_offset()])
    out.append([a.detach().data_ptr() == a.data_ptr(), a.data.data_ptr() == a.data_ptr(),
                a.clone().data_ptr() == a.data_ptr(), a.t().data_ptr() == a.data_ptr(),
                a.view(12)[5:].data_ptr() - a.data_ptr(), a.reshape(2, 6).data_ptr() == a.data_ptr(),
                a.t().contiguous().data_ptr() == a.data_ptr(), a.contiguous().data_ptr() == a.data_ptr()])
    out.append([L.empty(0).data_ptr(), L.ones(0, 3).untyped_storage().nbytes(),
                L.tensor(3.0).untyped_storage().nbytes(), L.tensor(3.0, device="meta").data_ptr(),
                L.ones(2, dtype=L.float64).untyped_storage().nbytes()])
    x = L.ones(5, dtype=L.int64)
    out.append([x[2].data_ptr() - x.data_ptr(), x.untyped_storage().element_size(), str(x.untyped_storage().device),
                x.untyped_storage().is_shared(), a.data_ptr() % 64, a.data_ptr() != 0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = a.storage()
        s2 = b.storage()
    out.append([len(w) <= 1, type(s).__name__, s.size(), len(s), str(s.dtype), s.nbytes(), s.element_size(),
                str(s.device), s.is_shared(), s.data_ptr() == a.data_ptr(), s2.data_ptr() == a.data_ptr(), s is s2,
                isinstance(a.untyped_storage(), L.UntypedStorage), isinstance(s, L.TypedStorage),
                s.untyped() is a.untyped_storage()])
    c = L.ones(3, 4)  # distinct storages: distinct, disjoint ranges
    out.append([c.data_ptr() != a.data_ptr(), c.data_ptr() >= a.data_ptr() + 48 or c.data_ptr() + 48 <= a.data_ptr()])
    p = L.nn.Parameter(L.ones(2))
    out.append(p.data.data_ptr() == p.data_ptr())
    # a tensor's own nbytes counts its elements, a view's and an expanded tensor's as if they were its own
    out.append([b.nbytes, b.itemsize, x.nbytes, L.ones(4).expand(3, 4).nbytes, L.empty(0).nbytes,
                L.ones(2, dtype=L.bool).nbytes, L.ones(2, dtype=L.float16).itemsize])
    # asking for the address changes nothing: writes, views and gradients behave as before
    w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ptr = w.data_ptr()
    v = w[1:]
    with L.no_grad():
        w.mul_(2)
    (v * w[:2]).sum().backward()
    out.append([v.tolist(), w.grad.tolist(), w.data_ptr() == ptr, v.data_ptr() - ptr, w._version])
    return out


def test_storage_and_addresses_as_pytorchs(torch_ref):
    assert _answers(scalargrad) == _answers(torch_ref)


def test_raw_bytes_are_refused_by_name():
    s = scalargrad.ones(3).untyped_storage()
    for call in (lambda: s.tolist(), lambda: s[0], lambda: repr(s), lambda: s.resize_(0), lambda: s.copy_(s),
                 lambda: scalargrad.UntypedStorage(4), lambda: scalargrad.ones(2, device="meta").untyped_storage()):
        with pytest.raises(Unsupported, match=r"^(torch\.|Tensor\.)\w+.* is not supported"):
            call()
