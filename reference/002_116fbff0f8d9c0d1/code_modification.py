import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "코드 수정" example (my_forward),
# exactly as the document has it. The document only defines the class and
# never instantiates or calls it, so this program prints nothing and raises
# nothing; code_modification_called.py calls it.


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
