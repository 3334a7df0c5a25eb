"""The products family's ops added for real programs (issue 23): ``addr`` (AddrBackward0), the
outer product of two vectors added to a matrix.

Compared with PyTorch bit for bit where every product is exact (dyadic operands, so the kernel's
fused or unfused multiply-add gives one number), and within a bound elsewhere: PyTorch's AVX2
kernel fuses the multiply-add in its scalar tail, its vectorised body and
``ATEN_CPU_CAPABILITY=default`` round the product first, as scalargrad does. Gradients are
``mv`` products (MvBackward0 under create_graph) and are proved by SymPy.
"""

from __future__ import annotations

import random
import struct

import pytest

import scalargrad
from scalargrad.symbolic import sympy_check


def _f32_ulp(x: float) -> float:
    m = struct.unpack("<I", struct.pack("<f", abs(x)))[0]
    return 2.0 ** max(((m >> 23) & 0xFF) - 150, -149) if m else 2.0 ** -149


def _run(L, f):
    try:
        s = L.tensor([[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]], requires_grad=True)
        a = L.tensor([1.5, -2.0], requires_grad=True)
        b = L.tensor([0.25, 4.0, -1.0], requires_grad=True)
        y = f(L, s, a, b)
        w = L.arange(y.numel(), dtype=y.dtype).reshape(y.shape) - 2.5
        gs = L.autograd.grad((y * y * w).sum(), (s, a, b), create_graph=True, allow_unused=True)
        hs = L.autograd.grad(sum(g.sum() for g in gs if g is not None), (s, a, b), allow_unused=True)
        saved = {k: getattr(y.grad_fn, k) for k in dir(y.grad_fn) if k.startswith("_saved")}
        saved = {k: v.tolist() if hasattr(v, "tolist") else v for k, v in saved.items()}
        return (y.tolist(), str(y.dtype), y.grad_fn.name(), saved,
                [None if g is None else (g.tolist(), g.grad_fn.name() if g.grad_fn else None) for g in gs],
                [None if h is None else h.tolist() for h in hs])
    except Exception as e:  # the refusal is compared
        return (type(e).__name__, str(e).splitlines()[0])


CASES = {
    "addr": lambda L, s, a, b: L.addr(s, a, b), "method": lambda L, s, a, b: s.addr(a, b),
    "broadcast_row": lambda L, s, a, b: L.addr(s[0], a, b), "broadcast_0d": lambda L, s, a, b: L.addr(s[0, 0], a, b),
    "keywords": lambda L, s, a, b: L.addr(s, vec1=a, vec2=b),
    "float64": lambda L, s, a, b: L.addr(s.double(), a.double(), b.double()),
    "no_grad_operands": lambda L, s, a, b: L.addr(s.detach(), a, b.detach()),
    "wrong_size": lambda L, s, a, b: L.addr(s, a, L.ones(4)),
    "matrix_vec1": lambda L, s, a, b: L.addr(s, L.ones(2, 1), b),
    "no_broadcast": lambda L, s, a, b: L.addr(L.ones(2, 2), a, b),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_addr_is_torchs(torch_ref, name):
    assert _run(scalargrad, CASES[name]) == _run(torch_ref, CASES[name])


def test_addr_of_integers_and_mixed_dtypes_is_torchs(torch_ref):
    def run(L):
        return [L.addr(L.ones(2, 3, dtype=L.int64), L.tensor([1, 2]), L.tensor([1, 2, 3])).tolist(),
                str(L.addr(L.ones(2, 3), L.tensor([1, 2]), L.tensor([1, 2, 3])).dtype)]

    assert run(scalargrad) == run(torch_ref)


def test_addr_within_the_fused_kernels_bound(torch_ref):
    # random float32 operands: PyTorch's kernel may fuse the multiply-add, so the two agree within
    # half an ulp of the product plus an ulp of the result
    rnd = random.Random(5)
    s = [[rnd.uniform(-2, 2) for _ in range(19)] for _ in range(3)]
    a, b = [rnd.uniform(-2, 2) for _ in range(3)], [rnd.uniform(-2, 2) for _ in range(19)]
    ours = scalargrad.addr(scalargrad.tensor(s), scalargrad.tensor(a), scalargrad.tensor(b)).tolist()
    ta, tb = torch_ref.tensor(a).tolist(), torch_ref.tensor(b).tolist()
    theirs = torch_ref.addr(torch_ref.tensor(s), torch_ref.tensor(a), torch_ref.tensor(b)).tolist()
    for i in range(3):
        for j in range(19):
            bound = _f32_ulp(ta[i] * tb[j]) / 2 + _f32_ulp(theirs[i][j])
            assert abs(ours[i][j] - theirs[i][j]) <= bound


def test_addr_gradient_is_proved_by_sympy():
    s = scalargrad.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    a = scalargrad.tensor([1.5, -2.0], requires_grad=True)
    b = scalargrad.tensor([0.25, 4.0], requires_grad=True)
    y = scalargrad.addr(s, a, b)
    report = sympy_check((y * y).sum(), {s: "s", a: "a", b: "b"})
    assert report.ok and report.verified, str(report)
    # d/da0 of sum_j (s0j + a0 bj)^2 = 2 sum_j bj (s0j + a0 bj) = 2 (0.25 * 0.875 + 4 * 5) = 40.4375
    assert float(report["a[0]"].symbolic) == 40.4375
