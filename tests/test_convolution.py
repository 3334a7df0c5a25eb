"""conv1d/conv2d/conv3d, nn.Conv1d/Conv2d/Conv3d: graph, parameters, values and gradients.

PyTorch's CPU convolution adds its products in an order that depends on the processor (oneDNN,
or im2col + MKL's GEMM, whose kernel also depends on the shape), so scalargrad gives each output
and gradient element the exact sum rounded once (``_base/exact_sum``): asserted bit for bit
against an exact rational reference (``Fraction``).
Live PyTorch is compared within the classical bound of any order of additions, gamma_k * sum
|a_i b_i| (``faithfulness.product_error_bound``). ``python tests/test_convolution.py`` measures how
far PyTorch lands from the exact value on this machine (README, "How faithful it is").
"""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction

import pytest

import scalargrad
from scalargrad._base.errors import Unsupported
from scalargrad._base.exact_sum import rounded_dot, rounded_sum

from faithfulness import FLOAT32, FLOAT64, product_error_bound, round_exact


def _rand(L, shape, seed, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


CASES = [
    # (input shape, weight shape, kwargs)
    ((1, 1, 5, 5), (2, 1, 3, 3), {}),
    ((2, 3, 6, 6), (4, 3, 3, 3), {"stride": 2, "padding": 1}),
    ((1, 4, 7, 5), (4, 2, 2, 3), {"groups": 2, "dilation": (2, 1), "padding": (1, 0)}),
    ((3, 2, 8, 8), (3, 2, 3, 3), {"padding": "same"}),
    ((2, 2, 4, 4), (1, 2, 4, 4), {"padding": "valid"}),
    ((1, 2, 5, 5), (2, 1, 3, 3), {"groups": 2, "padding": 1, "stride": (1, 2)}),
    ((1, 3, 6, 5), (2, 3, 3, 2), {"padding": (1, 0), "stride": (2, 1), "dilation": (1, 2)}),
    # 3-D: the same geometry over three spatial dims
    ((2, 2, 4, 5, 3), (4, 1, 3, 2, 2), {"groups": 2, "padding": (1, 0, 1), "stride": (2, 1, 1), "dilation": (1, 2, 1)}),
    ((1, 2, 3, 4, 4), (3, 2, 3, 3, 3), {"padding": "same"}),
]


def _conv(L, case, dtype, bias=True, seed=0):
    xs, ws, kw = case
    x = _rand(L, xs, seed, dtype).requires_grad_()
    w = _rand(L, ws, seed + 1, dtype).requires_grad_()
    b = _rand(L, (ws[0],), seed + 2, dtype).requires_grad_() if bias else None
    y = getattr(L.nn.functional, f"conv{len(ws) - 2}d")(x, w, b, **kw)
    g = _rand(L, tuple(y.shape), seed + 3, dtype)
    grads = L.autograd.grad(y, [x, w] + ([b] if bias else []), g)
    return x, w, b, y, g, grads


def _taps(case, y_shape):
    """The exact products of each output element, as pairs of flat (input, weight) positions."""
    from scalargrad._ops.convolution import ConvGeometry

    xs, ws, kw = case
    k = len(ws) - 2
    pad = kw.get("padding", 0)
    dil = kw.get("dilation", 1)
    dil = (dil,) * k if isinstance(dil, int) else tuple(dil)
    if pad == "valid":
        pad = 0
    if pad == "same":
        pad = tuple(d * (s - 1) // 2 for d, s in zip(dil, ws[2:]))
    pad = (pad,) * k if isinstance(pad, int) else tuple(pad)
    st = kw.get("stride", 1)
    st = (st,) * k if isinstance(st, int) else tuple(st)
    geo = ConvGeometry(xs, ws, st, pad, dil, kw.get("groups", 1), (ws[0],))
    assert geo.out_shape == tuple(y_shape)
    return geo


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64])
def test_conv2d_is_the_exact_sum_rounded_once(case, dtype):
    x, w, b, y, g, (gx, gw, gb) = _conv(scalargrad, case, dtype)
    geo = _taps(case, y.shape)
    xv, wv, bv = x.reshape(-1).tolist(), w.reshape(-1).tolist(), b.tolist()
    gv = g.reshape(-1).tolist()
    got = y.reshape(-1).tolist()
    for o, (taps, oc) in enumerate(zip(geo.taps, geo.channel)):
        q = Fraction(bv[oc]) + sum((Fraction(xv[i]) * Fraction(wv[j]) for i, j in taps), Fraction(0))
        assert got[o] == round_exact(q, dtype)
    want_gx = [Fraction(0)] * len(xv)
    want_gw = [Fraction(0)] * len(wv)
    want_gb = [Fraction(0)] * len(bv)
    for o, (taps, oc) in enumerate(zip(geo.taps, geo.channel)):
        for i, j in taps:
            want_gx[i] += Fraction(gv[o]) * Fraction(wv[j])
            want_gw[j] += Fraction(gv[o]) * Fraction(xv[i])
        want_gb[oc] += Fraction(gv[o])
    assert gx.reshape(-1).tolist() == [round_exact(q, dtype) for q in want_gx]
    assert gw.reshape(-1).tolist() == [round_exact(q, dtype) for q in want_gw]
    assert gb.tolist() == [round_exact(q, dtype) for q in want_gb]


