"""The activations of torch.nn and nn.functional: leaky_relu, elu/selu/celu, gelu, silu, mish,
softplus, hardtanh/relu6, hardsigmoid, hardswish, threshold, softshrink, hardshrink, logsigmoid,
softsign, tanhshrink, softmax, log_softmax, softmin; their modules.

Expected figures: PyTorch 2.13's (reprs, messages, grad_fn names; the ``lib`` fixture runs a
test on scalargrad and on real PyTorch), hand derivations, and, for the activations made of
exp/expm1/log1p/erf/tanh, PyTorch's formula evaluated with correctly rounded sub-results
(``faithfulness.Kernel``, mpmath at 300 bits): scalargrad's float32 values equal it bit for bit,
and live PyTorch (whose vectorised libraries are within an ulp or so, and whose vectorised float32
erf is an approximation) lies within a measured bound of it. The activations made of IEEE
operations only are compared with live PyTorch bit for bit, on 1 element (ATen's scalar code)
and on 37 (its vectorised code, then the scalar tail).
"""

from __future__ import annotations

import math
import random
import warnings
from fractions import Fraction

import pytest

import scalargrad

from faithfulness import FLOAT32, Kernel, fuses, same

SQRT1_2 = 0.70710678118654752440


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _draws(n: int, seed: int, spread=(-6.0, 6.0)) -> list:
    rng = random.Random(seed)
    return [rng.choice([rng.uniform(*spread), rng.uniform(-0.2, 0.2), rng.uniform(-30.0, 30.0)]) for _ in range(n)]


def _run(L, fn, xs, gs, dtype):
    """(forward values, input gradient) of ``fn`` on a 1-D tensor of ``xs``, backward of ``gs``."""
    dt = getattr(L, dtype)
    x = L.tensor(xs, dtype=dt, requires_grad=True)
    y = fn(L.nn.functional, x)
    y.backward(L.tensor(gs, dtype=dt))
    return y.tolist(), x.grad.tolist()


# ---------------------------------------------------------------- IEEE-only activations, bit for bit

IEEE = {
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.013),
    "leaky_relu default": lambda F, x: F.leaky_relu(x),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.7, 1.1),
    "relu6": lambda F, x: F.relu6(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "softshrink": lambda F, x: F.softshrink(x, 0.3),
    "hardshrink": lambda F, x: F.hardshrink(x, 0.3),
    "threshold": lambda F, x: F.threshold(x, 0.1, -2.0),
    "softsign": lambda F, x: F.softsign(x),
}
# the kinks, where PyTorch's conventions choose a side
KINKS = [0.0, -0.0, 0.013, -0.7, 1.1, 6.0, -3.0, 3.0, 0.3, -0.3, 0.1]


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("name", list(IEEE))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 37])
def test_ieee_activations_match_pytorch_bit_for_bit(torch_ref, name, dtype, n):
    fn = IEEE[name]
    for seed in range(4):
        xs = _draws(n, seed) if seed else (KINKS * 4)[:n]
        gs = [g * 0.37 for g in _draws(n, seed + 100)]
        ours, theirs = _run(scalargrad, fn, xs, gs, dtype), _run(torch_ref, fn, xs, gs, dtype)
        assert all(map(same, ours[0], theirs[0])), (name, xs)
        assert all(map(same, ours[1], theirs[1])), (name, xs)


def test_ieee_activations_by_hand():
    F = scalargrad.nn.functional
    x = scalargrad.tensor([-2.0, 0.0, 0.5, 3.0, 8.0], requires_grad=True)
    checks = [
        # leaky_relu: x or 0.25 x; slope 0.25 at and below 0 (x > 0 takes the identity)
        (F.leaky_relu(x, 0.25), [-0.5, 0.0, 0.5, 3.0, 8.0], [0.25, 0.25, 1.0, 1.0, 1.0]),
        # hardtanh(-1, 2): gradient 0 at and beyond the bounds
        (F.hardtanh(x, -1.0, 2.0), [-1.0, 0.0, 0.5, 2.0, 2.0], [0.0, 1.0, 1.0, 0.0, 0.0]),
        # relu6
        (F.relu6(x), [0.0, 0.0, 0.5, 3.0, 6.0], [0.0, 0.0, 1.0, 1.0, 0.0]),
        # hardswish: x (x + 3) / 6 on (-3, 3), slope x / 3 + 1/2; 0 and x outside (slope 1 at 3 itself)
        (F.hardswish(x), [-1 / 3, 0.0, 0.5 * 3.5 / 6, 3.0, 8.0], [-1 / 6, 0.5, 0.5 / 3 + 0.5, 1.0, 1.0]),
        # softshrink(1): x - 1 above, x + 1 below, 0 between (gradient 0 at +-1)
        (F.softshrink(x, 1.0), [-1.0, 0.0, 0.0, 2.0, 7.0], [1.0, 0.0, 0.0, 1.0, 1.0]),
        # threshold(0.5, 9): 9 at and below 0.5
        (F.threshold(x, 0.5, 9.0), [9.0, 9.0, 9.0, 3.0, 8.0], [0.0, 0.0, 0.0, 1.0, 1.0]),
    ]
    for y, values, grads in checks:
        (g,) = scalargrad.autograd.grad(y.sum(), x)
        assert y.tolist() == pytest.approx(values, rel=1e-6)
        assert g.tolist() == pytest.approx(grads, rel=1e-6)
    # hardsigmoid's slope is the float32 number 1.0f / 6.0f, in float64 too (ATen's constant)
    x64 = scalargrad.tensor([1.0], dtype=scalargrad.float64, requires_grad=True)
    (g,) = scalargrad.autograd.grad(F.hardsigmoid(x64).sum(), x64)
    assert g.tolist() == [0.1666666716337204]


