import scalargrad as torch
from scalargrad import nn
# Reference program: 004_794f6cdce7b5a25b.txt, "Module에 적용하는 hook / forward
# hook", corrected variant (not in the document): the hook gets the signature
# forward hooks are called with, hook(module, input, output); its body is the
# document's (an in-place `output += 5`, which changes the tensor the module
# returns).
# Fixed inputs instead of torch.rand(1), as in forward_hook_wrong_signature.py.


class Add(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        output = torch.add(x1, x2)
        return output


# 전파되는 output 값에 5를 더한다.
def hook(module, input, output):  # corrected: (module, input, output)
    output += 5


# 모델 생성
add = Add()

# 내가 정의한 hook을 실제로 모듈에 적용하는 과정
add.register_forward_hook(hook)

x1, x2 = torch.tensor([0.25]), torch.tensor([0.5])  # document: torch.rand(1), torch.rand(1)
print(x1, ",", x2)
output = add(x1, x2)
print(output)

"""
실행결과 : x1 + x2의 값에 5가 더해진 값이 출력된다.
"""
