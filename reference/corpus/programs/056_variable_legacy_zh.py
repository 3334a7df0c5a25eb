# source: blog (zh): PyTorch 0.3 风格的 Variable 自动求导入门
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)
y = x + 2
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
print(x.data)
print(type(x))
