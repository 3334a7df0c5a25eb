"""Losses of torch.nn and nn.functional: mse, l1, smooth_l1, huber, binary_cross_entropy,
binary_cross_entropy_with_logits, nll_loss, cross_entropy (class indices, probabilities, label
smoothing), every reduction; their modules.

Expected figures: PyTorch 2.13's (the ``lib`` fixture runs a test on scalargrad and on real
PyTorch; ``torch_ref`` tests compare with it), hand derivations, and for the losses made of
exp/log/log1p, PyTorch's formula with correctly rounded sub-results (``faithfulness.Kernel``).
The losses whose ATen kernels are IEEE arithmetic (mse, smooth_l1, huber, nll_loss, l1_loss, and
binary_cross_entropy's backward) are compared with live PyTorch bit for bit, on sizes that take
ATen's scalar code (12 elements), its vectorised code (16, 32) and both (40).
"""

from __future__ import annotations

import math
import random
import warnings

import pytest

import scalargrad

from faithfulness import FLOAT32, Kernel, same


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _pair(L, n, dtype, seed, kind="float"):
    rng = random.Random(seed)
    dt = getattr(L, dtype)
    if kind == "prob":
        xs = [rng.uniform(0.02, 0.98) for _ in range(n)]
    else:
        xs = [rng.uniform(-3, 3) for _ in range(n)]
    ts = [rng.uniform(0, 1) if kind != "float" else rng.uniform(-3, 3) for _ in range(n)]
    return (L.tensor(xs, dtype=dt).reshape(-1, 4).requires_grad_(),
            L.tensor(ts, dtype=dt).reshape(-1, 4).requires_grad_())


def _run(L, fn, n, dtype, reduction, seed, kind="float", target_grad=True):
    x, t = _pair(L, n, dtype, seed, kind)
    if not target_grad:
        t = t.detach()
    y = fn(L.nn.functional, x, t, reduction)
    if reduction == "none":
        rng = random.Random(seed + 7)
        m = y.numel()
        y.backward(L.tensor([rng.uniform(-2, 2) for _ in range(m)], dtype=getattr(L, dtype)).reshape(y.shape))
    else:
        y.backward(L.tensor(0.75, dtype=getattr(L, dtype)))
    return (y.reshape(-1).tolist(), x.grad.reshape(-1).tolist(),
            t.grad.reshape(-1).tolist() if target_grad else None, y.grad_fn.name())


IEEE = {
    "mse": (lambda F, x, t, r: F.mse_loss(x, t, reduction=r), "float", True),
    "l1": (lambda F, x, t, r: F.l1_loss(x, t, reduction=r), "float", True),
    "smooth_l1": (lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r), "float", True),
    "smooth_l1 beta 0.7": (lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.7), "float", True),
    "smooth_l1 beta 2.5": (lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=2.5), "float", True),
    "smooth_l1 beta 0": (lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.0), "float", True),
    "huber": (lambda F, x, t, r: F.huber_loss(x, t, reduction=r), "float", True),
    "huber delta 0.6": (lambda F, x, t, r: F.huber_loss(x, t, reduction=r, delta=0.6), "float", True),
    # the input's gradient only: the forward and the target's gradient take logs
    "binary_cross_entropy": (lambda F, x, t, r: F.binary_cross_entropy(x, t, reduction=r), "prob", False),
}


