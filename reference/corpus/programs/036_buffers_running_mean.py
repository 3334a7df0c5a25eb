# source: PyTorch docs: torch.nn.Module.register_buffer and nn.Buffer
import torch
import torch.nn as nn


class RunningMean(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(n))
        self.register_buffer("tmp", torch.ones(n), persistent=False)
        self.count = nn.Buffer(torch.tensor(0))
        self.scale = nn.Parameter(torch.ones(n))

    def forward(self, x):
        with torch.no_grad():
            self.count += 1
            self.running_mean += (x.mean(0) - self.running_mean) / self.count
        return x * self.scale


m = RunningMean(2)
m(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
m(torch.tensor([[5.0, 6.0]]))
print(m.running_mean, m.count)
print(list(m.state_dict().keys()))
print([name for name, _ in m.named_buffers()])
print([name for name, _ in m.named_parameters()])
print(m.running_mean.requires_grad)
