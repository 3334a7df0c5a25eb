# source: PyTorch docs: torch.nn.parameter.Parameter
import torch
import torch.nn as nn

p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p)
print(type(p).__name__, p.requires_grad, p.is_leaf)

q = nn.Parameter(torch.tensor([1.0]), requires_grad=False)
print(q)

torch.manual_seed(0)
lin = nn.Linear(2, 2)
print(lin.weight)
print(list(lin.parameters()))
print(lin.bias * 2)
print(nn.Parameter())
