"""batch_norm / nn.BatchNorm1d / nn.BatchNorm2d and layer_norm / nn.LayerNorm.

BatchNorm on (N, C, *) inputs with more than one element per plane follows ATen's CPU kernel
step by step (``_tensor/normalization.py``): in float32 forward, backward and running
statistics are compared with PyTorch 2.13 bit for bit. Where PyTorch's own order depends on the
machine (BatchNorm1d on (N, C): per-thread partial sums; float64's vectorised backward sums)
and for layer_norm (a vectorised Welford cascade; scalargrad: exact moments) the comparison is
within a bound measured here (``python tests/test_normalization.py`` prints the measurement).
"""

from __future__ import annotations

import math
import random
import sys

import pytest

import scalargrad
from scalargrad._base.errors import Unsupported

from faithfulness import same, ulps


def _rand(L, shape, seed, dtype="float32", scale=3.0, shift=1.0):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) * scale + shift for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


def _run(L, shape, dtype, seed, train=True, layer=False, momentum=0.1, affine=True, steps=1):
    L.manual_seed(0)
    dt = getattr(L, dtype)
    if layer:
        m = L.nn.LayerNorm(shape[-1], elementwise_affine=affine, dtype=dt)
    else:
        cls = L.nn.BatchNorm1d if len(shape) < 4 else L.nn.BatchNorm2d
        m = cls(shape[1], momentum=momentum, affine=affine, dtype=dt)
    if affine:
        with L.no_grad():
            m.weight.copy_(_rand(L, tuple(m.weight.shape), seed + 1, dtype))
            m.bias.copy_(_rand(L, tuple(m.bias.shape), seed + 2, dtype))
    x = _rand(L, shape, seed, dtype).requires_grad_()
    for k in range(steps - 1):
        m(_rand(L, shape, seed + 10 + k, dtype))
    if not train:
        m(x.detach())
        m.eval()
    y = m(x)
    g = _rand(L, tuple(y.shape), seed + 3, dtype, 1.0, 0.0)
    params = [m.weight, m.bias] if affine else []
    out = [y] + list(L.autograd.grad(y, [x] + params, g))
    _run.gx_scale = _gx_scale(x, m.weight if affine else None, g, layer)
    if not layer:
        out += [m.running_mean, m.running_var, m.num_batches_tracked.reshape(1)]
    return out


# the comparisons with PyTorch run no SymPy proof (a normalised element depends on its whole
# channel: proving every backward of these shapes takes minutes); test_sympy_proves_... does
SLOW_PROOF = pytest.mark.no_sympy_check

EXACT_SHAPES = [(3, 2, 5), (2, 3, 2, 3), (2, 2, 4, 4), (4, 3, 3, 3), (2, 2, 8, 8), (2, 1, 5, 7)]


@pytest.mark.vector_kernels  # ATen's 8-lane sums (vector width)
@SLOW_PROOF
@pytest.mark.parametrize("shape", EXACT_SHAPES)
@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_matches_pytorch_bit_for_bit_in_float32(torch_ref, shape, train):
    for seed in (0, 7):
        a = _run(scalargrad, shape, "float32", seed, train)
        t = _run(torch_ref, shape, "float32", seed, train)
        for p, q in zip(a, t):
            assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


@pytest.mark.vector_kernels  # ATen's 8-lane sums (vector width)
@SLOW_PROOF
@pytest.mark.parametrize("options", [{"momentum": None, "steps": 3}, {"affine": False}, {"momentum": 0.5, "steps": 2}])
def test_batch_norm_options_match_pytorch(torch_ref, options):
    a = _run(scalargrad, (2, 3, 2, 2), "float32", 5, **options)
    t = _run(torch_ref, (2, 3, 2, 2), "float32", 5, **options)
    for p, q in zip(a, t):
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


def _gx_scale(x, w, g, layer: bool) -> float:
    """What the input gradient's rounding errors are relative to: max |g| * max |w| / the
    smallest standard deviation of a group (its terms' size; the gradient itself cancels
    towards 0, e.g. exactly 0 for two elements per channel)."""
    xv = x.detach().reshape(-1).tolist()
    shape = tuple(x.shape)
    if layer:
        n = shape[-1]
        groups = [xv[i:i + n] for i in range(0, len(xv), n)]
    else:
        size = len(xv) // (shape[0] * shape[1])
        groups = [[xv[(b * shape[1] + c) * size + i] for b in range(shape[0]) for i in range(size)]
                  for c in range(shape[1])]
    stds = []
    for grp in groups:
        mu = sum(grp) / len(grp)
        stds.append(math.sqrt(sum((a - mu) ** 2 for a in grp) / len(grp) + 1e-5))
    wmax = max(abs(v) for v in w.reshape(-1).tolist()) if w is not None else 1.0
    return max(abs(v) for v in g.reshape(-1).tolist()) * wmax / min(stds)


