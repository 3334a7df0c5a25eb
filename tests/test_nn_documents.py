"""The nn.Module examples of the source documents, printed exactly as PyTorch 2.13 prints them.

Every program of document 003 (Module Code 1-7, Parameter Code 1-5, Buffer Code 1-3, Hook Code
1-3, Functional Code 3-6) and every scalar hook example of documents 000 and 004 is written once
below as a function of the ``torch`` module it runs on (indentation restored, code otherwise as
in the document). ``run(program, scalargrad)`` must print the text captured from PyTorch 2.13.0
(CPU, on an Intel Xeon) running the same function; under ``torch_ref`` the same function also
runs on live PyTorch and the three texts are compared, exactly except in the lines that print a
machine-dependent figure at full precision (see the test). Where PyTorch 2.13 prints something other than the
document (written for PyTorch 1.4), PyTorch wins and a comment says why.

Functional Code 1-2 use nn.Linear and F.linear on multi-element shapes, outside scalargrad's
scope for now (tested to fail with an Unsupported error naming them).
"""

# ruff: noqa: E501, UP008 - PyTorch's long output lines; the documents' super(Class, self) calls
from __future__ import annotations

import contextlib
import io
import re
import warnings

import pytest

import scalargrad

from faithfulness import another_processor, correctly_rounded, printed_within, ulps
from python_printing import printed_ordered_dict


def run(program, torch) -> str:
    """What ``program(torch)`` prints, then each warning as ``Category: message`` and, if it
    raises, the error as ``Error: message`` (addresses as 0xADDR)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(torch)
        except Exception as e:  # the document's own error is part of what it prints
            print(f"{type(e).__name__}: {e}")
    text = out.getvalue() + "".join(f"{w.category.__name__}: {w.message}\n" for w in caught)
    return re.sub(r"0x[0-9a-fA-F]+", "0xADDR", text)


# ---------------------------------------------------------------- document 003: Module


def _pow_log_models(torch):
    """The PowModel / LogModel pair of Module Code 2-7."""

    class PowModel(torch.nn.Module):
        def __init__(self):
            super(PowModel, self).__init__()

        def forward(self, x, q):
            return x ** q

    class LogModel(torch.nn.Module):
        def __init__(self):
            super(LogModel, self).__init__()

        def forward(self, x):
            return torch.log(x)

    return PowModel, LogModel


def _print_results(torch, powLogModel, with_children=True):
    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = powLogModel(x, q)
    z.backward()
    print('x', x)
    print('x.grad', x.grad)
    print('q', q)
    print('q.grad', q.grad)
    print('z', z)
    if with_children:
        print('powLogModel.named_children', list(powLogModel.named_children()))


def module_code_1(torch):
    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()

        def forward(self, x, q):
            y = x ** q
            z = torch.log(y)
            return z

    powLogModel = PowLogModel()
    _print_results(torch, powLogModel, with_children=False)


def module_code_2(torch):
    PowModel, LogModel = _pow_log_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.powModel = PowModel()
            self.logModel = LogModel()

        def forward(self, x, q):
            y = self.powModel(x, q)
            z = self.logModel(y)
            return z

    _print_results(torch, PowLogModel())


def module_code_3(torch):
    PowModel, LogModel = _pow_log_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.modelList = [PowModel(), LogModel()]

        def forward(self, x, q):
            y = self.modelList[0](x, q)
            z = self.modelList[1](y)
            return z

    _print_results(torch, PowLogModel())


def module_code_4(torch):
    PowModel, LogModel = _pow_log_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.modelList = [PowModel(), LogModel()]
            self.add_module('powModel', self.modelList[0])
            self.add_module('logModel', self.modelList[1])

        def forward(self, x, q):
            y = self.powModel(x, q)
            z = self.logModel(y)
            return z

    _print_results(torch, PowLogModel())


def module_code_5(torch):
    PowModel, LogModel = _pow_log_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.modelList = torch.nn.ModuleList([PowModel(), LogModel()])

        def forward(self, x, q):
            y = self.modelList[0](x, q)
            z = self.modelList[1](y)
            return z

    _print_results(torch, PowLogModel())


def module_code_6(torch):
    PowModel, LogModel = _pow_log_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.modelDict = {'powModel': PowModel(), 'logModel': LogModel()}

        def forward(self, x, q):
            y = self.modelDict['powModel'](x, q)
            z = self.modelDict['logModel'](y)
            return z

    _print_results(torch, PowLogModel())


def module_code_7(torch):
    PowModel, LogModel = _pow_log_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.modelDict = torch.nn.ModuleDict(
                {'powModel': PowModel(), 'logModel': LogModel()})

        def forward(self, x, q):
            y = self.modelDict['powModel'](x, q)
            z = self.modelDict['logModel'](y)
            return z

    _print_results(torch, PowLogModel())


# ---------------------------------------------------------------- document 003: Parameter


def _param_models(torch, pow_first=True, pow_param_in_dict=False):
    """PowModel / LogModel with a Parameter each (Parameter Code 1 on)."""

    class PowModel(torch.nn.Module):
        def __init__(self):
            super(PowModel, self).__init__()
            if pow_param_in_dict:
                self.powParamDict = {'powParam': torch.nn.Parameter(torch.tensor(1.0))}
            else:
                self.powParam = torch.nn.Parameter(torch.tensor(1.0))

        def forward(self, x, q):
            if pow_param_in_dict:
                return self.powParamDict['powParam'] * x ** q
            if pow_first:
                return self.powParam * x ** q
            return x ** q * self.powParam  # the variant Hook Code 3's text describes

    class LogModel(torch.nn.Module):
        def __init__(self):
            super(LogModel, self).__init__()
            self.logParam = torch.nn.Parameter(torch.tensor(1.0))

        def forward(self, x):
            return self.logParam * torch.log(x)

    return PowModel, LogModel


def _pow_log_model(torch, **kw):
    PowModel, LogModel = _param_models(torch, **kw)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.powModel = PowModel()
            self.logModel = LogModel()

        def forward(self, x, q):
            y = self.powModel(x, q)
            z = self.logModel(y)
            return z

    return PowLogModel


def _print_with_parameters(torch, powLogModel):
    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = powLogModel(x, q)
    z.backward()
    print('x', x)
    print('x.grad', x.grad)
    print('q', q)
    print('q.grad', q.grad)
    print('z', z)
    for name, parameter in powLogModel.named_parameters():
        print(name, f'data({parameter.data}), grad({parameter.grad})')


def parameter_code_1(torch):
    _print_with_parameters(torch, _pow_log_model(torch)())


def parameter_code_2(torch):
    _print_with_parameters(torch, _pow_log_model(torch, pow_param_in_dict=True)())


def _train(torch, powLogModel):
    """The gradient-descent loop of Parameter Code 3-5."""
    z = powLogModel(5.0, 3.0)
    print('z', z)
    learning_rate = 0.01
    for i in range(10):
        powLogModel.zero_grad()
        x = torch.tensor(5.0)  # noqa: F841 - unused in the document too
        q = torch.tensor(3.0)  # noqa: F841
        z = powLogModel(5.0, 3.0)
        target = 10.0
        loss = (z - target) ** 2
        loss.backward()
        with torch.no_grad():
            for name, parameter in powLogModel.named_parameters():
                parameter -= parameter.grad * learning_rate
                print(i, name, parameter.data)
    z = powLogModel(5.0, 3.0)
    print('z', z)


def parameter_code_3(torch):
    _train(torch, _pow_log_model(torch)())


def _shared_model(torch, halve=True):
    """Parameter Code 4's model: the same two modules used twice."""
    PowModel, LogModel = _param_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.powModel = PowModel()
            self.logModel = LogModel()

        def forward(self, x, q):
            y1 = self.powModel(x, q)
            z1 = self.logModel(y1)
            y2 = self.powModel(x, q)
            z2 = self.logModel(y2)
            return (z1 + z2) / 2 if halve else z1 + z2

    return PowLogModel


