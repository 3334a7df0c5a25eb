"""soft_margin_loss and the losses PyTorch composes of other ops (``nn/more_loss_functions.py``) against live PyTorch
2.13: the graph (every node's name, in PyTorch's order), the value and the gradients, for each
reduction; the modules' reprs and the errors.

The composites' exp, log, sqrt and sums are vectorised kernels in ATen (their roundings depend
on the machine), so scalargrad's float32 results are compared with PyTorch's in float64 (a
machine-independent reference to far below float32's precision) within 32 float32 units of the
result's magnitude (plus one: a loss made of terms of order one): a wrong formula or a missing
term is off by orders of magnitude more.
"""

from __future__ import annotations

import random
import warnings

import pytest

import scalargrad
from scalargrad._base.errors import Unsupported


def _chain(t) -> list:
    out, seen, stack = [], set(), [t.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f.name())
        stack.extend(g for g, _ in reversed(f.next_functions))
    return out


def _cases(L, dtype):
    F = L.nn.functional
    rng = random.Random(3)
    dt = getattr(L, dtype)

    def R(*shape, lo=-2.0, hi=2.0, g=True):
        n = 1
        for s in shape:
            n *= s
        t = L.tensor([rng.uniform(lo, hi) for _ in range(n)], dtype=dt).reshape(*shape)
        return t.requires_grad_() if g else t

    x, y, z = R(3, 4), R(3, 4), R(3, 4)
    tgt = R(3, 4, lo=0, hi=1, g=False)
    tgt0 = tgt.clone()
    tgt0[0, 1] = 0.0
    s = L.tensor([[1., -1, 1, -1], [-1, 1, 1, 1], [1, 1, -1, -1]], dtype=dt)
    cases = []
    for red in ["mean", "sum", "none"]:
        cases += [
            ("kl", lambda red=red: F.kl_div(x, tgt0, reduction=red), [x]),
            ("soft_margin", lambda red=red: F.soft_margin_loss(x, s * tgt, reduction=red), [x]),
            ("kl_log", lambda red=red: F.kl_div(x, y, reduction=red, log_target=True), [x, y]),
            ("margin_ranking", lambda red=red: F.margin_ranking_loss(x, y, s, margin=0.3, reduction=red), [x, y]),
            ("hinge", lambda red=red: F.hinge_embedding_loss(x, s, margin=0.7, reduction=red), [x]),
            ("cosine", lambda red=red: F.cosine_embedding_loss(x, y, L.tensor([1., -1, 1], dtype=dt), margin=0.1,
                                                       reduction=red), [x, y]),
            ("poisson_full", lambda red=red: F.poisson_nll_loss(x, tgt * 3, full=True, reduction=red), [x]),
            ("poisson", lambda red=red: F.poisson_nll_loss(x.abs(), tgt * 3, log_input=False, reduction=red), [x]),
            ("gaussian", lambda red=red: F.gaussian_nll_loss(x, y, z.abs(), full=True, reduction=red), [x, y, z]),
            ("gaussian_1", lambda red=red: F.gaussian_nll_loss(x, y, z[:, 0].abs(), reduction=red), [x, y, z]),
            ("multilabel", lambda red=red: F.multilabel_soft_margin_loss(x, tgt.round(), reduction=red,
                                                                 weight=L.tensor([1., 2, 0.5, 1], dtype=dt)), [x]),
            ("triplet", lambda red=red: F.triplet_margin_loss(x, y, z, margin=0.5, p=1.5, swap=True, reduction=red),
             [x, y, z]),
            ("triplet_distance", lambda red=red: F.triplet_margin_with_distance_loss(
                x, y, z, distance_function=lambda a, b: (a - b).abs().sum(-1), margin=0.5, reduction=red),
             [x, y, z]),
        ]
    cases += [
        ("kl_batchmean", lambda: F.kl_div(x, tgt0, reduction="batchmean"), [x]),
        ("kl_module", lambda: L.nn.KLDivLoss(reduction="batchmean", log_target=True)(x, y), [x, y]),
        ("cosine_0d", lambda: F.cosine_embedding_loss(x[0], y[0], L.tensor(-1., dtype=dt)), [x, y]),
        ("pairwise", lambda: F.pairwise_distance(x, y), [x, y]),
        ("pairwise_1", lambda: F.pairwise_distance(x[0], y, p=1.0, keepdim=True), [x, y]),
        ("triplet_module", lambda: L.nn.TripletMarginWithDistanceLoss(swap=True)(x, y, z), [x, y, z]),
        ("modules", lambda: L.nn.MarginRankingLoss(0.2)(x, y, s) + L.nn.HingeEmbeddingLoss()(x, s)
         + L.nn.CosineEmbeddingLoss()(x, y, L.tensor([1., 1, -1], dtype=dt))
         + L.nn.PoissonNLLLoss(log_input=False)(x.abs(), tgt) + L.nn.GaussianNLLLoss()(x, y, 0.5)
         + L.nn.MultiLabelSoftMarginLoss()(x, tgt) + L.nn.TripletMarginLoss(p=1.0)(x, y, z)
         + L.nn.PairwiseDistance(keepdim=True)(x, z).sum() + L.nn.SoftMarginLoss()(y, s[0]), [x, y, z]),
    ]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, make, ins in cases:
            v = make()
            grads = L.autograd.grad(v.sum(), ins, allow_unused=True)
            out.append((name, _chain(v), [v.detach()] + [g if g is not None else None for g in grads]))
    return out


