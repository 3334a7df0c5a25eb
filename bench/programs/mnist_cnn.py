# pytorch/examples' "Basic MNIST Example" (mnist/main.py): its Net (Conv2d(1, 32, 3),
# Conv2d(32, 64, 3), max_pool2d, Dropout(0.25), Linear(9216, 128), Dropout(0.5), Linear(128, 10),
# log_softmax), nll_loss, Adadelta(lr=1.0) with StepLR(gamma=0.7), batches of 64, its train and
# test loops. MNIST cannot be downloaded here: the images are synthetic, MNIST-shaped (1x28x28,
# uniform in [0, 1) and normalised with MNIST's mean and std as the example's transform does,
# labels 0-9 at random), 640 for training and 128 for testing, from a fixed seed; one epoch of
# 10 batches, the loss logged every 2 batches (the example: 14 epochs of 938, every 10).
# A batch of 64 makes tensors of 64x32x26x26 = 1,384,448 and 64x64x24x24 = 2,359,296 elements and
# fc1's weight has 1,179,648.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)

    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))


def synthetic_mnist(n, generator_seed):
    """n MNIST-shaped images (uniform [0, 1), normalised as the example's transform) and labels."""
    g = torch.Generator().manual_seed(generator_seed)
    images = (torch.rand(n, 1, 28, 28, generator=g) - 0.1307) / 0.3081
    labels = torch.randint(0, 10, (n,), generator=g)
    return TensorDataset(images, labels)


def main():
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example (synthetic data)')
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--test-batch-size', type=int, default=64)
    parser.add_argument('--epochs', type=int, default=1)
    parser.add_argument('--lr', type=float, default=1.0)
    parser.add_argument('--gamma', type=float, default=0.7)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--log-interval', type=int, default=2)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cpu")

    train_loader = DataLoader(synthetic_mnist(640, 2), batch_size=args.batch_size)
    test_loader = DataLoader(synthetic_mnist(128, 3), batch_size=args.test_batch_size)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()


if __name__ == '__main__':
    main()
