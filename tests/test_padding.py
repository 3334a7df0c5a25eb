"""F.pad (constant, reflect, replicate, circular) and the padding modules.

Padding copies elements (and, for constant padding, writes the fill value); the backward of
reflection and replication adds each gradient into the element its output copied, outputs in
order, as ATen's CPU kernel: IEEE additions in a fixed order, the same bits on every machine. So
values, gradients and double backward are compared with PyTorch 2.13 bit for bit, as are node
names, saved attributes, errors and the modules' reprs.
"""

from __future__ import annotations

import math
import random

import pytest

import scalargrad
from scalargrad import symbolic

from faithfulness import same


def _rand(L, shape, seed, dtype="float32"):
    rng = random.Random(seed)
    n = math.prod(shape)
    return L.tensor([rng.uniform(-2, 2) for _ in range(n)], dtype=getattr(L, dtype)).reshape(*shape)


# (input shape, pad, mode)
PADS = [
    ((2, 3, 5), (1, 2), "constant"),
    ((2, 3, 5), (2, 1), "reflect"),
    ((2, 3, 5), (4, 4), "reflect"),  # each input element read up to three times
    ((2, 3, 5), (3, 6), "replicate"),
    ((2, 3, 5), (2, 3), "circular"),
    ((3, 5), (1, 1), "reflect"),
    ((3, 5), (0, 2), "replicate"),
    ((2, 2, 4, 5), (1, 2, 3, 1), "constant"),
    ((2, 2, 4, 5), (1, 2, 3, 1), "reflect"),
    ((2, 2, 4, 5), (2, 3, 3, 2), "replicate"),
    ((2, 2, 4, 5), (1, 2, 3, 1), "circular"),
    ((2, 4, 5), (2, 1, 1, 3), "reflect"),
    ((1, 2, 3, 3, 4), (1, 2, 2, 1, 1, 1), "reflect"),
    ((1, 2, 3, 3, 4), (2, 2, 1, 1, 3, 3), "replicate"),
    ((1, 2, 3, 3, 4), (1, 1, 1, 2, 2, 1), "circular"),
    ((2, 3, 4), (1, 1, 1, 1, 1, 1), "constant"),  # a batch dim padded too
    ((2, 3, 5), (-1, 2), "constant"),  # a negative pad cuts
    ((2, 3, 5), (-2, -1), "constant"),  # only cuts: still ConstantPadNdBackward0
    ((2, 3, 5), (-1, 2), "reflect"),
    ((2, 3, 5), (2, -2), "replicate"),
    ((2, 3, 5), (-1, 2), "circular"),
    ((2, 4, 5), (0, 0, 0, 0), "reflect"),
]


def _pad(L, shape, pads, mode, dtype):
    x = _rand(L, shape, 1, dtype).requires_grad_()
    y = L.nn.functional.pad(x, pads, mode)
    g = _rand(L, tuple(y.shape), 2, dtype)
    (gx,) = L.autograd.grad(y, x, g)
    return y, gx


