import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "백워드 훅 예제" (MyFunction, a
# custom torch.autograd.Function), exactly as the document has it.
# It instantiates the Function and calls the instance (legacy style), which
# PyTorch 2.x rejects; see myfunction_corrected.py for the working form.


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


# 훅 등록
my_function = MyFunction()

# 순전파 및 역전파
input = torch.tensor(2.0)
output = my_function(input)
loss = output.pow(2).mean()
loss.backward()

# 결과 확인
print(input.grad)  # 4.0
