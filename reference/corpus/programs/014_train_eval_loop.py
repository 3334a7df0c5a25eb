# source: PyTorch tutorial: Learning the Basics (train_loop / test_loop with model.train() and model.eval())
import torch
from torch import nn

torch.manual_seed(0)

X_train = torch.randn(16, 3)
y_train = (X_train.sum(dim=1, keepdim=True) > 0).float()
X_test = torch.randn(4, 3)
y_test = (X_test.sum(dim=1, keepdim=True) > 0).float()

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dropout(0.2), nn.Linear(4, 1))
loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3)


def train_loop(batch_size=4):
    model.train()
    for batch in range(0, len(X_train), batch_size):
        X, y = X_train[batch:batch + batch_size], y_train[batch:batch + batch_size]
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return loss.item()


def test_loop():
    model.eval()
    with torch.no_grad():
        pred = model(X_test)
        test_loss = loss_fn(pred, y_test).item()
        correct = ((pred > 0).float() == y_test).sum().item()
    return test_loss, correct


for t in range(3):
    train_loss = train_loop()
    test_loss, correct = test_loop()
    print(f"Epoch {t + 1}: train loss {train_loss:>7f}, test loss {test_loss:>8f}, correct {int(correct)}/4")
print(model.training)
print("Done!")
