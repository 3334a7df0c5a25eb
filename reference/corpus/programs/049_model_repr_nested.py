# source: PyTorch tutorial: Build the Neural Network (printing a model and its parameters)
import torch
from torch import nn

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim, bias=False), nn.GELU(), nn.Dropout(p=0.1))

    def forward(self, x):
        return x + self.net(x)


model = nn.Sequential(
    Block(4),
    nn.ModuleList([nn.Linear(4, 4), nn.LeakyReLU(0.2)]),
    nn.ModuleDict({"head": nn.Linear(4, 2), "act": nn.Softmax(dim=-1)}),
    nn.Flatten(),
    nn.Embedding(10, 3),
)
print(model)
print(f"Model structure: {model[0]}\n\n")
for name, param in model[0].named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:1]} \n")
