# source: PyTorch tutorial: Zeroing out gradients in PyTorch (recipe)
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
x = torch.tensor([3.0, 4.0])

# gradients accumulate when you do not zero them
for i in range(3):
    loss = (w * x).sum()
    loss.backward()
    print("step", i, "grad", w.grad)

opt = torch.optim.SGD([w], lr=0.1)
opt.zero_grad()            # set_to_none=True by default
print("after zero_grad():", w.grad)

(w * x).sum().backward()
opt.zero_grad(set_to_none=False)
print("after zero_grad(set_to_none=False):", w.grad)

(w * x).sum().backward()
w.grad.zero_()
print("after w.grad.zero_():", w.grad)

model = torch.nn.Linear(2, 1)
model(x).sum().backward()
model.zero_grad()
print([p.grad for p in model.parameters()])
