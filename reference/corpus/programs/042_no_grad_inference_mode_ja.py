# source: blog (ja): no_gradとinference_modeの違い
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)

with torch.no_grad():
    y = x * 2
print("no_grad の中:", y.requires_grad)

with torch.inference_mode():
    z = x * 2
print("inference_mode の中:", z.requires_grad, z.is_inference())
print("有効か:", torch.is_inference_mode_enabled())


@torch.no_grad()
def evaluate(t):
    return t * 3


print("デコレータ:", evaluate(x).requires_grad)

with torch.set_grad_enabled(False):
    w = x + 1
print("set_grad_enabled(False):", w.requires_grad)
print("grad mode:", torch.is_grad_enabled())

try:
    (z * x).sum().backward()
    print("x.grad:", x.grad)
except RuntimeError as e:
    print("エラー:", e)
