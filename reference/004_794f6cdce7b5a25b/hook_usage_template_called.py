import scalargrad as torch
from scalargrad import nn
# Reference program: 004_794f6cdce7b5a25b.txt, "hook / 사용 방법", probe variant
# (not in the document): the template's hook_func unchanged, registered on a
# small stand-in Model (the document defines none), which is then called once,
# to record what PyTorch does with a forward hook that takes no parameters
# (forward hooks are called as hook(module, input, output)).


# hook 함수 정의
def hook_func():
    """
    hook이 실행할 내용 작성
    """


class Model(nn.Module):  # stand-in: the document defines no Model
    def forward(self, x):
        return x * 2


# hook을 사용할 객체(tensor, module) 생성
model = Model()

# 해당 객체에 hook 등록
model.register_forward_hook(hook_func)
print(model(torch.tensor(1.0)))  # added
