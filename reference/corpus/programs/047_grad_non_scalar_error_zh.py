# source: blog (zh): "grad can be implicitly created only for scalar outputs" 报错原因
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
try:
    y.backward()
except RuntimeError as e:
    print("报错:", e)

# 方法一: 先求和
y.sum().backward(retain_graph=True)
print("方法一:", x.grad)

# 方法二: 传入 gradient 参数
x.grad.zero_()
y.backward(torch.ones_like(y))
print("方法二:", x.grad)

# 没有 requires_grad 的张量
t = torch.tensor([1.0, 2.0])
try:
    (t * 2).sum().backward()
except RuntimeError as e:
    print("报错:", e)
