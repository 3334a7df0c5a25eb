# source: blog (ja): PyTorchでロジスティック回帰 (BCEWithLogitsLoss)
import torch
import torch.nn as nn

torch.manual_seed(0)

# 学習データ（2次元の特徴量、ラベルは0か1）
X = torch.tensor([[1.0, 2.0], [2.0, 1.0], [2.0, 3.0], [3.0, 2.0],
                  [6.0, 5.0], [7.0, 8.0], [8.0, 6.0], [9.0, 7.0]])
t = torch.tensor([[0.0], [0.0], [0.0], [0.0], [1.0], [1.0], [1.0], [1.0]])

model = nn.Linear(2, 1)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(100):
    optimizer.zero_grad()
    logits = model(X)
    loss = criterion(logits, t)
    loss.backward()
    optimizer.step()
    if epoch % 25 == 0:
        print(f"エポック {epoch:3d}: 損失 = {loss.item():.4f}")

with torch.no_grad():
    prob = torch.sigmoid(model(X))
    pred = (prob > 0.5).float()
    acc = (pred == t).float().mean()
print("予測:", pred.squeeze())
print(f"正解率: {acc.item():.2f}")
