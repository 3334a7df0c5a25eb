"""A forward-hook tutorial on a tiny CNN (Conv2d, BatchNorm2d, MaxPool2d, AdaptiveAvgPool2d,
Linear, cross_entropy, SGD), run as a user runs it: ``scalargrad run`` and real PyTorch 2.13
print the same (module repr, the shapes each hook sees, activations, losses, gradients, running
statistics, state_dict keys)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(42)

    class TinyCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.conv2 = nn.Conv2d(4, 8, 3)
            self.gap = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8, 3)

        def forward(self, x):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            x = F.relu(self.conv2(x))
            x = self.gap(x).flatten(1)
            return self.fc(x)

    model = TinyCNN()
    print(model)
    activations = {}

    def save(name):
        def hook(module, inp, out):
            activations[name] = out.detach()
            print(name, type(module).__name__, tuple(inp[0].shape), "->", tuple(out.shape))
        return hook

    for name, m in model.named_children():
        m.register_forward_hook(save(name))
    x = torch.randn(2, 1, 8, 8)
    out = model(x)
    print(out)
    print(activations["conv1"][0, 0])
    print(activations["pool"].mean().item() > -100)
    loss = F.cross_entropy(out, torch.tensor([0, 2]))
    print(loss)
    loss.backward()
    print(model.conv1.weight.grad[0])
    print(model.bn1.weight.grad, model.bn1.running_mean)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), torch.tensor([0, 2]))
        loss.backward()
        opt.step()
        print(step, round(loss.item(), 4))
    model.eval()
    print(model(x).argmax(1))
    print(sum(p.numel() for p in model.parameters()), list(model.state_dict().keys()))
''')


@pytest.mark.slow  # the tutorial end to end in two child interpreters
def test_tiny_cnn_hook_tutorial_prints_what_pytorch_prints(torch_ref, tmp_path):
    path = tmp_path / "tiny_cnn.py"
    path.write_text(PROGRAM)
    ours = subprocess.run([sys.executable, "-m", "scalargrad", "run", str(path)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    theirs = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
