# source: PyTorch docs: torch.autograd.function.once_differentiable
import torch
from torch.autograd.function import once_differentiable


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * grad_output


x = torch.tensor(2.0, requires_grad=True)
y = Cube.apply(x)
(g,) = torch.autograd.grad(y, x)
print(g)

y = Cube.apply(x)
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g.requires_grad, g.grad_fn)
try:
    g.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
