import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "Module Wrapper 사용" example,
# corrected variant (not in the document): a small model is defined before it
# is wrapped, the "# 코드를 삽입" (insert code here) places print what passes
# through, and the wrapped model is called once and back-propagated.


class MyModuleWrapper(torch.nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *input):
        # 코드를 삽입
        print('before', input)
        output = self.module(*input)
        # 코드를 삽입
        print('after', output)
        return output


class Double(torch.nn.Module):  # stands in for the document's undefined model
    def forward(self, x):
        return x * 2


model = Double()

# 사용 예시
model = MyModuleWrapper(model)
x = torch.tensor(3.0, requires_grad=True)
y = model(x)
y.backward()
print('x.grad', x.grad)
print(model)
