"""max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool2d and their modules.

max pooling selects; avg pooling adds each window in order in the dtype and divides once, and
its backward adds ``grad / divisor`` window by window: IEEE arithmetic in ATen's fixed order,
so forward, backward and double backward are compared with PyTorch 2.13 bit for bit.
"""

from __future__ import annotations

import math
import random

import pytest

import scalargrad

from faithfulness import same


def _rand(L, shape, seed, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


POOLS = [
    ("max", lambda F, x: F.max_pool2d(x, 2)),
    ("max", lambda F, x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
    ("max", lambda F, x: F.max_pool2d(x, (2, 3), stride=(1, 2), dilation=(2, 1), padding=(1, 1))),
    ("max", lambda F, x: F.max_pool2d(x[0], 2)),
    ("max", lambda F, x: F.max_pool1d(x[0], 3, 2, 1)),
    ("avg", lambda F, x: F.avg_pool2d(x, 2)),
    ("avg", lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)),
    ("avg", lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, False)),
    ("avg", lambda F, x: F.avg_pool2d(x, 3, 1, 1, divisor_override=2)),
    ("avg", lambda F, x: F.avg_pool1d(x[0], 3, 2, 1)),
    ("avg", lambda F, x: F.adaptive_avg_pool2d(x, 1)),
    ("avg", lambda F, x: F.adaptive_avg_pool2d(x, (3, 4))),
    ("avg", lambda F, x: F.adaptive_avg_pool2d(x[0], (None, 4))),
    ("avg", lambda F, x: F.adaptive_avg_pool1d(x[0], 4)),
]


def _pool(L, fn, dtype):
    x = _rand(L, (2, 2, 5, 6), 1, dtype).requires_grad_()
    y = fn(L.nn.functional, x)
    g = _rand(L, tuple(y.shape), 2, dtype)
    (gx,) = L.autograd.grad(y, x, g)
    return [y, gx]


