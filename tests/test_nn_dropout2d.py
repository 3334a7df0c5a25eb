"""nn.Dropout / nn.Dropout2d: the elements (channels) dropped after ``manual_seed`` are
PyTorch's (``bernoulli_(1 - p)`` draws from the CPU generator), kept ones scaled by 1 / (1 - p)."""

from __future__ import annotations

import warnings

import pytest

import scalargrad


def _run(L, dtype="float32"):
    L.manual_seed(4)
    x = L.randn(2, 4, 3, 3, dtype=getattr(L, dtype), requires_grad=True)
    d = L.nn.Dropout2d(0.3)
    y = d(x)
    y.sum().backward()
    z = L.nn.Dropout(0.2)(L.ones(3, 5, dtype=getattr(L, dtype)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        u = L.nn.functional.dropout2d(L.ones(2, 3, 2, dtype=getattr(L, dtype)), 0.5)
    d.eval()
    return repr(d), y.tolist(), x.grad.tolist(), y.grad_fn.name(), z.tolist(), u.tolist(), \
        [str(m.message) for m in w], d(x) is x


@pytest.mark.vector_kernels  # the random draws' vectorised transform
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_layers_match_pytorch(torch_ref, dtype):
    assert _run(scalargrad, dtype) == _run(torch_ref, dtype)


def test_dropout2d_zeroes_whole_channels():
    scalargrad.manual_seed(0)
    x = scalargrad.ones(3, 8, 2, 2)
    y = scalargrad.nn.functional.dropout2d(x, 0.5)
    for sample in y.tolist():
        for channel in sample:
            flat = [v for row in channel for v in row]
            # a channel is all zeros or all 1 / (1 - 0.5) = 2
            assert flat == [0.0] * 4 or flat == [2.0] * 4
    assert scalargrad.nn.functional.dropout2d(x, 0.5, training=False) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        scalargrad.nn.Dropout2d(1.5)
