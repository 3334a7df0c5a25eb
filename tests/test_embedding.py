"""nn.Embedding, nn.functional.embedding and one_hot.

The forward copies rows and the backward adds gradient rows in index order (IEEE): compared with
PyTorch 2.13 bit for bit (``lib`` runs a test on both libraries; ``torch_ref`` compares); the
initial weights are PyTorch's N(0, 1) draws after ``manual_seed``.
"""

from __future__ import annotations

import random

import pytest

import scalargrad

from faithfulness import same


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _case(L, padding_idx, scale, dtype, create_graph=False):
    L.manual_seed(11)
    emb = L.nn.Embedding(6, 3, padding_idx=padding_idx, scale_grad_by_freq=scale, dtype=getattr(L, dtype))
    idx = L.tensor([[1, 4, 1, 0], [4, 4, 5, 1]])
    y = emb(idx)
    rng = random.Random(2)
    g = L.tensor([rng.uniform(-2, 2) for _ in range(24)], dtype=getattr(L, dtype)).reshape(2, 4, 3)
    (gw,) = L.autograd.grad(y, emb.weight, g, create_graph=create_graph)
    return emb, y, gw


@pytest.mark.vector_kernels  # the weight's normal_ draws
@pytest.mark.parametrize("padding_idx", [None, 4, -2])
@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_matches_pytorch_bit_for_bit(torch_ref, padding_idx, scale, dtype):
    a = _case(scalargrad, padding_idx, scale, dtype)
    b = _case(torch_ref, padding_idx, scale, dtype)
    assert a[0].weight.tolist() == b[0].weight.tolist()
    assert a[1].tolist() == b[1].tolist() and a[1].grad_fn.name() == b[1].grad_fn.name() == "EmbeddingBackward0"
    assert all(map(same, a[2].reshape(-1).tolist(), b[2].reshape(-1).tolist()))


def test_embedding_gradient_by_hand():
    w = scalargrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    idx = scalargrad.tensor([2, 0, 2])
    y = scalargrad.nn.functional.embedding(idx, w, padding_idx=0)
    assert y.tolist() == [[5.0, 6.0], [1.0, 2.0], [5.0, 6.0]]
    (y * scalargrad.tensor([[1.0, 10.0], [100.0, 1000.0], [2.0, 20.0]])).sum().backward()
    # row 2 picked twice: 1 + 2, 10 + 20; row 0 is the padding row: none
    assert w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [3.0, 30.0]]
    w.grad = None
    y = scalargrad.nn.functional.embedding(idx, w, scale_grad_by_freq=True)
    (y * scalargrad.tensor([[1.0, 10.0], [100.0, 1000.0], [2.0, 20.0]])).sum().backward()
    # scale_grad_by_freq divides each row's contributions by its count (row 2: 2)
    assert w.grad.tolist() == [[100.0, 1000.0], [0.0, 0.0], [1.5, 15.0]]


def test_embedding_graph_and_saved_values(lib):
    w = lib.ones(5, 2, requires_grad=True)
    y = lib.nn.functional.embedding(lib.tensor([3, 1]), w, padding_idx=-1)
    f = y.grad_fn
    assert f.name() == "EmbeddingBackward0" and f._saved_weight_sym_argsize_0 == 5
    assert (f._saved_padding_idx, f._saved_scale_grad_by_freq, f._saved_sparse) == (4, False, False)
    assert f._saved_indices.tolist() == [3, 1]
    assert lib.nn.functional.embedding(lib.tensor([0]), w).grad_fn._saved_padding_idx == 2**64 - 1
    (g,) = lib.autograd.grad((y * y).sum(), w, create_graph=True)
    assert g.grad_fn.name() == "EmbeddingDenseBackwardBackward0"


def test_embedding_module(lib):
    nn = lib.nn
    assert repr(nn.Embedding(10, 3)) == "Embedding(10, 3)"
    assert repr(nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)) == (
        "Embedding(10, 3, padding_idx=9, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)")
    lib.manual_seed(0)
    e = nn.Embedding(4, 2, padding_idx=1)
    assert e.weight[1].tolist() == [0.0, 0.0] and e.weight.requires_grad
    pre = nn.Embedding.from_pretrained(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert not pre.weight.requires_grad and pre(lib.tensor([1])).tolist() == [[3.0, 4.0]]
    with pytest.raises(AssertionError, match=r"^Padding_idx must be within num_embeddings$"):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(AssertionError, match=r"^Shape of weight does not match num_embeddings and embedding_dim$"):
        nn.Embedding(4, 2, _weight=lib.ones(3, 2))
    with pytest.raises(IndexError, match=r"^index out of range in self$"):
        e(lib.tensor([4]))
    with pytest.raises(RuntimeError, match=r"^Expected tensor for argument #1 'indices' to have one of the following "
                                           r"scalar types: Long, Int; but got torch\.FloatTensor instead"):
        e(lib.tensor([1.0]))


def test_embedding_max_norm_renormalises_the_picked_rows(torch_ref):
    got = []
    for L in (scalargrad, torch_ref):
        w = L.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
        y = L.nn.functional.embedding(L.tensor([0, 1]), w, max_norm=1.0)
        got.append((w.tolist(), y.tolist()))
    # row 0 (norm 5) scaled by 1 / (5 + 1e-7); row 1 (norm 0.5) and row 2 (not picked) unchanged
    assert got[0][0][1:] == [[0.30000001192092896, 0.4000000059604645], [6.0, 8.0]]
    for a, b in zip(sum(got[0][0], []) + sum(got[0][1], []), sum(got[1][0], []) + sum(got[1][1], [])):
        assert abs(a - b) <= 2.0**-22 * abs(b)


def test_one_hot(lib):
    F = lib.nn.functional
    assert repr(F.one_hot(lib.tensor([0, 2, 1]))) == "tensor([[1, 0, 0],\n        [0, 0, 1],\n        [0, 1, 0]])"
    assert F.one_hot(lib.tensor([[1], [0]]), 3).shape == (2, 1, 3) and F.one_hot(lib.tensor(2), 3).tolist() == [0, 0, 1]
    assert F.one_hot(lib.tensor([], dtype=lib.int64), 3).shape == (0, 3)
    with pytest.raises(RuntimeError, match=r"^one_hot is only applicable to index tensor of type LongTensor\.$"):
        F.one_hot(lib.tensor([1.0]))
    with pytest.raises(RuntimeError, match=r"^Class values must be non-negative\.$"):
        F.one_hot(lib.tensor([-1]))
    with pytest.raises(RuntimeError, match=r"^Class values must be smaller than num_classes\.$"):
        F.one_hot(lib.tensor([3]), 2)
    with pytest.raises(RuntimeError, match=r"^Can not infer total number of classes from empty tensor\.$"):
        F.one_hot(lib.tensor([], dtype=lib.int64))
