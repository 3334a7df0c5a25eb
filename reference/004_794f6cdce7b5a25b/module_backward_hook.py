import scalargrad as torch
from scalargrad import nn
from scalargrad.nn.parameter import Parameter
# Reference program: 004_794f6cdce7b5a25b.txt, "Module에 적용하는 hook / backward
# hook" (register_full_backward_hook collecting grad_input and grad_output).
# The document's snippet has no imports; the three imports above are added.
# The document draws x1, x2 with torch.rand(1, requires_grad=True) and never
# prints them; fixed values are used instead so the run is deterministic
# (the printed result, True/False, does not depend on them).


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = Parameter(torch.Tensor([5]))

    def forward(self, x1, x2):
        output = x1 * x2
        output = output * self.W

        return output


# 모델 생성
model = Model()

# x1.grad, x2.grad, output.grad 순서로 list에 넣는다.
answer = []


def module_hook(module, grad_input, grad_output):
    answer.extend(grad_input)
    answer.extend(grad_output)


# 내가 정의한 hook을 실제로 모듈에 적용시키는 과정
model.register_full_backward_hook(module_hook)

x1 = torch.tensor([0.25], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
x2 = torch.tensor([0.5], requires_grad=True)   # document: torch.rand(1, requires_grad=True)

output = model(x1, x2)
output.retain_grad()
output.backward()

if answer == [x1.grad, x2.grad, output.grad]:
    print(True)
else:
    print(False)

"""
출력결과 : True
"""
