# source: blog (ja): LambdaLRとCosineAnnealingLRで学習率を変える
import torch

model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: 0.95 ** epoch)
lrs = []
for epoch in range(4):
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
print("LambdaLR:", lrs)

opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.001)
lrs = []
for epoch in range(6):
    opt.step()
    sched.step()
    lrs.append(round(opt.param_groups[0]["lr"], 6))
print("CosineAnnealingLR:", lrs)

opt = torch.optim.SGD(model.parameters(), lr=1.0)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
lrs = []
for epoch in range(5):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print("MultiStepLR:", lrs)
