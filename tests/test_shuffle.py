"""pixel_shuffle, pixel_unshuffle, channel_shuffle and their modules: permutations of the input's
elements, so values, gradients and double backward are compared with PyTorch 2.13 bit for bit,
with node names, saved factors, reprs and errors."""

from __future__ import annotations

import math
import random

import pytest

import scalargrad
from scalargrad import symbolic
from scalargrad.errors import Unsupported

from faithfulness import same


def _rand(L, shape, seed, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


CASES = [
    ((1, 8, 2, 3), lambda F, x: F.pixel_shuffle(x, 2)),
    ((2, 9, 2, 2), lambda F, x: F.pixel_shuffle(x, 3)),
    ((4, 2, 3), lambda F, x: F.pixel_shuffle(x, 2)),  # unbatched
    ((2, 1, 4, 2, 2), lambda F, x: F.pixel_shuffle(x, 2)),  # two leading dims
    ((1, 2, 4, 6), lambda F, x: F.pixel_unshuffle(x, 2)),
    ((2, 3, 6, 3), lambda F, x: F.pixel_unshuffle(x, 3)),
    ((1, 6, 2, 2), lambda F, x: F.channel_shuffle(x, 2)),
    ((2, 6, 3), lambda F, x: F.channel_shuffle(x, 3)),
    ((1, 4, 2, 1, 2), lambda F, x: F.channel_shuffle(x, 4)),
    ((1, 4, 2, 2), lambda F, x: F.pixel_shuffle(x, 1)),
]


@pytest.mark.parametrize("shape, fn", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_shuffles_match_pytorch_bit_for_bit(torch_ref, shape, fn, dtype):
    def run(L):
        x = _rand(L, shape, 1, dtype).requires_grad_()
        y = fn(L.nn.functional, x)
        g = _rand(L, tuple(y.shape), 2, dtype).requires_grad_()
        (gx,) = L.autograd.grad(y, x, g, create_graph=True)
        saved = {k: getattr(y.grad_fn, k) for k in dir(y.grad_fn) if k.startswith("_saved_")}
        (gg,) = L.autograd.grad(gx, g, _rand(L, shape, 3, dtype))
        return y, gx, gg, (y.grad_fn.name(), gx.grad_fn.name(), saved)

    a, t = run(scalargrad), run(torch_ref)
    assert a[3] == t[3]
    for p, q in zip(a[:3], t[:3]):
        assert tuple(p.shape) == tuple(q.shape)
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


@pytest.mark.parametrize("shape, fn", CASES[:1] + CASES[4:5] + CASES[6:7])
def test_shuffle_gradients_are_proved_by_sympy(shape, fn):
    x = _rand(scalargrad, shape, 4, "float64").requires_grad_()
    y = fn(scalargrad.nn.functional, x * x)
    report = symbolic.sympy_check((y * _rand(scalargrad, tuple(y.shape), 5, "float64")).sum(), [x])
    assert report.ok, report


def test_shuffle_modules_and_torch_functions_match_pytorch(torch_ref):
    def run(L):
        x = _rand(L, (1, 8, 2, 2), 6)
        mods = [L.nn.PixelShuffle(2), L.nn.PixelUnshuffle(2), L.nn.ChannelShuffle(4)]
        outs = [mods[0](x), mods[1](x.reshape(1, 2, 4, 4)), mods[2](x)]
        fns = [L.pixel_shuffle(x, 2), L.pixel_unshuffle(x, 1), L.channel_shuffle(x, 2), L.native_channel_shuffle(x, 2)]
        return [repr(m) for m in mods], [o.tolist() for o in outs + fns], L.pixel_shuffle(L.ones(1, 4, 0, 2), 2).shape

    assert run(scalargrad) == run(torch_ref)


ERRORS = [
    lambda F, L: F.pixel_shuffle(L.ones(1, 3, 2, 2), 2),
    lambda F, L: F.pixel_shuffle(L.ones(3, 2), 2),
    lambda F, L: F.pixel_shuffle(L.ones(1, 4, 2, 2), 0),
    lambda F, L: F.pixel_shuffle(L.ones(1, 4, 2, 2), -1),
    lambda F, L: F.pixel_unshuffle(L.ones(1, 3, 3, 2), 2),
    lambda F, L: F.pixel_unshuffle(L.ones(1, 1, 2, 3), 2),
    lambda F, L: F.pixel_unshuffle(L.ones(1, 4, 2, 2), 0),
    lambda F, L: F.pixel_unshuffle(L.ones(2, 2), 2),
    lambda F, L: F.channel_shuffle(L.ones(1, 3, 2, 2), 2),
    lambda F, L: F.channel_shuffle(L.ones(6, 2), 2),
    lambda F, L: F.channel_shuffle(L.ones(1, 6, 2), 0),
]


@pytest.mark.parametrize("call", ERRORS)
def test_shuffle_errors_are_pytorchs(torch_ref, call):
    msgs = []
    for L in (scalargrad, torch_ref):
        with pytest.raises(RuntimeError) as e:
            call(L.nn.functional, L)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_native_channel_shuffle_is_channel_shuffle_without_a_derivative(torch_ref):
    """nn.functional.native_channel_shuffle (torch.native_channel_shuffle's docstring example): the
    same elements as channel_shuffle; PyTorch has no derivative for it, so a graph is refused."""
    for name in ("nn.functional.native_channel_shuffle", "native_channel_shuffle"):
        outs = []
        for L in (scalargrad, torch_ref):
            fn = L.nn.functional.native_channel_shuffle if name.startswith("nn") else L.native_channel_shuffle
            x = _rand(L, (2, 6, 2, 3), 5)
            y = fn(x, 3)
            outs.append((repr(y), y.stride(), y.grad_fn is None, y.is_contiguous()))
            with L.no_grad():
                assert fn(_rand(L, (1, 4, 2), 6).requires_grad_(), 2).grad_fn is None
        assert outs[0] == outs[1]
    with pytest.raises(Unsupported, match="native_channel_shuffle"):
        scalargrad.native_channel_shuffle(_rand(scalargrad, (1, 4, 2), 6).requires_grad_(), 2)
    with pytest.raises(RuntimeError, match="divisible by groups") as e:
        scalargrad.nn.functional.native_channel_shuffle(scalargrad.zeros(1, 4, 2), 3)
    with pytest.raises(RuntimeError) as t:
        torch_ref.nn.functional.native_channel_shuffle(torch_ref.zeros(1, 4, 2), 3)
    assert str(e.value) == str(t.value)