def _four_module_model(torch):
    """Parameter Code 5's model: two modules of each kind, each used once."""
    PowModel, LogModel = _param_models(torch)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.powModel1 = PowModel()
            self.logModel1 = LogModel()
            self.powModel2 = PowModel()
            self.logModel2 = LogModel()

        def forward(self, x, q):
            y1 = self.powModel1(x, q)
            z1 = self.logModel1(y1)
            y2 = self.powModel2(x, q)
            z2 = self.logModel2(y2)
            return (z1 + z2) / 2

    return PowLogModel


def parameter_code_4(torch):
    _train(torch, _shared_model(torch)())


def parameter_code_5(torch):
    _train(torch, _four_module_model(torch)())


# ---------------------------------------------------------------- document 003: Buffer


def _buffer_models(torch, registered: bool, train_only: bool):
    class PowModel(torch.nn.Module):
        def __init__(self):
            super(PowModel, self).__init__()
            self.powParam = torch.nn.Parameter(torch.tensor(1.0))
            if registered:
                self.register_buffer('powBuff', torch.tensor(0.0))
            else:
                self.powBuff = torch.tensor(0.0)

        def forward(self, x, q):
            if self.training or not train_only:
                self.powBuff = self.powBuff * 0.6 + x * 0.4
            return self.powParam * self.powBuff ** q

    class LogModel(torch.nn.Module):
        def __init__(self):
            super(LogModel, self).__init__()
            self.logParam = torch.nn.Parameter(torch.tensor(1.0))
            if registered:
                self.register_buffer('logBuff', torch.tensor(0.0))
            else:
                self.logBuff = torch.tensor(0.0)

        def forward(self, x):
            if self.training or not train_only:
                self.logBuff = self.logBuff * 0.6 + x * 0.4
            return self.logParam * torch.log(self.logBuff)

    class PowLogModel(torch.nn.Module):
        def __init__(self):
            super(PowLogModel, self).__init__()
            self.powModel = PowModel()
            self.logModel = LogModel()

        def forward(self, x, q):
            y = self.powModel(x, q)
            z = self.logModel(y)
            return z

    return PowLogModel()


def _run_buffers(powLogModel):
    for i in range(10):
        z = powLogModel(5.0, 3.0)
        print(i, 'z', z)
        print(i, 'powBuff', powLogModel.powModel.powBuff)
        print(i, 'logBuff', powLogModel.logModel.logBuff)


def buffer_code_1(torch):
    powLogModel = _buffer_models(torch, registered=False, train_only=False)
    _run_buffers(powLogModel)
    print('state', powLogModel.state_dict())


def buffer_code_2(torch):
    powLogModel = _buffer_models(torch, registered=True, train_only=False)
    _run_buffers(powLogModel)
    print('state', powLogModel.state_dict())
    print('parameters', list(powLogModel.named_parameters()))
    print('buffers', list(powLogModel.named_buffers()))


def buffer_code_3(torch):
    powLogModel = _buffer_models(torch, registered=True, train_only=True)
    powLogModel.train()
    _run_buffers(powLogModel)
    powLogModel.eval()
    _run_buffers(powLogModel)
    print('state', powLogModel.state_dict())
    print('parameters', list(powLogModel.named_parameters()))
    print('buffers', list(powLogModel.named_buffers()))


