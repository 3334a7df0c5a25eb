# source: PyTorch tutorial: Transfer Learning (keeping the best weights with copy.deepcopy)
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
y = torch.tensor([[1.0], [-1.0], [0.0]])

best_loss = float("inf")
best_model_wts = copy.deepcopy(model.state_dict())
for epoch in range(6):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    if loss.item() < best_loss:
        best_loss = loss.item()
        best_model_wts = copy.deepcopy(model.state_dict())
    print(f"epoch {epoch} loss {loss.item():.4f}")

print(f"best loss {best_loss:.4f}")
result = model.load_state_dict(best_model_wts)
print(result)
print(model.state_dict())
model2 = copy.deepcopy(model)
print(model2.weight is model.weight, torch.equal(model2.weight, model.weight))
