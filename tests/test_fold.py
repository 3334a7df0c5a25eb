"""F.unfold / F.fold and nn.Unfold / nn.Fold against live PyTorch 2.13: im2col copies and
col2im adds in ATen's loop order (data movement and additions in a fixed order: PyTorch's bits
on every machine); nodes Im2ColBackward0 / Col2ImBackward0 with their saved settings; reprs and
errors."""

from __future__ import annotations

import random
import struct

import pytest

import scalargrad


def _bits(t) -> list:
    return [struct.pack("<d", v).hex() for v in t.detach().reshape(-1).tolist()]


SETTINGS = [dict(kernel_size=(2, 3), padding=1, stride=(1, 2)), dict(kernel_size=2),
            dict(kernel_size=2, dilation=2, padding=(1, 0))]


def _run(L, settings, batched):
    F = L.nn.functional
    rng = random.Random(5)
    x = L.tensor([rng.uniform(-2, 2) for _ in range(80)]).reshape(2, 2, 4, 5)
    x = (x if batched else x[0]).requires_grad_()
    y = F.unfold(x, **settings)
    f = y.grad_fn
    g = L.tensor([rng.uniform(-1, 1) for _ in range(y.numel())]).reshape(y.shape)
    out = [f.name(), f._saved_kernel_size, f._saved_dilation, f._saved_padding, f._saved_stride,
           f._saved_self_sym_argsize_minus_1, f._saved_self_sym_argsize_minus_2, tuple(y.shape), _bits(y),
           _bits(L.autograd.grad(y, x, g)[0])]
    c = y.detach().requires_grad_()
    z = F.fold(c, (4, 5), **settings)
    gz = L.tensor([rng.uniform(-1, 1) for _ in range(z.numel())]).reshape(z.shape)
    out += [z.grad_fn.name(), z.grad_fn._saved_kernel_size, tuple(z.shape), _bits(z),
            _bits(L.autograd.grad(z, c, gz)[0])]
    return out


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("batched", [True, False])
def test_fold_and_unfold_are_pytorchs_bits(torch_ref, settings, batched):
    assert _run(scalargrad, settings, batched) == _run(torch_ref, settings, batched)


def test_double_backward_goes_through_the_other_op(torch_ref):
    def run(L):
        x = L.arange(20.0).reshape(1, 1, 4, 5).requires_grad_()
        y = L.nn.Unfold(2, padding=1)(x)
        (gx,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        (ggx,) = L.autograd.grad(gx.sum(), x)
        return repr(L.nn.Unfold(2, padding=1)), repr(L.nn.Fold((4, 5), 2)), _bits(gx), _bits(ggx)

    assert run(scalargrad) == run(torch_ref)


@pytest.mark.parametrize("fn", [
    lambda L: L.nn.functional.unfold(L.ones(2, 3), 2),
    lambda L: L.nn.functional.fold(L.ones(1, 5, 4), (3, 3), 2),
    lambda L: L.nn.functional.unfold(L.ones(1, 1, 2, 2), 3),
    lambda L: L.nn.functional.fold(L.ones(1, 4, 5), (3, 3), 2),
])
def test_errors_are_pytorchs(torch_ref, fn):
    got = []
    for L in (scalargrad, torch_ref):
        with pytest.raises(Exception) as e:
            fn(L)
        got.append((type(e.value).__name__, str(e.value)))
    assert got[0] == got[1]
