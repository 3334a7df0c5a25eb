"""torch.nn.init: the numbers each function draws after ``manual_seed`` (or from a Generator)
are PyTorch 2.13's, bit for bit (the ``lib`` fixture runs each test on scalargrad and on real
PyTorch; ``torch_ref`` tests compare the two); the fans, gains, warnings and errors are
PyTorch's. Hand-derived figures are noted where they are used.
"""

from __future__ import annotations

import math
import warnings

import pytest

import scalargrad


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


DRAWS = {
    "uniform_": lambda init, t, g: init.uniform_(t, -0.5, 2.0, generator=g),
    "normal_": lambda init, t, g: init.normal_(t, 1.0, 0.25, generator=g),
    "xavier_uniform_": lambda init, t, g: init.xavier_uniform_(t, gain=1.5, generator=g),
    "xavier_normal_": lambda init, t, g: init.xavier_normal_(t, generator=g),
    "kaiming_uniform_": lambda init, t, g: init.kaiming_uniform_(t, a=math.sqrt(5), generator=g),
    "kaiming_uniform_ relu fan_out": lambda init, t, g: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu",
                                                                              generator=g),
    "kaiming_normal_": lambda init, t, g: init.kaiming_normal_(t, generator=g),
    "kaiming_normal_ tanh": lambda init, t, g: init.kaiming_normal_(t, nonlinearity="tanh", generator=g),
    "trunc_normal_": lambda init, t, g: init.trunc_normal_(t, std=0.8, generator=g),
    "trunc_normal_ narrow": lambda init, t, g: init.trunc_normal_(t, mean=0.0, std=1.0, a=1.0, b=1.5, generator=g),
}


@pytest.mark.vector_kernels  # normal_'s vectorised transform
@pytest.mark.parametrize("name", list(DRAWS))
@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (40, 5)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_inits_draw_pytorchs_numbers(torch_ref, name, shape, dtype):
    got = []
    for L in (scalargrad, torch_ref):
        L.manual_seed(2024)
        t = L.empty(shape, dtype=getattr(L, dtype))
        out = DRAWS[name](L.nn.init, t, None)
        assert out is t
        gen = L.Generator().manual_seed(7)
        u = DRAWS[name](L.nn.init, L.empty(shape, dtype=getattr(L, dtype)), gen)
        got.append((t.reshape(-1).tolist(), u.reshape(-1).tolist(), L.rand(2).tolist()))
    assert got[0] == got[1]


def test_inits_on_parameters_leave_them_leaves(lib):
    nn = lib.nn
    lib.manual_seed(0)
    w = nn.Parameter(lib.empty(2, 3))
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    # nn.Linear's own initialisation is kaiming_uniform_(a = sqrt(5)), then the bias
    lib.manual_seed(0)
    layer = nn.Linear(3, 2)
    assert layer.weight.tolist() == w.tolist()


def test_deterministic_inits(lib):
    init = lib.nn.init
    t = lib.empty(2, 3)
    assert repr(init.constant_(t, 0.25)) == "tensor([[0.2500, 0.2500, 0.2500],\n        [0.2500, 0.2500, 0.2500]])"
    assert init.ones_(t).tolist() == [[1.0] * 3] * 2 and init.zeros_(t).tolist() == [[0.0] * 3] * 2
    assert init.eye_(t).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    d = init.dirac_(lib.empty(2, 2, 3))
    assert d.tolist() == [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]
    d = init.dirac_(lib.empty(4, 1, 3), groups=2)
    assert d.reshape(-1).tolist() == [0.0, 1.0, 0.0] + [0.0] * 3 + [0.0, 1.0, 0.0] + [0.0] * 3


