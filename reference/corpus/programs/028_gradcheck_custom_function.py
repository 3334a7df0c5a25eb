# source: PyTorch docs: Extending torch.autograd (checking a custom Function with gradcheck)
import torch
from torch.autograd import gradcheck


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_output.mm(weight)
        grad_weight = grad_output.t().mm(input)
        grad_bias = grad_output.sum(0) if bias is not None else None
        return grad_input, grad_weight, grad_bias


torch.manual_seed(0)
# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(4, 3, dtype=torch.double, requires_grad=True),
         torch.randn(2, 3, dtype=torch.double, requires_grad=True))
test = gradcheck(LinearFunction.apply, input, eps=1e-6, atol=1e-4)
print(test)


class BadSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * x  # wrong: should be 2 * x


x = torch.tensor([1.5, -0.5], dtype=torch.double, requires_grad=True)
print(gradcheck(BadSquare.apply, (x,), raise_exception=False))
