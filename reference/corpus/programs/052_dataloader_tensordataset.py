# source: PyTorch tutorial: Datasets & DataLoaders (TensorDataset and a mini-batch loop)
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.arange(12, dtype=torch.float32).reshape(6, 2) / 10
y = X.sum(dim=1, keepdim=True) * 2 - 1

dataset = TensorDataset(X, y)
print(len(dataset))
print(dataset[0])

loader = DataLoader(dataset, batch_size=4, shuffle=False)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()

for epoch in range(3):
    for batch, (xb, yb) in enumerate(loader):
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} batch {batch} size {len(xb)} loss {loss.item():.4f}")
