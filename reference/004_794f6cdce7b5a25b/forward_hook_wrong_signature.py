import scalargrad as torch
from scalargrad import nn
# Reference program: 004_794f6cdce7b5a25b.txt, "Module에 적용하는 hook / forward
# hook" (a forward hook that should add 5 to the output), exactly as the
# document has it: the hook is declared `def hook(module, output)`, but forward
# hooks are called as hook(module, input, output). The document's snippet has
# no imports; the two imports above are added.
# The document draws x1, x2 with torch.rand(1) and prints them without showing
# the values; fixed values are used instead so the run is deterministic.
# See forward_hook_wrong_signature_corrected.py.


class Add(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        output = torch.add(x1, x2)
        return output


# 전파되는 output 값에 5를 더한다.
def hook(module, output):
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