# ---------------------------------------------------------------- document 003: Hook


def _hook_run(torch, powLogModel, hook):
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


def hook_code_1(torch):
    powLogModel = _pow_log_model(torch)()

    def forward_pre_hook(module, input):
        print('input', input)
        first_input, *rest_input = input
        return (first_input * 2, *rest_input)

    hook = powLogModel.logModel.register_forward_pre_hook(forward_pre_hook)
    _hook_run(torch, powLogModel, hook)


def hook_code_2(torch):
    powLogModel = _pow_log_model(torch)()

    def forward_hook(module, input, output):
        print('input', input)
        print('output', output)
        return output * 2

    hook = powLogModel.logModel.register_forward_hook(forward_hook)
    _hook_run(torch, powLogModel, hook)


def _backward_hook(module, grad_input, grad_output):
    print('grad_input', grad_input)
    print('grad_output', grad_output)
    return grad_input


def hook_code_3(torch):
    powLogModel = _pow_log_model(torch)()
    hook = powLogModel.powModel.register_backward_hook(_backward_hook)
    _hook_run(torch, powLogModel, hook)


def hook_code_3_swapped(torch):
    # the document's text: with ``x ** q * self.powParam`` the grad_input of the legacy hook
    # becomes (0.008, 1.0), the gradients w.r.t. the inputs of the LAST multiplication
    powLogModel = _pow_log_model(torch, pow_first=False)()
    hook = powLogModel.powModel.register_backward_hook(_backward_hook)
    _hook_run(torch, powLogModel, hook)


def hook_code_3_full(torch):
    # the same hook as a full backward hook sees the gradients w.r.t. the module's inputs x, q
    powLogModel = _pow_log_model(torch)()
    hook = powLogModel.powModel.register_full_backward_hook(_backward_hook)
    _hook_run(torch, powLogModel, hook)


# ---------------------------------------------------------------- document 003: Functional


def functional_code_3(torch):
    class ReLUModel(torch.nn.Module):
        def __init__(self):
            super(ReLUModel, self).__init__()
            self.reLUModel = torch.nn.ReLU()

        def forward(self, x):
            return self.reLUModel(x)

    reLUModel = ReLUModel()
    z = reLUModel(torch.tensor(3.0))
    print('z', z)
    z = reLUModel(torch.tensor(-1.0))
    print('z', z)


def functional_code_4(torch):
    class ReLUModel(torch.nn.Module):
        def __init__(self):
            super(ReLUModel, self).__init__()

        def forward(self, x):
            return torch.nn.functional.relu(x)

    reLUModel = ReLUModel()
    z = reLUModel(torch.tensor(3.0))
    print('z', z)
    z = reLUModel(torch.tensor(-1.0))
    print('z', z)


def _dropout_run(dropoutModel, torch):
    print('train mode')
    dropoutModel.train(True)
    for i in range(5):
        print(i, dropoutModel(torch.tensor(1.0)))
    print('eval mode')
    dropoutModel.train(False)
    for i in range(5):
        print(i, dropoutModel(torch.tensor(1.0)))


def functional_code_5(torch):
    # The document's train-mode draws (2, 0, 2, 0, 2) come from an unseeded generator; seed 47
    # is the first seed for which PyTorch 2.13's CPU generator draws exactly that sequence.
    torch.manual_seed(47)

    class DropoutModel(torch.nn.Module):
        def __init__(self):
            super(DropoutModel, self).__init__()
            self.dropoutModel = torch.nn.Dropout(0.5)

        def forward(self, x):
            return self.dropoutModel(x)

    _dropout_run(DropoutModel(), torch)


def functional_code_6(torch):
    # the document's draws (2, 0, 2, 0, 0): seed 4 is the first that gives them in PyTorch 2.13
    torch.manual_seed(4)

    class DropoutModel(torch.nn.Module):
        def __init__(self):
            super(DropoutModel, self).__init__()

        def forward(self, x):
            return torch.nn.functional.dropout(x, p=0.5, training=self.training)

    _dropout_run(DropoutModel(), torch)


# ---------------------------------------------------------------- document 000 (hooks)


def doc000_module_dict(torch):
    import pprint

    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()

    def module_hook(grad):
        pass

    model_obj = Model()
    # The document shows an older PyTorch's dict (no _backward_pre_hooks, no *_with_kwargs,
    # *_always_called, _state_dict_pre_hooks, _load_state_dict_post_hooks; OrderedDict
    # registries): PyTorch 2.13 prints the 17 entries below, and so does scalargrad.
    pprint.pprint(model_obj.__dict__, sort_dicts=False)


def doc000_forward_hooks(torch):
    nn = torch.nn

    class Add(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x1, x2):
            output = torch.add(x1, x2)
            return output

    add = Add()
    answer = []

    def pre_hook(module, input):
        answer.extend(input)
        pass

    def hook(module, input, output):
        answer.append(output)
        pass

    add.register_forward_pre_hook(pre_hook)
    add.register_forward_hook(hook)
    x1 = torch.tensor([0.7252])  # document: torch.rand(1), printed as tensor([0.7252])
    x2 = torch.tensor([0.6348])  # document: torch.rand(1), printed as tensor([0.6348])
    output = add(x1, x2)  # noqa: F841
    print(answer)  # [tensor([0.7252]), tensor([0.6348]), tensor([1.3600])]


def _w_model(torch):
    nn = torch.nn
    Parameter = torch.nn.parameter.Parameter

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.W = Parameter(torch.Tensor([5]))

        def forward(self, x1, x2):
            output = x1 * x2
            output = output * self.W
            return output

    return Model


