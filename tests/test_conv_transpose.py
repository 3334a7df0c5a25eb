"""conv_transpose1d/2d/3d and nn.ConvTranspose1d/2d/3d: values, gradients, graph, parameters, errors.

A transposed convolution sums products, as a convolution does, and PyTorch's CPU kernel adds them
in a processor-dependent order: scalargrad gives each output and gradient element the exact sum
rounded once. Asserted bit for bit against an exact rational reference computed here from the
definition in its scatter form (input element ``i`` times weight element ``k`` lands on output
``i * stride - padding + k * dilation``), independent of scalargrad's gather of taps; live PyTorch
within the classical bound of any order of additions (``faithfulness.product_error_bound``).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

import scalargrad

from faithfulness import FLOAT32, FLOAT64, product_error_bound, round_exact


def _rand(L, shape, seed, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


CASES = [
    # (input shape, weight shape, kwargs)
    ((1, 1, 3, 3), (1, 2, 3, 3), {}),
    ((2, 3, 3, 4), (3, 2, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 3, 3), (4, 1, 2, 3), {"groups": 2, "dilation": (2, 1), "padding": (1, 0)}),
    ((1, 2, 4, 3), (2, 3, 4, 4), {"stride": (2, 3), "padding": (1, 2), "output_padding": (1, 0)}),
    ((1, 4, 2, 2), (4, 2, 3, 3), {"stride": 2, "dilation": 2, "output_padding": 1, "groups": 2}),
    ((2, 3, 5), (3, 2, 4), {"stride": 2, "padding": 1}),  # 1-D
    ((3, 4, 4), (3, 2, 3, 3), {"stride": 2}),  # unbatched
    ((1, 2, 2, 3, 2), (2, 2, 2, 3, 2), {"stride": (2, 1, 2), "padding": (0, 1, 1), "output_padding": (1, 0, 0)}),  # 3-D
    ((4, 2, 2, 3), (4, 1, 2, 2, 2), {"groups": 2, "dilation": (1, 2, 1)}),  # 3-D unbatched
]


def _flat_index(idx, shape):
    at = 0
    for i, s in zip(idx, shape):
        at = at * s + i
    return at


def _reference_products(xs, ws, kw, out_shape):
    """Per output flat position, the (input flat, weight flat) pairs landing on it: the scatter form."""
    k = len(ws) - 2
    batched = len(xs) == k + 2
    xs4 = xs if batched else (1,) + tuple(xs)
    out4 = out_shape if batched else (1,) + tuple(out_shape)

    def tup(v, default):
        v = kw.get(v, default)
        return (v,) * k if isinstance(v, int) else tuple(v)

    st, pad, dil, groups = tup("stride", 1), tup("padding", 0), tup("dilation", 1), kw.get("groups", 1)
    c_in, c_per_out = ws[0], ws[1]
    products = [[] for _ in range(math.prod(out4))]
    for b in range(xs4[0]):
        for ic in range(c_in):
            g = ic // (c_in // groups)
            for ipos in itertools.product(*[range(s) for s in xs4[2:]]):
                for ocl in range(c_per_out):
                    for kpos in itertools.product(*[range(s) for s in ws[2:]]):
                        opos = [i * s - p + kk * d for i, s, p, kk, d in zip(ipos, st, pad, kpos, dil)]
                        if all(0 <= o < n for o, n in zip(opos, out4[2:])):
                            o = _flat_index((b, g * c_per_out + ocl, *opos), out4)
                            products[o].append((_flat_index((b, ic, *ipos), xs4), _flat_index((ic, ocl, *kpos), ws)))
    channels = [(o // math.prod(out4[2:])) % out4[1] for o in range(len(products))]
    return products, channels


def _conv(L, case, dtype, bias=True, seed=0):
    xs, ws, kw = case
    x = _rand(L, xs, seed, dtype).requires_grad_()
    w = _rand(L, ws, seed + 1, dtype).requires_grad_()
    b = _rand(L, (ws[1] * kw.get("groups", 1),), seed + 2, dtype).requires_grad_() if bias else None
    fn = getattr(L.nn.functional, f"conv_transpose{len(ws) - 2}d")
    y = fn(x, w, b, **kw)
    g = _rand(L, tuple(y.shape), seed + 3, dtype)
    grads = L.autograd.grad(y, [x, w] + ([b] if bias else []), g)
    return x, w, b, y, g, grads


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64])
def test_conv_transpose_is_the_exact_sum_rounded_once(case, dtype):
    x, w, b, y, g, (gx, gw, gb) = _conv(scalargrad, case, dtype)
    products, channels = _reference_products(case[0], case[1], case[2], tuple(y.shape))
    xv, wv, bv = x.reshape(-1).tolist(), w.reshape(-1).tolist(), b.tolist()
    gv = g.reshape(-1).tolist()
    want = [Fraction(bv[c]) + sum((Fraction(xv[i]) * Fraction(wv[j]) for i, j in ps), Fraction(0))
            for ps, c in zip(products, channels)]
    assert y.reshape(-1).tolist() == [round_exact(q, dtype) for q in want]
    want_gx, want_gw, want_gb = [Fraction(0)] * len(xv), [Fraction(0)] * len(wv), [Fraction(0)] * len(bv)
    for o, (ps, c) in enumerate(zip(products, channels)):
        for i, j in ps:
            want_gx[i] += Fraction(gv[o]) * Fraction(wv[j])
            want_gw[j] += Fraction(gv[o]) * Fraction(xv[i])
        want_gb[c] += Fraction(gv[o])
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
def test_conv_transpose_matches_pytorch_within_the_bound_of_any_order(torch_ref, case, dtype, bias):
    a = _conv(scalargrad, case, dtype, bias)
    t = _conv(torch_ref, case, dtype, bias)
    assert tuple(a[3].shape) == tuple(t[3].shape)
    assert a[3].grad_fn.name() == t[3].grad_fn.name()
    products, channels = _reference_products(case[0], case[1], case[2], tuple(a[3].shape))
    xv, wv = a[0].reshape(-1).tolist(), a[1].reshape(-1).tolist()
    bv = a[2].tolist() if bias else [0.0] * (max(channels) + 1)
    gv = a[4].reshape(-1).tolist()
    _within(a[3].reshape(-1).tolist(), t[3].reshape(-1).tolist(),
            [product_error_bound([xv[i] for i, _ in ps] + [bv[c]], [wv[j] for _, j in ps] + [1.0], dtype)
             for ps, c in zip(products, channels)])
    gx_terms = [([], []) for _ in xv]
    gw_terms = [([], []) for _ in wv]
    for o, ps in enumerate(products):
        for i, j in ps:
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
                [product_error_bound([gv[o] for o in range(len(gv)) if channels[o] == c], [1.0] * len(gv), dtype)
                 for c in range(len(bv))])


def test_conv_transpose_node_as_pytorch_shows_it(torch_ref):
    def run(L):
        x = L.ones(1, 4, 3, 3, requires_grad=True)
        w = L.ones(4, 2, 3, 3, requires_grad=True)
        y = L.nn.functional.conv_transpose2d(x, w, L.ones(2, requires_grad=True), stride=2, padding=1,
                                             output_padding=1, dilation=2)
        fn = y.grad_fn
        saved = {k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved_") and k not in ("_saved_input",
                                                                                            "_saved_weight")}
        z = L.nn.functional.conv_transpose1d(L.ones(2, 5), L.ones(2, 1, 3, requires_grad=True))
        nobias = L.nn.functional.conv_transpose2d(x, w).grad_fn
        return (fn.name(), [type(f).__name__ for f, _ in fn.next_functions], saved, fn._saved_input is x,
                fn._saved_weight is w, y.tolist(), z.grad_fn.name(), z.tolist(),
                [type(f).__name__ if f is not None else None for f, _ in nobias.next_functions],
                nobias._saved_bias_sym_sizes_opt)

    assert run(scalargrad) == run(torch_ref)


def test_conv_transpose_gradients_are_proved_by_sympy():
    x = _rand(scalargrad, (1, 2, 2, 3), 1, "float64").requires_grad_()
    w = _rand(scalargrad, (2, 2, 2, 2), 2, "float64").requires_grad_()
    b = _rand(scalargrad, (2,), 3, "float64").requires_grad_()
    y = scalargrad.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
    report = scalargrad.symbolic.sympy_check((y * y).sum(), [x, w, b])
    assert report.ok, report


def test_conv_transpose_modules_match_pytorch(torch_ref):
    def build(L):
        L.manual_seed(3)
        return [L.nn.ConvTranspose2d(4, 2, 3), L.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                                    groups=2, bias=False, dilation=2),
                L.nn.ConvTranspose1d(2, 3, (2,)), L.nn.ConvTranspose2d(3, 5, (2, 4), stride=(2, 1)),
                L.nn.ConvTranspose3d(2, 4, (1, 2, 3), stride=(2, 1, 1), groups=2, dilation=(1, 1, 2))]

    ours, theirs = build(scalargrad), build(torch_ref)
    for a, t in zip(ours, theirs):
        assert repr(a) == repr(t)
        assert list(a.state_dict()) == list(t.state_dict())
        assert (a.transposed, a.output_padding, tuple(a.weight.shape)) == (t.transposed, t.output_padding,
                                                                          tuple(t.weight.shape))
        # kaiming_uniform_(a=sqrt(5)) and the bias, drawn from the generator in PyTorch's order
        assert a.weight.tolist() == t.weight.tolist()
        assert (a.bias is None and t.bias is None) or a.bias.tolist() == t.bias.tolist()
    # output_size picks the output padding
    ours[1].output_padding = theirs[1].output_padding = (0, 0)
    shapes = [tuple(m(L.ones(1, 4, 3, 3), output_size=size).shape) for L, m in
              ((scalargrad, ours[1]), (torch_ref, theirs[1])) for size in ([1, 6, 8, 7], [7, 8])]
    assert shapes[:2] == shapes[2:] == [(1, 6, 8, 7), (1, 6, 7, 8)]


ERRORS = [
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), output_padding=1),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), stride=2, output_padding=2),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(3, 2, 3, 3)),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), groups=3),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), L.ones(3)),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), padding=3),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), padding=-1),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 4, 3, 3), L.ones(4, 2, 3, 3), stride=0),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(3, 3), L.ones(4, 2, 3, 3)),
    lambda L: L.nn.functional.conv_transpose1d(L.ones(1, 2, 4), L.ones(2, 2, 3), output_padding=1),
    lambda L: L.nn.ConvTranspose2d(4, 2, 3, padding_mode="reflect"),
    lambda L: L.nn.ConvTranspose2d(4, 2, 3, stride=2)(L.ones(1, 4, 3, 3), output_size=[9, 9]),
    lambda L: L.nn.ConvTranspose2d(4, 2, 3, stride=2)(L.ones(1, 4, 3, 3), output_size=[1, 2, 3]),
    lambda L: L.nn.functional.conv_transpose3d(L.ones(1, 2, 3, 3), L.ones(2, 2, 3, 3, 3)),
    lambda L: L.nn.functional.conv_transpose3d(L.ones(1, 2, 2, 2, 2), L.ones(2, 2, 3, 3, 3), stride=2,
                                               output_padding=(0, 2, 0)),
    lambda L: L.nn.ConvTranspose3d(2, 2, 3, stride=2)(L.ones(1, 2, 2, 2, 2), output_size=[9, 9]),
]


@pytest.mark.parametrize("make", ERRORS)
def test_conv_transpose_errors_in_pytorch_words(torch_ref, make):
    msgs = []
    for L in (scalargrad, torch_ref):
        with pytest.raises((RuntimeError, ValueError)) as e:
            make(L)
        msgs.append((type(e.value).__name__, str(e.value).replace("torch.Size", "Size")))
    assert msgs[0] == msgs[1]
