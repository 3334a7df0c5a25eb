# source: blog (zh): PyTorch 入门：用 Adam 训练线性回归
import torch
from torch import nn

torch.manual_seed(42)

# 构造数据: y = 3x + 2
x = torch.arange(0, 10, dtype=torch.float32).reshape(-1, 1) / 10
y = 3 * x + 2

model = nn.Linear(1, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)

for epoch in range(200):
    pred = model(x)
    loss = loss_fn(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if (epoch + 1) % 50 == 0:
        print(f"第 {epoch + 1} 轮, 损失: {loss.item():.6f}")

print("权重:", model.weight.data)
print("偏置:", model.bias.data)
w, b = model.weight.item(), model.bias.item()
print(f"学到的模型: y = {w:.3f}x + {b:.3f}")