def doc000_module_backward_hook(torch):
    model = _w_model(torch)()
    answer = []

    def module_hook(module, grad_input, grad_output):
        answer.extend(grad_input)
        answer.append(grad_output[0])
        pass

    model.register_full_backward_hook(module_hook)
    # the document's torch.rand(1) inputs, recovered from its result 1.1247 = 5 * x2, 3.2380 = 5 * x1
    x1 = torch.tensor([0.6476], requires_grad=True)
    x2 = torch.tensor([0.22494], requires_grad=True)
    output = model(x1, x2)
    output.retain_grad()
    output.backward()
    # the document's comment: output / answer [tensor([1.1247]), tensor([3.2380]), tensor([1.])]
    print('output', [x1.grad, x2.grad, output.grad])
    print('answer', answer)


def doc000_tensor_hook(torch):
    model = _w_model(torch)()
    answer = []

    def tensor_hook(grad):
        answer.append(grad)
        pass

    model.W.register_hook(tensor_hook)
    # torch.rand(1) in the document, which prints only W's gradient x1 * x2 = 0.3604
    x1 = torch.tensor([0.4], requires_grad=True)
    x2 = torch.tensor([0.901], requires_grad=True)
    output = model(x1, x2)
    output.backward()
    print('output', output)
    print('answer', answer)  # the document: tensor([0.3604])


def doc000_normalise_grad_input(torch):
    model = _w_model(torch)()

    def module_hook(module, grad_input, grad_output):
        print(grad_input)
        total = 0
        for grad in grad_input:
            total += grad
        grad_input = torch.divide(grad_input[0], total), torch.divide(grad_input[1], total)
        print(grad_input)
        return grad_input

    model.register_full_backward_hook(module_hook)
    # torch.rand(1) in the document; 0.1 and 0.3 give its comment's example (1.5, 0.5) -> (0.75, 0.25)
    x1 = torch.tensor([0.1], requires_grad=True)
    x2 = torch.tensor([0.3], requires_grad=True)
    output = model(x1, x2)
    output.backward()
    print('x1.grad', x1.grad, 'x2.grad', x2.grad)


# ---------------------------------------------------------------- document 004 (hooks)


