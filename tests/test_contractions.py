"""``torch.tensordot``, ``torch.linalg.multi_dot``, ``torch.chain_matmul``
(``_tensor/contractions.py``): shapes, grad_fn chains, gradients and errors against live PyTorch.
Values on small integers are exact on every processor (bit equality); a float case is compared
with an exact Fraction reference within a bound."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import pytest
from program_outcome import described

import scalargrad as sg

from graph_listing import node_chain


def _ints(L, *shape, start=0):
    n = 1
    for s in shape:
        n *= s
    return ((L.arange(n, dtype=L.float32) + start) % 7 - 3).reshape(shape)


TENSORDOT = {
    "default": lambda L, a, b: L.tensordot(a, b),
    "int 1": lambda L, a, b: L.tensordot(a.permute(0, 2, 1), b, 1),
    "int 0": lambda L, a, b: L.tensordot(a[0, 0], b[0, 0], 0),
    "lists": lambda L, a, b: L.tensordot(a, b, ([1, 2], [0, 1])),
    "swapped lists": lambda L, a, b: L.tensordot(a, b.transpose(0, 1), [[2, 1], [0, 1]]),
    "negative dims": lambda L, a, b: L.tensordot(a, b, ([-2], [0])),
    "tensor int": lambda L, a, b: L.tensordot(a, b, L.tensor(2)),
    "tensor lists": lambda L, a, b: L.tensordot(a, b, L.tensor([[1], [0]])),
    "full": lambda L, a, b: L.tensordot(a, a.detach() * 2, 3),
    "broadcast": lambda L, a, b: L.tensordot(a, b[:1], ([1], [0])),
}


@pytest.mark.parametrize("case", sorted(TENSORDOT))
def test_tensordot_as_pytorch(torch_ref, case):
    results = []
    for L in (sg, torch_ref):
        a = _ints(L, 2, 3, 4).requires_grad_()
        b = _ints(L, 3, 4, 5, start=2)
        r = TENSORDOT[case](L, a, b)
        (r * _ints(L, *r.shape, start=1)).sum().backward()
        results.append((tuple(r.shape), r.tolist(), node_chain(r), a.grad.tolist()))
    assert results[0] == results[1]


def test_tensordot_float_within_bound():
    a = sg.linspace(-1.3, 2.1, 24).reshape(2, 3, 4)
    b = sg.linspace(0.7, -1.9, 60).reshape(3, 4, 5)
    r = sg.tensordot(a, b).tolist()
    av, bv = a.reshape(2, 12).tolist(), b.reshape(12, 5).tolist()
    for i, j in itertools.product(range(2), range(5)):
        exact = sum(Fraction(av[i][k]) * Fraction(bv[k][j]) for k in range(12))
        assert abs(Fraction(r[i][j]) - exact) <= 12 * 2.0**-24 * sum(abs(av[i][k] * bv[k][j]) for k in range(12))


TENSORDOT_ERRORS = {
    "mismatch": lambda L: L.tensordot(L.ones(2, 3), L.ones(2, 3), ([1], [1])) and
    L.tensordot(L.ones(2, 3), L.ones(4, 3), ([0], [0])),
    "lengths": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), ([1, 0], [0])),
    "too many": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), 3),
    "negative": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), -1),
    "string": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), "x"),
    "dtypes": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2, dtype=L.float64), 1),
    "repeated": lambda L: L.tensordot(L.ones(2, 2), L.ones(2, 2), ([0, 0], [0, 1])),
    "out of range": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), ([2], [0])),
}


def test_tensordot_errors_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in TENSORDOT_ERRORS.items()} == \
        {k: described(f, torch_ref) for k, f in TENSORDOT_ERRORS.items()}


MULTI_DOT = {
    "two": lambda L, m: L.linalg.multi_dot([m[0], m[1]]),
    "three left": lambda L, m: L.linalg.multi_dot([m[0], m[1], m[2]]),
    "three right": lambda L, m: L.linalg.multi_dot([m[3], m[0], m[1]]),
    "four": lambda L, m: L.linalg.multi_dot([m[3], m[0], m[1], m[2]]),
    "vectors": lambda L, m: L.linalg.multi_dot([m[3][0], m[0], m[1], m[2][:, 0]]),
    "first vector": lambda L, m: L.linalg.multi_dot((m[3][0], m[0])),
    "chain": lambda L, m: L.chain_matmul(m[3], m[0], m[1], m[2]),
    "chain one": lambda L, m: L.chain_matmul(m[0]),
}


@pytest.mark.parametrize("case", sorted(MULTI_DOT))
def test_multi_dot_as_pytorch(torch_ref, case):
    results = []
    for L in (sg, torch_ref):
        x = _ints(L, 2, 3).requires_grad_()
        mats = [x, _ints(L, 3, 6, start=1), _ints(L, 6, 2, start=2), _ints(L, 4, 2, start=3)]
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            r = MULTI_DOT[case](L, mats)
        (r * _ints(L, *r.shape, start=1)).sum().backward()
        results.append((tuple(r.shape), r.tolist(), node_chain(r), x.grad.tolist()))
    assert results[0] == results[1]


def test_chain_matmul_warns_once(recwarn):
    # ATen's TORCH_WARN_ONCE text (LinearAlgebra.cpp); PyTorch's own is once per process, so the
    # text is checked against ATen's source, not a live run that may already have warned
    from scalargrad._base.warn_once import forget

    forget("chain_matmul")
    sg.chain_matmul(sg.ones(2, 2), sg.ones(2, 2))
    sg.chain_matmul(sg.ones(2, 2))
    texts = [str(w.message) for w in recwarn.list if "chain_matmul" in str(w.message)]
    assert texts == ["torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                     "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                     "multiple parameters. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                     "LinearAlgebra.cpp:1102.)"]
    assert recwarn.list[-1].filename == __file__


MULTI_DOT_ERRORS = {
    "one": lambda L: L.linalg.multi_dot([L.ones(2, 2)]),
    "shapes": lambda L: L.linalg.multi_dot([L.ones(3, 4), L.ones(2, 2)]),
    "dtypes": lambda L: L.linalg.multi_dot([L.ones(3, 4), L.ones(4, 2, dtype=L.float64)]),
    "3-d": lambda L: L.linalg.multi_dot([L.ones(2, 2, 2), L.ones(2, 2)]),
    "middle 1-d": lambda L: L.linalg.multi_dot([L.ones(2, 2), L.ones(2), L.ones(2, 2)]),
    "chain none": lambda L: L.chain_matmul(),
    "chain 1-d": lambda L: L.chain_matmul(L.ones(2), L.ones(2, 2)),
}


def test_multi_dot_errors_as_pytorch(torch_ref):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert {k: described(f, sg) for k, f in MULTI_DOT_ERRORS.items()} == \
            {k: described(f, torch_ref) for k, f in MULTI_DOT_ERRORS.items()}
