"""max_pool3d, avg_pool3d, adaptive_avg/max_pool3d, lp_pool1d/2d/3d, max_unpool1d/2d/3d and their modules.

The 3-D pools are the 2-D pools' geometry over three spatial dims (``_ops/pooling.PoolGeometry``):
selections, and sums in ATen's fixed order divided once (adaptive: by each side in turn), so
values, gradients and double backward are compared with PyTorch 2.13 bit for bit, as are the
unpooling's scatter and its gradient's gather. lp_pool is composed as PyTorch composes it
(pow, avg_pool, sign, relu, mul, pow): its pows run through PyTorch's vectorised pow kernel, which
is not correctly rounded (scalargrad's is), so lp_pool's values and gradients are compared within
64 ulps of the largest magnitude of the tensor (``_LOOSE``); its pools are the exact ones above.
"""

from __future__ import annotations

import math
import random

import pytest

import scalargrad

from faithfulness import same


def _rand(L, shape, seed, dtype="float32", ties=False):
    rng = random.Random(seed)
    n = math.prod(shape)
    vals = [rng.choice([0.5, -1.0, rng.uniform(-2, 2)]) if ties else rng.uniform(-2, 2) for _ in range(n)]
    return L.tensor(vals, dtype=getattr(L, dtype)).reshape(*shape)


POOLS = [
    lambda F, x: F.max_pool3d(x, 2),
    lambda F, x: F.max_pool3d(x, (3, 2, 2), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True),
    lambda F, x: F.max_pool3d(x[0], 2, 1),  # unbatched
    lambda F, x: F.max_pool3d_with_indices(x, 3, 2, 1)[0],
    lambda F, x: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True),
    lambda F, x: F.avg_pool3d(x, (2, 3, 2), padding=(1, 1, 0), count_include_pad=False),
    lambda F, x: F.avg_pool3d(x, 2, divisor_override=3),
    lambda F, x: F.avg_pool3d(x[0], 2, 1),
    lambda F, x: F.adaptive_avg_pool3d(x, (3, 4, 5)),
    lambda F, x: F.adaptive_avg_pool3d(x[0], (None, 2, 3)),
    lambda F, x: F.adaptive_avg_pool3d(x, 1),  # MeanBackward1, as ATen
    lambda F, x: F.adaptive_max_pool3d(x, (2, 4, 3)),
    lambda F, x: F.adaptive_max_pool3d(x, (6, 7, 8)),  # windows overlap
    lambda F, x: F.lp_pool3d(x, 2, 2),
    lambda F, x: F.lp_pool3d(x.abs() + 0.5, 3, (2, 1, 2), stride=(1, 2, 2), ceil_mode=True),
    lambda F, x: F.lp_pool2d(x[0], 2, 2),
    lambda F, x: F.lp_pool1d(x[0, 0], 2, 3, 2),
    lambda F, x: F.lp_pool2d(x[0], float("inf"), 2),
]


def _saved(fn) -> dict:
    out = {}
    for name in dir(fn):
        if name.startswith("_saved") and name != "_saved_self":
            v = getattr(fn, name)
            out[name] = v.tolist() if hasattr(v, "tolist") else v
    return out


def _pool(L, fn, dtype, ties):
    x = _rand(L, (1, 2, 4, 5, 6), 1, dtype, ties).requires_grad_()
    y = fn(L.nn.functional, x)
    saved = _saved(y.grad_fn)
    g = _rand(L, tuple(y.shape), 2, dtype).requires_grad_()
    (gx,) = L.autograd.grad(y, x, g, create_graph=True)
    (gg,) = L.autograd.grad(gx, g, _rand(L, tuple(x.shape), 3, dtype), allow_unused=True)
    names = (y.grad_fn.name(), gx.grad_fn.name() if gx.grad_fn is not None else None)
    return [y, gx] + ([gg] if gg is not None else []), names, saved


_LOOSE = {13, 14, 15, 16}  # the POOLS going through PyTorch's pow kernel (lp_pool of a finite norm)


def _ulps_close(p: list, q: list, dtype: str) -> bool:
    ulp = 2.0**-23 if dtype == "float32" else 2.0**-52
    top = max([abs(b) for b in q] + [0.0])
    return all(a == b or abs(a - b) <= 64 * ulp * top for a, b in zip(p, q))


