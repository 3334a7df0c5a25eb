import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "Module Wrapper 사용" example
# (MyModuleWrapper), exactly as the document has it: `model` is never defined
# before `model = MyModuleWrapper(model)`. See module_wrapper_corrected.py.


class MyModuleWrapper(torch.nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *input):
        # 코드를 삽입
        output = self.module(*input)
        # 코드를 삽입
        return output


# 사용 예시
model = MyModuleWrapper(model)
