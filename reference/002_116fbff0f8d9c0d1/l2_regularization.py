import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "예제 2: L2 정규화"
# (L2RegularizationHook, a custom autograd.Function), exactly as the document
# has it: instance called legacy-style, input without requires_grad.


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


# 훅 등록
l2_regularization_hook = L2RegularizationHook()

# 순전파 및 역전파
input = torch.tensor(2.0)
output = l2_regularization_hook(input)
loss = output.pow(2).mean()
loss.backward()

# 결과 확인
print(input.grad)  # 값이 0보다 작음
