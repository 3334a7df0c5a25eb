"""The source documents' autograd examples that need no nn.Module.

Expected figures were printed by PyTorch 2.13.0 (CPU) running the same code; where a
document prints something else, PyTorch wins and a comment says why.
"""

from __future__ import annotations

import scalargrad as torch


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


def test_pow_log_matches_torch_bit_for_bit(torch_ref):
    xt = torch_ref.tensor(5.0, requires_grad=True)
    qt = torch_ref.tensor(3.0, requires_grad=True)
    zt = torch_ref.log(xt**qt)
    zt.backward()
    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = torch.log(x**q)
    z.backward()
    assert (z.item(), x.grad.item(), q.grad.item()) == (zt.item(), xt.grad.item(), qt.grad.item())
    assert repr(z) == repr(zt)