@pytest.mark.parametrize("name", list(IEEE))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ieee_losses_match_pytorch_bit_for_bit(torch_ref, name, reduction):
    fn, kind, full = IEEE[name]
    for dtype in ("float32", "float64"):
        for n in (12, 16, 40):
            ours = _run(scalargrad, fn, n, dtype, reduction, n, kind, target_grad=full)
            theirs = _run(torch_ref, fn, n, dtype, reduction, n, kind, target_grad=full)
            assert ours[3] == theirs[3]
            if full:
                assert all(map(same, ours[0], theirs[0])), (dtype, n)
                assert all(map(same, ours[2], theirs[2])), (dtype, n)
            assert all(map(same, ours[1], theirs[1])), (dtype, n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_gradient_of_one_multiplies_nothing_out(torch_ref, dtype):
    # backward() of a sum-reduced loss spreads 1.0 over the elements: mse_loss's backward and
    # pow's (the sum()'s expanded gradient times the derivative) skip that product, x * 1.0 = x;
    # signed zeros, infinities, nan and subnormals must come out as PyTorch's.
    xs = [1.5, -0.0, 0.0, math.inf, -math.inf, math.nan, 1e37, -1e37, 1e-40, 0.1, -2.5, 7.0]
    ts = [0.5, 0.0, -0.0, 1.0, 2.0, 0.0, -1e37, 1e37, -1e-40, 0.2, 2.5, -7.0]

    def run(L):
        dt = getattr(L, dtype)
        out = []
        for reduction in ("sum", "mean"):
            x = L.tensor(xs, dtype=dt, requires_grad=True)
            L.nn.functional.mse_loss(x, L.tensor(ts, dtype=dt), reduction=reduction).backward()
            out.append(x.grad.tolist())
        x = L.tensor(xs, dtype=dt, requires_grad=True)
        (x - L.tensor(ts, dtype=dt)).pow(2).sum().backward()
        return out + [x.grad.tolist()]

    for ours, theirs in zip(run(scalargrad), run(torch_ref)):
        assert all(map(same, ours, theirs))


def _nll_case(L, n, dtype, weight, reduction, ignore=-100, seed=3):
    rng = random.Random(seed)
    dt = getattr(L, dtype)
    x = L.tensor([[rng.uniform(-3, 1) for _ in range(5)] for _ in range(n)], dtype=dt, requires_grad=True)
    t = L.tensor([rng.randrange(5) if rng.random() > 0.2 else 2 for _ in range(n)])
    w = L.tensor([0.5, 2.0, 1.5, 1.0, 0.25], dtype=dt) if weight else None
    y = L.nn.functional.nll_loss(x, t, weight=w, reduction=reduction, ignore_index=ignore)
    y.backward(L.ones_like(y) * 0.75)
    return y.reshape(-1).tolist(), x.grad.reshape(-1).tolist()


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_matches_pytorch_bit_for_bit(torch_ref, weight, reduction):
    # ATen's cascade of partial sums (flushed every 16 samples) and its fused ``loss -= x * w``
    for dtype in ("float32", "float64"):
        for n in (1, 7, 20, 70):
            for ignore in (-100, 2):
                a = _nll_case(scalargrad, n, dtype, weight, reduction, ignore)
                b = _nll_case(torch_ref, n, dtype, weight, reduction, ignore)
                assert all(map(same, a[0], b[0])) and all(map(same, a[1], b[1])), (dtype, n, ignore)


# ---------------------------------------------------------------- losses with logs and exps


def _log_sigmoid(k, x):
    return k.sub(min(x, 0.0), k.libm("log1p", k.libm("exp", -abs(x))))


def _bce_term(k, x, t):
    return k.sub(k.mul(k.sub(t, 1.0), max(k.libm("log1p", -x), -100.0)), k.mul(t, max(k.libm("log", x), -100.0)))


def _bcel_term(k, x, t, w=1.0, pw=None):
    ls = _log_sigmoid(k, x)
    if pw is not None:
        ls = k.mul(ls, k.add(k.mul(k.sub(pw, 1.0), t), 1.0))
    v = k.sub(k.mul(k.sub(1.0, t), x), ls)
    return v if w == 1.0 else k.mul(v, w)


def test_binary_cross_entropy_equals_the_correctly_rounded_reference():
    k = Kernel(FLOAT32)
    x, t = _pair(scalargrad, 12, "float32", 5, "prob")
    y = scalargrad.nn.functional.binary_cross_entropy(x, t, reduction="none").reshape(-1).tolist()
    for a, b, v in zip(x.reshape(-1).tolist(), t.reshape(-1).tolist(), y):
        assert same(v, _bce_term(k, a, b))


def test_binary_cross_entropy_with_logits_equals_the_correctly_rounded_reference():
    k = Kernel(FLOAT32)
    F = scalargrad.nn.functional
    x, t = _pair(scalargrad, 12, "float32", 6, "logit")
    w = scalargrad.tensor([0.5, 2.0, 1.5, 1.0])
    pw = scalargrad.tensor([3.0, 0.5, 1.0, 2.0])
    plain = F.binary_cross_entropy_with_logits(x, t, reduction="none").reshape(-1).tolist()
    weighted = F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw, reduction="none").reshape(-1).tolist()
    for i, (a, b) in enumerate(zip(x.reshape(-1).tolist(), t.reshape(-1).tolist())):
        assert same(plain[i], _bcel_term(k, a, b))
        assert same(weighted[i], _bcel_term(k, a, b, w=[0.5, 2.0, 1.5, 1.0][i % 4], pw=[3.0, 0.5, 1.0, 2.0][i % 4]))
    # the input's gradient: (sigmoid(x) - t) * grad / numel, sigmoid = 1 / (1 + exp(-x))
    F.binary_cross_entropy_with_logits(x, t).backward()
    for a, b, g in zip(x.reshape(-1).tolist(), t.reshape(-1).tolist(), x.grad.reshape(-1).tolist()):
        s = k.div(1.0, k.add(1.0, k.libm("exp", -a)))
        assert same(g, k.div(k.mul(k.sub(s, b), 1.0), 12.0))


