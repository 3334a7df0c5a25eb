# source: PyTorch docs: torch.Tensor.retain_grad (non-leaf gradients)
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * a
b.retain_grad()
c = b.sum()
c.backward()
print(a.grad)
print(b.grad)
print(b.is_leaf, b.retains_grad, a.retains_grad)

d = a * 3
e = d.sum()
e.backward()
print(d.grad)
