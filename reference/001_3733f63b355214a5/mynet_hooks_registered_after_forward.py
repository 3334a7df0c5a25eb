import scalargrad as torch
import scalargrad.nn as nn
# Reference program: 001_3733f63b355214a5.txt, "示例代码", probe variant (not in
# the document). The document's comments say the module hooks must be
# registered before `result = net(input)` "because the hooks are bound during
# forward", and its conclusion repeats that hooks must be registered before the
# forward pass. This variant registers all hooks AFTER the forward pass (but
# before backward) to record what PyTorch then does; everything else is the
# document's MyNet code.

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class MyMean(nn.Module):  # 自定义除法module
    def forward(self, input):
        out = input / 4
        return out


def tensor_hook(grad):
    print('tensor hook')
    print('grad:', grad)
    return grad


class MyNet(nn.Module):
    def __init__(self):
        super(MyNet, self).__init__()
        self.f1 = nn.Linear(4, 1, bias=True)
        self.f2 = MyMean()
        self.weight_init()

    def forward(self, input):
        self.input = input
        output = self.f1(input)  # 先进行运算1,后进行运算2
        output = self.f2(output)
        return output

    def weight_init(self):
        self.f1.weight.data.fill_(8.0)  # 这里设置Linear的权重为8
        self.f1.bias.data.fill_(2.0)  # 这里设置Linear的bias为2

    def my_backward_hook(self, module, grad_input, grad_output):
        print('doing my_backward_hook')
        print('original grad:', grad_input)
        print('original outgrad:', grad_output)
        return grad_input

    def my_forward_hook(self, module, input, output):
        print('doing my_forward_hook')
        print('input:', input)
        print('output', output)


if __name__ == '__main__':
    input = torch.tensor([1, 2, 3, 4], dtype=torch.float32, requires_grad=True).to(device)

    net = MyNet()
    net.to(device)

    print('forward now')
    result = net(input)
    print('result =', result)
    print('over forward')

    # moved here (after forward): the document registers these before forward
    net.f1.register_forward_hook(net.my_forward_hook)
    net.f2.register_forward_hook(net.my_forward_hook)
    net.f1.register_full_backward_hook(net.my_backward_hook)
    net.f2.register_full_backward_hook(net.my_backward_hook)
    input.register_hook(tensor_hook)

    print('\nbackward now')
    result.backward()
    print('over backward')

    print('\ninput.grad:', input.grad)
    for param in net.parameters():
        print('{}:grad->{}'.format(param, param.grad))