# ---------------------------------------------------------------- transcendental activations


def _elu(k, x, g, alpha=1.0, scale=1.0, input_scale=1.0):
    neg, pos, ipt = k.mul(k.r(alpha), k.r(scale)), k.r(scale), k.r(input_scale)
    if x <= 0:
        y = k.mul(k.libm("expm1", k.mul(x, ipt)), neg)
        d = k.mul(k.mul(k.mul(g, ipt), neg), k.libm("exp", k.mul(x, ipt)))
    else:
        y, d = k.mul(x, pos), k.mul(g, pos)
    return y, d


def _gelu(k, x, g):
    erf = k.libm("erf", k.mul(x, k.r(SQRT1_2)))
    y = k.mul(k.mul(x, 0.5), k.add(1.0, erf))
    cdf = k.mul(0.5, k.add(1.0, erf))
    pdf = k.mul(k.r((2.0 / math.sqrt(math.pi)) * SQRT1_2 * 0.5), k.libm("exp", k.mul(k.mul(x, x), -0.5)))
    return y, k.mul(g, k.add(cdf, k.mul(x, pdf)))


def _gelu_tanh(k, x, g):
    beta, kappa = k.r(math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5), k.r(0.044715)
    x_sq = k.mul(x, x)
    t = k.libm("tanh", k.mul(beta, k.add(x, k.mul(kappa, k.mul(x_sq, x)))))
    y = k.mul(k.mul(0.5, x), k.add(1.0, t))
    right = k.mul(k.mul(k.mul(0.5, x), k.sub(1.0, k.mul(t, t))),
                  k.mul(beta, k.add(1.0, k.mul(k.mul(3.0, kappa), x_sq))))
    return y, k.mul(g, k.add(k.mul(0.5, k.add(1.0, t)), right))


def _silu(k, x, g):
    e = k.libm("exp", -x)
    y = k.div(x, k.add(1.0, e))
    s = k.div(1.0, k.add(1.0, e))
    return y, k.mul(k.mul(g, s), k.add(1.0, k.mul(x, k.sub(1.0, s))))


def _mish(k, x, g):
    t = k.libm("tanh", k.libm("log1p", k.libm("exp", x)))
    s = k.div(1.0, k.add(1.0, k.libm("exp", -x)))
    return k.mul(x, t), k.mul(g, k.add(t, k.mul(k.mul(x, s), k.sub(1.0, k.mul(t, t)))))


def _softplus(k, x, g, beta=1.3, threshold=5.0):
    b, th = k.r(beta), k.r(threshold)
    xb = k.mul(x, b)
    z = k.libm("exp", xb)
    if xb > th:
        return x, g
    return k.div(k.libm("log1p", k.libm("exp", xb)), b), k.div(k.mul(g, z), k.add(z, 1.0))


def _logsigmoid(k, x, g):
    b = k.libm("exp", -abs(x))
    y = k.sub(min(x, 0.0), k.libm("log1p", b))
    neg = x < 0
    return y, k.mul(k.sub(1.0 if neg else 0.0, k.mul(1.0 if neg else -1.0, k.div(b, k.add(1.0, b)))), g)


