"""Tensor.grad_dtype against live PyTorch: read on leaves, set to the tensor's own dtype, PyTorch's
errors; another dtype (or None, which the engine would honour when casting) refused by name."""

from __future__ import annotations

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _error(fn, *args) -> str:
    try:
        fn(*args)
    except Exception as e:  # the type and message are compared
        return f"{type(e).__name__}: {e}"
    return "no error"


def test_grad_dtype_reads_and_checks_as_pytorchs(torch_ref):
    seen = []
    for L in (scalargrad, torch_ref):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = L.zeros(2, dtype=L.float64)
        d.grad_dtype = L.float64
        x.grad_dtype = L.float32
        seen.append((repr(x.grad_dtype), repr(d.grad_dtype), _error(getattr, y, "grad_dtype"),
                     _error(setattr, y, "grad_dtype", L.float32),
                     _error(setattr, y, "grad_dtype", 5), _error(setattr, x, "grad_dtype", "x")))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("value", ["float16", None])
def test_another_grad_dtype_is_refused_by_name(value):
    x = scalargrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(Unsupported, match="setting Tensor.grad_dtype"):
        x.grad_dtype = getattr(scalargrad, value) if value else None
    assert x.grad_dtype is scalargrad.float32
