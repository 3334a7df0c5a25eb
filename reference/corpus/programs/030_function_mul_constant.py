# source: PyTorch docs: Extending torch.autograd (MulConstant: a non-tensor argument)
import torch


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        # ctx is a context object that can be used to stash information
        # for backward computation
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = MulConstant.apply(a, 5.5)
print(b)
b.backward(torch.ones(2))
print(a.grad)


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


x = torch.tensor(1.5, requires_grad=True)
out, dx = MyCube.apply(x)
(out + dx).backward()
print(out, dx, x.grad)