def _within(ours: list, theirs: list, bounds: list) -> None:
    for a, t, e in zip(ours, theirs, bounds):
        assert abs(a - t) <= 2 * e + 1e-300, (a, t, e)


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64])
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_matches_pytorch_within_the_bound_of_any_order(torch_ref, case, dtype, bias):
    a = _conv(scalargrad, case, dtype, bias)
    t = _conv(torch_ref, case, dtype, bias)
    assert a[0].tolist() == t[0].tolist() and a[1].tolist() == t[1].tolist()
    geo = _taps(case, a[3].shape)
    xv, wv = a[0].reshape(-1).tolist(), a[1].reshape(-1).tolist()
    bv = a[2].tolist() if bias else [0.0] * geo.weight_shape[0]
    gv = a[4].reshape(-1).tolist()
    bounds = [product_error_bound([xv[i] for i, _ in taps] + [bv[oc]], [wv[j] for _, j in taps] + [1.0], dtype)
              for taps, oc in zip(geo.taps, geo.channel)]
    _within(a[3].reshape(-1).tolist(), t[3].reshape(-1).tolist(), bounds)
    # the gradients: each a sum of products too
    gx_terms = [([], []) for _ in xv]
    gw_terms = [([], []) for _ in wv]
    for o, taps in enumerate(geo.taps):
        for i, j in taps:
            gx_terms[i][0].append(gv[o])
            gx_terms[i][1].append(wv[j])
            gw_terms[j][0].append(gv[o])
            gw_terms[j][1].append(xv[i])
    _within(a[5][0].reshape(-1).tolist(), t[5][0].reshape(-1).tolist(),
            [product_error_bound(p, q, dtype) for p, q in gx_terms])
    _within(a[5][1].reshape(-1).tolist(), t[5][1].reshape(-1).tolist(),
            [product_error_bound(p, q, dtype) for p, q in gw_terms])
    if bias:
        _within(a[5][2].tolist(), t[5][2].tolist(),
                [product_error_bound([gv[o] for o in range(len(gv)) if geo.channel[o] == c], [1.0] * len(gv), dtype)
                 for c in range(len(bv))])


