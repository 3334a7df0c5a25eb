"""Where results and gradients lie in memory, against live PyTorch (issue 22's layout group, found
by the fuzzer's views/inplace families at seed 9377): TensorIterator's fast setup for a
channels-last-contiguous input, pow with a Python number (a unary iterator, or a contiguous
allocation for ``number ** tensor``), empty results of operands of other shapes, add/sub with
alpha; select's and slice's backward (new zeros, contiguous); view's backward under create_graph
(a ViewBackward0 even to the same shape). Strides are data movement: compared exactly."""

from __future__ import annotations

import pytest

import scalargrad as sg

from graph_listing import first_edge_chain

pytestmark = pytest.mark.no_sympy_check


def _inputs(L):
    return [L.arange(6.0).reshape(2, 3).t(),                          # transposed
            L.arange(3.0).reshape(1, 3).t(),                          # contiguous, odd size-1 stride
            L.arange(6.0).reshape(2, 1, 1, 3).swapdims(3, 1),         # contiguous 4-D
            L.arange(12.0).reshape(2, 1, 2, 3).swapdims(3, 1),        # channels-last contiguous only
            L.zeros(4, 0, 1), L.zeros(2, 1, 0, 3)]                    # empty


def test_elementwise_result_strides_as_pytorch(torch_ref):
    def run(L):
        ops = [lambda t: t ** 2, lambda t: 2 ** t, lambda t: L.pow(2, t), lambda t: t ** 0.5,
               lambda t: t.round(decimals=1), lambda t: t.exp(), lambda t: t + 1, lambda t: t * t, lambda t: -t,
               lambda t: t + L.ones(1), lambda t: t.sub(1, alpha=2), lambda t: t.add(t, alpha=3),
               lambda t: L.where(t > 0, t, 0.0), lambda t: t.clamp(min=0)]
        return [[f(t).stride() for f in ops] for t in _inputs(L)]
    assert run(sg) == run(torch_ref)


def test_select_and_slice_backward_are_new_zeros_as_pytorch(torch_ref):
    """select_backward/slice_backward copy into zeros: contiguous even when the view kept every
    element (a select of a size-1 dim, whose gradient arrives expanded from a sum)."""
    def run(L):
        out = []
        x = L.tensor([[-1.0, 3.0, -2.0]], requires_grad=True)
        for f in (lambda v: v[0].sum(0), lambda v: v.select(0, 0).sum(), lambda v: v.narrow(0, 0, 1).sum(),
                  lambda v: v[:, 0:3].sum(), lambda v: v[0:1].sum()):
            g, = L.autograd.grad(f(x) * 0.25, [x])
            out.append((g.stride(), g.tolist()))
        return out
    assert run(sg) == run(torch_ref)


def test_view_backward_under_create_graph_is_a_view_node_as_pytorch(torch_ref):
    """view/reshape's backward is ``grad.reshape(sizes)``: under create_graph a ViewBackward0
    even to the same shape; select's and narrow's record their double backward's node."""
    def run(L):
        out = []
        for f in (lambda x: x.reshape_as(x).tanh(), lambda x: x.view(3, 2).tanh(), lambda x: x[0].sin(),
                  lambda x: x.narrow(1, 0, 2).sin(), lambda x: x.unsqueeze(0)[0].sin()):
            x = (L.arange(6.0).reshape(3, 2) / 8).requires_grad_()
            g, = L.autograd.grad(f(x * 1).sum(), [x], create_graph=True)
            out.append(first_edge_chain(g))
        return out
    assert run(sg) == run(torch_ref)


def test_clone_of_an_empty_tensor_keeps_its_strides_as_pytorch(torch_ref):
    """An empty tensor is contiguous, so c10 counts it non-overlapping and dense: clone (preserve
    format) keeps its strides, expanded or sliced."""
    def run(L):
        bases = [L.zeros(0).unsqueeze(0).expand(2, 0), L.zeros(3, 0)[::2], L.zeros(0, 2, 3, 1).expand(0, 2, 3, 3),
                 L.zeros(0, 1).expand(0, 3)]
        return [(b.clone().stride(), b.clone()[::3].stride()) for b in bases]
    assert run(sg) == run(torch_ref)


def test_threshold_backward_follows_self_as_pytorch(torch_ref):
    """threshold_backward's iterator takes self (relu's result) before grad: the gradient of
    relu of a transposed view is laid out as that result, so the leaf's comes back row-major;
    tanh's and sigmoid's backward take grad first."""
    def run(L):
        out = []
        for f in (lambda t: t.relu(), lambda t: L.nn.functional.threshold(t, 0.5, 0.0), lambda t: t.tanh(),
                  lambda t: t.sigmoid()):
            x = L.arange(12.0).reshape(4, 3).requires_grad_()
            y = f((x * 2 - 6).t())
            g, = L.autograd.grad((y * L.arange(1.0, 13.0).reshape(y.shape)).sum(), [x])
            out.append((y.stride(), g.stride()))
        return out
    assert run(sg) == run(torch_ref)