TRANSCENDENTAL = {
    "binary_cross_entropy": (lambda F, x, t, r: F.binary_cross_entropy(x, t, reduction=r), "prob"),
    "binary_cross_entropy weight": (lambda F, x, t, r: F.binary_cross_entropy(
        x, t, weight=_w(F, x), reduction=r), "prob"),
    "binary_cross_entropy_with_logits": (lambda F, x, t, r: F.binary_cross_entropy_with_logits(x, t, reduction=r),
                                         "logit"),
    "binary_cross_entropy_with_logits weights": (lambda F, x, t, r: F.binary_cross_entropy_with_logits(
        x, t, weight=_w(F, x), pos_weight=_w(F, x, [3.0, 0.5, 1.0, 2.0]), reduction=r), "logit"),
    "cross_entropy probabilities": (lambda F, x, t, r: F.cross_entropy(x, t.softmax(1), reduction=r), "logit"),
}


def _w(F, x, vals=(0.5, 2.0, 1.5, 1.0)):
    return x.new_tensor(list(vals))


@pytest.mark.parametrize("name", list(TRANSCENDENTAL))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_transcendental_losses_are_within_the_measured_bound_of_pytorch(torch_ref, name, reduction):
    # measured on the capture machine: 4 ulps of the terms (|loss| + 1 per element, the sum of
    # them for a reduction) at most; the bound is 16
    fn, kind = TRANSCENDENTAL[name]
    for dtype in ("float32", "float64"):
        eps = 2.0**-24 if dtype == "float32" else 2.0**-53
        ours = _run(scalargrad, fn, 40, dtype, reduction, 11, kind, target_grad=False)
        theirs = _run(torch_ref, fn, 40, dtype, reduction, 11, kind, target_grad=False)
        assert ours[3] == theirs[3]
        scale = 40 if reduction == "sum" else 1
        for a, b in zip(ours[0], theirs[0]):
            assert abs(a - b) <= 16 * eps * scale * (1 + abs(b)), (a, b)
        for a, b in zip(ours[1], theirs[1]):
            assert abs(a - b) <= 16 * eps * (1 + abs(b)), (a, b)


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_with_class_indices_is_within_the_bound_of_pytorch(torch_ref, weight, reduction, smoothing):
    got = []
    for L in (scalargrad, torch_ref):
        rng = random.Random(4)
        x = L.tensor([[rng.uniform(-3, 3) for _ in range(5)] for _ in range(9)], requires_grad=True)
        t = L.tensor([rng.randrange(5) for _ in range(9)])
        w = L.tensor([0.5, 2.0, 1.5, 1.0, 0.25]) if weight else None
        y = L.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction, label_smoothing=smoothing)
        y.backward(L.ones_like(y))
        got.append((y.reshape(-1).tolist(), x.grad.reshape(-1).tolist(), _names(y.grad_fn)))
    assert got[0][2] == got[1][2]
    for a, b in zip(got[0][0] + got[0][1], got[1][0] + got[1][1]):
        assert abs(a - b) <= 2.0**-20 * (1 + abs(b))


