"""nn.PReLU and F.prelu: x where x > 0, else a * x (``PreluKernelBackward0``).

IEEE only (a comparison, a product, the weight's gradient summed over the broadcast dimensions in
ATen's order): values, both gradients, the graph, reprs, state dicts and errors are compared with
live PyTorch bit for bit; SymPy proves the gradients. Under ``create_graph`` the backward is composed
of ``where`` and ``mul`` (``WhereBackward0``) where PyTorch has ``PreluKernelBackwardBackward0``: the
values agree, the node's name does not (checked below).
"""

from __future__ import annotations

import pytest

import scalargrad

CASES = [(1, 0.25, (2, 3)), (3, -0.5, (4, 3, 5)), (1, 0.25, (5,)), (1, 0.1, ()), (2, 0.3, (3, 2, 2, 2))]


def _run(L, num, init, shape, dtype):
    L.manual_seed(0)
    m = L.nn.PReLU(num, init=init, dtype=getattr(L, dtype))
    x = (L.randn(shape, dtype=getattr(L, dtype)) if shape else L.tensor(-0.7, dtype=getattr(L, dtype)))
    x.requires_grad_()
    g = L.randn(shape, dtype=getattr(L, dtype)) if shape else L.tensor(1.5, dtype=getattr(L, dtype))
    y = m(x)
    gx, gw = L.autograd.grad(y, [x, m.weight], g)
    names = [type(y.grad_fn).__name__] + [type(f).__name__ for f, _ in y.grad_fn.next_functions]
    return (repr(m), list(m.state_dict()), m.weight.tolist(), y.tolist(), gx.tolist(), gw.tolist(), names,
            repr(y.dtype))


@pytest.mark.live_torch
@pytest.mark.vector_kernels  # the inputs are randn draws (16 or more: ATen's vectorised normal_)
@pytest.mark.parametrize("num,init,shape", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_prelu_is_pytorchs_bit_for_bit(torch_ref, num, init, shape, dtype):
    assert _run(scalargrad, num, init, shape, dtype) == _run(torch_ref, num, init, shape, dtype)


def test_prelu_gradients_are_proved():
    x = scalargrad.tensor([[-1.5, 2.0, 0.5], [3.0, -0.25, -2.0]], dtype=scalargrad.float64, requires_grad=True)
    w = scalargrad.tensor([0.25, -0.5, 0.75], dtype=scalargrad.float64, requires_grad=True)
    y = (scalargrad.nn.functional.prelu(x, w) * scalargrad.tensor([1.0, -2.0, 0.5], dtype=scalargrad.float64)).sum()
    report = scalargrad.symbolic.sympy_check(y, [x, w])
    assert report.ok, report


@pytest.mark.live_torch
def test_double_backward_values_agree_and_the_node_is_where(torch_ref):
    got = []
    for L in (scalargrad, torch_ref):
        L.manual_seed(0)
        m = L.nn.PReLU(3)
        x = L.randn(2, 3).requires_grad_()
        gx, gw = L.autograd.grad(m(x).sum(), [x, m.weight], create_graph=True)
        (h,) = L.autograd.grad((gw * L.tensor([1.0, 2.0, -1.0])).sum(), [x])
        got.append((h.tolist(), type(gx.grad_fn).__name__))
    assert got[0][0] == got[1][0]
    assert (got[0][1], got[1][1]) == ("WhereBackward0", "PreluKernelBackwardBackward0")


def _errors(L) -> list:
    F = L.nn.functional
    rows = []
    for a, b in [((2, 3), (2,)), ((), (3,)), ((2, 3), (1, 3)), ((2, 3), (1, 1))]:
        try:
            F.prelu(L.zeros(a), L.zeros(b))
        except RuntimeError as e:
            rows.append(str(e))
    try:
        F.prelu(L.zeros(2, 3), L.zeros(3, dtype=L.float64))
    except RuntimeError as e:
        rows.append(str(e))
    return rows


@pytest.mark.live_torch
def test_prelu_errors_are_pytorchs(torch_ref):
    ours = _errors(scalargrad)
    assert ours == _errors(torch_ref) and len(ours) == 5
