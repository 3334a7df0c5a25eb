import scalargrad as torch
from scalargrad import nn
from scalargrad.nn.parameter import Parameter
# Reference program: 000_11c647117b41054e.txt, "모듈 단위 backward hook"
# (register_full_backward_hook on a module). Indentation restored.
# The document draws x1, x2 with torch.rand(1, requires_grad=True) and never
# prints them. Its result comment gives grad_input = (1.1247, 3.2380); since
# d(x1*x2*W)/dx1 = x2*W and d/dx2 = x1*W with W = 5, the inputs must have been
# x1 = 3.2380/5 = 0.6476 and x2 = 1.1247/5 = 0.22494, which we use here so the
# output is deterministic.
# The document shows its results only as a comment ("결과 output [...]" and
# "answer [...]"; 결과 = "result"); the two print() calls at the end are added
# to print them with the same labels: "output" is read as
# [x1.grad, x2.grad, output.grad] (the values the hook should have collected;
# output.retain_grad() is called for this), "answer" is the list the hook
# filled.


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


def module_hook(module, grad_input, grad_output):
    answer.extend(grad_input)
    answer.append(grad_output[0])
    pass


model.register_full_backward_hook(module_hook)
x1 = torch.tensor([0.6476], requires_grad=True)   # document: torch.rand(1, requires_grad=True)
x2 = torch.tensor([0.22494], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
output = model(x1, x2)
output.retain_grad()
output.backward()
# 결과 output [tensor([1.1247]), tensor([3.2380]), tensor([1.])]
# answer [tensor([1.1247]), tensor([3.2380]), tensor([1.])]
print('결과 output', [x1.grad, x2.grad, output.grad])  # added
print('answer', answer)  # added