@pytest.mark.parametrize("fn", POOLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_3d_pooling_matches_pytorch_bit_for_bit(torch_ref, fn, dtype):
    # the input mixes repeated values (ties within windows) with uniform ones
    a, t = _pool(scalargrad, fn, dtype, True), _pool(torch_ref, fn, dtype, True)
    # the forward's node and saved arguments (the backward's node: test_3d_double_backward_nodes)
    assert a[1][0] == t[1][0] and a[2] == t[2]
    assert len(a[0]) == len(t[0])
    for p, q in zip(a[0], t[0]):
        assert tuple(p.shape) == tuple(q.shape)
        if POOLS.index(fn) in _LOOSE:
            assert _ulps_close(p.reshape(-1).tolist(), q.reshape(-1).tolist(), dtype)
        else:
            assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


def test_3d_pool_nodes_and_indices_as_pytorch_shows_them(torch_ref):
    for L in (scalargrad, torch_ref):
        F = L.nn.functional
        x = L.arange(32.0).reshape(1, 1, 2, 4, 4).requires_grad_()
        y, idx = F.max_pool3d(x, 2, return_indices=True)
        # the index is the position within the volume: d * H * W + h * W + w
        assert idx.tolist() == [[[[[21, 23], [29, 31]]]]] and idx.dtype == L.int64
        fn = y.grad_fn
        assert fn.name() == "MaxPool3DWithIndicesBackward0"
        assert (fn._saved_kernel_size, fn._saved_stride, fn._saved_padding, fn._saved_dilation) == (
            (2, 2, 2), (), (0, 0, 0), (1, 1, 1))
        z = F.avg_pool3d(L.ones(1, 1, 2, 2, 2, requires_grad=True), 2)
        assert z.grad_fn.name() == "AvgPool3DBackward0" and z.tolist() == [[[[[1.0]]]]]


def test_3d_double_backward_nodes_as_pytorch(torch_ref):
    def run(L):
        F = L.nn.functional
        x = _rand(L, (1, 2, 4, 4, 4), 3).requires_grad_()
        names = []
        for y in (F.max_pool3d(x, 2), F.avg_pool3d(x, 2), F.adaptive_avg_pool3d(x, 3), F.adaptive_max_pool3d(x, 3)):
            (gx,) = L.autograd.grad(y, x, _rand(L, tuple(y.shape), 4).requires_grad_(), create_graph=True)
            names.append(gx.grad_fn.name())
        return names

    assert run(scalargrad) == run(torch_ref) == [
        "MaxPool3DWithIndicesBackwardBackward0", "AvgPool3DBackwardBackward0", "AdaptiveAvgPool3DBackwardBackward0",
        "AdaptiveMaxPool3DBackwardBackward0"]


def test_max_pool3d_fallback_index_as_pytorch(torch_ref):
    # a window of -infs keeps its first position in bounds, as ATen's kernel
    out = []
    for L in (scalargrad, torch_ref):
        _, i = L.nn.functional.max_pool3d(L.full((1, 1, 3, 2, 4), -math.inf), 2, stride=1, padding=1,
                                          return_indices=True)
        out.append(i.tolist())
    assert out[0] == out[1]


L_POW = (scalargrad.nn.LPPool1d, scalargrad.nn.LPPool2d, scalargrad.nn.LPPool3d)


def test_3d_pooling_modules_repr_and_forward(torch_ref):
    def build(L):
        nn = L.nn
        return [nn.MaxPool3d(2), nn.MaxPool3d((3, 2, 2), (2, 1, 1), 1, ceil_mode=True, return_indices=True),
                nn.AvgPool3d(2), nn.AvgPool3d(3, 2, 1, True, False, 2), nn.AdaptiveAvgPool3d((1, 2, None)),
                nn.AdaptiveAvgPool3d(1), nn.AdaptiveMaxPool3d(2, return_indices=True), nn.LPPool3d(2, 2),
                nn.LPPool2d(1.5, (2, 1), stride=1), nn.LPPool1d(2, 3, ceil_mode=True)]

    x = [_rand(L, (1, 2, 4, 4, 5), 9).abs() for L in (scalargrad, torch_ref)]
    for a, t in zip(build(scalargrad), build(torch_ref)):
        assert repr(a) == repr(t)
        k = 3 if "1d" in type(a).__name__ else 1 if "2d" in type(a).__name__ else 0
        arg = (x[0][(0,) * k], x[1][(0,) * k]) if k else (x[0], x[1])
        ra, rt = a(arg[0]), t(arg[1])
        ra, rt = (list(ra), list(rt)) if isinstance(rt, tuple) else ([ra], [rt])
        for p, q in zip(ra, rt):
            if isinstance(a, L_POW):  # x ** (1 / p): PyTorch's vectorised pow (sqrt for p = 2), within an ulp or two
                assert _ulps_close(p.reshape(-1).tolist(), q.reshape(-1).tolist(), "float32")
            else:
                assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


POOL_ERRORS = [
    lambda F, x: F.max_pool3d(x, (2, 2)),
    lambda F, x: F.max_pool3d(x, 0),
    lambda F, x: F.max_pool3d(x[0, 0, 0], 2),
    lambda F, x: F.max_pool3d(x, 2, padding=2),
    lambda F, x: F.max_pool3d(x, 5),
    lambda F, x: F.max_pool3d(x, 2, stride=(1, 2)),
    lambda F, x: F.max_pool3d(x, 2, padding=(1, 1)),
    lambda F, x: F.max_pool3d(x, 2, dilation=(1, 1)),
    lambda F, x: F.max_pool3d(x, 2, dilation=0),
    lambda F, x: F.avg_pool3d(x, (2, 2)),
    lambda F, x: F.avg_pool3d(x, 5),
    lambda F, x: F.avg_pool3d(x, 2, divisor_override=0),
    lambda F, x: F.avg_pool3d(x[0, 0, 0], 2),
    lambda F, x: F.adaptive_avg_pool3d(x[0, 0, 0], 2),
    lambda F, x: F.adaptive_max_pool3d(x[0, 0, 0], 2),
    lambda F, x: F.adaptive_max_pool3d(x, (2, 2)),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 2)),
    lambda F, x: F.max_pool2d(x[0], 2, stride=(1, 2, 3)),
    lambda F, x: F.max_pool2d(x[0], 2, dilation=0),
]


