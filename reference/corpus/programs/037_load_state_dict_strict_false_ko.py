# source: blog (ko): load_state_dict(strict=False)로 일부 가중치만 불러오기
import torch
import torch.nn as nn

torch.manual_seed(0)

pretrained = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4))
new_model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))

# 마지막 레이어(클래스 수가 다름)는 빼고 불러오기
state = {k: v for k, v in pretrained.state_dict().items() if not k.startswith("2.")}
state["extra.weight"] = torch.zeros(1)
result = new_model.load_state_dict(state, strict=False)
print("누락된 키:", result.missing_keys)
print("예상치 못한 키:", result.unexpected_keys)
print(torch.equal(new_model[0].weight, pretrained[0].weight))

try:
    new_model.load_state_dict(pretrained.state_dict())
except RuntimeError as e:
    print("strict=True 에러:")
    print(e)
