# source: blog (en): gradient accumulation to simulate a larger batch
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()

inputs = torch.randn(8, 3)
targets = torch.randn(8, 1)
accumulation_steps = 4

optimizer.zero_grad()
for i in range(8):
    output = model(inputs[i:i + 1])
    loss = loss_fn(output, targets[i:i + 1]) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        print(f"step at batch {i}: grad of bias = {model.bias.grad.item():.5f}")
        optimizer.step()
        optimizer.zero_grad()

print(model.weight)
print(model.bias)
