# The 60-minute blitz's "Training a Classifier" (pytorch.org/tutorials/beginner/blitz/
# cifar10_tutorial.html): its LeNet for 3x32x32 images (Conv2d(3, 6, 5), MaxPool2d(2, 2),
# Conv2d(6, 16, 5), Linear(400, 120), Linear(120, 84), Linear(84, 10)), CrossEntropyLoss,
# SGD(lr=0.001, momentum=0.9), mini-batches of 4 from a shuffling DataLoader, its training loop
# and its test loop.
# CIFAR-10 cannot be downloaded here: the images are synthetic, CIFAR-shaped (normal noise,
# 3x32x32, labels 0-9 drawn at random), 40 for training and 20 for testing, made by
# torch.randn/randint from a fixed seed; the loop runs 2 epochs of 10 mini-batches (the tutorial:
# 2 epochs of 12,500), the running loss printed every 5 (the tutorial: every 2,000);
# num_workers=0 (the tutorial: 2). Everything else is the tutorial's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

trainset = TensorDataset(torch.randn(40, 3, 32, 32), torch.randint(0, 10, (40,)))
trainloader = DataLoader(trainset, batch_size=4, shuffle=True, num_workers=0)
testset = TensorDataset(torch.randn(20, 3, 32, 32), torch.randint(0, 10, (20,)))
testloader = DataLoader(testset, batch_size=4, shuffle=False, num_workers=0)

classes = ('plane', 'car', 'bird', 'cat',
           'deer', 'dog', 'frog', 'horse', 'ship', 'truck')


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):  # loop over the dataset multiple times

    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        # get the inputs; data is a list of [inputs, labels]
        inputs, labels = data

        # zero the parameter gradients
        optimizer.zero_grad()

        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        # print statistics
        running_loss += loss.item()
        if i % 5 == 4:    # print every 5 mini-batches
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 5:.3f}')
            running_loss = 0.0

print('Finished Training')

dataiter = iter(testloader)
images, labels = next(dataiter)
print('GroundTruth: ', ' '.join(f'{classes[labels[j]]:5s}' for j in range(4)))
outputs = net(images)
_, predicted = torch.max(outputs, 1)
print('Predicted: ', ' '.join(f'{classes[predicted[j]]:5s}' for j in range(4)))

correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')