@pytest.mark.parametrize("kind, fn", POOLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pooling_matches_pytorch_bit_for_bit(torch_ref, kind, fn, dtype):
    a, t = _pool(scalargrad, fn, dtype), _pool(torch_ref, fn, dtype)
    assert a[0].grad_fn.name() == t[0].grad_fn.name()
    for p, q in zip(a, t):
        assert tuple(p.shape) == tuple(q.shape)
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


def test_pool_double_backward_matches_pytorch(torch_ref):
    # the backward of a pool is a node of its own: its gradient w.r.t. the incoming gradient
    def run(L, pool):
        x = _rand(L, (1, 2, 5, 5), 4).requires_grad_()
        g = _rand(L, (1, 2, 3, 3) if pool == "avg" else (1, 2, 2, 2), 5).requires_grad_()
        if pool == "adaptive":
            g = _rand(L, (1, 2, 2, 3), 5).requires_grad_()
            y = L.nn.functional.adaptive_avg_pool2d(x, (2, 3))
        else:
            y = L.nn.functional.avg_pool2d(x, 3, 2, 1) if pool == "avg" else L.nn.functional.max_pool2d(x, 2)
        (gx,) = L.autograd.grad(y, x, g, create_graph=True)
        edges = [type(f).__name__ for f, _ in gx.grad_fn.next_functions]
        (gg,) = L.autograd.grad(gx, g, _rand(L, (1, 2, 5, 5), 6))
        return gx.grad_fn.name(), gx.tolist(), gg.tolist(), edges

    for pool in ("avg", "adaptive"):
        assert run(scalargrad, pool) == run(torch_ref, pool)
    # max pooling's backward node: the same values (PyTorch also lists self as an input)
    assert run(scalargrad, "max")[:3] == run(torch_ref, "max")[:3]
    assert run(scalargrad, "avg")[0] == "AvgPool2DBackwardBackward0"
    assert run(scalargrad, "adaptive")[0] == "AdaptiveAvgPool2DBackwardBackward0"
    assert run(scalargrad, "max")[0] == "MaxPool2DWithIndicesBackwardBackward0"


def test_pool_nodes_and_indices_as_pytorch_shows_them(torch_ref):
    for L in (scalargrad, torch_ref):
        F = L.nn.functional
        x = L.tensor([[[[1.0, float("nan"), 3.0, 3.0], [3.0, 0.0, 3.0, -1.0]]]], requires_grad=True)
        y, idx = F.max_pool2d(x, 2, return_indices=True)
        # nan wins its window; a tie keeps the first maximum
        assert math.isnan(y[0, 0, 0, 0].item()) and y[0, 0, 0, 1].item() == 3.0
        assert idx.tolist() == [[[[1, 2]]]] and idx.dtype == L.int64
        fn = y.grad_fn
        assert fn.name() == "MaxPool2DWithIndicesBackward0"
        assert (fn._saved_kernel_size, fn._saved_stride, fn._saved_padding, fn._saved_dilation,
                fn._saved_ceil_mode) == ((2, 2), (), (0, 0), (1, 1), False)
        assert fn._saved_result1.tolist() == idx.tolist() and fn._saved_self is x
        y.sum().backward()
        assert x.grad.tolist() == [[[[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]
        z = F.avg_pool2d(L.ones(1, 1, 2, 4, requires_grad=True), 2, stride=1, count_include_pad=False)
        assert z.grad_fn.name() == "AvgPool2DBackward0" and z.grad_fn._saved_stride == (1, 1)
        assert z.grad_fn._saved_count_include_pad is False and z.grad_fn._saved_divisor_override is None
        # a window of -infs: its first position is the index
        m, i = F.max_pool2d(L.full((1, 1, 2, 4), -math.inf), 2, return_indices=True)
        assert i.tolist() == [[[[0, 2]]]]
        assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"
        assert F.max_pool1d(L.ones(1, 2, 6, requires_grad=True), 2).grad_fn.name() == "SqueezeBackward1"


def test_avg_pool_by_hand():
    x = scalargrad.tensor([[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]], requires_grad=True)
    F = scalargrad.nn.functional
    # 2x2 windows with stride 1: means of four numbers
    y = F.avg_pool2d(x, 2, stride=1)
    assert y.tolist() == [[[[3.0, 4.0], [6.0, 7.0]]]]
    y.sum().backward()
    # each input position gets 1/4 per window that reads it
    assert x.grad.tolist() == [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]]]
    # padding 1, count_include_pad=False: the corner window holds 1, 2, 4, 5 only
    z = F.avg_pool2d(x, 2, stride=2, padding=1, count_include_pad=False)
    assert z.tolist() == [[[[1.0, 2.5], [5.5, 7.0]]]]
    # count_include_pad=True divides by the full window: 1 / 4 for the corner
    assert F.avg_pool2d(x, 2, stride=2, padding=1).tolist() == [[[[0.25, 1.25], [2.75, 7.0]]]]
    assert F.avg_pool2d(x, 3, divisor_override=9).tolist() == [[[[5.0]]]]


def test_pooling_modules_repr_and_forward(torch_ref):
    def build(L):
        nn = L.nn
        return [nn.MaxPool2d(2), nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True), nn.AvgPool2d(2),
                nn.AvgPool2d(3, 2, 1, True, False, 2), nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveAvgPool2d(1),
                nn.MaxPool1d(2), nn.AvgPool1d(2)]

    x = [_rand(L, (1, 2, 4, 4), 9) for L in (scalargrad, torch_ref)]
    for a, t in zip(build(scalargrad), build(torch_ref)):
        assert repr(a) == repr(t)
        arg = (x[0], x[1]) if "1d" not in type(a).__name__ else (x[0][0], x[1][0])
        ra, rt = a(arg[0]), t(arg[1])
        if isinstance(rt, tuple):
            assert [r.tolist() for r in ra] == [r.tolist() for r in rt]
        else:
            assert ra.tolist() == rt.tolist()


def test_pool_errors_in_pytorch_words(torch_ref):
    cases = [
        lambda F, L: F.max_pool2d(L.ones(1, 1, 5, 5), 3, padding=2),
        lambda F, L: F.avg_pool2d(L.ones(1, 1, 5, 5), 3, padding=2),
        lambda F, L: F.max_pool2d(L.ones(1, 1, 5, 5), 6),
        lambda F, L: F.avg_pool2d(L.ones(1, 1, 5, 5), 6),
        lambda F, L: F.max_pool2d(L.ones(5, 5), 2),
        lambda F, L: F.max_pool2d(L.ones(1, 1, 5, 5), 2, stride=0),
        lambda F, L: F.avg_pool2d(L.ones(1, 1, 5, 5), 2, divisor_override=0),
    ]
    for make in cases:
        msgs = []
        for L in (scalargrad, torch_ref):
            with pytest.raises(RuntimeError) as e:
                make(L.nn.functional, L)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


ADAPTIVE_MAX = [
    ((2, 2, 5, 7), lambda F, x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True)),
    ((2, 2, 5, 7), lambda F, x: F.adaptive_max_pool2d(x, 3, return_indices=True)),
    ((2, 5, 7), lambda F, x: F.adaptive_max_pool2d(x, (None, 4), return_indices=True)),
    ((2, 2, 4, 4), lambda F, x: F.adaptive_max_pool2d(x, (6, 5), return_indices=True)),  # windows overlap
    ((2, 3, 7), lambda F, x: F.adaptive_max_pool1d(x, 3, return_indices=True)),
    ((3, 7), lambda F, x: F.adaptive_max_pool1d_with_indices(x, 4)),
    ((1, 2, 3, 3), lambda F, x: F.adaptive_max_pool2d_with_indices(x.clamp(max=0.0), 2)),  # ties at 0
]