def doc004_tensor_hook(torch):
    model = _w_model(torch)()
    answer = []

    def tensor_hook(grad):
        answer.extend(grad)

    model.W.register_hook(tensor_hook)
    x1 = torch.tensor([0.25], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
    x2 = torch.tensor([0.5], requires_grad=True)
    output = model(x1, x2)
    output.backward()
    if answer == [model.W.grad]:
        print(True)
    else:
        print(False)


def _add_model(torch):
    class Add(torch.nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x1, x2):
            output = torch.add(x1, x2)
            return output

    return Add


def doc004_forward_hook_wrong_signature(torch):
    # The document's hook takes (module, output), but forward hooks are called as
    # hook(module, input, output): PyTorch stops with Python's TypeError naming the hook,
    # where the document claims the output is x1 + x2 + 5.
    def hook(module, output):
        output += 5

    add = _add_model(torch)()
    add.register_forward_hook(hook)
    x1, x2 = torch.tensor([0.25]), torch.tensor([0.5])  # document: torch.rand(1), torch.rand(1)
    print(x1, ",", x2)
    output = add(x1, x2)
    print(output)


def doc004_forward_hook_corrected(torch):
    # the hook with the signature forward hooks have: the in-place += 5 changes the output
    def hook(module, input, output):
        output += 5

    add = _add_model(torch)()
    add.register_forward_hook(hook)
    x1, x2 = torch.tensor([0.25]), torch.tensor([0.5])
    print(x1, ",", x2)
    output = add(x1, x2)
    print(output)


def doc004_module_backward_hook(torch):
    model = _w_model(torch)()
    answer = []

    def module_hook(module, grad_input, grad_output):
        answer.extend(grad_input)
        answer.extend(grad_output)

    model.register_full_backward_hook(module_hook)
    x1 = torch.tensor([0.25], requires_grad=True)  # document: torch.rand(1, requires_grad=True)
    x2 = torch.tensor([0.5], requires_grad=True)
    output = model(x1, x2)
    output.retain_grad()
    output.backward()
    if answer == [x1.grad, x2.grad, output.grad]:
        print(True)
    else:
        print(False)


# ---------------------------------------------------------------- what PyTorch 2.13 prints

# Captured from PyTorch 2.13.0 (CPU) running the functions above through ``run``.
EXPECTED: dict = {}

# Module Code 1-7: the document prints grad_fn=<LogBackward>; PyTorch 2.x names the node
# LogBackward0 (generated node names end in their overload index).
EXPECTED["module_code_1"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
"""

EXPECTED["module_code_2"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
powLogModel.named_children [('powModel', PowModel()), ('logModel', LogModel())]
"""

EXPECTED["module_code_3"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
powLogModel.named_children []
"""

EXPECTED["module_code_4"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
powLogModel.named_children [('powModel', PowModel()), ('logModel', LogModel())]
"""

# The document shows the ModuleList children unindented: the page stripped leading blanks, as
# it did in the code; PyTorch prints them two spaces in.
EXPECTED["module_code_5"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
powLogModel.named_children [('modelList', ModuleList(
  (0): PowModel()
  (1): LogModel()
))]
"""

EXPECTED["module_code_6"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
powLogModel.named_children []
"""

# The document lists (logModel) before (powModel): PyTorch 1.4's ModuleDict sorted a plain
# dict's keys. PyTorch 2.x keeps insertion order, so (powModel) comes first.
EXPECTED["module_code_7"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<LogBackward0>)
powLogModel.named_children [('modelDict', ModuleDict(
  (powModel): PowModel()
  (logModel): LogModel()
))]
"""

EXPECTED["parameter_code_1"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<MulBackward0>)
powModel.powParam data(1.0), grad(1.0)
logModel.logParam data(1.0), grad(4.828313827514648)
"""

EXPECTED["parameter_code_2"] = """\
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<MulBackward0>)
logModel.logParam data(1.0), grad(4.828313827514648)
"""

EXPECTED["parameter_code_3"] = """\
z tensor(4.8283, grad_fn=<MulBackward0>)
0 powModel.powParam tensor(1.1034)
0 logModel.logParam tensor(1.4994)
1 powModel.powParam tensor(1.1744)
1 logModel.logParam tensor(1.7569)
2 powModel.powParam tensor(1.2114)
2 logModel.logParam tensor(1.8801)
3 powModel.powParam tensor(1.2288)
3 logModel.logParam tensor(1.9365)
4 powModel.powParam tensor(1.2367)
4 logModel.logParam tensor(1.9618)
5 powModel.powParam tensor(1.2403)
5 logModel.logParam tensor(1.9730)
6 powModel.powParam tensor(1.2418)
6 logModel.logParam tensor(1.9779)
7 powModel.powParam tensor(1.2425)
7 logModel.logParam tensor(1.9801)
8 powModel.powParam tensor(1.2428)
8 logModel.logParam tensor(1.9811)
9 powModel.powParam tensor(1.2430)
9 logModel.logParam tensor(1.9815)
z tensor(9.9982, grad_fn=<MulBackward0>)
"""

# Parameter Code 4 uses each module twice and halves the sum: each parameter's gradient is
# summed over the two uses, so the run matches Parameter Code 3 step for step; Parameter Code 5
# (four modules) moves each parameter half as fast.
EXPECTED["parameter_code_4"] = """\
z tensor(4.8283, grad_fn=<DivBackward0>)
0 powModel.powParam tensor(1.1034)
0 logModel.logParam tensor(1.4994)
1 powModel.powParam tensor(1.1744)
1 logModel.logParam tensor(1.7569)
2 powModel.powParam tensor(1.2114)
2 logModel.logParam tensor(1.8801)
3 powModel.powParam tensor(1.2288)
3 logModel.logParam tensor(1.9365)
4 powModel.powParam tensor(1.2367)
4 logModel.logParam tensor(1.9618)
5 powModel.powParam tensor(1.2403)
5 logModel.logParam tensor(1.9730)
6 powModel.powParam tensor(1.2418)
6 logModel.logParam tensor(1.9779)
7 powModel.powParam tensor(1.2425)
7 logModel.logParam tensor(1.9801)
8 powModel.powParam tensor(1.2428)
8 logModel.logParam tensor(1.9811)
9 powModel.powParam tensor(1.2430)
9 logModel.logParam tensor(1.9815)
z tensor(9.9982, grad_fn=<DivBackward0>)
"""

EXPECTED["parameter_code_5"] = """\
z tensor(4.8283, grad_fn=<DivBackward0>)
0 powModel1.powParam tensor(1.0517)
0 logModel1.logParam tensor(1.2497)
0 powModel2.powParam tensor(1.0517)
0 logModel2.logParam tensor(1.2497)
1 powModel1.powParam tensor(1.0981)
1 logModel1.logParam tensor(1.4401)
1 powModel2.powParam tensor(1.0981)
1 logModel2.logParam tensor(1.4401)
2 powModel1.powParam tensor(1.1363)
2 logModel1.logParam tensor(1.5834)
2 powModel2.powParam tensor(1.1363)
2 logModel2.logParam tensor(1.5834)
3 powModel1.powParam tensor(1.1663)
3 logModel1.logParam tensor(1.6901)
3 powModel2.powParam tensor(1.1663)
3 logModel2.logParam tensor(1.6901)
4 powModel1.powParam tensor(1.1892)
4 logModel1.logParam tensor(1.7688)
4 powModel2.powParam tensor(1.1892)
4 logModel2.logParam tensor(1.7688)
5 powModel1.powParam tensor(1.2063)
5 logModel1.logParam tensor(1.8265)
5 powModel2.powParam tensor(1.2063)
5 logModel2.logParam tensor(1.8265)
6 powModel1.powParam tensor(1.2190)
6 logModel1.logParam tensor(1.8685)
6 powModel2.powParam tensor(1.2190)
6 logModel2.logParam tensor(1.8685)
7 powModel1.powParam tensor(1.2283)
7 logModel1.logParam tensor(1.8991)
7 powModel2.powParam tensor(1.2283)
7 logModel2.logParam tensor(1.8991)
8 powModel1.powParam tensor(1.2351)
8 logModel1.logParam tensor(1.9213)
8 powModel2.powParam tensor(1.2351)
8 logModel2.logParam tensor(1.9213)
9 powModel1.powParam tensor(1.2401)
9 logModel1.logParam tensor(1.9373)
9 powModel2.powParam tensor(1.2401)
9 logModel2.logParam tensor(1.9373)
z tensor(9.7706, grad_fn=<DivBackward0>)
"""

EXPECTED["buffer_code_1"] = """\
0 z tensor(1.1632, grad_fn=<MulBackward0>)
0 powBuff tensor(2.)
0 logBuff tensor(3.2000, grad_fn=<AddBackward0>)
1 z tensor(2.7099, grad_fn=<MulBackward0>)
1 powBuff tensor(3.2000)
1 logBuff tensor(15.0272, grad_fn=<AddBackward0>)
2 z tensor(3.4999, grad_fn=<MulBackward0>)
2 powBuff tensor(3.9200)
2 logBuff tensor(33.1108, grad_fn=<AddBackward0>)
3 z tensor(3.9672, grad_fn=<MulBackward0>)
3 powBuff tensor(4.3520)
3 logBuff tensor(52.8371, grad_fn=<AddBackward0>)
4 z tensor(4.2616, grad_fn=<MulBackward0>)
4 powBuff tensor(4.6112)
4 logBuff tensor(70.9218, grad_fn=<AddBackward0>)
5 z tensor(4.4529, grad_fn=<MulBackward0>)
5 powBuff tensor(4.7667)
5 logBuff tensor(85.8761, grad_fn=<AddBackward0>)
6 z tensor(4.5793, grad_fn=<MulBackward0>)
6 powBuff tensor(4.8600)
6 logBuff tensor(97.4431, grad_fn=<AddBackward0>)
7 z tensor(4.6633, grad_fn=<MulBackward0>)
7 powBuff tensor(4.9160)
7 logBuff tensor(105.9885, grad_fn=<AddBackward0>)
8 z tensor(4.7194, grad_fn=<MulBackward0>)
8 powBuff tensor(4.9496)
8 logBuff tensor(112.0966, grad_fn=<AddBackward0>)
9 z tensor(4.7567, grad_fn=<MulBackward0>)
9 powBuff tensor(4.9698)
9 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
state {STATE_2}
"""

EXPECTED["buffer_code_2"] = """\
0 z tensor(1.1632, grad_fn=<MulBackward0>)
0 powBuff tensor(2.)
0 logBuff tensor(3.2000, grad_fn=<AddBackward0>)
1 z tensor(2.7099, grad_fn=<MulBackward0>)
1 powBuff tensor(3.2000)
1 logBuff tensor(15.0272, grad_fn=<AddBackward0>)
2 z tensor(3.4999, grad_fn=<MulBackward0>)
2 powBuff tensor(3.9200)
2 logBuff tensor(33.1108, grad_fn=<AddBackward0>)
3 z tensor(3.9672, grad_fn=<MulBackward0>)
3 powBuff tensor(4.3520)
3 logBuff tensor(52.8371, grad_fn=<AddBackward0>)
4 z tensor(4.2616, grad_fn=<MulBackward0>)
4 powBuff tensor(4.6112)
4 logBuff tensor(70.9218, grad_fn=<AddBackward0>)
5 z tensor(4.4529, grad_fn=<MulBackward0>)
5 powBuff tensor(4.7667)
5 logBuff tensor(85.8761, grad_fn=<AddBackward0>)
6 z tensor(4.5793, grad_fn=<MulBackward0>)
6 powBuff tensor(4.8600)
6 logBuff tensor(97.4431, grad_fn=<AddBackward0>)
7 z tensor(4.6633, grad_fn=<MulBackward0>)
7 powBuff tensor(4.9160)
7 logBuff tensor(105.9885, grad_fn=<AddBackward0>)
8 z tensor(4.7194, grad_fn=<MulBackward0>)
8 powBuff tensor(4.9496)
8 logBuff tensor(112.0966, grad_fn=<AddBackward0>)
9 z tensor(4.7567, grad_fn=<MulBackward0>)
9 powBuff tensor(4.9698)
9 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
state {STATE_4}
parameters [('powModel.powParam', Parameter containing:
tensor(1., requires_grad=True)), ('logModel.logParam', Parameter containing:
tensor(1., requires_grad=True))]
buffers [('powModel.powBuff', tensor(4.9698)), ('logModel.logBuff', tensor(116.3565, grad_fn=<AddBackward0>))]
"""

EXPECTED["buffer_code_3"] = """\
0 z tensor(1.1632, grad_fn=<MulBackward0>)
0 powBuff tensor(2.)
0 logBuff tensor(3.2000, grad_fn=<AddBackward0>)
1 z tensor(2.7099, grad_fn=<MulBackward0>)
1 powBuff tensor(3.2000)
1 logBuff tensor(15.0272, grad_fn=<AddBackward0>)
2 z tensor(3.4999, grad_fn=<MulBackward0>)
2 powBuff tensor(3.9200)
2 logBuff tensor(33.1108, grad_fn=<AddBackward0>)
3 z tensor(3.9672, grad_fn=<MulBackward0>)
3 powBuff tensor(4.3520)
3 logBuff tensor(52.8371, grad_fn=<AddBackward0>)
4 z tensor(4.2616, grad_fn=<MulBackward0>)
4 powBuff tensor(4.6112)
4 logBuff tensor(70.9218, grad_fn=<AddBackward0>)
5 z tensor(4.4529, grad_fn=<MulBackward0>)
5 powBuff tensor(4.7667)
5 logBuff tensor(85.8761, grad_fn=<AddBackward0>)
6 z tensor(4.5793, grad_fn=<MulBackward0>)
6 powBuff tensor(4.8600)
6 logBuff tensor(97.4431, grad_fn=<AddBackward0>)
7 z tensor(4.6633, grad_fn=<MulBackward0>)
7 powBuff tensor(4.9160)
7 logBuff tensor(105.9885, grad_fn=<AddBackward0>)
8 z tensor(4.7194, grad_fn=<MulBackward0>)
8 powBuff tensor(4.9496)
8 logBuff tensor(112.0966, grad_fn=<AddBackward0>)
9 z tensor(4.7567, grad_fn=<MulBackward0>)
9 powBuff tensor(4.9698)
9 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
0 z tensor(4.7567, grad_fn=<MulBackward0>)
0 powBuff tensor(4.9698)
0 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
1 z tensor(4.7567, grad_fn=<MulBackward0>)
1 powBuff tensor(4.9698)
1 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
2 z tensor(4.7567, grad_fn=<MulBackward0>)
2 powBuff tensor(4.9698)
2 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
3 z tensor(4.7567, grad_fn=<MulBackward0>)
3 powBuff tensor(4.9698)
3 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
4 z tensor(4.7567, grad_fn=<MulBackward0>)
4 powBuff tensor(4.9698)
4 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
5 z tensor(4.7567, grad_fn=<MulBackward0>)
5 powBuff tensor(4.9698)
5 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
6 z tensor(4.7567, grad_fn=<MulBackward0>)
6 powBuff tensor(4.9698)
6 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
7 z tensor(4.7567, grad_fn=<MulBackward0>)
7 powBuff tensor(4.9698)
7 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
8 z tensor(4.7567, grad_fn=<MulBackward0>)
8 powBuff tensor(4.9698)
8 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
9 z tensor(4.7567, grad_fn=<MulBackward0>)
9 powBuff tensor(4.9698)
9 logBuff tensor(116.3565, grad_fn=<AddBackward0>)
state {STATE_4}
parameters [('powModel.powParam', Parameter containing:
tensor(1., requires_grad=True)), ('logModel.logParam', Parameter containing:
tensor(1., requires_grad=True))]
buffers [('powModel.powBuff', tensor(4.9698)), ('logModel.logBuff', tensor(116.3565, grad_fn=<AddBackward0>))]
"""

EXPECTED["hook_code_1"] = """\
input (tensor(125., grad_fn=<MulBackward0>),)
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(5.5215, grad_fn=<MulBackward0>)
powModel.powParam data(1.0), grad(1.0)
logModel.logParam data(1.0), grad(5.521461009979248)
"""

EXPECTED["hook_code_2"] = """\
input (tensor(125., grad_fn=<MulBackward0>),)
output tensor(4.8283, grad_fn=<MulBackward0>)
x tensor(5., requires_grad=True)
x.grad tensor(1.2000)
q tensor(3., requires_grad=True)
q.grad tensor(3.2189)
z tensor(9.6566, grad_fn=<MulBackward0>)
powModel.powParam data(1.0), grad(2.0)
logModel.logParam data(1.0), grad(9.656627655029297)
"""

# Standard output as in the document; PyTorch 2.13 also warns (FutureWarning) that the legacy
# hook misses grad_input when forward has several autograd nodes (the document's 1.4 did not).
EXPECTED["hook_code_3"] = """\
grad_input (tensor(1.), tensor(0.0080))
grad_output (tensor(0.0080),)
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<MulBackward0>)
powModel.powParam data(1.0), grad(1.0)
logModel.logParam data(1.0), grad(4.828313827514648)
FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use register_full_backward_hook to get the documented behavior.
"""

EXPECTED["hook_code_3_swapped"] = """\
grad_input (tensor(0.0080), tensor(1.))
grad_output (tensor(0.0080),)
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<MulBackward0>)
powModel.powParam data(1.0), grad(1.0)
logModel.logParam data(1.0), grad(4.828313827514648)
FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use register_full_backward_hook to get the documented behavior.
"""

EXPECTED["hook_code_3_full"] = """\
grad_input (tensor(0.6000), tensor(1.6094))
grad_output (tensor(0.0080),)
x tensor(5., requires_grad=True)
x.grad tensor(0.6000)
q tensor(3., requires_grad=True)
q.grad tensor(1.6094)
z tensor(4.8283, grad_fn=<MulBackward0>)
powModel.powParam data(1.0), grad(1.0)
logModel.logParam data(1.0), grad(4.828313827514648)
"""

EXPECTED["functional_code_3"] = """\
z tensor(3.)
z tensor(0.)
"""

EXPECTED["functional_code_4"] = """\
z tensor(3.)
z tensor(0.)
"""

EXPECTED["functional_code_5"] = """\
train mode
0 tensor(2.)
1 tensor(0.)
2 tensor(2.)
3 tensor(0.)
4 tensor(2.)
eval mode
0 tensor(1.)
1 tensor(1.)
2 tensor(1.)
3 tensor(1.)
4 tensor(1.)
"""

EXPECTED["functional_code_6"] = """\
train mode
0 tensor(2.)
1 tensor(0.)
2 tensor(2.)
3 tensor(0.)
4 tensor(0.)
eval mode
0 tensor(1.)
1 tensor(1.)
2 tensor(1.)
3 tensor(1.)
4 tensor(1.)
"""

EXPECTED["doc000_module_dict"] = """\
{'training': True,
 '_parameters': {},
 '_buffers': {},
 '_non_persistent_buffers_set': set(),
 '_backward_pre_hooks': OrderedDict(),
 '_backward_hooks': OrderedDict(),
 '_is_full_backward_hook': None,
 '_forward_hooks': OrderedDict(),
 '_forward_hooks_with_kwargs': OrderedDict(),
 '_forward_hooks_always_called': OrderedDict(),
 '_forward_pre_hooks': OrderedDict(),
 '_forward_pre_hooks_with_kwargs': OrderedDict(),
 '_state_dict_hooks': OrderedDict(),
 '_state_dict_pre_hooks': OrderedDict(),
 '_load_state_dict_pre_hooks': OrderedDict(),
 '_load_state_dict_post_hooks': OrderedDict(),
 '_modules': {}}
"""

EXPECTED["doc000_forward_hooks"] = """\
[tensor([0.7252]), tensor([0.6348]), tensor([1.3600])]
"""

EXPECTED["doc000_module_backward_hook"] = """\
output [tensor([1.1247]), tensor([3.2380]), tensor([1.])]
answer [tensor([1.1247]), tensor([3.2380]), tensor([1.])]
"""

EXPECTED["doc000_tensor_hook"] = """\
output tensor([1.8020], grad_fn=<MulBackward0>)
answer [tensor([0.3604])]
"""

EXPECTED["doc000_normalise_grad_input"] = """\
(tensor([1.5000]), tensor([0.5000]))
(tensor([0.7500]), tensor([0.2500]))
x1.grad tensor([0.7500]) x2.grad tensor([0.2500])
"""

EXPECTED["doc004_tensor_hook"] = """\
True
"""

# The document claims the output is x1 + x2 + 5; PyTorch (and scalargrad) stop with Python's
# TypeError naming the two-argument hook.
EXPECTED["doc004_forward_hook_wrong_signature"] = """\
tensor([0.2500]) , tensor([0.5000])
TypeError: doc004_forward_hook_wrong_signature.<locals>.hook() takes 2 positional arguments but 3 were given
"""

EXPECTED["doc004_forward_hook_corrected"] = """\
tensor([0.2500]) , tensor([0.5000])
tensor([5.7500])
"""

EXPECTED["doc004_module_backward_hook"] = """\
True
"""



# Buffer Code 1-3 print a state_dict: PyTorch's items in the container as the running Python
# prints an OrderedDict (Python 3.12 changed its repr; reference/README.md)
STATE_2 = printed_ordered_dict([("powModel.powParam", "tensor(1.)"), ("logModel.logParam", "tensor(1.)")])
STATE_4 = printed_ordered_dict([("powModel.powParam", "tensor(1.)"), ("powModel.powBuff", "tensor(4.9698)"),
                                ("logModel.logParam", "tensor(1.)"), ("logModel.logBuff", "tensor(116.3565)")])
for _name in ("buffer_code_1", "buffer_code_2", "buffer_code_3"):
    EXPECTED[_name] = EXPECTED[_name].replace("{STATE_2}", STATE_2).replace("{STATE_4}", STATE_4)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_document_program_prints_what_pytorch_prints(name):
    assert run(globals()[name], scalargrad) == EXPECTED[name]


@pytest.mark.parametrize("name", list(EXPECTED))
def test_document_program_matches_live_pytorch(name, torch_ref):
    # The captures are PyTorch's on an Intel Xeon (AVX512, MKL). Parameter and Hook Code print
    # logParam.grad.item(), PyTorch's log(125) at full precision, whose last bit depends on the
    # processor: those lines may differ on this one, within what scalargrad prints computing as
    # another processor would (faithfulness.printed_within); every other line exactly.
    from_torch = run(globals()[name], torch_ref)
    ours = run(globals()[name], scalargrad)
    with another_processor(-2):
        low = run(globals()[name], scalargrad)
    with another_processor(2):
        high = run(globals()[name], scalargrad)
    assert printed_within(from_torch, ours, low, high) is None, printed_within(from_torch, ours, low, high)
    assert printed_within(from_torch, EXPECTED[name], low, high) is None  # the capture is still PyTorch's



@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    """scalargrad, then real PyTorch (skipped without it): the same assertions hold for both."""
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _grads_of_output(model) -> dict:
    model(5.0, 3.0).backward()
    return {name: p.grad.item() for name, p in model.named_parameters()}


def test_parameter_code_4_sums_a_shared_parameter_gradient_and_code_5_splits_it(lib):
    once = _grads_of_output(_pow_log_model(lib)())  # dz/dparam of Parameter Code 3's model
    # dz/dlogParam is log(125): correctly rounded in scalargrad (the same on every machine), within
    # 1 ulp of it in PyTorch, whose MKL log depends on the processor
    log125 = correctly_rounded("log", 125.0)
    assert once['powModel.powParam'] == 1.0 and log125 == 4.828313827514648
    assert once['logModel.logParam'] == log125 if lib is scalargrad else ulps(once['logModel.logParam'], log125) <= 1
    # the modules used twice: each parameter's gradient is the sum over both uses
    assert _grads_of_output(_shared_model(lib, halve=False)()) == {k: 2 * v for k, v in once.items()}
    # Parameter Code 4 halves the sum, which undoes the doubling exactly
    assert _grads_of_output(_shared_model(lib)()) == once
    # Parameter Code 5: four modules, each parameter gets half of the gradient
    half = {k: v / 2 for k, v in once.items()}
    assert _grads_of_output(_four_module_model(lib)()) == {
        'powModel1.powParam': half['powModel.powParam'], 'logModel1.logParam': half['logModel.logParam'],
        'powModel2.powParam': half['powModel.powParam'], 'logModel2.logParam': half['logModel.logParam']}

def test_functional_code_1_and_2_have_linear_now():
    # nn.Linear and F.linear exist since multi-element tensors (tests/test_multi_element_tensors.py runs
    # Functional Code 1 and 2 and checks PyTorch's output, "z tensor(6., grad_fn=<SqueezeBackward0>)")
    lin = scalargrad.nn.Linear(in_features=1, out_features=1, bias=False)
    lin.weight.data.fill_(2.0)
    assert repr(lin(scalargrad.tensor(3.0).expand(1, 1, 1)).squeeze()) == "tensor(6., grad_fn=<SqueezeBackward0>)"
