# source: PyTorch tutorial: Learning the Basics / Optimizing Model Parameters (tiny MLP classifier)
import torch
from torch import nn

torch.manual_seed(0)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4, 8),
            nn.ReLU(),
            nn.Linear(8, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
print(model)

X = torch.randn(12, 2, 2)
y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

for epoch in range(5):
    pred = model(X)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    correct = (pred.argmax(1) == y).type(torch.float).sum().item()
    print(f"epoch {epoch}: loss: {loss.item():>7f}  accuracy: {100 * correct / len(y):>0.1f}%")

pred_probab = nn.Softmax(dim=1)(model(X[:2]))
print(pred_probab.argmax(1))