TRANSCENDENTAL = {
    "elu": (lambda F, x: F.elu(x, 0.7), lambda k, x, g: _elu(k, x, g, alpha=0.7)),
    "selu": (lambda F, x: F.selu(x),
             lambda k, x, g: _elu(k, x, g, alpha=1.6732632423543772848, scale=1.0507009873554804934)),
    "celu": (lambda F, x: F.celu(x, 0.25), lambda k, x, g: _elu(k, x, g, alpha=0.25, input_scale=4.0)),
    "gelu": (lambda F, x: F.gelu(x), _gelu),
    "gelu tanh": (lambda F, x: F.gelu(x, approximate="tanh"), _gelu_tanh),
    "silu": (lambda F, x: F.silu(x), _silu),
    "mish": (lambda F, x: F.mish(x), _mish),
    "softplus": (lambda F, x: F.softplus(x, 1.3, 5.0), _softplus),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), _logsigmoid),
}
# measured on the capture machine (Intel Xeon, AVX512; 4 seeds x 37 elements x 2 dtypes each, this
# test runs 2 of them):
# live PyTorch's distance from the reference, in ulps of |x| + |y| (forward) and of
# |g| (1 + |x|) (gradient). Largest: 3.9 (gelu float32: ATen's vectorised float32 erf is a
# polynomial approximation good to 1.5e-7, its scalar code uses the C library's erf).
BOUND = 8.0


def _scaled_error(a: float, b: float, scale: float, dtype: str) -> float:
    eps = 2.0**-24 if dtype == FLOAT32 else 2.0**-53
    if same(a, b):
        return 0.0
    return abs(a - b) / (eps * scale) if scale else math.inf


@pytest.mark.parametrize("name", list(TRANSCENDENTAL))
def test_transcendental_activations_equal_the_correctly_rounded_reference(name):
    fn, formula = TRANSCENDENTAL[name]
    for seed in range(3):
        xs = _draws(16, seed)
        gs = [g * 0.37 for g in _draws(16, seed + 100)]
        xs32 = [scalargrad.float32.round(x) for x in xs]
        gs32 = [scalargrad.float32.round(g) for g in gs]
        ys, grads = _run(scalargrad, fn, xs32, gs32, "float32")
        k = Kernel(FLOAT32)
        for x, g, y, d in zip(xs32, gs32, ys, grads):
            want_y, want_d = formula(k, x, g)
            assert same(y, want_y), (name, x, y, want_y)
            assert same(d, want_d), (name, x, d, want_d)


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("name", list(TRANSCENDENTAL))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transcendental_activations_are_within_the_measured_bound_of_pytorch(torch_ref, name, dtype):
    fn, _ = TRANSCENDENTAL[name]
    for seed in range(2):
        xs = _draws(37, seed)
        gs = [g * 0.37 for g in _draws(37, seed + 100)]
        (ys, dx), (ty, tdx) = _run(scalargrad, fn, xs, gs, dtype), _run(torch_ref, fn, xs, gs, dtype)
        for x, g, a, b, da, db in zip(xs, gs, ys, ty, dx, tdx):
            assert _scaled_error(a, b, abs(x) + abs(a), dtype) <= BOUND, (name, x, a, b)
            assert _scaled_error(da, db, abs(g) * (1 + abs(x)), dtype) <= BOUND, (name, x, da, db)


def test_transcendental_activations_by_hand():
    F = scalargrad.nn.functional
    f64 = scalargrad.float64
    x = scalargrad.tensor([-1.0, 2.0], dtype=f64, requires_grad=True)
    e = math.exp(-1.0)
    cases = [
        # elu(alpha = 2): 2 (e^x - 1) below 0, slope 2 e^x; x above
        (F.elu(x, 2.0), [2 * (e - 1), 2.0], [2 * e, 1.0]),
        # silu = x sigmoid(x), slope s (1 + x (1 - s))
        (F.silu(x), [-1 / (1 + math.e), 2 / (1 + e * e)],
         [(1 / (1 + math.e)) * (1 - (1 - 1 / (1 + math.e))), (1 / (1 + e * e)) * (1 + 2 * (1 - 1 / (1 + e * e)))]),
        # softplus = log(1 + e^x), slope sigmoid(x)
        (F.softplus(x), [math.log1p(e), math.log1p(math.exp(2.0))], [1 / (1 + math.e), 1 / (1 + e * e)]),
        # logsigmoid = -log(1 + e^-x), slope 1 - sigmoid(x)
        (F.logsigmoid(x), [-math.log1p(math.e), -math.log1p(e * e)], [1 - 1 / (1 + math.e), 1 - 1 / (1 + e * e)]),
        # gelu = x Phi(x), slope Phi(x) + x phi(x)
        (F.gelu(x), [-0.5 * (1 + math.erf(-SQRT1_2)), 2 * 0.5 * (1 + math.erf(2 * SQRT1_2))],
         [0.5 * (1 + math.erf(-SQRT1_2)) - math.exp(-0.5) / math.sqrt(2 * math.pi),
          0.5 * (1 + math.erf(2 * SQRT1_2)) + 2 * math.exp(-2.0) / math.sqrt(2 * math.pi)]),
    ]
    for y, values, grads in cases:
        (g,) = scalargrad.autograd.grad(y.sum(), x)
        assert y.tolist() == pytest.approx(values, rel=1e-14)
        assert g.tolist() == pytest.approx(grads, rel=1e-14)