# measured on the capture machine (python tests/test_normalization.py): the largest difference from
# PyTorch, in units of the dtype's epsilon times the largest magnitude in the tensor (for the
# input gradient, the size of its terms: ``_gx_scale``); at most 7.4 measured, asserted with margin
BOUND = 16


def _close(a: list, t: list, dtype: str, scale: float | None = None) -> float:
    eps = 2.0**-23 if dtype == "float32" else 2.0**-52
    scale = scale or max([abs(v) for v in t] + [1e-30])
    return max((abs(x - y) for x, y in zip(a, t)), default=0.0) / (eps * scale)


MACHINE_SHAPES = [("bn", (4, 3), "float32"), ("bn", (2, 3), "float32"), ("bn", (3, 2, 5), "float64"),
                  ("bn", (2, 2, 4, 4), "float64"), ("ln", (4, 3), "float32"), ("ln", (3, 5), "float64"),
                  ("ln", (2, 3, 9), "float32")]


@SLOW_PROOF
@pytest.mark.parametrize("kind, shape, dtype", MACHINE_SHAPES)
def test_machine_dependent_cases_match_pytorch_within_the_measured_bound(torch_ref, kind, shape, dtype):
    for seed in (0, 3):
        a = _run(scalargrad, shape, dtype, seed, layer=kind == "ln")
        t = _run(torch_ref, shape, dtype, seed, layer=kind == "ln")
        for k, (p, q) in enumerate(zip(a, t)):
            scale = _run.gx_scale if k == 1 else None
            assert _close(p.reshape(-1).tolist(), q.reshape(-1).tolist(), dtype, scale) <= BOUND


@pytest.mark.parametrize("make", [lambda nn: nn.BatchNorm2d(2), lambda nn: nn.BatchNorm2d(2, affine=False),
                                  lambda nn: nn.BatchNorm1d(3, bias=False), lambda nn: nn.LayerNorm(3)])
@pytest.mark.parametrize("train", [True, False])
def test_sympy_proves_the_normalisation_gradients(make, train):
    from scalargrad.symbolic import sympy_check

    m = make(scalargrad.nn)
    x = _rand(scalargrad, (2, 2, 1, 2) if isinstance(m, scalargrad.nn.BatchNorm2d) else (3, 3), 4).requires_grad_()
    if not train:
        m(x.detach())
        m.eval()
    y = m(x)
    w = _rand(scalargrad, tuple(y.shape), 5)
    report = sympy_check((y * y * w).sum())
    assert report.ok, str(report)


def test_batch_norm_by_hand():
    x = scalargrad.tensor([[1.0], [2.0], [3.0], [4.0]], dtype=scalargrad.float64, requires_grad=True)
    bn = scalargrad.nn.BatchNorm1d(1, dtype=scalargrad.float64)
    y = bn(x)
    # mean 2.5, population variance 1.25: (x - 2.5) / sqrt(1.25 + 1e-5)
    want = [(v - 2.5) / math.sqrt(1.25 + 1e-5) for v in (1.0, 2.0, 3.0, 4.0)]
    assert [r[0] for r in y.tolist()] == pytest.approx(want, rel=1e-15)
    # the running statistics: 0.9 * 0 + 0.1 * 2.5 and 0.9 * 1 + 0.1 * 5/3 (the unbiased variance)
    assert bn.running_mean.tolist() == pytest.approx([0.25], rel=1e-15)
    assert bn.running_var.tolist() == pytest.approx([0.9 + 0.1 * 5 / 3], rel=1e-15)
    assert bn.num_batches_tracked.item() == 1
    # sum(y) does not depend on x (the mean is removed): its gradient is 0; d/dbias = 4 elements
    y.sum().backward()
    assert x.grad.reshape(-1).tolist() == pytest.approx([0.0] * 4, abs=1e-15)
    assert bn.bias.grad.tolist() == [4.0]
    # d/dweight = sum of the normalised values = 0
    assert bn.weight.grad.tolist() == pytest.approx([0.0], abs=1e-15)
    # evaluation: the running statistics, (x - 0.25) / sqrt(running_var + eps)
    bn.eval()
    z = bn(x)
    rv = 0.9 + 0.1 * 5 / 3
    assert [r[0] for r in z.tolist()] == pytest.approx([(v - 0.25) / math.sqrt(rv + 1e-5) for v in (1, 2, 3, 4)])


