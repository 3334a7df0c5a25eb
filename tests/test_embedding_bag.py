"""nn.EmbeddingBag and F.embedding_bag: the sum, mean or max of bags of a weight's rows.

Parameters (N(0, 1) draws after ``manual_seed``), reprs, shapes, errors and the max mode (no
arithmetic: values and gradients) are compared with live PyTorch bit for bit. Sums and means are
compared, scalargrad's and PyTorch's alike, with the exact value (``Fraction``) within the bound of
any order of additions (Higham's gamma_n). The result's node is ``StackBackward0`` where PyTorch's is
``EmbeddingBagBackward0`` (checked below, a named difference).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import scalargrad

U = 2.0**-24

INPUT, OFFSETS = [1, 2, 4, 5, 4, 3, 2, 9], [0, 4, 4, 6]


def _bags(ids, offsets, last=False):
    ends = offsets[1:] + ([] if last else [len(ids)])
    return [list(range(s, e)) for s, e in zip(offsets, ends)]


def _check_reduction(L, mode, padding_idx=None, weights=False):
    L.manual_seed(3)
    e = L.nn.EmbeddingBag(10, 3, mode=mode, padding_idx=padding_idx)
    psw = L.tensor([0.5, -1.25, 2.0, 0.75, 1.5, -0.5, 3.0, 0.25], requires_grad=True) if weights else None
    y = e(L.tensor(INPUT), L.tensor(OFFSETS), per_sample_weights=psw)
    w = e.weight.tolist()
    for b, bag in enumerate(_bags(INPUT, OFFSETS)):
        keep = [k for k in bag if INPUT[k] != padding_idx]
        for d in range(3):
            terms = [Fraction(w[INPUT[k]][d]) * (Fraction(psw[k].item()) if weights else 1) for k in keep]
            exact = sum(terms, Fraction(0)) / (len(keep) if mode == "mean" and keep else 1)
            n = len(terms) + 2
            bound = Fraction(n * U / (1 - n * U)) * sum((abs(t) for t in terms), Fraction(0))
            assert abs(Fraction(y[b, d].item()) - exact) <= bound, (b, d)
    return e, y, psw


@pytest.mark.parametrize("mode,padding_idx,weights", [("sum", None, False), ("mean", None, False),
                                                      ("sum", 2, True), ("mean", 4, False)])
def test_sums_and_means_lie_within_the_bound_of_the_exact_value(mode, padding_idx, weights):
    _check_reduction(scalargrad, mode, padding_idx, weights)


@pytest.mark.live_torch
@pytest.mark.parametrize("mode,padding_idx,weights", [("sum", None, False), ("mean", None, False),
                                                      ("sum", 2, True), ("mean", 4, False)])
def test_pytorchs_sums_and_means_lie_within_the_same_bound(torch_ref, mode, padding_idx, weights):
    _check_reduction(torch_ref, mode, padding_idx, weights)


def test_gradients_of_a_sum_are_the_bags_gradients_added_per_row():
    e, y, psw = _check_reduction(scalargrad, "sum", None, True)
    g = scalargrad.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]])
    gw, gp = scalargrad.autograd.grad(y, [e.weight, psw], g)
    expect = [[Fraction(0)] * 3 for _ in range(10)]
    for b, bag in enumerate(_bags(INPUT, OFFSETS)):
        for k in bag:
            for d in range(3):
                expect[INPUT[k]][d] += Fraction(g[b, d].item()) * Fraction(psw[k].item())
    for r in range(10):  # small integers times short binary fractions: exact in float32
        assert [Fraction(v) for v in gw[r].tolist()] == expect[r]
    w = e.weight.tolist()
    for b, bag in enumerate(_bags(INPUT, OFFSETS)):
        for k in bag:
            exact = sum((Fraction(g[b, d].item()) * Fraction(w[INPUT[k]][d]) for d in range(3)), Fraction(0))
            bound = Fraction(4 * U) * sum((abs(Fraction(g[b, d].item()) * Fraction(w[INPUT[k]][d]))
                                           for d in range(3)), Fraction(0))
            assert abs(Fraction(gp[k].item()) - exact) <= bound


@pytest.mark.live_torch
@pytest.mark.vector_kernels  # the weight's normal_ draws
@pytest.mark.parametrize("kw", [dict(mode="max"), dict(mode="max", padding_idx=2),
                                dict(mode="max", include_last_offset=True)])
def test_max_mode_is_pytorchs_bit_for_bit(torch_ref, kw):
    got = []
    for L in (scalargrad, torch_ref):
        L.manual_seed(5)
        e = L.nn.EmbeddingBag(10, 3, **kw)
        y = e(L.tensor(INPUT), L.tensor(OFFSETS))
        (gw,) = L.autograd.grad(y, [e.weight], L.arange(float(y.numel())).reshape(y.shape))
        y2 = e(L.tensor([[1, 2], [3, 9], [2, 2]]))
        got.append((repr(e), y.tolist(), gw.tolist(), y2.tolist(), list(y.shape)))
    assert got[0] == got[1]


@pytest.mark.live_torch
@pytest.mark.vector_kernels  # the weight's normal_ draws
def test_module_is_pytorchs(torch_ref):
    got = []
    for L in (scalargrad, torch_ref):
        L.manual_seed(1)
        mods = [L.nn.EmbeddingBag(10, 3), L.nn.EmbeddingBag(6, 2, mode="sum", padding_idx=-2, max_norm=1.0,
                                                             scale_grad_by_freq=True)]
        pre = L.nn.EmbeddingBag.from_pretrained(L.tensor([[1, 2.3, 3], [4, 5.1, 6.3]]))
        got.append(([repr(m) for m in mods], [m.weight.tolist() for m in mods], repr(pre),
                    pre.weight.requires_grad, pre(L.tensor([[1, 0]])).tolist()))
    assert got[0] == got[1]


def test_the_node_is_stack_where_pytorchs_is_embedding_bag_backward():
    e = scalargrad.nn.EmbeddingBag(10, 3)
    assert type(e(scalargrad.tensor([[1, 2]])).grad_fn).__name__ == "StackBackward0"


def _errors(L) -> list:
    e = L.nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
    rows = []
    for call in (lambda: e(L.tensor([1, 2]), L.tensor([1])),
                 lambda: e(L.tensor([[1, 2]]), L.tensor([0])),
                 lambda: e(L.tensor([1, 2])),
                 lambda: e(L.tensor([1, 2]), L.tensor([[0]])),
                 lambda: e(L.tensor([[[1]]])),
                 lambda: L.nn.EmbeddingBag(10, 3, mode="max")(L.tensor([1]), L.tensor([0]), L.tensor([1.0])),
                 lambda: L.nn.EmbeddingBag(10, 3, mode="foo")(L.tensor([1]), L.tensor([0])),
                 lambda: e(L.tensor([1, 2]), L.tensor([0]), L.tensor([1.0])),
                 lambda: e(L.tensor([1, 2]), L.tensor([0, 3])),
                 lambda: L.nn.functional.embedding_bag(L.tensor([1]), L.zeros(3), L.tensor([0])),
                 lambda: L.nn.EmbeddingBag(10, 3, padding_idx=10)):
        try:
            call()
        except Exception as ex:  # the type and words are compared
            rows.append((type(ex).__name__, str(ex).replace("torch.Tensor", "T").replace("scalargrad.Tensor", "T")))
    return rows


@pytest.mark.live_torch
def test_errors_are_pytorchs(torch_ref):
    ours = _errors(scalargrad)
    assert ours == _errors(torch_ref) and len(ours) == 11
