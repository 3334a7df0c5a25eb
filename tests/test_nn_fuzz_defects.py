"""Defects the nn fuzz family (tests/fuzz/gen_nn.py, seed 11027) found, each against live PyTorch.

Every case here is IEEE arithmetic on dyadic operands or an error, the same on every processor:
compared bit for bit (nan for nan)."""

from __future__ import annotations

import math

import pytest

import scalargrad

pytestmark = pytest.mark.live_torch


def _bits(t) -> list:
    return [("nan" if math.isnan(v) else v.hex()) for v in t.detach().reshape(-1).tolist()]


def _both(torch_ref, build):
    return [build(L) for L in (scalargrad, torch_ref)]


def test_group_norm_with_eps_0_over_a_constant_group_is_nan_not_an_exception(torch_ref):
    # nn:11027:631: rstd = 1 / sqrt(0 + 0) is inf in ATen (y = nan), a ZeroDivisionError here before
    def build(L):
        x = L.tensor([[2.25, 2.25]]).expand(3, 2).requires_grad_()
        y = L.nn.GroupNorm(2, 2, eps=0.0)(x)
        y.sum().backward()
        return y, x.grad, L.nn.functional.layer_norm(L.tensor([[1.0, 1.0]]), (2,), eps=0.0)

    for s, t in zip(*_both(torch_ref, build)):
        assert _bits(s) == _bits(t)


# the weight's gradient is ATen's 0 * nan over groups of no positions (nan), where SymPy's sum of
# no terms is 0: not a derivative SymPy can confirm
@pytest.mark.no_sympy_check
def test_group_norm_backward_over_empty_groups(torch_ref):
    # nn:11027:510: a (N, C, 0) input has groups without positions: its backward divided by 0
    def build(L):
        x = L.zeros((0, 4, 2), requires_grad=True).transpose(0, 2)
        w, b = L.ones(4, requires_grad=True), L.ones(4, requires_grad=True)
        y = L.nn.functional.group_norm(x, 2, w, b, 0.0)
        return (y,) + L.autograd.grad((y * 2).sum(), [x, w, b])

    for s, t in zip(*_both(torch_ref, build)):
        assert tuple(s.shape) == tuple(t.shape) and _bits(s) == _bits(t)


def test_kl_div_target_gradient_adds_in_pytorchs_order(torch_ref):
    # nn:11027:14: the target's three gradient terms (xlogy's two, the product's) are added in
    # the order PyTorch's nodes were made: the product first (C++ evaluates the right operand
    # first), so its gradient comes last; the other order rounds differently in float32 (xlogy's
    # log is ATen's scalar std::log, the same on every processor; log_target's exp is not)
    def build(L):
        x = L.tensor([[0.75, 1.5, 1.0], [0.0, 1.0, 1.0]], requires_grad=True)
        t0 = L.tensor([[0.75, 0.5, 1.25], [-1.0, 0.5, -2.75]], requires_grad=True)
        t = t0.abs() + 0.0
        y = L.nn.functional.kl_div(x, t, reduction="none")
        (y * L.arange(1, 7).reshape(2, 3).float() / 4).sum().backward()
        return y, x.grad, t0.grad

    for s, t in zip(*_both(torch_ref, build)):
        assert _bits(s) == _bits(t)


def test_batch_norm_running_var_in_float64_is_atens_double_expression(torch_ref):
    # nn:11027:177: float64's running_var = momentum * unbiased + (1 - momentum) * running_var,
    # each product rounded (Normalization.cpp, no fused multiply-add), not a fused one
    def build(L):
        x = L.tensor([-0.5, 1.75, -1.5, 0.25], dtype=L.float64).reshape(2, 1, 1, 2, 1)
        m = L.nn.BatchNorm3d(1, dtype=L.float64)
        m(x)
        m2 = L.nn.BatchNorm1d(2, momentum=0.3, dtype=L.float64)
        m2(L.tensor([[0.25, -1.0], [1.5, 0.75], [-2.0, 0.5]], dtype=L.float64))
        return m.running_mean, m.running_var, m2.running_mean, m2.running_var

    for s, t in zip(*_both(torch_ref, build)):
        assert _bits(s) == _bits(t)


def _outcome(L, build):
    try:
        y = build(L)
    except Exception as e:
        return type(e).__name__, str(e)
    return tuple(y.shape), y.grad_fn.name() if y.grad_fn else None, _bits(y)


