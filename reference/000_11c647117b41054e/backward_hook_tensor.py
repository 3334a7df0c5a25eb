import scalargrad as torch
from scalargrad import nn
from scalargrad.nn.parameter import Parameter
# Reference program: 000_11c647117b41054e.txt, "탠서 단위 backward hook"
# (Tensor.register_hook on the parameter W). Indentation restored.
# The document draws x1, x2 with torch.rand(1, requires_grad=True) and never
# prints them. Its result comment is "output, answer : tensor([0.3604])"; the
# hook receives dOutput/dW = x1*x2, so we use x1 = 0.4, x2 = 0.901
# (x1*x2 = 0.3604) to make the output deterministic and comparable.
# The two print() calls at the end are added to print what the comment names.


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = Parameter(torch.Tensor([5]))

    def forward(self, x1, x2):
        output = x1 * x2
        output = output * self.W
        return output


model = Model()
answer = []


def tensor_hook(grad):
    answer.append(grad)
    pass


model.W.register_hook(tensor_hook)
x1 = torch.tensor([0.4], requires_grad=True)    # document: torch.rand(1, requires_grad=True)
x2 = torch.tensor([0.901], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
output = model(x1, x2)
output.backward()
# output, answer : tensor([0.3604])
print('output', output)  # added
print('answer', answer)  # added