@pytest.mark.no_sympy_check  # many small graphs: the elementwise ops are proved in their own tests
def test_composed_losses_match_pytorch(torch_ref):
    ours = _cases(scalargrad, "float32")
    theirs = _cases(torch_ref, "float64")
    theirs32 = _cases(torch_ref, "float32")
    for (name, chain, vals), (_, _, ref), (_, chain32, _) in zip(ours, theirs, theirs32):
        assert chain == chain32, name
        for a, b in zip(vals, ref):
            assert (a is None) == (b is None), name
            if a is None:
                continue
            p, q = a.reshape(-1).tolist(), b.reshape(-1).tolist()
            bound = 32 * 2.0**-23 * (max(abs(v) for v in q) + 1.0)
            assert max(abs(u - w) for u, w in zip(p, q)) <= bound, name


def test_kl_div_warns_for_mean_and_saves_pytorchs_attributes(torch_ref):
    for L in (scalargrad, torch_ref):
        x = L.ones(2, 3, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.nn.functional.kl_div(x, L.ones(2, 3))
        f = L.nn.functional.pairwise_distance(x, L.zeros(2, 3)).grad_fn
        L.seen = [str(m.message) for m in w], f._saved_dim, f._saved_keepdim, f._saved_p
    assert scalargrad.seen == torch_ref.seen


def test_reprs(torch_ref):
    def reprs(L):
        nn = L.nn
        return [repr(m) for m in (nn.PairwiseDistance(), nn.TripletMarginWithDistanceLoss(), nn.TripletMarginLoss(),
                                  nn.KLDivLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss(),
                                  nn.MultiLabelSoftMarginLoss(), nn.CosineEmbeddingLoss(), nn.MarginRankingLoss(),
                                  nn.HingeEmbeddingLoss(), nn.SoftMarginLoss())] + [str(type(nn.PairwiseDistance())),
                                                               str(type(nn.KLDivLoss()))]

    assert reprs(scalargrad) == reprs(torch_ref)


def _raises(L, fn):
    try:
        fn(L, L.ones(3, 4))
    except Exception as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("fn", [
    lambda L, x: L.nn.functional.triplet_margin_loss(x, x, x[0]),
    lambda L, x: L.nn.functional.triplet_margin_loss(x, x, x, margin=0),
    lambda L, x: L.nn.functional.triplet_margin_with_distance_loss(x, x, x, reduction="avg"),
    lambda L, x: L.nn.TripletMarginLoss(margin=-1.0),
    lambda L, x: L.nn.TripletMarginWithDistanceLoss(margin=0),
    lambda L, x: L.nn.functional.margin_ranking_loss(x, x, x[0]),
    lambda L, x: L.nn.functional.cosine_embedding_loss(x, x, x),
    lambda L, x: L.nn.functional.cosine_embedding_loss(x[0], x[0], x[:, 0]),
    lambda L, x: L.nn.functional.cosine_embedding_loss(x, x, x[0, 0]),
    lambda L, x: L.nn.functional.kl_div(x, x, reduction="bad"),
    lambda L, x: L.nn.functional.gaussian_nll_loss(x, x, -1.0),
    lambda L, x: L.nn.functional.gaussian_nll_loss(x, x, L.ones(2)),
    lambda L, x: L.nn.functional.gaussian_nll_loss(x, x, -x),
    lambda L, x: L.nn.functional.gaussian_nll_loss(x, x, x, reduction="x"),
    lambda L, x: L.nn.functional.poisson_nll_loss(x, x, reduction="x"),
    lambda L, x: L.nn.functional.multilabel_soft_margin_loss(x, x, reduction="x"),
    lambda L, x: L.nn.functional.soft_margin_loss(x, x.requires_grad_()),
    lambda L, x: L.nn.functional.soft_margin_loss(x, x, reduction="x"),
])
def test_errors_are_pytorchs(torch_ref, fn):
    assert _raises(scalargrad, fn) == _raises(torch_ref, fn) is not None


def _linear_ce(L, dtype):
    rng = random.Random(5)
    dt = getattr(L, dtype)
    m = L.nn.LinearCrossEntropyLoss(5, 3, bias=True, label_smoothing=0.1, dtype=dt)
    with L.no_grad():
        m.linear.weight.copy_(L.tensor([rng.uniform(-1, 1) for _ in range(15)], dtype=dt).reshape(3, 5))
        m.linear.bias.copy_(L.tensor([0.5, -0.25, 0.125], dtype=dt))
    x = L.tensor([rng.uniform(-2, 2) for _ in range(20)], dtype=dt).reshape(4, 5).requires_grad_()
    t = L.tensor([0, 2, 1, 2])
    y = m(x, t)
    y0 = L.nn.functional.linear_cross_entropy(x[0], m.linear.weight, t[0], reduction="sum")
    grads = L.autograd.grad(y + y0, [x, m.linear.weight, m.linear.bias])
    return repr(m), y.grad_fn.name(), [y.detach(), y0.detach(), *grads]


@pytest.mark.no_sympy_check
def test_linear_cross_entropy_is_the_reference_path(torch_ref):
    ra, na, va = _linear_ce(scalargrad, "float32")
    rt, nt, _ = _linear_ce(torch_ref, "float32")
    _, _, vt = _linear_ce(torch_ref, "float64")
    assert (ra, na) == (rt, nt)
    for a, b in zip(va, vt):
        p, q = a.reshape(-1).tolist(), b.reshape(-1).tolist()
        assert max(abs(u - w) for u, w in zip(p, q)) <= 32 * 2.0**-23 * (max(abs(v) for v in q) + 1.0)
    with pytest.raises(Unsupported, match="chunked path"):
        scalargrad.nn.functional.linear_cross_entropy(scalargrad.ones(2, 3), scalargrad.ones(4, 3),
                                                      scalargrad.tensor([0, 1]), options=object())


@pytest.mark.parametrize("fn", [
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(4, 5), L.ones(3, 4), L.tensor([0, 1, 2, 0])),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(4, 5), L.ones(3, 5), L.ones(4, 3), ignore_index=1),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(4, 5), L.ones(3, 5), L.tensor([0, 1, 2, 0]),
                                                   linear_bias=L.ones(2)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 2, 5), L.ones(3, 5), L.tensor([0, 1])),
    lambda L: L.nn.LinearCrossEntropyLoss(5, 3, label_smoothing=2.0),
    lambda L: L.nn.LinearCrossEntropyLoss(5, 3, weight=L.ones(2)),
])
def test_linear_cross_entropy_errors_are_pytorchs(torch_ref, fn):
    def raised(L):
        try:
            fn(L)
        except Exception as e:
            return type(e).__name__, str(e)
        return None

    assert raised(scalargrad) == raised(torch_ref) is not None


