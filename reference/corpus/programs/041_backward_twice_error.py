# source: PyTorch forums: "Trying to backward through the graph a second time"
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 2).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)

z = (x * 3).exp().sum()
z.backward()
z.backward()
