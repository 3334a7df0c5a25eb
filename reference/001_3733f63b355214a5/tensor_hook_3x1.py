import scalargrad as torch
# Reference program: 001_3733f63b355214a5.txt, "二、Tensor的hook机制" (a hook on the
# intermediate tensor y of a 3x1 computation). The document's code had lost
# its line breaks/indentation in places ("...grad)x = torch.rand(3,1,...",
# "lr = 1e-3y.register_hook(...)"); restored here.
# The document draws x with torch.rand(3,1,requires_grad=True); it is replaced
# by the values the document printed ([[0.5681],[0.4868],[0.9277]]) so that
# the output is deterministic.


def print_grad(grad):
    print('grad is \n', grad)


x = torch.tensor([[0.5681], [0.4868], [0.9277]], requires_grad=True)  # document: torch.rand(3,1,requires_grad=True)
print('x value is \n', x)
y = x + 3
print('y value is \n', y)
z = torch.mean(torch.pow(y, 1 / 2))
lr = 1e-3
y.register_hook(print_grad)
z.backward()  # 梯度求解
x.data -= lr * x.grad.data
print('new x is\n', x)
