import scalargrad as torch
from scalargrad import nn
# Reference program: 000_11c647117b41054e.txt, "직접 해보기" (forward pre-hook
# and forward hook on an Add module). Indentation restored.
# The document draws x1, x2 with torch.rand(1); they are replaced here by the
# values the document printed (tensor([0.7252]), tensor([0.6348])) so that the
# output is deterministic.


class Add(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        output = torch.add(x1, x2)
        return output


add = Add()
answer = []


def pre_hook(module, input):
    answer.extend(input)
    pass


def hook(module, input, output):
    answer.append(output)
    pass


add.register_forward_pre_hook(pre_hook)
add.register_forward_hook(hook)
x1 = torch.tensor([0.7252])  # document: torch.rand(1)
x2 = torch.tensor([0.6348])  # document: torch.rand(1)
output = add(x1, x2)  # [tensor([0.7252]), tensor([0.6348]), tensor([1.3600])
print(answer)  # [tensor([0.7252]), tensor([0.6348]), tensor([1.3600])]
