# source: PyTorch forums: "How to initialize weights in PyTorch?" (model.apply(init_weights))
import torch
import torch.nn as nn

torch.manual_seed(0)


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)


net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
net.apply(init_weights)
print(net[0].weight)
print(net[0].bias)
print(net[2].weight)

nn.init.constant_(net[2].bias, 0.5)
nn.init.zeros_(net[0].bias)
nn.init.normal_(net[2].weight, mean=0.0, std=0.02)
print(net[2].weight, net[2].bias, net[0].bias)
nn.init.kaiming_uniform_(net[0].weight, nonlinearity="relu")
print(net[0].weight)