# ---------------------------------------------------------------- graphs: names, saved values, double backward

GRAPH = {
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.2), "LeakyReluBackward0", {"_saved_negative_slope": 0.2}),
    "leaky_relu_": (lambda F, x: F.leaky_relu(x * 1, 0.2, inplace=True), "LeakyReluBackward1",
                    {"_saved_negative_slope": 0.2}),
    "elu": (lambda F, x: F.elu(x), "EluBackward0", {"_saved_alpha": 1.0, "_saved_scale": 1, "_saved_input_scale": 1}),
    "elu_": (lambda F, x: F.elu(x * 1, inplace=True), "EluBackward1", {"_saved_alpha": 1.0}),
    "selu": (lambda F, x: F.selu(x), "EluBackward0",
             {"_saved_alpha": 1.6732632423543772, "_saved_scale": 1.0507009873554805}),
    "celu": (lambda F, x: F.celu(x, 2.0), "CeluBackward0", {"_saved_alpha": 2.0}),
    "celu_": (lambda F, x: F.celu(x * 1, 2.0, inplace=True), "CeluBackward1", {"_saved_alpha": 2.0}),
    "gelu": (lambda F, x: F.gelu(x), "GeluBackward0", {"_saved_approximate": "none"}),
    "gelu tanh": (lambda F, x: F.gelu(x, approximate="tanh"), "GeluBackward0", {"_saved_approximate": "tanh"}),
    "silu": (lambda F, x: F.silu(x), "SiluBackward0", {}),
    "silu_": (lambda F, x: F.silu(x * 1, inplace=True), "SiluBackward0", {}),
    "mish": (lambda F, x: F.mish(x), "MishBackward0", {}),
    "softplus": (lambda F, x: F.softplus(x), "SoftplusBackward0", {"_saved_beta": 1, "_saved_threshold": 20}),
    "hardtanh": (lambda F, x: F.hardtanh(x), "HardtanhBackward0", {"_saved_min_val": -1.0, "_saved_max_val": 1.0}),
    "hardtanh_": (lambda F, x: F.hardtanh(x * 1, inplace=True), "HardtanhBackward0", {"_saved_min_val": -1.0}),
    "relu6": (lambda F, x: F.relu6(x), "HardtanhBackward0", {"_saved_min_val": 0, "_saved_max_val": 6}),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), "HardsigmoidBackward0", {}),
    "hardswish": (lambda F, x: F.hardswish(x), "HardswishBackward0", {}),
    "threshold": (lambda F, x: F.threshold(x, 0.1, 2.0), "ThresholdBackward0", {"_saved_threshold": 0.1}),
    "threshold_": (lambda F, x: F.threshold(x * 1, 0.1, 2.0, inplace=True), "ThresholdBackward1",
                   {"_saved_threshold": 0.1}),
    "softshrink": (lambda F, x: F.softshrink(x), "SoftshrinkBackward0", {"_saved_lambd": 0.5}),
    "hardshrink": (lambda F, x: F.hardshrink(x), "HardshrinkBackward0", {"_saved_lambd": 0.5}),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), "LogSigmoidBackward0", {}),
    "softsign": (lambda F, x: F.softsign(x), "DivBackward0", {}),
    "tanhshrink": (lambda F, x: F.tanhshrink(x), "SubBackward0", {}),
    "softmax": (lambda F, x: F.softmax(x, 0), "SoftmaxBackward0", {"_saved_dim": 0}),
    # the dim as given, shown as an unsigned 64-bit number
    "log_softmax": (lambda F, x: F.log_softmax(x, -1), "LogSoftmaxBackward0", {"_saved_dim": 2**64 - 1}),
    "softmin": (lambda F, x: F.softmin(x, 0), "SoftmaxBackward0", {"_saved_dim": 0}),
}


def _graph(f) -> list:
    out, stack = [], [f]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        out.append((node.name(), [None if n is None else n.name() for n, _ in node.next_functions]))
        stack.extend(n for n, _ in node.next_functions)
    return out


