# source: blog (ko): forward hook으로 중간 레이어 출력(feature) 뽑기
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(4, 3),
    nn.ReLU(),
    nn.Linear(3, 2),
)

features = {}


def save_output(name):
    def hook(module, inp, out):
        # 입력은 튜플로 들어옵니다
        print(f"[{name}] 입력 개수: {len(inp)}, 출력 크기: {list(out.shape)}")
        features[name] = out.detach()
    return hook


handles = [model[i].register_forward_hook(save_output(f"layer{i}")) for i in range(3)]

x = torch.randn(2, 4)
y = model(x)
print("중간 출력 (ReLU 이후):")
print(features["layer1"])

for h in handles:
    h.remove()
y2 = model(x)
print("hook 제거 후 결과 같음:", torch.equal(y, y2))