@pytest.mark.parametrize("shape, pads, mode", PADS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pad_matches_pytorch_bit_for_bit(torch_ref, shape, pads, mode, dtype):
    a, t = _pad(scalargrad, shape, pads, mode, dtype), _pad(torch_ref, shape, pads, mode, dtype)
    assert a[0].grad_fn.name() == t[0].grad_fn.name()
    for p, q in zip(a, t):
        assert tuple(p.shape) == tuple(q.shape)
        assert all(map(same, p.reshape(-1).tolist(), q.reshape(-1).tolist()))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_graph_matches_pytorch(torch_ref, mode):
    # the nodes down to the leaf, with the saved attributes PyTorch exposes
    def run(L):
        x = _rand(L, (1, 2, 4), 3).requires_grad_()
        y = L.nn.functional.pad(x, (2, -1) if mode != "circular" else (2, 1), mode)
        seen, todo = [], [y.grad_fn]
        while todo:
            f = todo.pop(0)
            if f is None:
                continue
            saved = {k: getattr(f, k) for k in dir(f) if k.startswith("_saved_") and k != "_saved_self"}
            seen.append((type(f).__name__, saved))
            todo.extend(n for n, _ in f.next_functions)
        return seen

    assert run(scalargrad) == run(torch_ref)


@pytest.mark.parametrize("pads, mode", [((1, 2), "reflect"), ((2, 3), "replicate"), ((1, -2), "constant"),
                                        ((1, 2, 2, 1), "reflect"), ((3, 1, 1, 2), "replicate")])
def test_pad_double_backward_matches_pytorch(torch_ref, pads, mode):
    # the backward of reflection/replication is a node of its own, whose backward pads again
    def run(L):
        shape = (2, 3, 4) if len(pads) == 2 else (1, 2, 3, 4)
        x = _rand(L, shape, 4).requires_grad_()
        y = L.nn.functional.pad(x, pads, mode)
        g = _rand(L, tuple(y.shape), 5).requires_grad_()
        (gx,) = L.autograd.grad(y, x, g, create_graph=True)
        saved = {k: getattr(gx.grad_fn, k) for k in dir(gx.grad_fn) if k.startswith("_saved_")
                 and k != "_saved_self"}
        (gg,) = L.autograd.grad(gx, g, _rand(L, shape, 6), create_graph=True)
        return gx.grad_fn.name(), saved, gx.tolist(), type(gg.grad_fn).__name__, gg.tolist()

    assert run(scalargrad) == run(torch_ref)


@pytest.mark.parametrize("pads, mode", [((1, 2), "constant"), ((2, 2), "reflect"), ((3, 1), "replicate"),
                                        ((1, 2), "circular"), ((1, 1, 2, 1), "reflect")])
def test_pad_gradients_are_proved_by_sympy(pads, mode):
    x = _rand(scalargrad, (1, 3, 4), 7, "float64").requires_grad_()
    w = _rand(scalargrad, (1, 3, 4), 8, "float64")
    y = scalargrad.nn.functional.pad(x * w, pads, mode)
    out = (y * _rand(scalargrad, tuple(y.shape), 9, "float64")).sum()
    report = symbolic.sympy_check(out, [x])
    assert report.ok, report


def test_pad_of_integers_and_booleans_matches_pytorch(torch_ref):
    def run(L):
        F = L.nn.functional
        a = L.arange(6).reshape(2, 3)
        return [F.pad(a, (1, 1), value=2.5).tolist(), F.pad(a, (1, 2), mode="reflect").tolist(),
                F.pad(a, (1, 2), mode="replicate").tolist(), F.pad(a.unsqueeze(0), (1, 2), mode="circular").tolist(),
                F.pad(L.tensor([True, False]), (1, 1), value=1).tolist(),
                str(F.pad(a.double(), (1, 1), value=2.5).dtype), F.pad(a, (1, 1), value=-1).dtype == a.dtype,
                L.constant_pad_nd(a, (1, 0), 7).tolist()]

    assert run(scalargrad) == run(torch_ref)


ERRORS = [
    lambda F, x: F.pad(x, (1, 2, 3)),
    lambda F, x: F.pad(x, (1, 1, 1, 1, 1, 1, 1, 1)),
    lambda F, x: F.pad(x, (4, 4), mode="reflect"),
    lambda F, x: F.pad(x, (1, 4), mode="reflect"),
    lambda F, x: F.pad(x[0], (1, 1, 4, 1), mode="reflect"),
    lambda F, x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda F, x: F.pad(x[0, 0], (1, 1), mode="replicate"),
    lambda F, x: F.pad(x, (1, 1), mode="foo"),
    lambda F, x: F.pad(x, (-5, 1)),
    lambda F, x: F.pad(x, (-3, -2)),
    lambda F, x: F.pad(x, (-3, -2, 1, 0)),
    lambda F, x: F.pad(x, (-3, -3), mode="reflect"),
    lambda F, x: F.pad(x, (-2, -2), mode="replicate"),
    lambda F, x: F.pad(x, (5, 1), mode="circular"),
    lambda F, x: F.pad(x, (-3, -2), mode="circular"),
    lambda F, x: F.pad(x, (1, 1), mode="reflect", value=2.0),
    lambda F, x: F.pad(x[..., :0], (1, 1), mode="replicate"),
    lambda F, x: F.pad(x[:, :0], (1, 1), mode="reflect"),
    lambda F, x: F.pad(x > 0, (1, 1), mode="replicate"),
    lambda F, x: F.pad(x > 0, (1, 1, 1, 1), mode="reflect"),
    lambda F, x: F.pad(x, (1.5, 1)),
    lambda F, x: F.pad(x, 1),
    lambda F, x: F.pad(x.sum(), (1, 1)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_pad_errors_are_pytorchs(torch_ref, call):
    def run(L):
        try:
            call(L.nn.functional, L.ones(1, 3, 4))
        except Exception as e:  # the error is the result compared
            return type(e).__name__, str(e).split("\n")[0] if type(e).__name__ == "TypeError" else str(e)
        return None

    assert run(torch_ref) is not None
    assert run(scalargrad) == run(torch_ref)


def test_pad_accepts_what_pytorch_accepts(torch_ref):
    def run(L):
        F = L.nn.functional
        x = L.ones(1, 3, 4)
        cases = [((3, 3), "reflect", None), ((1, 1), "reflect", 0.0), ((-4, 0), "constant", None),
                 ((-4, 1), "constant", None), ((-4, 0, 1, 0), "constant", None), ((-2, -2), "circular", None),
                 ((1, 1), "constant", None), ([1, 1], "replicate", None), ((), "constant", None)]
        shapes = [tuple(F.pad(x, p, m, v).shape) for p, m, v in cases]
        return shapes + [tuple(F.pad(L.ones(0, 3, 3), (1, 1), "replicate").shape)]

    assert run(scalargrad) == run(torch_ref)


MODULES = [
    lambda nn: nn.ZeroPad1d(2), lambda nn: nn.ZeroPad1d((1, 2)), lambda nn: nn.ZeroPad2d(1),
    lambda nn: nn.ZeroPad2d((1, 0, 2, 1)), lambda nn: nn.ZeroPad3d(1), lambda nn: nn.ConstantPad1d(2, 3.5),
    lambda nn: nn.ConstantPad2d((1, 2, 0, 1), -1), lambda nn: nn.ConstantPad3d(1, 0.5),
    lambda nn: nn.ReflectionPad1d(2), lambda nn: nn.ReflectionPad2d((1, 2, 2, 0)), lambda nn: nn.ReflectionPad3d(1),
    lambda nn: nn.ReplicationPad1d([3, 1]), lambda nn: nn.ReplicationPad2d(2), lambda nn: nn.ReplicationPad3d(1),
    lambda nn: nn.CircularPad1d(2), lambda nn: nn.CircularPad2d((1, 2, 2, 1)), lambda nn: nn.CircularPad3d(1),
]


@pytest.mark.parametrize("make", MODULES)
def test_padding_modules_match_pytorch(torch_ref, make):
    def run(L):
        m = make(L.nn)
        x = _rand(L, (1, 2, 3, 3, 4), 10)
        nd = 1 if "1d" in type(m).__name__ else (2 if "2d" in type(m).__name__ else 3)
        xs = x.reshape(2, 3, 3, 4) if nd == 3 else (x.reshape(2, 9, 4) if nd == 2 else x.reshape(6, 12))
        y = m(xs)
        return repr(m), m.padding, getattr(m, "value", None), y.grad_fn is None, y.tolist()

    assert run(scalargrad) == run(torch_ref)


@pytest.mark.parametrize("make, ndim", [(lambda nn: nn.CircularPad1d(1), 1), (lambda nn: nn.CircularPad2d(1), 2),
                                        (lambda nn: nn.CircularPad3d(1), 3)])
def test_circular_modules_check_the_input_dim_as_pytorch(torch_ref, make, ndim):
    def run(L):
        try:
            make(L.nn)(L.ones(*(4,) * ndim))
        except ValueError as e:
            return str(e)

    assert run(scalargrad) == run(torch_ref) is not None
