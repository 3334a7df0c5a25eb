# source: blog (zh): 梯度裁剪 clip_grad_norm_ 的用法
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(5, 4) * 10
y = torch.randn(5, 1)

loss = nn.MSELoss()(model(x), y)
loss.backward()

# 裁剪前的梯度范数
total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print("裁剪前的总范数:", round(total_norm.item(), 3))

# 裁剪后再计算一次
norms = [p.grad.norm(2) for p in model.parameters()]
print("裁剪后的总范数:", round(torch.norm(torch.stack(norms), 2).item(), 3))

nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)
print("最大梯度绝对值:", max(p.grad.abs().max().item() for p in model.parameters()))