def _names(fn) -> list:
    out, stack = [], [fn]
    while stack:
        f = stack.pop()
        if f is not None:
            out.append(f.name())
            stack.extend(n for n, _ in f.next_functions)
    return out


# ---------------------------------------------------------------- graphs

GRAPH = {
    "mse": (lambda F, x, t: F.mse_loss(x, t), "MseLossBackward0", {"_saved_reduction": 1}),
    "mse sum": (lambda F, x, t: F.mse_loss(x, t, reduction="sum"), "MseLossBackward0", {"_saved_reduction": 2}),
    "l1": (lambda F, x, t: F.l1_loss(x, t), "MeanBackward0", {}),
    "l1 none": (lambda F, x, t: F.l1_loss(x, t, reduction="none"), "AbsBackward0", {}),
    "smooth_l1": (lambda F, x, t: F.smooth_l1_loss(x, t, beta=0.5), "SmoothL1LossBackward0",
                  {"_saved_beta": 0.5, "_saved_reduction": 1}),
    "huber": (lambda F, x, t: F.huber_loss(x, t, reduction="none", delta=2.0), "HuberLossBackward0",
              {"_saved_delta": 2.0, "_saved_reduction": 0}),
    "bce": (lambda F, x, t: F.binary_cross_entropy(x.sigmoid(), t.sigmoid().detach()), "BinaryCrossEntropyBackward0",
            {"_saved_reduction": 1, "_saved_weight": None}),
    "bce_with_logits": (lambda F, x, t: F.binary_cross_entropy_with_logits(x, t.sigmoid()),
                        "BinaryCrossEntropyWithLogitsBackward0", {"_saved_pos_weight": None}),
    "cross_entropy": (lambda F, x, t: F.cross_entropy(x, t.argmax(1)), "NllLossBackward0",
                      {"_saved_ignore_index": 2**64 - 100, "_saved_reduction": 1, "_saved_weight": None}),
    "cross_entropy probabilities": (lambda F, x, t: F.cross_entropy(x, t.softmax(1)), "DivBackward1",
                                    {"_saved_other": 2}),
    "cross_entropy smoothing": (lambda F, x, t: F.cross_entropy(x, t.argmax(1), label_smoothing=0.1), "AddBackward0",
                                {}),
    "nll": (lambda F, x, t: F.nll_loss(x, t.argmax(1), reduction="sum"), "NllLossBackward0",
            {"_saved_reduction": 2}),
}


@pytest.mark.parametrize("name", list(GRAPH))
def test_loss_graphs_match_pytorch(torch_ref, name):
    fn, node, saved = GRAPH[name]
    got = []
    for L in (scalargrad, torch_ref):
        x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        t = L.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, -2.0]], requires_grad=True)
        y = fn(L.nn.functional, x, t)
        assert y.grad_fn.name() == node
        for attr, value in saved.items():
            assert getattr(y.grad_fn, attr) == value, attr
        got.append(_names(y.grad_fn))
        if name == "cross_entropy":
            f = y.grad_fn
            assert repr(f._saved_total_weight) == "tensor(2.)" and f._saved_target.tolist() == [0, 1]
    assert got[0] == got[1]