@pytest.mark.parametrize("shape, fn", ADAPTIVE_MAX)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_max_pool_matches_pytorch_bit_for_bit(torch_ref, shape, fn, dtype):
    def run(L):
        x = _rand(L, shape, 1, dtype).requires_grad_()
        y, idx = fn(L.nn.functional, x)
        g = _rand(L, tuple(y.shape), 2, dtype).requires_grad_()
        (gx,) = L.autograd.grad(y, x, g, create_graph=True)
        (gg,) = L.autograd.grad(gx, g, _rand(L, shape, 3, dtype))
        return [y, gx, gg], (y.grad_fn.name(), gx.grad_fn.name(), idx.tolist(), str(idx.dtype))

    a, t = run(scalargrad), run(torch_ref)
    assert a[1] == t[1]
    for p, q in zip(a[0], t[0]):
        assert tuple(p.shape) == tuple(q.shape)
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


def test_adaptive_max_pool_modules_and_errors_match_pytorch(torch_ref):
    def run(L):
        x = _rand(L, (1, 2, 5, 7), 4)
        mods = [L.nn.AdaptiveMaxPool2d((None, 3)), L.nn.AdaptiveMaxPool1d(3, return_indices=True),
                L.nn.AdaptiveMaxPool2d(2)]
        outs = [mods[0](x).tolist(), [t.tolist() for t in mods[1](x[0])], mods[2](x).tolist()]
        errs = []
        for call in (lambda: L.nn.functional.adaptive_max_pool2d(x[0, 0, 0], 2),
                     lambda: L.nn.functional.adaptive_max_pool1d(x, 2),
                     lambda: L.nn.functional.adaptive_max_pool2d(x, (2,))):
            try:
                call()
            except RuntimeError as e:
                errs.append(str(e))
        return [repr(m) for m in mods], outs, errs

    assert run(scalargrad) == run(torch_ref)


def test_adaptive_pool_to_size_zero_as_pytorch(torch_ref):
    """An output size of 0 (``interpolate(mode='area')`` of a dimension of size 1 by 0.5 among
    them): an empty result with PyTorch's node (scalargrad raised ZeroDivisionError), and the
    backward kernel's refusal of the empty gradient in ATen's words."""
    cases = [("adaptive_avg_pool1d", (1, 4, 1), 0), ("adaptive_avg_pool2d", (1, 4, 3, 3), (0, 2)),
             ("adaptive_max_pool1d", (1, 4, 3), 0), ("adaptive_max_pool2d", (1, 4, 3, 3), (2, 0)),
             ("adaptive_avg_pool3d", (1, 2, 2, 2, 2), (0, 1, 1)), ("adaptive_max_pool3d", (2, 2, 2, 2), (1, 0, 1))]

    def run(L):
        out = []
        for name, shape, size in cases:
            x = L.ones(*shape, requires_grad=True)
            y = getattr(L.nn.functional, name)(x, size)
            out.append((tuple(y.shape), type(y.grad_fn).__name__))
            try:
                y.sum().backward()
                out.append(tuple(x.grad.shape))
            except RuntimeError as e:
                out.append(str(e))
        y = L.nn.functional.interpolate(L.ones(1, 4, 1), scale_factor=0.5, mode="area")
        return out + [tuple(y.shape)]

    assert run(scalargrad) == run(torch_ref)


