# source: PyTorch docs: Autograd mechanics (hooks for saved tensors)
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def pack_hook(t):
    print("Packing", t)
    return t


def unpack_hook(t):
    print("Unpacking", t)
    return t


with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x * x

print(y.grad_fn._saved_self is x)
y.sum().backward()
print(x.grad)
