# source: blog (ko): 학습률 스케줄러 정리 (ExponentialLR)
import torch

torch.manual_seed(0)
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

lrs = []
for epoch in range(6):
    optimizer.step()  # 실제로는 학습 코드가 여기에 들어갑니다
    lrs.append(optimizer.param_groups[0]["lr"])
    scheduler.step()

print("에폭별 학습률:", lrs)
print("마지막 학습률:", scheduler.get_last_lr())
