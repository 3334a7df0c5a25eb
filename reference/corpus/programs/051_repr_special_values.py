# source: PyTorch forums: printing inf, nan and very small or large values
import torch

print(torch.tensor([float("inf"), float("-inf"), float("nan"), 1.0]))
print(torch.tensor([1e10, 1.0]))
print(torch.tensor([1e-10, 1.0]))
print(torch.tensor(-0.0))
print(torch.tensor([0.1, 0.2]) + torch.tensor([0.2, 0.1]))
print(torch.tensor(1.0) / 3)
print(torch.tensor([1, 2, 3]) / 2)
print(torch.tensor([1, 2, 3]) // 2)
print(torch.tensor([2 ** 40, -1]))
print(torch.tensor(3.0, dtype=torch.float64) / 7)
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5]))
torch.set_printoptions(precision=4)
print(torch.tensor([[1.5, float("nan")], [0.0, -2.0]]))
