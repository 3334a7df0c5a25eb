import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "예제 2: L2 정규화", corrected
# variant (not in the document): L2RegularizationHook.apply(input) instead of
# a legacy-style instance call, and input with requires_grad=True.


class L2RegularizationHook(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        output = input
        ctx.save_for_backward(input)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input = ctx.saved_tensors[0]
        lambda_ = 0.01
        grad_input = grad_output + lambda_ * input
        return grad_input


# 순전파 및 역전파
input = torch.tensor(2.0, requires_grad=True)  # corrected: requires_grad=True
output = L2RegularizationHook.apply(input)  # corrected: .apply
loss = output.pow(2).mean()
loss.backward()

# 결과 확인
print(input.grad)  # 값이 0보다 작음