@pytest.mark.parametrize("name", ["mse", "smooth_l1", "huber", "bce", "nll", "cross_entropy"])
def test_loss_double_backward_matches_pytorch(torch_ref, name):
    fn = GRAPH[name][0]
    got = []
    for L in (scalargrad, torch_ref):
        x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=L.float64, requires_grad=True)
        t = L.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, -2.0]], dtype=L.float64, requires_grad=True)
        y = fn(L.nn.functional, x, t)
        (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g * g).sum(), x, allow_unused=True)
        got.append((g.grad_fn.name(), g.reshape(-1).tolist(), None if h is None else h.reshape(-1).tolist()))
    assert got[0][0] == got[1][0]
    assert got[0][1] == pytest.approx(got[1][1], rel=1e-12, abs=1e-15)
    if got[1][2] is not None:
        assert got[0][2] == pytest.approx(got[1][2], rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------- by hand


def test_losses_by_hand():
    F = scalargrad.nn.functional
    f64 = scalargrad.float64
    x = scalargrad.tensor([0.5, -1.0, 3.0, 0.25], dtype=f64, requires_grad=True)
    t = scalargrad.tensor([1.0, 1.0, 0.0, 0.25], dtype=f64)
    d = [-0.5, -2.0, 3.0, 0.0]
    cases = [
        # mse mean: sum d^2 / 4, gradient 2 d / 4
        (F.mse_loss(x, t), (0.25 + 4 + 9) / 4, [2 * v / 4 for v in d]),
        # l1 sum: sum |d|, gradient sign(d) (0 at d = 0)
        (F.l1_loss(x, t, reduction="sum"), 5.5, [-1.0, -1.0, 1.0, 0.0]),
        # smooth_l1 (beta 1) mean: 0.5 d^2 below 1, |d| - 0.5 above; gradient d or sign(d), / 4
        (F.smooth_l1_loss(x, t), (0.125 + 1.5 + 2.5 + 0) / 4, [-0.125, -0.25, 0.25, 0.0]),
        # huber (delta 2) sum: 0.5 d^2 below 2, 2 (|d| - 1) above; gradient d, or 2 sign(d)
        (F.huber_loss(x, t, reduction="sum", delta=2.0), 0.125 + 2.0 + 4.0 + 0.0, [-0.5, -2.0, 2.0, 0.0]),
    ]
    for y, value, grads in cases:
        (g,) = scalargrad.autograd.grad(y, x)
        assert y.item() == pytest.approx(value, rel=1e-15)
        assert g.tolist() == pytest.approx(grads, rel=1e-15)
    # nll with weights: -(w[1] x[0, 1] + w[0] x[1, 0]) / (w[1] + w[0])
    lp = scalargrad.tensor([[-1.0, -2.0, -0.5], [-0.25, -3.0, -4.0]], dtype=f64, requires_grad=True)
    w = scalargrad.tensor([2.0, 0.5, 1.0], dtype=f64)
    y = F.nll_loss(lp, scalargrad.tensor([1, 0]), weight=w)
    (g,) = scalargrad.autograd.grad(y, lp)
    assert y.item() == pytest.approx((0.5 * 2.0 + 2.0 * 0.25) / 2.5, rel=1e-15)
    assert g.tolist() == [[0.0, -0.5 / 2.5, 0.0], [-2.0 / 2.5, 0.0, 0.0]]
    # cross_entropy of equal logits is log(C); its gradient softmax - onehot = 1/C - [class]
    z = scalargrad.zeros(2, 4, dtype=f64, requires_grad=True)
    y = F.cross_entropy(z, scalargrad.tensor([3, 0]))
    (g,) = scalargrad.autograd.grad(y, z)
    assert y.item() == pytest.approx(math.log(4), rel=1e-15)
    assert g.reshape(-1).tolist() == pytest.approx([0.125, 0.125, 0.125, -0.375, -0.375, 0.125, 0.125, 0.125],
                                                   rel=1e-15)
    # binary_cross_entropy_with_logits at 0: log 2, gradient (1/2 - t) / n
    z = scalargrad.zeros(2, dtype=f64, requires_grad=True)
    y = F.binary_cross_entropy_with_logits(z, scalargrad.tensor([1.0, 0.25], dtype=f64))
    (g,) = scalargrad.autograd.grad(y, z)
    assert y.item() == pytest.approx(math.log(2), rel=1e-15) and g.tolist() == [-0.25, 0.125]


# ---------------------------------------------------------------- arguments, warnings, errors


def test_loss_warnings(lib):
    F = lib.nn.functional
    x = lib.tensor([[1.0], [2.0]], requires_grad=True)
    t = lib.tensor([1.0, 3.0])
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = fn(x, t)
        assert [str(m.message) for m in w] == [
            "Using a target size (torch.Size([2])) that is different to the input size (torch.Size([2, 1])). This "
            "will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."]
        # the target broadcast to the input: an ExpandBackward0 for the input in the graph
        assert "ExpandBackward0" in _names(y.grad_fn)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = F.mse_loss(x, x.detach() + 1, size_average=False)
        z = F.l1_loss(x, x.detach(), reduction="elementwise_mean")
    assert [str(m.message) for m in w] == [
        "size_average and reduce args will be deprecated, please use reduction='sum' instead.",
        "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."]
    assert (y.item(), z.item()) == (2.0, 0.0)


def test_loss_errors(lib):
    F = lib.nn.functional
    x = lib.tensor([[0.5, 0.25], [0.75, 0.5]])
    i = lib.tensor([[1, 2], [3, 4]])
    for fn in (F.mse_loss, F.l1_loss, F.binary_cross_entropy, F.binary_cross_entropy_with_logits, F.smooth_l1_loss):
        with pytest.raises(ValueError, match=r"^avg is not a valid value for reduction$"):
            fn(x, x, reduction="avg")
    for fn, kernel in ((F.mse_loss, "mse_cpu"), (F.smooth_l1_loss, "smooth_l1_cpu"), (F.huber_loss, "huber_cpu"),
                       (F.binary_cross_entropy, "binary_cross_entropy"),
                       (F.binary_cross_entropy_with_logits, "log_sigmoid_cpu")):
        with pytest.raises(NotImplementedError, match=rf"^\"{kernel}\" not implemented for 'Long'$"):
            fn(i, i)
    with pytest.raises(RuntimeError, match=r"^mean\(\): could not infer output dtype\. Input dtype must be either a "
                                           r"floating point or complex dtype\. Got: Long$"):
        F.l1_loss(i, i)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 1$"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F.mse_loss(x, lib.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^smooth_l1_loss does not support negative values for beta\.$"):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(RuntimeError, match=r"^huber_loss does not support non-positive values for delta\.$"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(RuntimeError, match=r"^all elements of input should be between 0 and 1$"):
        F.binary_cross_entropy(x * 3, x)
    with pytest.raises(RuntimeError, match=r"^all elements of target should be between 0 and 1$"):
        F.binary_cross_entropy(x, x * 3)
    with pytest.raises(ValueError, match=r"^Using a target size \(torch\.Size\(\[2\]\)\) that is different to the "
                                         r"input size \(torch\.Size\(\[2, 2\]\)\) is deprecated\."):
        F.binary_cross_entropy(x, x[0])
    with pytest.raises(ValueError, match=r"^Target size \(torch\.Size\(\[2\]\)\) must be the same as input size "
                                         r"\(torch\.Size\(\[2, 2\]\)\)$"):
        F.binary_cross_entropy_with_logits(x, x[0])
    with pytest.raises(RuntimeError, match=r"^The function 'binary_cross_entropy_with_logits' is not differentiable "
                                           r"with respect to argument 'weight'\."):
        F.binary_cross_entropy_with_logits(x, x, weight=lib.ones(2, requires_grad=True))
    with pytest.raises(ValueError, match=r"^Weights and input must have the same size\.$"):
        F.mse_loss(x, x, weight=lib.ones(2))


def test_nll_and_cross_entropy_errors(lib):
    F = lib.nn.functional
    x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    with pytest.raises(ValueError, match=r"^Expected 1 or more dimensions \(got 0\)$"):
        F.nll_loss(lib.tensor(1.0), lib.tensor(0))
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(2\) to match target batch_size \(3\)\.$"):
        F.nll_loss(x, lib.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match=r"^expected target dtype to be Long or Byte, but got Float$"):
        F.nll_loss(x, lib.tensor([0.0, 1.0]))
    with pytest.raises(IndexError, match=r"^Target 7 is out of bounds\.$"):
        F.nll_loss(x, lib.tensor([0, 7]))
    with pytest.raises(RuntimeError, match=r"^weight tensor should be defined either for all 3 classes or no classes "
                                           r"but got weight tensor of shape: \[2\]$"):
        F.nll_loss(x, lib.tensor([0, 1]), weight=lib.ones(2))
    with pytest.raises(RuntimeError, match=r"^ignore_index is not supported for floating point target$"):
        F.cross_entropy(x, x.softmax(1), ignore_index=1)
    with pytest.raises(RuntimeError, match=r"^label_smoothing must be between 0\.0 and 1\.0\. Got: 1\.5$"):
        F.cross_entropy(x, lib.tensor([0, 1]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match=r"^Expected floating point type for target with class probabilities, got "
                                           r"Long$"):
        F.cross_entropy(x, lib.zeros(2, 3, dtype=lib.int64))
    # all targets ignored: a mean of nothing
    assert math.isnan(F.nll_loss(x, lib.tensor([1, 1]), ignore_index=1).item())
    assert F.nll_loss(x, lib.tensor([1, 1]), ignore_index=1, reduction="sum").item() == 0.0


# ---------------------------------------------------------------- modules


def test_loss_modules(lib):
    nn = lib.nn
    x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    t = lib.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, -2.0]])
    w = lib.tensor([1.0, 2.0, 0.5])
    cases = [
        (nn.MSELoss(), "MSELoss()", x, t, "tensor(2.6458)"),
        (nn.MSELoss(reduction="sum"), "MSELoss()", x, t, "tensor(15.8750)"),
        (nn.L1Loss(), "L1Loss()", x, t, "tensor(1.4167)"),
        (nn.SmoothL1Loss(beta=0.5), "SmoothL1Loss()", x, t, "tensor(1.1667)"),
        (nn.HuberLoss(delta=0.5), "HuberLoss()", x, t, "tensor(0.5833)"),
        (nn.BCELoss(weight=w), "BCELoss()", x.sigmoid(), t.sigmoid(), "tensor(0.8745)"),
        (nn.BCEWithLogitsLoss(pos_weight=w), "BCEWithLogitsLoss()", x, t.sigmoid(), "tensor(0.9899)"),
        (nn.CrossEntropyLoss(weight=w, label_smoothing=0.1), "CrossEntropyLoss()", x, lib.tensor([2, 0]),
         "tensor(0.5625)"),
        (nn.NLLLoss(ignore_index=0), "NLLLoss()", x.log_softmax(1), lib.tensor([2, 0]), "tensor(0.2413)"),
    ]
    for module, text, a, b, value in cases:
        assert repr(module) == text
        assert repr(module(a, b)) == value, text
    bce = nn.BCEWithLogitsLoss(weight=w, pos_weight=w)
    assert list(bce.state_dict()) == ["weight", "pos_weight"] and bce.reduction == "mean"
    ce = nn.CrossEntropyLoss(ignore_index=3)
    assert (ce.ignore_index, ce.label_smoothing, ce.weight) == (3, 0.0, None) and list(ce.state_dict()) == []
    with pytest.warns(UserWarning, match=r"^size_average and reduce args will be deprecated, please use "
                                         r"reduction='none' instead\.$"):
        assert nn.MSELoss(reduce=False).reduction == "none"
    with pytest.raises(TypeError, match=r"^delta must be a float or int, got: <class 'str'>$"):
        nn.HuberLoss(delta="1")


