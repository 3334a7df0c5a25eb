# source: blog (en): a binary classifier with nn.Sigmoid and nn.BCELoss
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [0.0], [0.0], [1.0]])  # AND gate

model = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=2.0)

for epoch in range(1, 201):
    optimizer.zero_grad()
    hypothesis = model(X)
    cost = criterion(hypothesis, Y)
    cost.backward()
    optimizer.step()
    if epoch % 50 == 0:
        print(epoch, round(cost.item(), 4))

with torch.no_grad():
    hypothesis = model(X)
    predicted = (hypothesis > 0.5).float()
    accuracy = (predicted == Y).float().mean()
    print("Predicted:", predicted.squeeze().tolist())
    print("Accuracy:", accuracy.item())
