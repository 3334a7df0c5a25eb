# source: blog (zh): 统计模型参数量并冻结部分层
import torch.nn as nn

model = nn.Sequential(
    nn.Linear(10, 20),
    nn.ReLU(),
    nn.Linear(20, 5),
)

for name, param in model.named_parameters():
    print(name, tuple(param.shape), param.requires_grad)

total = sum(p.numel() for p in model.parameters())
print(f"总参数量: {total}")

# 冻结第一层
for param in model[0].parameters():
    param.requires_grad = False
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"可训练参数量: {trainable}")
print(f"冻结比例: {1 - trainable / total:.2%}")
