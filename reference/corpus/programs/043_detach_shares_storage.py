# source: PyTorch docs: torch.Tensor.detach
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.detach()
print(b, b.requires_grad)
b[0] = 10.0
print(a)

c = a * 2
d = c.detach()
d.zero_()
try:
    c.sum().backward()
    print(a.grad)
except RuntimeError as e:
    print(e)

out = a.sigmoid()
out.detach().zero_()
try:
    out.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(";")[0])
