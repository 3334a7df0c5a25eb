# source: blog (en): second derivatives with create_graph=True
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3

dy_dx, = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx:", dy_dx)
d2y_dx2, = torch.autograd.grad(dy_dx, x, create_graph=True)
print("d2y/dx2:", d2y_dx2)
d3y_dx3, = torch.autograd.grad(d2y_dx2, x)
print("d3y/dx3:", d3y_dx3)

# gradient penalty style: norm of the gradient is part of the loss
w = torch.tensor([1.0, -2.0], requires_grad=True)
inp = torch.tensor([0.5, 1.5], requires_grad=True)
out = (w * inp ** 2).sum()
g, = torch.autograd.grad(out, inp, create_graph=True)
penalty = (g.norm(2) - 1) ** 2
penalty.backward()
print("penalty:", penalty)
print("w.grad:", w.grad)