def test_torch_pairwise_distance_is_the_functional_one(torch_ref):
    """``torch.pairwise_distance`` is ``nn.functional.pairwise_distance`` (PyTorch's TestNN triplet
    loss tests compute their reference with it); p=1 with eps=0 on small integers is exact."""
    out = []
    for lib in (scalargrad, torch_ref):
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = lib.tensor([[0.0, 2.0, 5.0], [1.0, 1.0, 1.0]])
        assert lib.pairwise_distance is lib.nn.functional.pairwise_distance
        out.append([lib.pairwise_distance(a, b, 1, 0.0).tolist(), lib.pairwise_distance(a, b, 1, 0.0, True).tolist()])
    assert out[0] == out[1] == [[3.0, 12.0], [[3.0], [12.0]]]


def _soft_margin_double(L, dtype, reduction):
    x = L.tensor([0.75, -1.25, 3.5, -0.125, 17.0, -0.5], dtype=getattr(L, dtype), requires_grad=True)
    t = L.tensor([1.0, -1.0, -1.0, 1.0, -1.0, 2.0], dtype=getattr(L, dtype))
    loss = L.nn.functional.soft_margin_loss(x, t, reduction=reduction)
    w = L.arange(1, loss.numel() + 1).reshape(loss.shape).to(loss.dtype) / 4
    gx = L.autograd.grad((loss * w).sum(), [x], create_graph=True)[0]
    f = gx.grad_fn
    out = [f.name(), [None if a[0] is None else a[0].name() for a in f.next_functions], f._saved_reduction,
           gx.detach().tolist()]
    go = L.tensor(1.5, dtype=getattr(L, dtype), requires_grad=True) if reduction != "none" else None
    if go is not None:  # the grad_output edge: soft_margin_loss_double_backward_grad_output
        gx = L.autograd.grad(loss, [x], go, create_graph=True)[0]
    out.append([a.tolist() for a in L.autograd.grad(gx.square().sum(), [x] + ([go] if go is not None else []))])
    return out


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_soft_margin_double_backward_is_one_node(torch_ref, dtype, reduction):
    # SoftMarginLossBackwardBackward0 with ATen's formulas (was primitive nodes whose second
    # derivative differed in the last bit: fuzz nn:12041:48). exp is correctly rounded here and
    # within an ulp in PyTorch's vectorised float32 kernels: the same bits at these points on every
    # machine (checked under ATEN_CPU_CAPABILITY=default/avx2 and MKL_CBWR=COMPATIBLE)
    assert _soft_margin_double(scalargrad, dtype, reduction) == _soft_margin_double(torch_ref, dtype, reduction)


def test_soft_margin_mean_of_no_elements_backward(torch_ref):
    # norm = 1. / numel is inf for no elements (was a ZeroDivisionError: fuzz nn:12041:150)
    for L in (scalargrad, torch_ref):
        x = L.zeros((0, 2), requires_grad=True)
        loss = L.nn.functional.soft_margin_loss(x.unsqueeze(0).expand((2, 0, 2)), L.ones((0, 2)), reduction="mean")
        loss.backward()
        assert loss.isnan().item() and tuple(x.grad.shape) == (0, 2)
