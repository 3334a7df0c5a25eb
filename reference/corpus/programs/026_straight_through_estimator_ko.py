# source: blog (ko): Straight-Through Estimator(STE)를 autograd.Function으로 구현하기
import torch


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # 순전파: 반올림 (미분 불가능)
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        # 역전파: 기울기를 그대로 통과시킴
        return grad_output


class ClampSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        # 범위 밖의 기울기만 0으로
        mask = (x >= ctx.lo) & (x <= ctx.hi)
        return grad_output * mask, None, None


x = torch.tensor([-1.7, -0.2, 0.4, 1.5, 2.6], requires_grad=True)
y = RoundSTE.apply(x)
print("반올림 결과:", y)
(y * torch.arange(5.0)).sum().backward()
print("STE 기울기:", x.grad)

x.grad = None
z = ClampSTE.apply(x, -1.0, 2.0)
print("클램프 결과:", z)
z.sum().backward()
print("클램프 기울기:", x.grad)
