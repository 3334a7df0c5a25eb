"""F.rrelu / nn.RReLU in evaluation against live PyTorch 2.13: leaky_relu with the slope
(lower + upper) / 2 (one comparison and one product per element: PyTorch's bits), the node
RreluWithNoiseBackward0 (RreluWithNoiseBackward1 in place) with PyTorch's saved attributes.
In training the slopes are drawn from the default generator as ATen's kernel draws them (one
random64 per element at or below 0): the same seed gives PyTorch's slopes, values, gradients and
generator state, bit for bit (data movement, one product per element), out of place and in
place (RreluWithNoiseBackward1, the result saved: PyTorch's TestNN.test_inplace_thnn)."""

from __future__ import annotations

import struct

import pytest

import scalargrad


def _bits(t) -> list:
    return [struct.pack("<d", v).hex() for v in t.detach().reshape(-1).tolist()]


def _run(L, dtype):
    L.manual_seed(0)
    x = L.randn(3, 4, dtype=getattr(L, dtype), requires_grad=True)
    m = L.nn.RReLU(0.1, 0.3).eval()
    y = m(x)
    f = y.grad_fn
    out = [repr(m), f.name(), f._saved_lower, f._saved_upper, f._saved_training, tuple(f._saved_noise.shape),
           _bits(y), _bits(L.autograd.grad(y.sum(), x)[0])]
    z = x * 1
    L.nn.functional.rrelu(z, inplace=True)
    out += [z.grad_fn.name(), _bits(z), _bits(L.autograd.grad(z.sum(), x)[0]), repr(L.nn.RReLU(inplace=True))]
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_in_evaluation_is_pytorchs(torch_ref, dtype):
    assert _run(scalargrad, dtype) == _run(torch_ref, dtype)


def _train(L, dtype):
    x = L.tensor([((7 * i) % 11 - 5) / 3.0 for i in range(20)], dtype=getattr(L, dtype)).reshape(4, 5)
    x.requires_grad_()
    L.manual_seed(7)
    y = L.nn.RReLU(0.1, 0.4)(x)
    f = y.grad_fn
    out = [f.name(), f._saved_lower, f._saved_upper, f._saved_training, _bits(f._saved_noise), _bits(y),
           [a[0].name() if a[0] is not None else None for a in f.next_functions],
           _bits(L.autograd.grad(y.sum(), x)[0]), _bits(L.nn.functional.rrelu(x, training=True))]
    return out + [_bits(L.rand(3))]  # the generator's state after


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_in_training_draws_pytorchs_slopes(torch_ref, dtype):
    assert _train(scalargrad, dtype) == _train(torch_ref, dtype)


def test_rrelu_checks_its_bounds(torch_ref):
    for L in (scalargrad, torch_ref):
        with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
            L.nn.functional.rrelu(L.ones(2), 0.5, 0.1)


def _train_in_place(L, dtype):
    x = L.tensor([((7 * i) % 11 - 5) / 3.0 for i in range(20)], dtype=getattr(L, dtype)).reshape(4, 5)
    x.requires_grad_()
    L.manual_seed(7)
    z = x * 1
    y = L.nn.RReLU(0.1, 0.4, inplace=True)(z)
    f = y.grad_fn
    g = L.tensor([float(i % 7 - 3) for i in range(20)], dtype=getattr(L, dtype)).reshape(4, 5)
    g_copy = g.clone()
    saved = [f._saved_lower, f._saved_upper, f._saved_training, _bits(f._saved_noise), _bits(f._saved_result)]
    y.backward(g)
    return [y is z, f.name(), saved, _bits(y), _bits(x.grad), bool(L.equal(g, g_copy)), _bits(L.rand(3))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_in_training_in_place_is_pytorchs(torch_ref, dtype):
    assert _train_in_place(scalargrad, dtype) == _train_in_place(torch_ref, dtype)


def _double(L, dtype):
    # create_graph: the gradient is one RreluWithNoiseBackwardBackward0 node (edges: grad_output,
    # self), so it requires grad even when the incoming gradient does not, and its self derivative
    # is zero (fuzz nn:12041:209 was refused: "element 0 of tensors does not require grad")
    x = L.tensor([[0.75, -1.25, 0.0], [-0.5, 2.0, -3.0]], dtype=getattr(L, dtype), requires_grad=True)
    out = []
    for training, inplace in ((True, False), (False, False), (False, True)):
        L.manual_seed(3)
        y = x * 1 if inplace else x
        y = L.nn.functional.rrelu(y, 0.125, 1 / 3, training=training, inplace=inplace)
        g = L.tensor([0.25, 0.5, 0.75, 1.0, 1.25, 1.5], dtype=getattr(L, dtype)).reshape(2, 3)
        gx = L.autograd.grad(y, [x], g, create_graph=True)[0]
        f = gx.grad_fn
        out += [f.name(), [None if a[0] is None else a[0].name() for a in f.next_functions], _bits(gx)]
        if not inplace:
            out += [f._saved_training, f._saved_lower, _bits(f._saved_self)]
        out.append(_bits(L.autograd.grad(gx.square().sum(), [x])[0]))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_double_backward_is_pytorchs_node(torch_ref, dtype):
    assert _double(scalargrad, dtype) == _double(torch_ref, dtype)
