# source: blog (zh): PyTorch 的 hook 执行顺序与 handle.remove()
import torch
import torch.nn as nn


class Add(nn.Module):
    def forward(self, x, y):
        return x + y


m = Add()
log = []
h1 = m.register_forward_pre_hook(lambda mod, inp: log.append("pre"))
h2 = m.register_forward_hook(lambda mod, inp, out: log.append("forward"))
h3 = m.register_full_backward_pre_hook(lambda mod, gout: log.append("backward_pre"))
h4 = m.register_full_backward_hook(lambda mod, gin, gout: log.append("backward"))

x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
out = m(x, y) * 3
out.register_hook(lambda g: log.append("tensor"))
out.backward()
print("执行顺序:", log)
print(x.grad, y.grad)

for h in (h1, h2, h3, h4):
    h.remove()
log.clear()
m(x, y).backward()
print("移除之后:", log)
print(len(m._forward_hooks), len(m._backward_hooks))
