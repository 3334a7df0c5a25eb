# source: PyTorch tutorial: Learning PyTorch with Examples (PyTorch: nn)
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 100)
y = torch.sin(x)

# (x, x^2, x^3) as features
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
print(model)

loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-5
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")

    model.zero_grad()
    loss.backward()

    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x '
      f'+ {linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3')
