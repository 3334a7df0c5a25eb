# source: PyTorch tutorial: Saving and Loading a General Checkpoint (model and optimizer state_dict)
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

x = torch.tensor([[1.0, 2.0]])
for _ in range(2):
    optimizer.zero_grad()
    model(x).sum().backward()
    optimizer.step()

sd = optimizer.state_dict()
print(sd["param_groups"])
print(sorted(sd["state"].keys()))
print(sd["state"][0]["step"])
print(sd["state"][1]["exp_avg"])

checkpoint = {
    "epoch": 2,
    "model_state_dict": {k: v.clone() for k, v in model.state_dict().items()},
    "optimizer_state_dict": sd,
}

model2 = nn.Linear(2, 1)
optimizer2 = torch.optim.Adam(model2.parameters(), lr=0.5)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
print(optimizer2.param_groups[0]["lr"])
print(torch.equal(model2.weight, model.weight))
print(optimizer2.state[model2.bias]["exp_avg_sq"])
