# source: PyTorch docs: FunctionCtx.mark_non_differentiable (a sort that returns indices)
import torch


class SortWithIdx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        sorted_vals, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted_vals, idx

    @staticmethod
    def backward(ctx, g1, g2):
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input.index_add_(0, idx, g1)
        return grad_input


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
vals, idx = SortWithIdx.apply(x)
print(vals, idx)
print(idx.requires_grad)
(vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)
