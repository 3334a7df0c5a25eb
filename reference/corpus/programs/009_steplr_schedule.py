# source: PyTorch docs: torch.optim.lr_scheduler.StepLR (how to adjust the learning rate)
import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = StepLR(optimizer, step_size=3, gamma=0.5)

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
target = torch.tensor([[1.0], [2.0]])
for epoch in range(8):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(epoch, scheduler.get_last_lr(), optimizer.param_groups[0]["lr"])

print(scheduler.state_dict())
