# source: PyTorch docs: torch.autograd.graph.register_multi_grad_hook
import torch

a = torch.rand(2, 3, requires_grad=True)
b = torch.rand(2, 3, requires_grad=True)
c = a * b
d = a * b


def fn(grads):
    print([g is not None for g in grads])


torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)

c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)

seen = []
torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: seen.append(len(g)), mode="any")
(a * b).sum().backward()
print(seen)