@pytest.mark.parametrize("case", [
    # nn:11027:103, :326: ATen's batch_norm clones an empty input (times weight[0], plus bias[0])
    # before any check: no "more than 1 value", no running statistics' sizes
    lambda L: L.nn.BatchNorm3d(1)(L.zeros((0, 1, 2, 1, 2), requires_grad=True).permute((2, 0, 4, 3, 1))),
    lambda L: L.nn.BatchNorm3d(1)(L.zeros((0, 1, 2, 2, 1), dtype=L.float64)[:, :, ::2]),
    lambda L: L.nn.functional.batch_norm(L.zeros(0, 3, requires_grad=True), None, None, training=True),
    lambda L: L.nn.functional.batch_norm(L.zeros(0, 3), L.zeros(5), L.zeros(5), training=False),
    lambda L: L.nn.BatchNorm1d(3, affine=False).eval()(L.zeros(0, 3, 2)),
    # nn:11027:366: p = 1 needs no noise, so no "at least 2 dimensions"
    lambda L: L.nn.FeatureAlphaDropout(1.0)(L.tensor([3.0, -0.25], requires_grad=True)),
    lambda L: L.nn.functional.dropout2d(L.tensor([3.0, -0.25], requires_grad=True), 1.0),
    lambda L: L.nn.functional.feature_alpha_dropout(L.tensor([3.0, -0.25]), 0.5, training=True),
])
def test_empty_batch_norm_and_feature_dropout_with_p_1(torch_ref, case):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(scalargrad, case) == _outcome(torch_ref, case)


def test_cosine_similarity_module(torch_ref):
    # nn:11027:2x: torch.nn.CosineSimilarity was refused as Unsupported (F.cosine_similarity was there)
    def build(L):
        a = L.tensor([[1.0, 2.0, -0.5], [0.25, 0.0, 3.0]], dtype=L.float64, requires_grad=True)
        b = L.tensor([[2.0, 1.0, 0.5], [-1.0, 0.5, 0.75]], dtype=L.float64)
        m = L.nn.CosineSimilarity(dim=0, eps=0.25)
        y = m(a, b)
        return repr(m), y.grad_fn.name(), tuple(y.shape), L.nn.CosineSimilarity()(a, b).shape

    assert build(scalargrad) == build(torch_ref)


@pytest.mark.parametrize("case", [
    # nn:11027:2: PyTorch's error on a wrong target, not the refusal of the gradient
    lambda L: L.nn.functional.multilabel_margin_loss(L.ones(3, 2, requires_grad=True).t(),
                                                     L.tensor([[1, 0], [1, 1], [0, -1]])),
    lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 3, requires_grad=True), L.tensor([[3, 0, -1]] * 2)),
    lambda L: L.nn.functional.multi_margin_loss(L.ones(2, 3, requires_grad=True), L.tensor([0, 3])),
    lambda L: L.nn.functional.multi_margin_loss(L.ones(2, 3, requires_grad=True), L.tensor([0, 1, 2])),
    # nn:14:82: a weight of another size than the classes
    lambda L: L.nn.functional.multi_margin_loss(L.tensor([-0.5, -2.0], requires_grad=True)[::2], L.tensor(1),
                                                weight=L.tensor([0.5, 1.0])),
    lambda L: L.nn.functional.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1]), weight=L.ones(1, 3)),
])
def test_margin_losses_check_the_target_before_refusing_the_gradient(torch_ref, case):
    s, t = _outcome(scalargrad, case), _outcome(torch_ref, case)
    assert s == t


@pytest.mark.parametrize("shape", [(3, 8, 0), (0, 8, 0), (8, 0)])
def test_fold_message_on_empty_dimensions(torch_ref, shape):
    # nn:11027:476: col2im's words ("tensor for input with possibly 0 batch size")
    def case(L):
        return L.nn.functional.fold(L.zeros(shape), (2, 2), (2, 2))

    assert _outcome(scalargrad, case) == _outcome(torch_ref, case)


@pytest.mark.parametrize("which", ["multi_margin_loss", "multilabel_margin_loss"])
def test_margin_losses_over_a_batch_of_0(torch_ref, which):
    # nn:11027:212: multilabel_margin_loss refused an empty target; multi_margin_loss's 'mean'
    # divided by 0 frames (ZeroDivisionError)
    def case(L, reduction="none"):
        target = L.zeros(0, dtype=L.int64) if which == "multi_margin_loss" else L.zeros(0, 3, dtype=L.int64)
        return getattr(L.nn.functional, which)(L.zeros(0, 3, dtype=L.float64), target, reduction=reduction)

    assert _outcome(scalargrad, case) == _outcome(torch_ref, case)
    # 'sum' and 'mean' by hand: no terms (0) and 0 / 0 frames (nan); PyTorch 2.13 returns
    # uninitialised memory for both
    assert case(scalargrad, "sum").item() == 0.0
    assert math.isnan(case(scalargrad, "mean").item())