@pytest.mark.parametrize("name", list(GRAPH))
def test_grad_fn_names_saved_values_and_next_functions_match_pytorch(torch_ref, name):
    fn, node, saved = GRAPH[name]
    got = []
    for L in (scalargrad, torch_ref):
        x = L.tensor([-1.5, 0.25, 2.0], requires_grad=True)
        y = fn(L.nn.functional, x)
        assert y.grad_fn.name() == node
        for attr, value in saved.items():
            assert getattr(y.grad_fn, attr) == value and type(getattr(y.grad_fn, attr)) is type(value), attr
        got.append(_graph(y.grad_fn))
    assert got[0] == got[1]


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "gelu", "gelu tanh", "silu", "mish", "softplus", "hardtanh",
                                  "hardswish", "softshrink", "hardshrink", "logsigmoid", "softmax", "log_softmax"])
def test_double_backward_nodes_match_pytorch(torch_ref, name):
    fn = GRAPH[name][0]
    got = []
    for L in (scalargrad, torch_ref):
        x = L.tensor([-1.5, 0.25, 2.0], dtype=L.float64, requires_grad=True)
        y = fn(L.nn.functional, x)
        (g,) = L.autograd.grad((y * L.tensor([1.0, -2.0, 0.5], dtype=L.float64)).sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g * g).sum(), x)
        got.append((g.grad_fn.name(), g.tolist(), h.tolist()))
    assert got[0][0] == got[1][0]
    assert got[0][1] == pytest.approx(got[1][1], rel=1e-12, abs=1e-15)
    assert got[0][2] == pytest.approx(got[1][2], rel=1e-9, abs=1e-12)


def test_hardsigmoid_has_no_double_backward(lib):
    x = lib.tensor([0.5], requires_grad=True)
    (g,) = lib.autograd.grad(lib.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match=r"^derivative for aten::hardsigmoid_backward is not implemented$"):
        g.sum().backward()


# ---------------------------------------------------------------- softmax


def _softmax_case(L, shape, dim, log, dtype):
    rng = random.Random(hash((shape, dim, log)) & 0xFFFF)
    n = math.prod(shape)
    dt = getattr(L, dtype)
    x = L.tensor([rng.uniform(-4, 4) for _ in range(n)], dtype=dt).reshape(shape).requires_grad_()
    g = L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=dt).reshape(shape)
    y = (L.log_softmax if log else L.softmax)(x, dim)
    y.backward(g)
    return y.reshape(-1).tolist(), x.grad.reshape(-1).tolist(), y