def test_layer_norm_by_hand():
    x = scalargrad.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 6.0]], dtype=scalargrad.float64,
                          requires_grad=True)
    ln = scalargrad.nn.LayerNorm(4, dtype=scalargrad.float64)
    y = ln(x)
    # row 2: mean 3, variance (1 + 1 + 1 + 9) / 4 = 3
    want = [[(v - 2.5) / math.sqrt(1.25 + 1e-5) for v in (1, 2, 3, 4)],
            [(v - 3.0) / math.sqrt(3.0 + 1e-5) for v in (2, 2, 2, 6)]]
    for got, exp in zip(y.tolist(), want):
        assert got == pytest.approx(exp, rel=1e-15)
    y.sum().backward()
    assert x.grad.reshape(-1).tolist() == pytest.approx([0.0] * 8, abs=1e-14)
    assert ln.bias.grad.tolist() == [2.0] * 4


def test_norm_nodes_as_pytorch_shows_them(torch_ref):
    for L in (scalargrad, torch_ref):
        x = L.ones(2, 3, 2, 2, requires_grad=True)
        bn = L.nn.BatchNorm2d(3)
        y = bn(x * 2)
        fn = y.grad_fn
        assert fn.name() == "NativeBatchNormBackward0"
        assert [type(f).__name__ for f, _ in fn.next_functions] == ["MulBackward0", "AccumulateGrad",
                                                                     "AccumulateGrad"]
        assert fn._saved_eps == 1e-5 and fn._saved_training is True
        assert fn._saved_weight is bn.weight and fn._saved_running_mean is bn.running_mean
        assert fn._saved_result1.tolist() == [2.0] * 3 and fn._saved_result2.tolist() == [1 / math.sqrt(1e-5)] * 3 \
            or fn._saved_result2.shape == (3,)
        z = L.nn.BatchNorm1d(3, affine=False)(L.ones(4, 3, requires_grad=True))
        assert [f if f is None else type(f).__name__ for f, _ in z.grad_fn.next_functions] == [
            "AccumulateGrad", None, None]
        bn.eval()
        e = bn(x).grad_fn
        assert e._saved_training is False and tuple(e._saved_result1.shape) == (0,)
        ln = L.nn.LayerNorm(2)
        w = ln(x)
        assert w.grad_fn.name() == "NativeLayerNormBackward0" and w.grad_fn._saved_normalized_shape == (2,)
        assert tuple(w.grad_fn._saved_result1.shape) == (2, 3, 2, 1)


def test_norm_modules_repr_state_dict_and_errors(torch_ref):
    def build(L):
        nn = L.nn
        return [nn.BatchNorm2d(3), nn.BatchNorm1d(4, affine=False, track_running_stats=False, momentum=None),
                nn.BatchNorm1d(2, bias=False), nn.LayerNorm(4), nn.LayerNorm([2, 3], elementwise_affine=False,
                                                                             bias=False)]

    for a, t in zip(build(scalargrad), build(torch_ref)):
        assert repr(a) == repr(t)
        assert {k: v.tolist() for k, v in a.state_dict().items()} == {k: v.tolist() for k, v in t.state_dict().items()}
    for make in (lambda L: L.nn.BatchNorm1d(3)(L.ones(1, 3)), lambda L: L.nn.BatchNorm2d(3)(L.ones(2, 3, 2)),
                 lambda L: L.nn.BatchNorm1d(3)(L.ones(2, 4)), lambda L: L.nn.LayerNorm(3)(L.ones(2, 4)),
                 lambda L: L.nn.functional.batch_norm(L.ones(2, 3), None, None, training=True, eps=0.0)):
        msgs = []
        for L in (scalargrad, torch_ref):
            with pytest.raises((RuntimeError, ValueError)) as e:
                make(L)
            msgs.append((type(e.value).__name__, str(e.value)))
        assert msgs[0] == msgs[1]


def test_norm_double_backward_is_named_unsupported():
    x = scalargrad.randn(4, 3, requires_grad=True)
    for m, what in ((scalargrad.nn.BatchNorm1d(3), "batch_norm"), (scalargrad.nn.LayerNorm(3), "layer_norm")):
        with pytest.raises(Unsupported, match=f"double backward of {what}"):
            scalargrad.autograd.grad((m(x) ** 2).sum(), x, create_graph=True)


def _measure() -> None:  # pragma: no cover - a report, run by hand with torch installed
    import torch

    for kind, shape, dtype in MACHINE_SHAPES + [("bn", s, "float32") for s in EXACT_SHAPES]:
        worst = 0.0
        worst_ulp = 0
        for seed in range(40):
            a = _run(scalargrad, shape, dtype, seed * 5, layer=kind == "ln")
            t = _run(torch, shape, dtype, seed * 5, layer=kind == "ln")
            for k, (p, q) in enumerate(zip(a, t)):
                pv, qv = p.reshape(-1).tolist(), q.reshape(-1).tolist()
                worst = max(worst, _close(pv, qv, dtype, _run.gx_scale if k == 1 else None))
                worst_ulp = max([worst_ulp] + [ulps(u, v, dtype) for u, v in zip(pv, qv)])
        print(f"{kind} {shape} {dtype}: largest difference {worst:.2f} eps * max|value| ({worst_ulp:g} ulp)")


