# source: PyTorch docs: torch.optim.SGD (momentum, nesterov, weight_decay)
import torch

for kwargs in ({"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}, {"weight_decay": 0.1},
               {"momentum": 0.5, "dampening": 0.5, "maximize": True}):
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, **kwargs)
    for _ in range(3):
        opt.zero_grad()
        loss = (w ** 2).sum() + w[0] * w[1]
        loss.backward()
        opt.step()
    print(kwargs, w.detach())
    print(opt.state[w].get("momentum_buffer"))