@pytest.mark.parametrize("shape, dim", [((5, 4), 0), ((3, 5, 4), 1), ((4, 7), 1), ((6,), 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_backward_is_bit_exact_where_ieee(torch_ref, shape, dim, dtype):
    # softmax's backward, (g - sum(g * y)) * y, has no exp: bit for bit given PyTorch's y where
    # scalargrad models the live kernel, which the test tells from the live PyTorch: along an inner
    # dimension ATen runs a chain of fused multiply-adds (not fused in its generic code:
    # ``fuses``), along the last one a scalar loop while it is shorter than a vector (64 bytes
    # with AVX512, 32 otherwise: get_cpu_capability). Elsewhere (AVX2's float64 vectors, the
    # generic code) both lie within the bound of any order of evaluation of the exact value.
    rng = random.Random(1)
    n = math.prod(shape)
    y_torch = torch_ref.softmax(torch_ref.tensor([rng.uniform(-4, 4) for _ in range(n)],
                                                 dtype=getattr(torch_ref, dtype)).reshape(shape), dim)
    g = [rng.uniform(-2, 2) for _ in range(n)]
    from scalargrad._tensor.softmax import backward_data

    ys = scalargrad.tensor(y_torch.tolist(), dtype=getattr(scalargrad, dtype))
    gs = scalargrad.tensor(g, dtype=getattr(scalargrad, dtype)).reshape(shape)
    ours = backward_data(gs, ys, scalargrad._ops.softmax.Along(dim % len(shape), shape), False)
    theirs = torch_ref._softmax_backward_data(torch_ref.tensor(g, dtype=getattr(torch_ref, dtype)).reshape(shape),
                                               y_torch, dim, getattr(torch_ref, dtype))
    lanes = (64 if torch_ref.backends.cpu.get_cpu_capability() == "AVX512" else 32) // (4 if dtype == "float32" else 8)
    inner = dim % len(shape) != len(shape) - 1
    if (inner and fuses(torch_ref)) or (not inner and shape[dim] < lanes):
        assert all(map(same, ours.reshape(-1).tolist(), theirs.reshape(-1).tolist()))
        return
    gs = scalargrad.tensor(g, dtype=getattr(scalargrad, dtype)).reshape(shape).tolist()
    for values in (ours.tolist(), theirs.tolist()):
        for i, (exact, bound, got) in enumerate(zip(*_softmax_backward_exact(gs, y_torch.tolist(), dim, dtype),
                                                    _flat(values))):
            assert abs(Fraction(got) - exact) <= bound, (i, got, float(exact), bound)


def _flat(nested) -> list:
    return [v for x in nested for v in _flat(x)] if isinstance(nested, list) else [nested]


def _softmax_backward_exact(g, y, dim: int, dtype: str):
    """The exact (g - sum(g * y)) * y of each element, and the bound on the distance of any
    float evaluation from it: the sum of n products in any order, with or without fused
    multiply-adds, is within gamma_n * T of exact, T = sum |g_j y_j| (Higham, 3.1); the
    subtraction and the product add one rounding each:
    |r - exact| <= |y_i| (gamma_n T + u (|g_i| + (1 + gamma_n) T)) + u |y_i| (|g_i| + (1 + gamma_n) T) (1 + u)."""
    import itertools

    u = 2.0**-24 if dtype == "float32" else 2.0**-53
    shape = []
    t = g
    while isinstance(t, list):
        shape.append(len(t))
        t = t[0]
    fg, fy = _flat(g), _flat(y)
    strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    exact = [Fraction(0)] * len(fg)
    bound = [0.0] * len(fg)
    n = shape[dim]
    gamma = n * u / (1 - n * u)
    others = [range(s) for k, s in enumerate(shape) if k != dim]
    for rest in itertools.product(*others):
        base = sum(i * strides[k] for k, i in zip([k for k in range(len(shape)) if k != dim], rest))
        idx = [base + j * strides[dim] for j in range(n)]
        s = sum(Fraction(fg[i]) * Fraction(fy[i]) for i in idx)
        total = float(sum(abs(Fraction(fg[i]) * Fraction(fy[i])) for i in idx))
        for i in idx:
            exact[i] = (Fraction(fg[i]) - s) * Fraction(fy[i])
            d = abs(fg[i]) + (1 + gamma) * total
            bound[i] = 1.001 * (abs(fy[i]) * (gamma * total + u * d) + u * abs(fy[i]) * d * (1 + u))
    return exact, bound


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("shape, dim", [((5, 4), 0), ((3, 5, 4), 1), ((4, 7), 1), ((2, 20), 1)])
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_is_within_the_measured_bound_of_pytorch(torch_ref, shape, dim, log, dtype):
    # exp makes softmax machine-dependent; measured: 2 ulps of 1 (forward), 4 of the gradient's
    # terms (|g| + sum |g y|)
    eps = 2.0**-24 if dtype == "float32" else 2.0**-53
    a = _softmax_case(scalargrad, shape, dim, log, dtype)
    b = _softmax_case(torch_ref, shape, dim, log, dtype)
    assert a[2].grad_fn.name() == b[2].grad_fn.name()
    for p, q in zip(a[0], b[0]):
        assert abs(p - q) <= 4 * eps * (1 + abs(q)), (p, q)
    for p, q in zip(a[1], b[1]):
        assert abs(p - q) <= 16 * eps * (1 + abs(q)), (p, q)


def test_softmax_equals_the_correctly_rounded_reference():
    # ATen's order: m = max, e = exp(x - m), s = sum e in order; e * (1 / s) along the last
    # dimension, e / s along another; log_softmax (x - m) - log(s)
    k = Kernel(FLOAT32)
    rows = [[0.5, -1.25, 2.0, 0.125], [3.0, 3.0, -7.5, 0.0]]
    x = scalargrad.tensor(rows)
    for dim in (0, 1):
        y, ly = x.softmax(dim).tolist(), x.log_softmax(dim).tolist()
        for i in range(2):
            for j in range(4):
                line = rows[i] if dim == 1 else [rows[0][j], rows[1][j]]
                pos = j if dim == 1 else i
                m = max(line)
                e = [k.libm("exp", k.sub(v, m)) for v in line]
                s = 0.0
                for v in e:
                    s = k.add(s, v)
                want = k.mul(e[pos], k.div(1.0, s)) if dim == 1 else k.div(e[pos], s)
                assert same(y[i][j], want)
                assert same(ly[i][j], k.sub(k.sub(line[pos], m), k.libm("log", s)))


def test_softmax_arguments_and_errors(lib):
    F = lib.nn.functional
    x = lib.tensor([[1.0, 2.0], [3.0, 5.0]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = F.softmax(x)
    assert [str(m.message) for m in w] == ["Implicit dimension choice for softmax has been deprecated. Change the call "
                                           "to include dim=X as an argument."]
    assert repr(y) == "tensor([[0.2689, 0.7311],\n        [0.1192, 0.8808]])"  # dim 1 for a 2-D input
    assert repr(F.softmax(x, dim=0, dtype=lib.float64)) == ("tensor([[0.1192, 0.0474],\n        [0.8808, 0.9526]], "
                                                            "dtype=torch.float64)")
    assert repr(F.log_softmax(lib.tensor(3.0), 0)) == "tensor(0.)"
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got "
                                         r"2\)$"):
        F.softmax(x, 2)
    with pytest.raises(NotImplementedError, match=r"^\"softmax_lastdim_kernel_impl\" not implemented for 'Long'$"):
        F.softmax(lib.tensor([1, 2]), 0)
    with pytest.raises(NotImplementedError, match=r"^\"log_softmax_kernel_impl\" not implemented for 'Long'$"):
        F.log_softmax(lib.tensor([[1, 2]]), 0)


# ---------------------------------------------------------------- errors and modules


def test_activation_errors(lib):
    F = lib.nn.functional
    i = lib.tensor([1, -2])
    x = lib.tensor([0.5, -1.0])
    for fn, kernel in ((F.leaky_relu, "leaky_relu_cpu"), (F.elu, "elu_cpu"), (F.selu, "elu_cpu"),
                       (F.gelu, "GeluKernelImpl"), (F.silu, "silu_cpu"), (F.mish, "mish_cpu"),
                       (F.softplus, "softplus_cpu"), (F.hardsigmoid, "hardsigmoid_cpu"),
                       (F.hardswish, "hardswish_cpu"), (F.logsigmoid, "log_sigmoid_cpu"),
                       (F.softshrink, "softshrink_check"), (F.hardshrink, "hardshrink_cpu")):
        with pytest.raises(NotImplementedError, match=rf"^\"{kernel}\" not implemented for 'Long'$"):
            fn(i)
    assert repr(F.hardtanh(i)) == "tensor([ 1, -1])" and repr(F.relu6(lib.tensor([7, -2]))) == "tensor([6, 0])"
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError: alpha cannot be 0 for CELU$"):
        F.celu(x, 0.0)
    with pytest.raises(RuntimeError, match=r"^approximate argument must be either none or tanh\.$"):
        F.gelu(x, approximate="erf")
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 3\.40282e\+38\] for input dtype Float, but "
                                           r"found -0\.5$"):
        F.softshrink(x, -0.5)
    with pytest.raises(ValueError, match=r"^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(RuntimeError, match=r"^Bool inputs not supported for hardtanh$"):
        F.hardtanh(lib.tensor([True]))
    y = lib.tensor([0.5, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^In-place leakyReLu backward calculation is triggered with a negative "
                                           r"slope which is not supported\."):
        F.leaky_relu(y * 1, -0.1, inplace=True).sum().backward()
    with pytest.raises(RuntimeError, match=r"^In-place elu backward calculation is triggered with a negative slope"):
        F.elu(y * 1, -1.0, inplace=True).sum().backward()
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place "
                                           r"operation\.$"):
        F.leaky_relu(y, inplace=True)


def test_activation_modules_reprs_and_forward(lib):
    nn = lib.nn
    x = lib.tensor([-1.0, 0.5])
    modules = [
        (nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)", "tensor([-0.0100,  0.5000])"),
        (nn.LeakyReLU(0.2, inplace=True), "LeakyReLU(negative_slope=0.2, inplace=True)", None),
        (nn.ELU(), "ELU(alpha=1.0)", "tensor([-0.6321,  0.5000])"),
        (nn.ELU(2.0, True), "ELU(alpha=2.0, inplace=True)", None),
        (nn.CELU(0.5), "CELU(alpha=0.5)", "tensor([-0.4323,  0.5000])"),
        (nn.SELU(), "SELU()", "tensor([-1.1113,  0.5254])"),
        (nn.SELU(inplace=True), "SELU(inplace=True)", None),
        (nn.GELU(), "GELU(approximate='none')", "tensor([-0.1587,  0.3457])"),
        (nn.GELU("tanh"), "GELU(approximate='tanh')", "tensor([-0.1588,  0.3457])"),
        (nn.SiLU(), "SiLU()", "tensor([-0.2689,  0.3112])"),
        (nn.Mish(), "Mish()", "tensor([-0.3034,  0.3752])"),
        (nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)", "tensor([0.3133, 0.9741])"),
        (nn.Softplus(2, 10), "Softplus(beta=2, threshold=10)", "tensor([0.0635, 0.6566])"),
        (nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)", "tensor([-1.0000,  0.5000])"),
        (nn.ReLU6(), "ReLU6()", "tensor([0.0000, 0.5000])"),
        (nn.ReLU6(True), "ReLU6(inplace=True)", None),
        (nn.Hardsigmoid(), "Hardsigmoid()", "tensor([0.3333, 0.5833])"),
        (nn.Hardswish(), "Hardswish()", "tensor([-0.3333,  0.2917])"),
        (nn.Threshold(0.1, 20.0), "Threshold(threshold=0.1, value=20.0)", "tensor([20.0000,  0.5000])"),
        (nn.Softshrink(), "Softshrink(0.5)", "tensor([-0.5000,  0.0000])"),
        (nn.Hardshrink(0.4), "Hardshrink(0.4)", "tensor([-1.0000,  0.5000])"),
        (nn.LogSigmoid(), "LogSigmoid()", "tensor([-1.3133, -0.4741])"),
        (nn.Softsign(), "Softsign()", "tensor([-0.5000,  0.3333])"),
        (nn.Tanhshrink(), "Tanhshrink()", "tensor([-0.2384,  0.0379])"),
        (nn.Softmax(dim=0), "Softmax(dim=0)", "tensor([0.1824, 0.8176])"),
        (nn.Softmin(0), "Softmin(dim=0)", "tensor([0.8176, 0.1824])"),
        (nn.LogSoftmax(dim=-1), "LogSoftmax(dim=-1)", "tensor([-1.7014, -0.2014])"),
        (nn.Softmax2d(), "Softmax2d()", None),
    ]
    for module, text, value in modules:
        assert repr(module) == text
        if value is not None:
            assert repr(module(x)) == value, text
    with pytest.raises(AssertionError, match=r"^max_val \(1\.0\) must be greater than min_val \(2\.0\)$"):
        nn.Hardtanh(2.0, 1.0)
    with pytest.raises(ValueError, match=r"^Softmax2d: expected input to be 3D or 4D, got 1D instead$"):
        nn.Softmax2d()(x)
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated and renamed to `min_val`"):
        assert repr(nn.Hardtanh(min_value=-2.0)) == "Hardtanh(min_val=-2.0, max_val=1.0)"


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape, dim", [((), 0), ((1,), 0), ((1, 1), 0), ((1, 1), 1), ((3,), 0), ((3, 2), 0)])
@pytest.mark.parametrize("cg", [False, True])
def test_softmax_backward_of_minus_zero_gradients_is_torchs(torch_ref, log, shape, dim, cg):
    # an all -0.0 gradient: ATen sums a last-dimension slice from its first element (reduce_all:
    # -0.0 stays) and another dimension's from 0 (-0.0 becomes +0.0); the one slice formula,
    # _ops/softmax.backward_slice, serves the float kernel, the tensor kernel and create_graph alike
    out = []
    for lib in (torch_ref, scalargrad):
        x = lib.full(shape, 0.7, requires_grad=True) if shape else lib.tensor(0.7, requires_grad=True)
        y = (lib.log_softmax if log else lib.softmax)(x, dim)
        (g,) = lib.autograd.grad(y, x, lib.full(tuple(y.shape), -0.0), create_graph=cg)
        out.append([math.copysign(1.0, v) for v in g.reshape(-1).tolist()])
    assert out[0] == out[1]


def _gumbel(L):
    L.manual_seed(0)
    logits = L.tensor([[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0]], requires_grad=True)
    soft = L.nn.functional.gumbel_softmax(logits, tau=0.5)
    hard = L.nn.functional.gumbel_softmax(logits, hard=True, dim=0)
    (soft * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    (hard * L.tensor([[1.0], [-2.0]])).sum().backward()
    try:
        L.nn.functional.gumbel_softmax([1.0, 2.0])
    except TypeError as e:
        err = str(e)
    return soft.tolist(), hard.tolist(), hard.grad_fn.name(), logits.grad.tolist(), L.rand(1).item(), err


def test_gumbel_softmax_is_torchs(torch_ref):
    # the same exponential draws; log, softmax and their gradients are machine-dependent kernels
    mine, theirs = _gumbel(scalargrad), _gumbel(torch_ref)
    assert mine[2] == theirs[2] and mine[4:] == theirs[4:]  # the node, the generator after, the error
    for k in (0, 1, 3):
        assert all(abs(p - q) <= 1e-6 * max(1.0, abs(q)) for ra, rb in zip(mine[k], theirs[k]) for p, q in zip(ra, rb))
