# source: PyTorch tutorial: How to save memory by fusing the optimizer step into the backward pass
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
optimizer_dict = {p: torch.optim.SGD([p], lr=0.5) for p in model.parameters()}


def optimizer_hook(parameter) -> None:
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


for p in model.parameters():
    p.register_post_accumulate_grad_hook(optimizer_hook)

x = torch.tensor([[1.0, 2.0, 3.0]])
before = model.bias.clone()
model(x).sum().backward()
print(before)
print(model.bias)
print([p.grad for p in model.parameters()])
