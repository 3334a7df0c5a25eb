import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "코드 수정" example, probe
# variant (not in the document): the document's code unchanged, plus the two
# lines at the end that use it (MyModel() called on one input), to record what
# the zero-argument super() inside a plain function does.


def my_forward(self, *input):
    # 코드를 삽입
    output = super().forward(*input)
    # 코드를 삽입
    return output


# 사용 예시
class MyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, *input):
        return my_forward(self, *input)


model = MyModel()  # added
print(model(torch.tensor(1.0)))  # added