def test_max_pool_gradient_under_create_graph_requires_grad_as_pytorch(torch_ref):
    """max_pool*_with_indices_backward(grad, self) and adaptive_max_pool*_backward take the
    pooled input: under create_graph the gradient requires grad through it even where the
    incoming gradient is a constant (scalargrad's did not, so a second backward raised), and
    the second backward gives it zeros."""
    cases = [((2, 3), lambda F, x: F.max_pool1d(x, 3, None, 0, ceil_mode=True)),
             ((1, 2, 4), lambda F, x: F.max_pool1d(x, 2)), ((1, 2, 2, 2), lambda F, x: F.max_pool2d(x, 2)),
             ((1, 2, 2, 2), lambda F, x: F.adaptive_max_pool2d(x, 1)),
             ((1, 1, 2, 2, 2), lambda F, x: F.max_pool3d(x, 1)), ((1, 2, 3), lambda F, x: F.adaptive_max_pool1d(x, 2))]

    def run(L):
        out = []
        for shape, f in cases:
            x = L.arange(math.prod(shape), dtype=L.float64).reshape(shape).requires_grad_()
            y = f(L.nn.functional, x)
            w = L.arange(1, y.numel() + 1, dtype=L.float64).reshape(y.shape)
            g, = L.autograd.grad((y * w).sum(), [x], create_graph=True)
            fn = g.grad_fn
            out.append((g.requires_grad, g.tolist(), fn.name() if fn else None,
                        [n.name() if n else None for n, _ in fn.next_functions] if fn else None))
            g.square().sum().backward()
            out.append(x.grad.tolist())
        return out

    assert run(scalargrad) == run(torch_ref)


# (function, input shape, keyword arguments): ATen's dimension checks of each pooling, in its order
_SHAPE_CHECKS = [
    ("max_pool1d", (2, 2, 2, 3), {}), ("max_pool1d", (3,), {}), ("max_pool1d", (2, 0, 3), {}),
    ("max_pool1d", (2, 2, 2, 3), {"return_indices": True}), ("max_pool1d", (2, 3, 0), {"return_indices": True}),
    ("avg_pool1d", (2, 2, 2, 3), {}), ("avg_pool1d", (0, 3), {}), ("lp_pool1d", (3,), {}),
    ("max_pool2d", (0, 2, 2), {}), ("max_pool2d", (2, 2, 0, 2), {}), ("max_pool2d", (2, 2, 2, 3, 2), {}),
    ("avg_pool2d", (2, 2, 2, 3, 2), {}), ("avg_pool2d", (2, 3), {}), ("avg_pool2d", (), {}),
    ("lp_pool2d", (2, 2, 2, 3, 2), {}), ("max_pool3d", (0, 2, 2, 2), {}), ("avg_pool3d", (2, 2, 0, 2, 2), {}),
    ("max_pool2d", (0, 2, 2, 2), {}), ("avg_pool3d", (0, 2, 2, 2, 2), {}), ("max_pool1d", (0, 2, 3), {}),
]


@pytest.mark.parametrize("fn, shape, kw", _SHAPE_CHECKS)
def test_pooling_shape_checks_match_pytorch(torch_ref, fn, shape, kw):
    """Each pooling's refusal of an input of the wrong rank or with an empty plane is PyTorch's
    (type and message: fuzz newer:10061:59, :271), and an empty batch pools to an empty result."""
    got = []
    for L in (scalargrad, torch_ref):
        f = getattr(L.nn.functional, fn)
        args = (1.0, 1) if fn.startswith("lp_") else (1,)
        try:
            got.append(tuple(f(L.zeros(shape), *args, **kw)[0].shape if kw else f(L.zeros(shape), *args).shape))
        except Exception as e:
            got.append(f"{type(e).__name__}: {e}")
    assert got[0] == got[1]
