# source: PyTorch docs: torch.nn.Module.register_full_backward_hook
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))


def backward_hook(module, grad_input, grad_output):
    print(module.__class__.__name__)
    print("  grad_input :", [None if g is None else tuple(g.shape) for g in grad_input])
    print("  grad_output:", [tuple(g.shape) for g in grad_output])


for m in model:
    m.register_full_backward_hook(backward_hook)

x = torch.randn(4, 3, requires_grad=True)
model(x).sum().backward()
print(x.grad)
