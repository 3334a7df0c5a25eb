"""``torch.utils.swap_tensors`` and ``torch.__future__.set_swap_module_params_on_conversion``
(``Module._apply`` and ``load_state_dict`` swapping contents into the existing objects), each
scenario run on scalargrad and on live PyTorch and the observations compared (issue 22)."""

from __future__ import annotations

import weakref

import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported


def _error(fn) -> str:
    try:
        fn()
    except Exception as e:  # the observation is the error's type and words
        return f"{type(e).__name__}: {e}" + (f" <- {type(e.__cause__).__name__}: {e.__cause__}" if e.__cause__ else "")
    return "no error"


def _swaps(L) -> list:
    """swap_tensors itself: contents move, identities stay; a detached alias follows the old
    contents; PyTorch's refusals (a view holding the tensor, a weak reference)."""
    seen = []
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0, 4.0, 5.0], dtype=L.float64)
    d = a.detach()
    ida = id(a)
    L.utils.swap_tensors(a, b)
    d.add_(10)  # d shares the memory of a's old contents, which b holds now
    seen.append((id(a) == ida, a.tolist(), str(a.dtype), a.requires_grad, b.tolist(), b.requires_grad, a.is_leaf))
    p = L.nn.Parameter(L.ones(2))
    q = L.nn.Parameter(L.zeros(3), requires_grad=False)
    L.utils.swap_tensors(p, q)
    seen.append((type(p).__name__, p.tolist(), p.requires_grad, q.tolist(), q.requires_grad))
    v = b[0:1]
    seen.append(_error(lambda: L.utils.swap_tensors(b, a)))
    del v
    w = L.ones(1)
    r = weakref.ref(w)
    seen.append(_error(lambda: L.utils.swap_tensors(L.ones(1), w)))
    del r
    x = L.ones(2, requires_grad=True)
    y = x * 2  # a non-leaf that nothing uses yet: swapped with its history
    z = L.zeros(2)
    L.utils.swap_tensors(y, z)
    seen.append((y.grad_fn is None, type(z.grad_fn).__name__, z.tolist()))
    z.sum().backward()
    seen.append(x.grad.tolist())
    return seen


def _modules(L) -> list:
    """Module._apply and load_state_dict with swapping on: the same Parameter objects, new contents."""
    seen = []
    previous = L.__future__.get_swap_module_params_on_conversion()
    L.__future__.set_swap_module_params_on_conversion(True)
    try:
        L.manual_seed(0)
        m = L.nn.Linear(2, 3)
        with L.no_grad():
            m.weight.copy_(L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
            m.bias.fill_(0.5)
        w, b = m.weight, m.bias
        m(L.ones(1, 2)).sum().backward()
        g = w.grad
        m.double()
        seen.append((w is m.weight, str(w.dtype), g is w.grad, str(w.grad.dtype), w.grad.tolist(), w.requires_grad,
                     type(w).__name__, str(b.dtype)))
        v = w[0]
        seen.append(_error(lambda: m.float()))
        seen.append((str(w.dtype), w.grad is g))  # the refused swap left the module as it was
        del v
        m.float()
        sd = {"weight": L.full((3, 2), 7.0), "bias": L.zeros(3)}
        m.load_state_dict(sd)
        seen.append((w is m.weight, m.weight.tolist(), m.weight.requires_grad, sd["weight"] is m.weight))
        sd = {"weight": L.full((3, 2), 8.0), "bias": L.ones(3)}
        m.load_state_dict(sd, assign=True)
        seen.append((w is m.weight, m.weight.tolist(), m.weight.requires_grad, sd["weight"] is m.weight,
                     b.tolist()))
        bn = L.nn.BatchNorm1d(2)
        mean = bn.running_mean
        bn.load_state_dict({**bn.state_dict(), "running_mean": L.tensor([1.0, 2.0])})
        seen.append((mean is bn.running_mean, bn.running_mean.tolist()))
        # a view holds the weight: its swap fails into the error list, the bias is still loaded
        v = m.weight[0]
        bias = m.bias
        seen.append(_error(lambda: m.load_state_dict({"weight": L.full((3, 2), 9.0), "bias": L.full((3,), 2.0)})))
        seen.append((m.weight.tolist(), m.bias.tolist(), bias is m.bias))
        del v
    finally:
        L.__future__.set_swap_module_params_on_conversion(previous)
    seen.append(L.__future__.get_swap_module_params_on_conversion())
    return seen


@pytest.mark.unrecorded  # PyTorch's profiler holds weak references, which swap_tensors refuses
def test_swap_tensors_is_torchs(torch_ref):
    assert _swaps(sg) == _swaps(torch_ref)


@pytest.mark.unrecorded  # PyTorch's profiler holds weak references, which swap_tensors refuses
def test_module_swapping_is_torchs(torch_ref):
    assert _modules(sg) == _modules(torch_ref)


def test_a_tensor_a_live_graph_uses_is_not_swapped():
    # PyTorch poisons the leaf's AccumulateGrad node or refuses, depending on what the graph
    # saved; scalargrad refuses by name and changes nothing
    a = sg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    b = sg.tensor([5.0, 6.0], requires_grad=True)
    with pytest.raises(Unsupported, match="swap_tensors of a tensor that a live autograd graph uses"):
        sg.utils.swap_tensors(a, b)
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [5.0, 6.0]
    y.backward()
    assert a.grad.tolist() == [2.0, 4.0]  # d(a.a)/da = 2a, by hand
    del y
    sg.utils.swap_tensors(a, b)  # the graph is gone: allowed
    assert a.tolist() == [5.0, 6.0] and b.grad.tolist() == [2.0, 4.0] and a.grad is None


def test_a_swapping_load_refuses_a_tensor_a_live_graph_uses_before_loading_anything():
    # scalargrad's own refusal is all or nothing: checked for every entry before the first swap
    previous = sg.__future__.get_swap_module_params_on_conversion()
    sg.__future__.set_swap_module_params_on_conversion(True)
    try:
        m = sg.nn.Linear(2, 1)
        w, b = m.weight.tolist(), m.bias.tolist()
        y = (m.bias * 2).sum()  # the bias, loaded after the weight, is an input of a live graph
        with pytest.raises(Unsupported, match="swap_tensors of a tensor that a live autograd graph uses"):
            m.load_state_dict({"weight": sg.ones(1, 2), "bias": sg.ones(1)})
        assert (m.weight.tolist(), m.bias.tolist()) == (w, b)
        del y
        m.load_state_dict({"weight": sg.ones(1, 2), "bias": sg.ones(1)})
        assert (m.weight.tolist(), m.bias.tolist()) == ([[1.0, 1.0]], [1.0])
    finally:
        sg.__future__.set_swap_module_params_on_conversion(previous)