if __name__ == "__main__":  # pragma: no cover
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    _measure()


def _normalize_run(L, **kw):
    """F.normalize's value, node and input gradient on exact data (norms 5, 0 -> eps, 3; 1-norms
    of integers), so the values are the same on every processor; the gradient goes through
    short reductions and is compared within a bound."""
    x = L.tensor([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], requires_grad=True)
    y = L.nn.functional.normalize(x, **kw)
    (y * L.tensor([1.0, -2.0, 0.5])).sum().backward()
    return y.detach().tolist(), type(y.grad_fn).__name__, x.grad.tolist()


@pytest.mark.parametrize("kw", [{}, {"p": 1.0, "dim": 0}, {"dim": -1, "eps": 0.5}])
def test_normalize_matches_pytorch(torch_ref, kw):
    want, got = _normalize_run(torch_ref, **kw), _normalize_run(scalargrad, **kw)
    assert got[:2] == want[:2]
    for g, w in zip(sum(got[2], []), sum(want[2], [])):
        assert g == pytest.approx(w, rel=1e-6, abs=1e-6 * max(1.0, abs(w)))


def test_normalize_out_as_pytorch(torch_ref):
    results = []
    for L in (torch_ref, scalargrad):
        x, out = L.tensor([[3.0, 4.0], [6.0, 8.0]]), L.empty(2, 2)
        y = L.nn.functional.normalize(x, out=out)
        with pytest.raises(RuntimeError) as info:
            L.nn.functional.normalize(x.requires_grad_(), out=out)
        results.append((y is out, out.tolist(), str(info.value)))
    assert results[1] == results[0]


# ---------------------------------------------------------------- rms_norm / nn.RMSNorm (ATen's composite)


def _rms(L):
    x = _rand(L, (2, 3, 4), 11).requires_grad_()
    m = L.nn.RMSNorm([3, 4])
    with L.no_grad():
        m.weight.copy_(_rand(L, (3, 4), 12))
    y = m(x)
    (y * _rand(L, (2, 3, 4), 13)).sum().backward()
    names, f = [], y.grad_fn
    while f is not None:  # the last edge down to x's power
        names.append(f.name())
        f = f.next_functions[-1][0] if f.next_functions and f.next_functions[-1][0] is not None else None
    d = _rand(L, (5, 7), 14, "float64")
    plain = L.nn.RMSNorm(7, eps=1e-3, elementwise_affine=False)
    errors = []
    for call in (lambda: L.nn.functional.rms_norm(x, [4, 3]), lambda: L.nn.functional.rms_norm(x, [4], m.weight),
                 lambda: L.nn.functional.rms_norm(x, []), lambda: L.nn.functional.rms_norm(x, [1, 2, 3, 4]),
                 lambda: L.nn.functional.rms_norm(L.arange(4), [4])):
        try:
            call()
        except (RuntimeError, ValueError, NotImplementedError) as e:
            errors.append(f"{type(e).__name__}: {e}")
    values = [y.flatten().tolist(), x.grad.flatten().tolist(), m.weight.grad.flatten().tolist(),
              plain(d).flatten().tolist(), L.nn.functional.rms_norm(d, (5, 7)).flatten().tolist()]
    return values, (repr(m), repr(plain), names, [p.shape for p in plain.parameters()], errors)


def test_rms_norm_is_torchs(torch_ref):
    mine, theirs = _rms(scalargrad), _rms(torch_ref)
    assert mine[1] == theirs[1]
    for k, (a, b) in enumerate(zip(mine[0], theirs[0])):  # a mean and a reciprocal root: a few ulps
        dtype = "float64" if k >= 3 else "float32"
        assert max(ulps(p, q, dtype) for p, q in zip(a, b)) <= 8, k


def test_batchnorm_meta_count_loads_as_a_real_zero(torch_ref):
    """PyTorch's TestNN.test_batchnorm_load_state_dict: a state dict without ``num_batches_tracked``
    keeps the module's own count, except a count on the meta device, which becomes a real 0."""
    from collections import OrderedDict
    for lib in (scalargrad, torch_ref):
        bn = lib.nn.BatchNorm2d(3)
        bn.num_batches_tracked = lib.tensor(10)
        bn.load_state_dict(OrderedDict(), strict=False)
        assert bn.state_dict()["num_batches_tracked"].item() == 10
        with lib.device("meta"):
            meta_bn = lib.nn.BatchNorm2d(3)
        meta_bn.load_state_dict(OrderedDict(), assign=True, strict=False)
        count = meta_bn.state_dict()["num_batches_tracked"]
        assert (str(count.device), count.dtype, count.item()) == ("cpu", lib.int64, 0)
