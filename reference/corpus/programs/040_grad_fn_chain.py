# source: blog (en): walking the autograd graph through grad_fn.next_functions
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
x = torch.tensor([3.0, 4.0])
loss = torch.sigmoid((w * x).sum() + b) ** 2

print(loss.grad_fn)
print(loss.grad_fn.next_functions)
print(loss.grad_fn.next_functions[0][0].next_functions)

node = loss.grad_fn
depth = 0
while node is not None:
    print("  " * depth + type(node).__name__)
    nxt = [f for f, _ in node.next_functions if f is not None]
    node = nxt[0] if nxt else None
    depth += 1
print(w.is_leaf, loss.is_leaf, x.grad_fn)
