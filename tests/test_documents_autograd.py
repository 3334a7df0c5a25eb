"""The source documents' autograd examples that need no nn.Module.

Expected figures were printed by PyTorch 2.13.0 (CPU) running the same code; where a
document prints something else, PyTorch wins and a comment says why.
"""

from __future__ import annotations

import scalargrad as torch

from faithfulness import hull, inside, reference


def test_pow_log_example_prints_what_pytorch_prints():
    # 003 "PyTorch Autograd Code 10" / Module Code 1 without the Module.
    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = torch.log(x**q)
    z.backward()
    assert repr(x) == "tensor(5., requires_grad=True)"
    assert repr(x.grad) == "tensor(0.6000)"
    assert repr(q) == "tensor(3., requires_grad=True)"
    assert repr(q.grad) == "tensor(1.6094)"
    # the document shows LogBackward: PyTorch 2.x names the node LogBackward0
    assert repr(z) == "tensor(4.8283, grad_fn=<LogBackward0>)"
    # full precision of the float32 results, as PyTorch 2.13 prints them with .item()
    assert x.grad.item() == 0.6000000238418579
    assert q.grad.item() == 1.6094380617141724  # (x**q) * log(x) / x**q, rounded per op
    assert z.item() == 4.828313827514648


def _pow_log(k, x, q):
    """z = log(x ** q) and its gradients as PyTorch computes them (faithfulness.Kernel)."""
    y = k.libm("pow", x, q)
    z = k.libm("log", y)
    gy = k.div(1, y)  # log's backward: grad / self
    gx = k.mul(gy, k.mul(q, k.libm("pow", x, k.sub(q, 1))))  # grad * (exponent * self.pow(exponent - 1))
    gq = k.mul(gy, k.mul(y, k.libm("log", x)))  # grad * (result * self.log())
    return z, (gx, gq)


def test_pow_log_is_the_correctly_rounded_reference():
    # PyTorch's formulas with correctly rounded pow and log: the figures above, on every machine
    z = torch.log(torch.tensor(5.0, requires_grad=True) ** torch.tensor(3.0, requires_grad=True))
    assert reference(_pow_log, (5.0, 3.0), None, "float32")[0] == [4.828313827514648, 0.6000000238418579,
                                                                    1.6094380617141724]
    assert z.item() == 4.828313827514648


def test_pow_log_matches_torch(torch_ref):
    # log and pow are machine-dependent in PyTorch (MKL, libm): its values lie in the 1-ulp hull
    # of the same formulas (on the capture machine they are the figures above, bit for bit), and
    # the reprs agree because no value of the hull prints differently at 4 decimals
    xt = torch_ref.tensor(5.0, requires_grad=True)
    qt = torch_ref.tensor(3.0, requires_grad=True)
    zt = torch_ref.log(xt**qt)
    zt.backward()
    bounds = hull(_pow_log, (5.0, 3.0), None, "float32")
    assert all(inside(v, b) for v, b in zip((zt.item(), xt.grad.item(), qt.grad.item()), bounds)), bounds
    assert all(f"{lo:.4f}" == f"{hi:.4f}" for lo, hi in bounds)
    assert repr(zt) == "tensor(4.8283, grad_fn=<LogBackward0>)"
    assert (repr(xt.grad), repr(qt.grad)) == ("tensor(0.6000)", "tensor(1.6094)")
