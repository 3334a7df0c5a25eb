# source: blog (ko): 손실 함수에 L1/L2 정규화 항 직접 더하기
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
y = torch.tensor([[1.0], [0.0]])
criterion = nn.MSELoss()
l1_lambda = 0.01
l2_lambda = 0.001

mse = criterion(model(x), y)
l1_norm = sum(p.abs().sum() for p in model.parameters())
l2_norm = sum(p.pow(2.0).sum() for p in model.parameters())
loss = mse + l1_lambda * l1_norm + l2_lambda * l2_norm
loss.backward()
print(f"MSE: {mse.item():.4f}, L1: {l1_norm.item():.4f}, L2: {l2_norm.item():.4f}")
print(f"전체 손실: {loss.item():.4f}")
print(model.weight.grad)
print(model.bias.grad)