@pytest.mark.parametrize("make", POOL_ERRORS)
def test_3d_pool_errors_in_pytorch_words(torch_ref, make):
    msgs = []
    for L in (scalargrad, torch_ref):
        with pytest.raises(RuntimeError) as e:
            make(L.nn.functional, L.ones(1, 2, 4, 4, 6))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


UNPOOLS = [
    # (input shape, pool, unpool)
    ((2, 2, 4, 6), lambda F, x: F.max_pool2d(x, 2, return_indices=True),
     lambda F, y, i: F.max_unpool2d(y, i, 2)),
    ((2, 5, 7), lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
     lambda F, y, i: F.max_unpool2d(y, i, 3, 2, 1, output_size=(6, 8))),
    ((2, 2, 5, 6), lambda F, x: F.max_pool2d(x, 3, 1, return_indices=True),  # overlapping: indices repeat
     lambda F, y, i: F.max_unpool2d(y, i, 3, 1)),
    ((2, 3, 9), lambda F, x: F.max_pool1d(x, 2, return_indices=True),
     lambda F, y, i: F.max_unpool1d(y, i, 2, output_size=[2, 3, 9])),
    ((1, 2, 4, 4, 6), lambda F, x: F.max_pool3d(x, 2, return_indices=True),
     lambda F, y, i: F.max_unpool3d(y, i, 2)),
    ((2, 5, 4, 6), lambda F, x: F.max_pool3d(x, (2, 3, 2), (2, 1, 2), (1, 1, 0), return_indices=True),
     lambda F, y, i: F.max_unpool3d(y, i, (2, 3, 2), (2, 1, 2), (1, 1, 0), output_size=(5, 4, 6))),
]