def test_conv2d_node_as_pytorch_shows_it(torch_ref):
    for L in (scalargrad, torch_ref):
        x = L.ones(1, 2, 4, 4, requires_grad=True)
        w = L.ones(3, 2, 2, 2, requires_grad=True)
        y = L.nn.functional.conv2d(x, w, None, stride=2, padding=1)
        fn = y.grad_fn
        assert fn.name() == "ConvolutionBackward0"
        assert [type(f).__name__ if f is not None else None for f, _ in fn.next_functions] == [
            "AccumulateGrad", "AccumulateGrad", None]
        assert (fn._saved_stride, fn._saved_padding, fn._saved_dilation, fn._saved_groups, fn._saved_transposed,
                fn._saved_output_padding, fn._saved_bias_sym_sizes_opt) == ((2, 2), (1, 1), (1, 1), 1, False, (0, 0),
                                                                             (0,))
        assert fn._saved_input is x and fn._saved_weight is w
        # sums of ones: the count of taps each output element has
        assert y.tolist() == [[[[2.0, 4.0, 2.0], [4.0, 8.0, 4.0], [2.0, 4.0, 2.0]]] * 3]
        # unbatched input: unsqueeze, convolution, squeeze
        z = L.nn.functional.conv1d(L.ones(2, 5), L.ones(1, 2, 3, requires_grad=True), L.zeros(1))
        assert z.grad_fn.name() == "SqueezeBackward1" and z.tolist() == [[6.0, 6.0, 6.0]]


def test_conv2d_by_hand():
    # a 3x3 input, a 2x2 kernel: out[i, j] = sum x[i + a, j + b] * w[a, b] + bias
    x = scalargrad.tensor([[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]], requires_grad=True)
    w = scalargrad.tensor([[[[1.0, 0.0], [0.0, -1.0]]]], requires_grad=True)
    b = scalargrad.tensor([0.5], requires_grad=True)
    y = scalargrad.nn.functional.conv2d(x, w, b)
    assert y.tolist() == [[[[1 - 5 + 0.5, 2 - 6 + 0.5], [4 - 8 + 0.5, 5 - 9 + 0.5]]]]
    y.sum().backward()
    # d/dx: each input gets w[a, b] once per output reading it at that offset
    assert x.grad.tolist() == [[[[1.0, 1.0, 0.0], [1.0, 0.0, -1.0], [0.0, -1.0, -1.0]]]]
    # d/dw[a, b]: the sum of the input window at that offset
    assert w.grad.tolist() == [[[[1 + 2 + 4 + 5, 2 + 3 + 5 + 6], [4 + 5 + 7 + 8, 5 + 6 + 8 + 9]]]]
    assert b.grad.tolist() == [4.0]


