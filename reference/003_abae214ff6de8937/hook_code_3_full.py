import scalargrad as torch
# Reference program: 003_abae214ff6de8937.txt, "Hook Code 3", full-hook variant
# (not in the document). Hook Code 3 with its indentation restored, but with
# register_full_backward_hook() instead of the legacy register_backward_hook().
# The text after Hook Code 3 says one would "commonly" expect grad_input to be
# the gradients w.r.t. the module inputs (x, q); this variant records what
# PyTorch 2.x's full backward hook really passes.


class PowModel(torch.nn.Module):
    def __init__(self):
        super(PowModel, self).__init__()
        self.powParam = torch.nn.Parameter(torch.tensor(1.0))

    def forward(self, x, q):
        return self.powParam * x ** q


class LogModel(torch.nn.Module):
    def __init__(self):
        super(LogModel, self).__init__()
        self.logParam = torch.nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return self.logParam * torch.log(x)


class PowLogModel(torch.nn.Module):
    def __init__(self):
        super(PowLogModel, self).__init__()
        self.powModel = PowModel()
        self.logModel = LogModel()

    def forward(self, x, q):
        y = self.powModel(x, q)
        z = self.logModel(y)
        return z


powLogModel = PowLogModel()


def backward_hook(module, grad_input, grad_output):
    print('grad_input', grad_input)
    print('grad_output', grad_output)
    return grad_input


hook = powLogModel.powModel.register_full_backward_hook(backward_hook)
x = torch.tensor(5.0, requires_grad=True)
q = torch.tensor(3.0, requires_grad=True)
z = powLogModel(x, q)
z.backward()
hook.remove()
print('x', x)
print('x.grad', x.grad)
print('q', q)
print('q.grad', q.grad)
print('z', z)
for name, parameter in powLogModel.named_parameters():
    print(name, f'data({parameter.data}), grad({parameter.grad})')
