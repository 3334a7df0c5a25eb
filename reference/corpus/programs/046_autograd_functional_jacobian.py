# source: PyTorch docs: torch.autograd.functional.jacobian / hessian
import torch
from torch.autograd.functional import hessian, jacobian


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.0, 1.0], [-1.0, 0.5]])
print(jacobian(exp_reducer, inputs))


def mul(x, y):
    return x * y


print(jacobian(mul, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))))


def pow_reducer(x):
    return x.pow(3).sum()


print(hessian(pow_reducer, torch.tensor([1.0, -2.0])))