def test_conv_modules_match_pytorch(torch_ref):
    def build(L):
        L.manual_seed(3)
        mods = [L.nn.Conv2d(1, 2, 3), L.nn.Conv2d(3, 8, 3, stride=2, padding=1, dilation=2, bias=False),
                L.nn.Conv2d(4, 8, (3, 5), padding="same", groups=2), L.nn.Conv1d(4, 8, 3),
                L.nn.Conv2d(2, 2, 1, padding_mode="reflect"),
                L.nn.Conv3d(4, 2, (3, 1, 2), stride=(1, 2, 1), padding=(1, 0, 0), groups=2, padding_mode="replicate"),
                L.nn.Conv3d(2, 4, 3, padding="same", dilation=2, bias=False)]
        return mods

    ours, theirs = build(scalargrad), build(torch_ref)
    for a, t in zip(ours, theirs):
        assert repr(a) == repr(t)
        assert list(a.state_dict()) == list(t.state_dict())
        # kaiming_uniform_(a=sqrt(5)) and the bias, drawn from the generator in PyTorch's order
        assert a.weight.tolist() == t.weight.tolist()
        assert (a.bias is None and t.bias is None) or a.bias.tolist() == t.bias.tolist()
        assert a._reversed_padding_repeated_twice == t._reversed_padding_repeated_twice
    # padding_mode reflect: F.pad in that mode, then a convolution without padding (PyTorch's graph)
    libs = (scalargrad, torch_ref)
    convs = [L.nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect") for L in libs]
    xs = [_rand(L, (1, 2, 3, 3), 5).requires_grad_() for L in libs]
    ys = [m(x) for m, x in zip(convs, xs)]
    assert [[type(f).__name__ for f in (y.grad_fn, y.grad_fn.next_functions[0][0])] for y in ys] == [
        ["ConvolutionBackward0", "ReflectionPad2DBackward0"]] * 2
    F = scalargrad.nn.functional
    assert ys[0].tolist() == F.conv2d(F.pad(xs[0], (1, 1, 1, 1), "reflect"), convs[0].weight, convs[0].bias).tolist()


def test_conv_errors_in_pytorch_words(torch_ref):
    cases = [
        lambda L: L.nn.functional.conv2d(L.ones(1, 3, 5, 5), L.ones(2, 1, 3, 3)),
        lambda L: L.nn.functional.conv2d(L.ones(5, 5), L.ones(2, 1, 3, 3)),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 2, 2), L.ones(2, 1, 3, 3)),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3), L.ones(3)),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3), padding="full"),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3), stride=2, padding="same"),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 5, 5, dtype=L.float64), L.ones(2, 1, 3, 3)),
        lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(3, 2, 3, 3), groups=2),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3), stride=0),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3), padding=-1),
        lambda L: L.nn.functional.conv1d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3)),
        lambda L: L.nn.Conv2d(3, 2, 3, groups=2),
        lambda L: L.nn.Conv2d(2, 2, 3, stride=2, padding="same"),
        lambda L: L.nn.functional.conv3d(L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3, 3)),
        lambda L: L.nn.functional.conv3d(L.ones(1, 1, 2, 5, 5), L.ones(2, 1, 3, 3, 3)),
        lambda L: L.nn.functional.conv3d(L.ones(1, 4, 3, 3, 3), L.ones(2, 2, 1, 1, 1), groups=3),
        lambda L: L.nn.functional.conv3d(L.ones(1, 1, 3, 3, 3), L.ones(2, 1, 1, 1, 1), stride=(1, 2)),
        lambda L: L.nn.Conv3d(2, 2, 3, stride=(1, 1, 2), padding="same"),
    ]
    for make in cases:
        msgs = []
        for L in (scalargrad, torch_ref):
            with pytest.raises((RuntimeError, ValueError)) as e:
                make(L)
            msgs.append((type(e.value).__name__, str(e.value)))
        assert msgs[0] == msgs[1]


def test_conv_double_backward_is_named_unsupported():
    x = scalargrad.ones(1, 1, 3, 3, requires_grad=True)
    w = scalargrad.ones(1, 1, 2, 2, requires_grad=True)
    y = scalargrad.nn.functional.conv2d(x, w)
    with pytest.raises(Unsupported, match="double backward of convolution"):
        scalargrad.autograd.grad((y * y).sum(), x, create_graph=True)


def test_rounded_sum_is_correctly_rounded_near_float32_ties():
    rng = random.Random(5)
    for _ in range(2000):
        # a float32 number, half its ulp (a tie in float32), and a tiny nudge either way
        a = float(round_exact(Fraction(rng.uniform(1, 2)), FLOAT32))
        half = math.ulp(a) * 2**28
        nudge = rng.choice([0.0, 2.0**-80, -(2.0**-80)])
        terms = [a, half, nudge]
        q = sum((Fraction(t) for t in terms), Fraction(0))
        assert rounded_sum(terms, True) == round_exact(q, FLOAT32)
        assert rounded_sum(terms, False) == round_exact(q, FLOAT64)
    for _ in range(500):
        pairs = [(rng.uniform(-1e3, 1e3), rng.uniform(-1e-3, 1e-3)) for _ in range(rng.randint(1, 12))]
        q = sum((Fraction(a) * Fraction(b) for a, b in pairs), Fraction(0))
        assert rounded_dot(pairs, False) == round_exact(q, FLOAT64)
    assert rounded_sum([], True) == 0.0 and math.isnan(rounded_sum([math.inf, -math.inf], True))


