import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "백워드 훅 예제", corrected
# variant (not in the document). Two corrections:
#   1. the Function is used through MyFunction.apply(input) instead of an
#      instance called legacy-style (my_function = MyFunction(); my_function(input));
#   2. input is created with requires_grad=True, otherwise nothing requires
#      grad and loss.backward() raises.
# The document's expected value "# 4.0" is kept as its comment; what PyTorch
# really prints is recorded in examples.json.


class MyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        output = input * 2
        ctx.save_for_backward(input)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input = ctx.saved_tensors[0]
        grad_input = grad_output * 2
        return grad_input


# 순전파 및 역전파
input = torch.tensor(2.0, requires_grad=True)  # corrected: requires_grad=True
output = MyFunction.apply(input)  # corrected: MyFunction.apply
loss = output.pow(2).mean()
loss.backward()

# 결과 확인
print(input.grad)  # 4.0
