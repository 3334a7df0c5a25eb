# source: blog (en): visualising intermediate activations of a CNN with forward hooks
import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, kernel_size=3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(2 * 2 * 2, 3)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        return self.fc(self.flatten(x))


model = TinyCNN()
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


for name, layer in model.named_children():
    layer.register_forward_hook(get_activation(name))

x = torch.randn(1, 1, 4, 4)
out = model(x)
for name, act in activation.items():
    print(name, tuple(act.shape))
print(activation["pool"])
print(out)