@pytest.mark.no_sympy_check  # the float32 overflow of 2 * (x - t) is the point: SymPy's exact value is finite
def test_mse_sum_backward_in_float32_doubles_exactly_or_overflows():
    # norm 2 (reduction="sum") multiplies float32 differences exactly, unless 2 * d passes FLT_MAX
    # (dtypes.round_scaled): each element (2 * (x - t)) * grad, every step cast to float32
    import struct
    f32 = struct.Struct("<f")

    def r(v: float) -> float:
        try:
            return f32.unpack(f32.pack(v))[0]
        except OverflowError:
            return math.copysign(math.inf, v)

    xs = [r(v) for v in (1.5, -2.25, 0.1, 2e38, -3e-39, 0.0)]
    ts = [r(v) for v in (0.5, 1.0, -0.3, 0.0, 1e-39, -0.0)]
    for extra in ([], [1.5e38]):
        x = scalargrad.tensor(xs[:4] + extra + xs[4:], requires_grad=True)
        t = scalargrad.tensor(ts[:4] + [0.0] * len(extra) + ts[4:])
        scalargrad.nn.functional.mse_loss(x, t, reduction="sum").backward(scalargrad.tensor(0.75))
        want = [r(r(2.0 * r(a - b)) * 0.75) for a, b in zip(x.tolist(), t.tolist())]
        assert [struct.pack("<d", v) for v in x.grad.tolist()] == [struct.pack("<d", v) for v in want]
