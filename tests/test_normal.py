"""torch.normal (issue 23's census: the most-used name scalargrad lacked, 26 sources, d2l's
``synthetic_data`` and its weight initialisations above all): PyTorch 2.13's four overloads, the
values drawn as ATen draws them (``normal_(mean, std)``; a tensor mean added to ``normal_(0,
std)``; ``normal_(0, 1)`` times a tensor std plus the mean), shapes, dtypes, ``requires_grad``,
generators and the errors, against live PyTorch.

Draws of fewer than 16 elements take ATen's scalar path (the C library's log, cos and sqrt in
double: the same on every machine); 16 or more take its vectorised transform, which scalargrad
models bit for bit for the AVX2/AVX512 kernels (``vector_kernels``: those tests stand aside where
PyTorch runs its generic code).
"""

from __future__ import annotations

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _small(L):
    t = L.tensor
    return [
        lambda: L.normal(0, 1, (3,)), lambda: L.normal(2, 3, size=(1, 4)), lambda: L.normal(0.5, 0.0, size=[2]),
        lambda: L.normal(0, 0.01, size=(2, 1), requires_grad=True), lambda: L.normal(0, 1, size=[]),
        lambda: L.normal(-1.5, 2.0, (2, 3), dtype=L.float64), lambda: L.normal(True, 1.0, (2,)),
        lambda: L.normal(mean=t([1.0, 2.0, 3.0, 4.0, 5.0])), lambda: L.normal(t([1.0, -2.0]), 0.5),
        lambda: L.normal(t(3.0), 2.0), lambda: L.normal(t([[0.0], [10.0]], dtype=L.float64), 0.1),
        lambda: L.normal(mean=0.5, std=t([1.0, 2.0, 3.0])), lambda: L.normal(-3.25, t([[0.5, 0.0], [1.0, 2.0]])),
        lambda: L.normal(t([1.0, 2.0, 3.0]), t([0.1, 1.0, 10.0])),
        lambda: L.normal(t([[0.0], [1.0]]), t([1.0, 2.0, 3.0])),
        lambda: L.normal(t([0.0, 1.0]), t([1.0, 2.0], dtype=L.float64)),
        lambda: L.normal(t([0.0, 1.0], dtype=L.float64), t([1.0, 2.0])), lambda: L.normal(t([]), 1.0),
        lambda: L.normal(0, 1, (2,), generator=L.Generator().manual_seed(7)),
        lambda: L.normal(t([5.0]), 1.0, generator=L.Generator().manual_seed(8)),
        # the result does not require grad when grad mode is off
        lambda: _no_grad(L, lambda: L.normal(t([1.0], requires_grad=True), 1.0)),
    ]


def _no_grad(L, f):
    with L.no_grad():
        return f()


def _seen(L, calls, seed=0) -> list:
    L.manual_seed(seed)
    out = []
    for call in calls:
        r = call()
        out.append((r.tolist(), str(r.dtype), tuple(r.shape), r.requires_grad, r.is_leaf))
    out.append(L.rand(1).item())  # the generator's state after them
    return out


def test_values_shapes_and_dtypes_as_pytorchs(torch_ref):
    assert _seen(scalargrad, _small(scalargrad)) == _seen(torch_ref, _small(torch_ref))


@pytest.mark.vector_kernels  # 16 or more elements: ATen's vectorised normal transform
def test_vectorised_sizes_as_pytorchs(torch_ref):
    def calls(L):
        return [lambda: L.normal(0, 1, (20, 2)), lambda: L.normal(0, 0.01, size=(17,), requires_grad=True),
                lambda: L.normal(L.arange(16.0), 0.5), lambda: L.normal(1.0, L.ones(4, 8)),
                lambda: L.normal(L.zeros(16, 1), L.ones(1, 3)), lambda: L.normal(0, 1, (33,), dtype=L.float64)]

    assert _seen(scalargrad, calls(scalargrad), 3) == _seen(torch_ref, calls(torch_ref), 3)


def _errors(L):
    t = L.tensor
    out = []
    for call in (lambda: L.normal(0.0, 1.0), lambda: L.normal(0, 1, 3), lambda: L.normal("a", 1.0),
                 lambda: L.normal(std=t([1.0])), lambda: L.normal(0, -1, (2,)), lambda: L.normal(t([0.0]), -1.5),
                 lambda: L.normal(t([0.0, 0.0]), t([1.0, -1.0])), lambda: L.normal(t([0.0, 0.0]), t([1.0, 2.0, 3.0])),
                 lambda: L.normal(0, 1, (2,), dtype=L.int64), lambda: L.normal(t([1, 2]), 1.0),
                 lambda: L.normal(t([0.0]), 1.0, dtype=L.float64), lambda: L.normal(0, 1, (2,), bogus=1)):
        try:
            call()
            out.append("no error")
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_errors_as_pytorchs(torch_ref):
    assert _errors(scalargrad) == _errors(torch_ref)


def test_a_mean_or_std_that_requires_grad_is_refused_by_name():
    # PyTorch records NormalBackward1/2/3 (a zero gradient); scalargrad has no such node yet
    for call in (lambda: scalargrad.normal(scalargrad.zeros(2, requires_grad=True), 1.0),
                 lambda: scalargrad.normal(1.0, scalargrad.ones(2, requires_grad=True)),
                 lambda: scalargrad.normal(scalargrad.zeros(2), scalargrad.ones(2, requires_grad=True))):
        with pytest.raises(Unsupported, match=r"^torch\.normal with a mean or std that requires grad is not "
                                              r"supported: .*\(its NormalBackward node"):
            call()
    with pytest.raises(Unsupported, match=r"^torch\.normal\(out=\.\.\.\) is not supported"):
        scalargrad.normal(0, 1, (2,), out=scalargrad.zeros(2))


def test_the_values_follow_atens_order_of_operations():
    # without PyTorch: a tensor std multiplies normal_(0, 1) and then the mean is added, in float32
    scalargrad.manual_seed(11)
    z = scalargrad.randn(3)
    scalargrad.manual_seed(11)
    got = scalargrad.normal(0.1, scalargrad.tensor([1.0, 3.0, 0.5]))
    want = (z * scalargrad.tensor([1.0, 3.0, 0.5])) + scalargrad.tensor(0.1)
    assert got.tolist() == want.tolist()
    scalargrad.manual_seed(11)
    got = scalargrad.normal(scalargrad.tensor([0.1, 0.2, 0.3]), 2.0)
    scalargrad.manual_seed(11)
    want = scalargrad.empty(3).normal_(0.0, 2.0) + scalargrad.tensor([0.1, 0.2, 0.3])
    assert got.tolist() == want.tolist()


def _size_keyword(L) -> list:
    L.manual_seed(4)
    out = [tuple(L.rand(size=(2,)).shape), L.randn(size=[2, 1], dtype=L.float64).tolist(),
           L.zeros(size=(2,), requires_grad=True).tolist(), L.ones(size=L.Size([1, 2])).tolist(),
           tuple(L.empty(size=(3,)).shape), L.rand(2).tolist()]
    for bad in (lambda: L.zeros(2, size=(3,)), lambda: L.ones(size=3)):
        try:
            bad()
            out.append("no error")
        except TypeError as e:
            out.append(str(e))
    return out


def test_factories_take_pytorchs_size_keyword(torch_ref):
    # torch.randn(size=(2, 3)): d2l's spelling; scalargrad's factories took the sizes positionally only
    assert _size_keyword(scalargrad) == _size_keyword(torch_ref)
