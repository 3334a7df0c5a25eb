import scalargrad as torch
from scalargrad import nn
from scalargrad.nn.parameter import Parameter
# Reference program: 004_794f6cdce7b5a25b.txt, "Tensor에 적용하는 hook / backward
# hook" (Tensor.register_hook on the parameter W). The document's snippet has
# no imports; the three imports above are added.
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

# Model의 Parameter W의 gradient 값을 저장하기 위한 list
answer = []


def tensor_hook(grad):
    answer.extend(grad)


# 내가 정의한 hook을 실제로 모듈 내의 tensor(여기서는 weight)에 적용
model.W.register_hook(tensor_hook)

x1 = torch.tensor([0.25], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
x2 = torch.tensor([0.5], requires_grad=True)   # document: torch.rand(1, requires_grad=True)

output = model(x1, x2)
output.backward()

if answer == [model.W.grad]:
    print(True)
else:
    print(False)

"""
출력결과 : True
"""