def _measure() -> None:  # pragma: no cover - a report, run by hand with torch installed
    """PyTorch's outputs against the exact sums: the share that are bit-equal, and the largest
    error in units of u * sum |a_i b_i| (u = 2**-24 or 2**-53): any order of k additions stays
    below about k."""
    import torch

    worst = {FLOAT32: 0.0, FLOAT64: 0.0}
    equal = total = 0
    for seed in range(40):
        for case in CASES:
            for dtype in (FLOAT32, FLOAT64):
                a = _conv(scalargrad, case, dtype, seed=seed * 10)
                t = _conv(torch, case, dtype, seed=seed * 10)
                geo = _taps(case, a[3].shape)
                xv, wv, bv = a[0].reshape(-1).tolist(), a[1].reshape(-1).tolist(), a[2].tolist()
                u = 2.0**-24 if dtype == FLOAT32 else 2.0**-53
                for o, (ours, theirs) in enumerate(zip(a[3].reshape(-1).tolist(), t[3].reshape(-1).tolist())):
                    taps = geo.taps[o]
                    scale = abs(bv[geo.channel[o]]) + sum(abs(xv[i] * wv[j]) for i, j in taps)
                    worst[dtype] = max(worst[dtype], abs(ours - theirs) / (u * scale))
                    equal += ours == theirs
                    total += 1
    print(f"{total} outputs: {equal} bit-equal to the exact sum rounded once ({100 * equal / total:.1f}%); "
          f"largest error of PyTorch's: float32 {worst[FLOAT32]:.2f}, float64 {worst[FLOAT64]:.2f} "
          "u * sum |a_i b_i|")


if __name__ == "__main__":  # pragma: no cover
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    _measure()


def test_same_padding_with_an_even_kernel_pads_the_input_first_as_pytorch(torch_ref):
    # ATen's _convolution_mode: the extra element on the right by constant_pad_nd, then a symmetric
    # convolution, after a warning PyTorch gives once per process
    import warnings

    from scalargrad._base.warn_once import forget

    forget("conv_same_even")

    def run(L, fn, ws, **kw):
        x = _rand(L, (1, 2, 5, 6) if fn == "conv2d" else (1, 2, 7), 1).requires_grad_()
        w = _rand(L, ws, 2)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y = getattr(L.nn.functional, fn)(x, w, padding="same", **kw)
        pad = y.grad_fn.next_functions[0][0]
        return (tuple(y.shape), pad.name(), pad._saved_pad, y.grad_fn._saved_padding,
                [str(m.message) for m in seen], y, x, w)

    for fn, ws, kw in (("conv2d", (3, 2, 2, 4), {}), ("conv1d", (3, 2, 4), {"dilation": 1}),
                       ("conv2d", (3, 2, 3, 2), {"dilation": (2, 3)})):
        a, t = run(scalargrad, fn, ws, **kw), run(torch_ref, fn, ws, **kw)
        assert a[:4] == t[:4]
        # once per process: PyTorch's may have been given by an earlier test in this process
        assert a[4] == t[4] or (fn, ws) == ("conv2d", (3, 2, 2, 4)) and len(a[4]) == 1 and t[4] == []
        # the values: the convolution of the padded input, exact sums rounded once
        F = scalargrad.nn.functional
        padded = F.pad(a[6], a[2])
        assert a[5].tolist() == getattr(F, fn)(padded, a[7], padding=a[3], **kw).tolist()


def test_mnist_sized_geometry_keeps_kernel_offsets_not_taps():
    """The MNIST example's second layer at batch 64 (issue 25) has 680 million taps: its geometry
    keeps per output position the kernel offsets inside the input (24 x 24 positions of 9) and
    computes an element's taps when read, in im2col's order (input channel, then kernel row and
    column), each as derived by hand from out[b, oc, h, w] += x[b, ci, h + kh, w + kw] *
    weight[oc, ci, kh, kw]."""
    from scalargrad._ops.convolution import ConvGeometry

    geo = ConvGeometry((64, 32, 26, 26), (64, 32, 3, 3), (1, 1), (0, 0), (1, 1), 1, (64,))
    assert geo.out_shape == (64, 64, 24, 24) and len(geo.taps) == 64 * 64 * 24 * 24
    assert len(geo.inside) == 24 * 24 and all(len(pairs) == 9 for pairs in geo.inside)
    b, oc, h, w = 63, 17, 5, 23
    o = ((b * 64 + oc) * 24 + h) * 24 + w
    want = [(((b * 32 + ci) * 26 + h + kh) * 26 + w + kw, ((oc * 32 + ci) * 3 + kh) * 3 + kw)
            for ci in range(32) for kh in range(3) for kw in range(3)]
    assert geo.taps[o] == want and geo.channel[o] == oc
    corner = ((7 * 32 + 4) * 26 + 0) * 26 + 0  # x[7, 4, 0, 0]: read by kernel offset (0, 0) of output (0, 0) only
    assert sorted(geo.input_row(corner)) == [(((7 * 64 + c) * 24) * 24, (c * 32 + 4) * 9) for c in range(64)]
    assert len(geo.weight_row(5)) == 64 * 24 * 24  # every sample's every output position


