# source: PyTorch docs: torch.optim.Optimizer.register_step_pre_hook / register_step_post_hook
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def pre_hook(optimizer, args, kwargs):
    print("before step:", [round(p.item(), 4) for p in model.bias])


def post_hook(optimizer, args, kwargs):
    print("after step: ", [round(p.item(), 4) for p in model.bias])


h_pre = opt.register_step_pre_hook(pre_hook)
h_post = opt.register_step_post_hook(post_hook)

for _ in range(2):
    opt.zero_grad()
    model(torch.tensor([[1.0, -1.0]])).sum().backward()
    opt.step()

h_pre.remove()
h_post.remove()
opt.step()
print("hooks removed; bias =", round(model.bias.item(), 4))
