"""nn.GroupNorm / F.group_norm, nn.InstanceNorm1d/2d/3d / F.instance_norm, nn.BatchNorm3d and
nn.LocalResponseNorm / F.local_response_norm against live PyTorch 2.13.

instance_norm is ATen's composite over batch_norm (a (1, N * C, *) view, the parameters and
running statistics repeated), so in float32 it is batch_norm's bits (ATen's 8-lane sums: the
``vector_kernels`` marker), as is BatchNorm3d. group_norm's moments are a vectorised cascade
whose order depends on the machine: compared within test_normalization's bound. LRN's
``pow(beta)`` is ATen's vectorised pow (not correctly rounded): compared with PyTorch in float64
within a few float32 units, which no kernel set changes.
"""

from __future__ import annotations

import math
import random

import pytest

import scalargrad

from faithfulness import same


def _rand(L, shape, seed, lo=-3.0, hi=3.0, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(lo, hi) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


def _flat(ts) -> list:
    return [v for t in ts for v in t.detach().reshape(-1).tolist()]


def _instance(L, cls, shape, affine, track, train_steps, seed):
    m = getattr(L.nn, cls)(shape[1] if len(shape) > 2 + int(cls[-2]) - 1 else shape[0], affine=affine,
                           track_running_stats=track)
    if affine:
        with L.no_grad():
            m.weight.copy_(_rand(L, tuple(m.weight.shape), seed + 1))
            m.bias.copy_(_rand(L, tuple(m.bias.shape), seed + 2))
    for k in range(train_steps):
        m(_rand(L, shape, seed + 10 + k))
    x = _rand(L, shape, seed).requires_grad_()
    outs = []
    for mode in ("train", "eval"):
        getattr(m, mode)()
        y = m(x)
        names = [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
        params = [m.weight, m.bias] if affine else []
        grads = L.autograd.grad(y, [x] + params, _rand(L, tuple(y.shape), seed + 3, -1, 1))
        outs.append((names, _flat([y, *grads] + ([m.running_mean, m.running_var] if track else []))))
    return repr(m), outs


@pytest.mark.vector_kernels  # batch_norm's 8-lane sums
@pytest.mark.no_sympy_check
@pytest.mark.parametrize("cls, shape, affine, track", [
    ("InstanceNorm1d", (2, 3, 10), True, True), ("InstanceNorm1d", (3, 9), False, False),
    ("InstanceNorm2d", (2, 2, 3, 4), False, True), ("InstanceNorm3d", (1, 2, 2, 3, 2), True, False)])
def test_instance_norm_is_pytorchs_bits(torch_ref, cls, shape, affine, track):
    a = _instance(scalargrad, cls, shape, affine, track, 2, 5)
    t = _instance(torch_ref, cls, shape, affine, track, 2, 5)
    assert a[0] == t[0]
    for (na, va), (nt, vt) in zip(a[1], t[1]):
        assert na == nt
        assert len(va) == len(vt) and all(map(same, va, vt))


@pytest.mark.vector_kernels
@pytest.mark.no_sympy_check
def test_batch_norm_3d_is_pytorchs_bits(torch_ref):
    def run(L):
        m = L.nn.BatchNorm3d(3, momentum=0.3)
        x = _rand(L, (2, 3, 2, 3, 2), 1).requires_grad_()
        y = m(x)
        gx, gw, gb = L.autograd.grad(y, [x, m.weight, m.bias], _rand(L, (2, 3, 2, 3, 2), 2, -1, 1))
        m.eval()
        return repr(m), y.grad_fn.name(), _flat([y, gx, gw, gb, m.running_mean, m.running_var, m(x)])

    a, t = run(scalargrad), run(torch_ref)
    assert a[:2] == t[:2]
    assert all(map(same, a[2], t[2]))


# test_normalization's bound: the largest difference in units of float32's epsilon times the
# largest magnitude (the input gradient: times its terms' size, max |g| * max |w| / min std)
BOUND = 16


def _group(L, shape, groups, affine, seed):
    m = L.nn.GroupNorm(groups, shape[1], affine=affine)
    if affine:
        with L.no_grad():
            m.weight.copy_(_rand(L, (shape[1],), seed + 1, -2, 2))
            m.bias.copy_(_rand(L, (shape[1],), seed + 2, -2, 2))
    x = _rand(L, shape, seed, -2, 4).requires_grad_()
    y = m(x)
    fn = y.grad_fn
    meta = (repr(m), fn.name(), fn._saved_N, fn._saved_C, fn._saved_HxW, fn._saved_group, fn._saved_eps,
            tuple(fn._saved_result1.shape), [f[0] is None for f in fn.next_functions])
    params = [m.weight, m.bias] if affine else []
    g = _rand(L, shape, seed + 3, -1, 1)
    return meta, [y.detach(), *L.autograd.grad(y, [x] + params, g)], x, g, m.weight


def _spread(x, w, g, groups) -> float:
    xv = x.detach().reshape(-1).tolist()
    row = len(xv) // (x.shape[0] * groups)
    stds = []
    for q in range(0, len(xv), row):
        grp = xv[q:q + row]
        mu = sum(grp) / row
        stds.append(math.sqrt(sum((a - mu) ** 2 for a in grp) / row + 1e-5))
    wmax = max(abs(v) for v in w.reshape(-1).tolist()) if w is not None else 1.0
    return max(abs(v) for v in g.reshape(-1).tolist()) * wmax / min(stds)


@pytest.mark.no_sympy_check
@pytest.mark.parametrize("shape, groups, affine", [((2, 4, 3), 2, True), ((3, 6, 2, 2), 3, False),
                                                   ((2, 4, 5), 1, True), ((2, 4, 9), 4, True)])
def test_group_norm_matches_pytorch_within_the_bound(torch_ref, shape, groups, affine):
    ma, va, x, g, w = _group(scalargrad, shape, groups, affine, 3)
    mt, vt, *_ = _group(torch_ref, shape, groups, affine, 3)
    assert ma == mt
    eps = 2.0**-23
    for k, (p, q) in enumerate(zip(va, vt)):
        p, q = p.reshape(-1).tolist(), q.reshape(-1).tolist()
        scale = _spread(x, w if affine else None, g, groups) if k == 1 else max(abs(v) for v in q)
        assert max(abs(a - b) for a, b in zip(p, q)) <= BOUND * eps * scale


def test_group_norm_backward_is_proved_by_sympy():
    # groups of four elements (two channels of two): a group of two's input gradient is 0 but
    # for eps, all rounding
    x = scalargrad.tensor([[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 3.0]]).reshape(1, 4, 2).requires_grad_()
    w = scalargrad.tensor([1.5, -0.5, 2.0, 1.0], requires_grad=True)
    y = scalargrad.nn.functional.group_norm(x, 2, w, scalargrad.zeros(4))
    (y * scalargrad.tensor([1.0, -2.0, 0.5, 3.0, 1.5, 2.5, -1.0, 0.25]).reshape(1, 4, 2)).sum().backward()
    assert x.grad is not None and w.grad is not None


def _lrn(L, shape, size, dtype):
    x = _rand(L, shape, 7, dtype=dtype).requires_grad_()
    m = L.nn.LocalResponseNorm(size, alpha=0.1, beta=0.75, k=2.0)
    y = m(x)
    gx, = L.autograd.grad(y, [x], _rand(L, shape, 8, -1, 1, dtype))
    return repr(m), y.grad_fn.name(), [y.detach(), gx]


@pytest.mark.no_sympy_check
@pytest.mark.parametrize("shape, size", [((2, 5, 7), 3), ((2, 5, 3, 4), 2), ((1, 6, 2, 2, 3), 4)])
def test_local_response_norm_matches_pytorch(torch_ref, shape, size):
    ra, na, va = _lrn(scalargrad, shape, size, "float32")
    rt, nt, vt = _lrn(torch_ref, shape, size, "float64")
    assert (ra, na) == (rt, nt) == (f"LocalResponseNorm({size}, alpha=0.1, beta=0.75, k=2.0)", "DivBackward0")
    for p, q in zip(va, vt):
        p, q = p.reshape(-1).tolist(), q.reshape(-1).tolist()
        # a handful of float32 roundings (square, mean, mul, add, pow, div; the backward's
        # products): 8 units of the largest magnitude covers them
        assert max(abs(a - b) for a, b in zip(p, q)) <= 8 * 2.0**-23 * max(abs(v) for v in q)


def _raises(L, fn):
    try:
        fn(L)
    except Exception as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("fn", [
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3), 3),
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3), 2, L.ones(3)),
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3), -1),
    lambda L: L.nn.functional.group_norm(L.ones(1, 2, 1), 2),
    lambda L: L.nn.functional.group_norm(L.ones(4), 2),
    lambda L: L.nn.GroupNorm(2, 3),
    lambda L: L.nn.InstanceNorm1d(3)(L.ones(3, 1)),
    lambda L: L.nn.InstanceNorm1d(3)(L.ones(3)),
    lambda L: L.nn.InstanceNorm1d(4, affine=True)(L.ones(2, 3, 4)),
    lambda L: L.nn.functional.instance_norm(L.ones(2, 3, 4), use_input_stats=False),
    lambda L: L.nn.BatchNorm3d(3)(L.ones(2, 3, 4)),
    lambda L: L.nn.functional.local_response_norm(L.ones(2, 3), 2),
])
def test_errors_are_pytorchs(torch_ref, fn):
    assert _raises(scalargrad, fn) == _raises(torch_ref, fn) is not None


def test_reprs_and_lazy_forms(torch_ref):
    for L in (scalargrad, torch_ref):
        lazy = L.nn.LazyInstanceNorm2d()
        lazy(L.ones(2, 3, 2, 2))
        lazy3 = L.nn.LazyBatchNorm3d()
        lazy3(_rand(L, (2, 4, 1, 2, 2), 0))
        L.out = [repr(L.nn.GroupNorm(2, 4, affine=False)), repr(L.nn.InstanceNorm3d(5, bias=False, affine=True)),
                 repr(lazy), type(lazy).__name__, repr(lazy3), str(type(L.nn.InstanceNorm1d(2))),
                 str(type(L.nn.BatchNorm3d(2)))]
    assert scalargrad.out == torch_ref.out
