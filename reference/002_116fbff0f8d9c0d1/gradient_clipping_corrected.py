import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "예제 1: 그래디언트 클리핑",
# corrected variant (not in the document): GradientClippingHook.apply(input)
# instead of a legacy-style instance call, and input with requires_grad=True.


class GradientClippingHook(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        output = input
        return output

    @staticmethod
    def backward(ctx, grad_output):
        grad_output = grad_output.clamp(-1, 1)
        return grad_output


# 순전파 및 역전파
input = torch.tensor(2.0, requires_grad=True)  # corrected: requires_grad=True
output = GradientClippingHook.apply(input)  # corrected: .apply
loss = output.pow(2).mean()
loss.backward()

# 결과 확인
print(input.grad)  # 값이 -1 또는 1 사이에 있음
