# source: blog (ja): Tensor.register_hookで勾配を書き換える
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2


def double_grad(grad):
    print("フックに渡された勾配:", grad)
    return grad * 2


h = y.register_hook(double_grad)
z = (y ** 2).sum()
z.backward()
print("x.grad:", x.grad)

h.remove()
x.grad = None
y = x * 2
(y ** 2).sum().backward()
print("フック削除後の x.grad:", x.grad)

# 勾配をクリップするフック
w = torch.tensor([0.5, -4.0], requires_grad=True)
w.register_hook(lambda g: g.clamp(-1, 1))
(w * torch.tensor([3.0, -3.0])).sum().backward()
print("クリップ後:", w.grad)