def _signed(values: list) -> list:
    """Each value with the sign of a zero shown (-0.0 and 0.0 compare equal)."""
    return [(v, math.copysign(1.0, v)) for v in values]


# (dtype, input shape, weight shape, bias, kwargs): ATen's im2col + GEMM path (float64, one float32
# sample) and oneDNN's (float32 batches, groups); one-term sums, longer ones, a -0.0 bias
_ZERO_SIGN_CASES = [
    ("float32", (1, 1, 1, 3, 1), (2, 1, 1, 1, 1), None, {"padding": 1}),  # fuzz newer:9719:5
    ("float64", (2, 1, 4), (3, 1, 1), None, {"padding": 1, "stride": 2}),
    ("float32", (1, 1, 3, 3), (3, 1, 1, 1), None, {"padding": 2}),
    ("float32", (2, 1, 3, 3), (3, 1, 1, 1), None, {"padding": 1}),  # oneDNN: +0.0
    ("float64", (1, 2, 3, 3), (2, 1, 1, 1), None, {"padding": 1, "groups": 2}),  # +0.0
    ("float64", (1, 1, 5), (2, 1, 1), None, {"padding": 1, "dilation": 2}),  # +0.0
    ("float64", (1, 2, 3, 3), (3, 2, 2, 2), None, {"padding": 1}),  # sums of two terms and more: +0.0
    ("float64", (1, 2, 3, 3), (3, 2, 2, 2), (0.0, -0.0, -0.0), {"padding": 1}),
    ("float32", (1, 1, 4), (3, 1, 2), (-0.0, 0.0, -0.0), {"padding": 1, "dilation": 2}),
    ("float64", (1, 2, 3), (2, 1, 1), (-0.0, -0.0), {"padding": 1, "groups": 2}),
    ("float32", (2, 1, 3), (2, 1, 1), (-0.0, -0.0), {"padding": 1}),  # oneDNN: +0.0
]


@pytest.mark.parametrize("dt, xs, ws, bias, kw", _ZERO_SIGN_CASES)
def test_zero_signs_match_pytorch(torch_ref, dt, xs, ws, bias, kw):
    """An output that sums to exactly zero has PyTorch's sign: -0.0 where its kernel starts from
    the bias or stores a one-term sum's product, +0.0 where it starts from +0.0
    (``convolution_zeros``). Operands of zeros of both signs and a few dyadic values: every sum
    exact, so the bits are the same on every processor."""
    pattern = [0.0, -0.0, 0.5, -0.0, 0.0, -0.25, -0.0]
    xv = [pattern[i % len(pattern)] for i in range(math.prod(xs))]
    wv = [(-0.75, 0.0, -0.0, 1.5)[i % 4] for i in range(math.prod(ws))]
    got = []
    for L in (scalargrad, torch_ref):
        x = L.tensor(xv, dtype=getattr(L, dt)).reshape(xs)
        w = L.tensor(wv, dtype=getattr(L, dt)).reshape(ws)
        b = None if bias is None else L.tensor(bias, dtype=getattr(L, dt))
        conv = getattr(L.nn.functional, f"conv{len(xs) - 2}d")
        got.append(_signed(conv(x, w, b, **kw).flatten().tolist()))
    assert got[0] == got[1]
