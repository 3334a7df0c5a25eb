"""torch.nn.utils: clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_,
parameters_to_vector, vector_to_parameters.

Expected figures: PyTorch 2.13's (``lib`` runs a test on both libraries; ``torch_ref`` compares)
and hand derivations. The clipping coefficient ``max_norm / (total_norm + 1e-6)`` and the
multiplications are IEEE and compared bit for bit; the norms themselves are computed exactly
and rounded once by scalargrad, while PyTorch adds the squares in the order of its vectorised
kernel: where the exact sum is a float32 number (small integers) they agree bit for bit, else
within 2 ulps (measured: 1).
"""

from __future__ import annotations

import math
import random
import warnings

import pytest

import scalargrad


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _params_with_grads(L, grads):
    ps = []
    for g in grads:
        p = L.nn.Parameter(L.zeros(len(g)))
        p.grad = L.tensor(g)
        ps.append(p)
    return ps


def test_clip_grad_norm_by_hand(lib):
    # grads (3, 4) and (12,): norms 5 and 12, total 13; max_norm 6.5 halves them (up to the 1e-6)
    ps = _params_with_grads(lib, [[3.0, 4.0], [12.0]])
    total = lib.nn.utils.clip_grad_norm_(ps, 6.5)
    assert repr(total) == "tensor(13.)"
    coef = lib.tensor(6.5) / (lib.tensor(13.0) + 1e-6)
    assert ps[0].grad.tolist() == (lib.tensor([3.0, 4.0]) * coef).tolist()
    # by hand, each float32 step: max_norm / t is reciprocal(t) * max_norm in PyTorch
    f32 = scalargrad.float32.round
    assert ps[1].grad.tolist() == [f32(12.0 * f32(f32(1.0 / f32(13.0 + f32(1e-6))) * 6.5))]
    # below max_norm the coefficient clamps at 1: unchanged
    ps = _params_with_grads(lib, [[3.0, 4.0]])
    assert lib.nn.utils.clip_grad_norm_(ps[0], 100.0).item() == 5.0 and ps[0].grad.tolist() == [3.0, 4.0]
    # other norms: inf is the largest |g|, 1 the sum of |g|
    ps = _params_with_grads(lib, [[3.0, -4.0], [-12.0]])
    assert lib.nn.utils.clip_grad_norm_(ps, 100.0, norm_type=math.inf).item() == 12.0
    assert lib.nn.utils.clip_grad_norm_(ps, 100.0, norm_type=1).item() == 19.0


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0])
def test_clip_grad_norm_matches_pytorch(torch_ref, norm_type):
    rng = random.Random(5)
    grads = [[rng.uniform(-2, 2) for _ in range(n)] for n in (3, 17, 40)]
    got = []
    for L in (scalargrad, torch_ref):
        ps = _params_with_grads(L, grads)
        total = L.nn.utils.clip_grad_norm_(iter(ps), 1.5, norm_type=norm_type)
        got.append((total.item(), [p.grad.tolist() for p in ps]))
    (ta, ga), (tb, gb) = got
    if norm_type == 2.0:  # each grad's 2-norm and the norm of those: ATen's kernel, bit for bit
        assert (ta, ga) == (tb, gb)
    assert abs(ta - tb) <= 2 * 2.0**-23 * tb
    # the same coefficient where the norms agree, then the same IEEE products
    if ta == tb:
        assert ga == gb
    else:
        for a, b in zip(sum(ga, []), sum(gb, [])):
            assert abs(a - b) <= 4 * 2.0**-24 * abs(b)


def test_total_norm_and_clip_with_norm(lib):
    u = lib.nn.utils
    gs = [lib.tensor([3.0, 4.0]), lib.tensor([[12.0]])]
    assert repr(u.get_total_norm(gs)) == "tensor(13.)"
    assert repr(u.get_total_norm([])) == "tensor(0.)"
    ps = _params_with_grads(lib, [[3.0, 4.0]])
    u.clip_grads_with_norm_(ps, 1.0, lib.tensor(5.0))
    assert ps[0].grad.tolist() == (lib.tensor([3.0, 4.0]) * (1.0 / (lib.tensor(5.0) + 1e-6))).tolist()
    with pytest.raises(RuntimeError, match=r"^The total norm of order 2\.0 for gradients from `parameters` is "
                                           r"non-finite, so it cannot be clipped\."):
        u.get_total_norm([lib.tensor([math.inf])], error_if_nonfinite=True)
    assert repr(u.clip_grad_norm_(ps, 100.0, foreach=True)) == "tensor(1.0000)"  # the CPU has a foreach path too
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert u.clip_grad_norm_((p for p in []), 1.0).item() == 0.0
        u.clip_grad_norm(ps, 1.0)
    assert [(m.category, str(m.message)) for m in w] == [
        (UserWarning, "`parameters` is an empty generator, no gradient clipping will occur."),
        (FutureWarning, "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                        "`torch.nn.utils.clip_grad_norm_`.")]


def test_clip_grad_value(lib):
    ps = _params_with_grads(lib, [[3.0, -0.25, -4.0], [0.5]])
    assert lib.nn.utils.clip_grad_value_(ps, 0.4) is None
    assert [p.grad.tolist() for p in ps] == [[0.4000000059604645, -0.25, -0.4000000059604645], [0.4000000059604645]]
    p = lib.nn.Parameter(lib.ones(2))
    with pytest.raises(RuntimeError, match=r"^Expected !nested_tensorlist\[0\]\.empty\(\) to be true, but got "
                                           r"false\."):
        lib.nn.utils.clip_grad_value_(p, 1.0)  # no gradient at all: PyTorch's grouping refuses the empty list


def test_parameters_to_vector_and_back(lib):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(3, 2)
    v = nn.utils.parameters_to_vector(m.parameters())
    assert v.shape == (8,) and v.grad_fn.name() == "CatBackward0"
    assert v.tolist() == m.weight.reshape(-1).tolist() + m.bias.tolist()
    (v * lib.arange(8.0)).sum().backward()
    assert m.weight.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and m.bias.grad.tolist() == [6.0, 7.0]
    nn.utils.vector_to_parameters(lib.arange(8.0), m.parameters())
    assert m.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and m.bias.tolist() == [6.0, 7.0]
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    with pytest.raises(TypeError, match=r"^expected torch\.Tensor, but got: list$"):
        nn.utils.vector_to_parameters([1.0], m.parameters())