def test_calculate_gain(lib):
    g = lib.nn.init.calculate_gain
    # hand values: 1, 5/3, sqrt(2), sqrt(2 / (1 + slope^2)), 3/4
    assert [g("linear"), g("conv2d"), g("sigmoid"), g("tanh"), g("relu"), g("selu")] == [
        1, 1, 1, 5.0 / 3, math.sqrt(2.0), 0.75]
    assert g("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2)) and g("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert g("leaky_relu", 1) == 1.0
    with pytest.raises(ValueError, match=r"^Unsupported nonlinearity gelu$"):
        g("gelu")
    with pytest.raises(ValueError, match=r"^negative_slope True not a valid number$"):
        g("leaky_relu", True)


def test_init_errors_and_warnings(lib):
    init = lib.nn.init
    with pytest.raises(ValueError, match=r"^Fan in and fan out can not be computed for tensor with fewer than 2 "
                                         r"dimensions$"):
        init.xavier_uniform_(lib.empty(3))
    with pytest.raises(ValueError, match=r"^Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]$"):
        init.kaiming_normal_(lib.empty(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match=r"^Only tensors with 2 dimensions are supported$"):
        init.eye_(lib.empty(2, 2, 2))
    with pytest.raises(ValueError, match=r"^Only tensors with 3, 4, or 5 dimensions are supported$"):
        init.dirac_(lib.empty(2, 2))
    with pytest.raises(ValueError, match=r"^dim 0 must be divisible by groups$"):
        init.dirac_(lib.empty(3, 2, 2), groups=2)
    with pytest.warns(UserWarning, match=r"^Initializing zero-element tensors is a no-op$"):
        init.kaiming_uniform_(lib.empty(0, 3))
    with pytest.warns(UserWarning, match=r"^mean is more than 2 std from \[a, b\] in nn\.init\.trunc_normal_\."):
        init.trunc_normal_(lib.empty(2), mean=5.0, std=1.0, a=-1.0, b=1.0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.uniform(lib.empty(2))
        init.xavier_normal(lib.empty(2, 2))
    assert [(m.category, str(m.message)) for m in w] == [
        (FutureWarning, "`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`."),
        (FutureWarning, "`nn.init.xavier_normal` is now deprecated in favor of `nn.init.xavier_normal_`.")]


def test_trunc_normal_stays_in_its_interval():
    scalargrad.manual_seed(3)
    t = scalargrad.nn.init.trunc_normal_(scalargrad.empty(200), mean=0.5, std=2.0, a=-1.0, b=1.0)
    assert all(-1.0 <= x <= 1.0 for x in t.tolist())
    t = scalargrad.nn.init.trunc_normal_(scalargrad.empty(200), a=2.0, b=2.25)
    assert all(2.0 <= x <= 2.25 for x in t.tolist())


def _orthogonal_and_sparse(L):
    L.manual_seed(0)
    out = [L.nn.init.orthogonal_(L.empty(3, 5)).tolist(), L.nn.init.orthogonal_(L.empty(6, 2, 2), gain=2.0).tolist(),
           L.nn.init.orthogonal_(L.empty(4, 4, dtype=L.float64), generator=L.Generator().manual_seed(3)).tolist()]
    exact = [L.nn.init.sparse_(L.empty(4, 3), sparsity=0.5).tolist(), L.randn(2).tolist()]
    try:
        L.nn.init.orthogonal_(L.empty(3))
    except ValueError as e:
        exact.append(str(e))
    return out, exact


def test_orthogonal_and_sparse_inits_are_pytorchs(torch_ref):
    # orthogonal_: the same normal sample; scalargrad's Householder QR runs in double and rounds
    # once, PyTorch's float32 QR (LAPACK sgeqrf, MKL's on x86) in float32: a few float32 ulps
    # apart (measured 3 at gain 2), float64 within 1e-15; sparse_: draws and zeros exactly
    (mine, my_exact), (theirs, their_exact) = _orthogonal_and_sparse(scalargrad), _orthogonal_and_sparse(torch_ref)
    assert my_exact == their_exact

    def flat(x):
        return [v for e in x for v in flat(e)] if isinstance(x, list) else [x]

    for a, b, bound in zip(mine, theirs, (2e-6, 2e-6, 1e-14)):
        assert all(abs(p - q) <= bound * max(abs(q), 1.0) for p, q in zip(flat(a), flat(b)))


def _zero_feature_linears(lib) -> list:
    """Each zero-feature Linear's warnings (category, message, file name), then the next draw."""
    lib.manual_seed(0)
    out = []
    for sizes in ((3, 0), (0, 3), (0, 0)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = lib.nn.Linear(*sizes)
        out.append([(x.category.__name__, str(x.message), x.filename.rsplit("/", 1)[-1]) for x in w])
        out.append((tuple(m.weight.shape), m.bias.tolist()))
    out.append(lib.rand(3).tolist())
    return out


def test_zero_feature_linear_warns_as_kaiming_uniform_does(torch_ref):
    # PyTorch's Linear initialises its weight with init.kaiming_uniform_, which warns from linear.py
    # and draws nothing for a zero-element weight; the bias of Linear(0, 3) draws on [-0, 0]
    assert _zero_feature_linears(scalargrad) == _zero_feature_linears(torch_ref)
