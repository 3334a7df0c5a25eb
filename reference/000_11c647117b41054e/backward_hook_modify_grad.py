import scalargrad as torch
from scalargrad import nn
from scalargrad.nn.parameter import Parameter
# Reference program: 000_11c647117b41054e.txt, "backward hook 으로 gradient 다루기"
# (a full backward hook that rescales grad_input to sum to 1). Indentation
# restored.
# The document draws x1, x2 with torch.rand(1, requires_grad=True) and prints
# no result. We use x1 = 0.1, x2 = 0.3 so that grad_input = (x2*W, x1*W) =
# (1.5, 0.5), the document's own example "(1.5, 0.5) -> (0.75, 0.25)".
# The last print() is added: it shows that the tuple returned by the hook
# replaced the gradients that reach x1 and x2.


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


# hook를 이용해서 module의 gradient 출력의 합이 1이 되게 만들어보자
# ex) (1.5, 0.5) -> (0.75, 0.25)
def module_hook(module, grad_input, grad_output):
    print(grad_input)
    total = 0
    for grad in grad_input:
        total += grad
    grad_input = torch.divide(grad_input[0], total), torch.divide(grad_input[1], total)
    print(grad_input)
    return grad_input


model.register_full_backward_hook(module_hook)
x1 = torch.tensor([0.1], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
x2 = torch.tensor([0.3], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
output = model(x1, x2)
output.backward()
print('x1.grad', x1.grad, 'x2.grad', x2.grad)  # added
