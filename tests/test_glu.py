"""F.glu / nn.GLU against live PyTorch 2.13: one GluBackward0 node (saved dim), the output
``a * sigmoid(b)`` over the halves of ``dim``. ATen's kernel uses its vectorised exp (the last
bit depends on the build): scalargrad rounds the exact value once, so float32 is compared with
PyTorch's float64 result within 4 float32 units (a wrong half or formula is far off)."""

from __future__ import annotations

import random

import pytest

import scalargrad
from scalargrad._base.errors import Unsupported


def _run(L, dtype, dim):
    rng = random.Random(4)
    dt = getattr(L, dtype)
    x = L.tensor([rng.uniform(-3, 3) for _ in range(48)], dtype=dt).reshape(2, 4, 6).requires_grad_()
    y = L.nn.GLU(dim)(x)
    g = L.tensor([rng.uniform(-1, 1) for _ in range(y.numel())], dtype=dt).reshape(y.shape)
    meta = (repr(L.nn.GLU(dim)), y.grad_fn.name(), y.grad_fn._saved_dim, tuple(y.shape))
    return meta, [y.detach(), L.autograd.grad(y, x, g)[0]]


@pytest.mark.parametrize("dim", [-1, 1, 0])
def test_glu_matches_pytorch(torch_ref, dim):
    ma, va = _run(scalargrad, "float32", dim)
    mt, vt = _run(torch_ref, "float64", dim)
    assert ma == mt
    for a, b in zip(va, vt):
        p, q = a.reshape(-1).tolist(), b.reshape(-1).tolist()
        assert all(abs(u - w) <= 4 * 2.0**-24 * max(abs(w), 2.0**-126) for u, w in zip(p, q))


def test_glu_errors_and_double_backward(torch_ref):
    for fn in (lambda L: L.nn.functional.glu(L.ones(2, 3)), lambda L: L.nn.functional.glu(L.tensor(1.0)),
               lambda L: L.nn.functional.glu(L.ones(2, 4), 2)):
        got = []
        for L in (scalargrad, torch_ref):
            with pytest.raises(Exception) as e:
                fn(L)
            got.append((type(e.value).__name__, str(e.value)))
        assert got[0] == got[1]
    x = scalargrad.ones(2, 4, requires_grad=True)
    with pytest.raises(Unsupported, match="double backward of glu"):
        scalargrad.autograd.grad(scalargrad.nn.functional.glu(x).sum(), x, create_graph=True)
