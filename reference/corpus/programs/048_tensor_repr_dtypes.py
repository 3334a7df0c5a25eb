# source: PyTorch tutorial: Tensors (Learning the Basics): creating tensors and their attributes
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(x_data)
print(x_data.dtype)

x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")

torch.manual_seed(0)
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: \n {x_rand} \n")

shape = (2, 3,)
print(torch.zeros(shape))
print(torch.ones(shape, dtype=torch.float64))
print(torch.tensor([True, False]))
print(torch.arange(6).reshape(2, 3) * 1.5)
print(torch.tensor([1e-5, 1.0, 1000.0]))
print(torch.tensor([123456.789, 0.001]))
print(torch.tensor([[1.0, -2.5], [3.25, 4.0]], dtype=torch.float64))

tensor = torch.ones(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
tensor[:, 1] = 0
print(tensor)