@pytest.mark.no_sympy_check  # overlapping windows repeat indices: PyTorch's gradient is not the derivative
@pytest.mark.parametrize("shape, pool, unpool", UNPOOLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_unpool_matches_pytorch_bit_for_bit(torch_ref, shape, pool, unpool, dtype):
    def run(L):
        F = L.nn.functional
        x = _rand(L, shape, 4, dtype, ties=True)
        y, i = pool(F, x)
        y = y.detach().requires_grad_()
        u = unpool(F, y, i)
        fn = u.grad_fn
        chain = [fn.name()] + [f.name() for f, _ in fn.next_functions if f is not None]
        saved = fn._saved_indices.tolist() if hasattr(fn, "_saved_indices") else None
        g = _rand(L, tuple(u.shape), 5, dtype)
        (gy,) = L.autograd.grad(u, y, g)
        return [u, gy], chain, saved

    a, t = run(scalargrad), run(torch_ref)
    assert a[1:] == t[1:]
    for p, q in zip(a[0], t[0]):
        assert tuple(p.shape) == tuple(q.shape)
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


def test_max_unpool_modules_as_pytorch(torch_ref):
    def run(L):
        nn = L.nn
        pool, unpool = nn.MaxPool2d(2, stride=2, return_indices=True), nn.MaxUnpool2d(2, stride=2)
        x = L.tensor([[[[1.0, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]])
        y, i = pool(x)
        mods = [unpool, nn.MaxUnpool1d(2), nn.MaxUnpool3d(3, 2, (1, 0, 1)), nn.MaxUnpool2d((2, 3), padding=1)]
        big = unpool(*pool(L.arange(25.0).reshape(1, 1, 5, 5)), output_size=[1, 1, 5, 5])
        return [repr(m) for m in mods], unpool(y, i).tolist(), big.tolist()

    assert run(scalargrad) == run(torch_ref)


UNPOOL_ERRORS = [
    lambda F, L, y, i: F.max_unpool2d(y, i.float(), 2),
    lambda F, L, y, i: F.max_unpool2d(y, i[..., :1], 2),
    lambda F, L, y, i: F.max_unpool2d(y[None], i[None], 2),
    lambda F, L, y, i: F.max_unpool2d(y, i * 0 - 1, 2),
    lambda F, L, y, i: F.max_unpool2d(y, i, 2, output_size=(9, 9)),
    lambda F, L, y, i: F.max_unpool2d(y, i, 2, output_size=(1, 4, 4)),
    lambda F, L, y, i: F.max_unpool3d(y.unsqueeze(2), i.unsqueeze(2) + 40, 2),
]


@pytest.mark.parametrize("make", UNPOOL_ERRORS)
def test_max_unpool_errors_in_pytorch_words(torch_ref, make):
    msgs = []
    for L in (scalargrad, torch_ref):
        F = L.nn.functional
        y, i = F.max_pool2d(L.arange(32.0).reshape(1, 2, 4, 4), 2, return_indices=True)
        with pytest.raises((RuntimeError, ValueError)) as e:
            make(F, L, y, i)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


def test_pooling_3d_gradients_are_proved_by_sympy():
    F = scalargrad.nn.functional
    x = _rand(scalargrad, (1, 2, 3, 4, 4), 7, "float64").requires_grad_()
    y, i = F.max_pool3d(x, 2, 2, 1, return_indices=True)
    loss = (F.avg_pool3d(x, 2, 1, 1) ** 2).sum() + F.adaptive_avg_pool3d(x, (2, 3, 1)).sum() \
        + (F.max_unpool3d(y, i, 2, 2, 1, output_size=(3, 4, 4)) * x).sum() + F.adaptive_max_pool3d(x, 2).sum()
    report = scalargrad.symbolic.sympy_check(loss, [x])
    assert report.ok, report


@pytest.mark.no_sympy_check  # PyTorch's gradient, not the derivative, on purpose
def test_unpooling_overlapping_windows_follows_pytorch_not_the_derivative():
    # with overlapping windows an index can repeat: the forward keeps the last write, and PyTorch's
    # backward (a gather at the indices) still gives every writer the gradient, which is not the
    # derivative of the forward; scalargrad does as PyTorch does, and its SymPy check says so
    F = scalargrad.nn.functional
    x = scalargrad.tensor([[[1.0, 3.0, 2.0]]])
    y, i = F.max_pool1d(x, 2, 1, return_indices=True)
    assert i.tolist() == [[[1, 1]]]
    y = y.detach().requires_grad_()
    u = F.max_unpool1d(y, i, 2, 1)
    (g,) = scalargrad.autograd.grad(u.sum(), y)
    assert u.tolist() == [[[0.0, 3.0, 0.0]]] and g.tolist() == [[[1.0, 1.0]]]
    assert not scalargrad.symbolic.sympy_check(u.sum(), [y]).ok
