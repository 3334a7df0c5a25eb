"""A node all of whose incoming gradients are undefined (None) still runs, as engine.cpp's
``call_function`` runs every node it reaches: a custom Function's backward is called (with
zeros, or None under ``set_materialize_grads(False)``), a built-in node's pre- and post-hooks
fire with None, and AccumulateGrad's hooks fire while ``.grad`` stays as it was. Compared with
live PyTorch: the events each program records, in order."""

from __future__ import annotations

import pytest

import scalargrad
from tests.program_outcome import outcome

FUNCTIONS = """
seen = []
class Drop(torch.autograd.Function):  # returns no gradient for its input
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        seen.append(("Drop", g))
        return None
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        seen.append(("Twice", g))
        return g * 2
class Lazy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        seen.append(("Lazy", g))
        return g
l = torch.tensor([1., 2.], requires_grad=True)
"""

PROGRAMS = {
    "a Function's backward gets zeros, and its zeros reach .grad": """
Drop.apply(Twice.apply(l)).sum().backward()
out = (seen, l.grad)""",
    "set_materialize_grads(False): backward gets None": """
Drop.apply(Lazy.apply(l)).sum().backward()
out = (seen, l.grad)""",
    "a built-in node's pre- and post-hooks fire with None": """
a = l * 2
a.grad_fn.register_prehook(lambda g: seen.append(("pre", g)))
a.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi, go)))
b = a.sum()
b.grad_fn.register_hook(lambda gi, go: seen.append(("sum post", gi, go)))
Drop.apply(b).backward()
out = (seen, l.grad)""",
    "AccumulateGrad's hooks fire, .grad stays None": """
n = (l * 2).grad_fn.next_functions[0][0]
n.register_prehook(lambda g: seen.append(("acc pre", g)))
n.register_hook(lambda gi, go: seen.append(("acc post", gi, go)))
l.register_post_accumulate_grad_hook(lambda t: seen.append(("post accumulate", t.grad)))
Drop.apply(l).sum().backward()
out = (seen, l.grad)""",
    "backward(inputs=): the post-accumulate hook sees .grad as it was": """
l.grad = torch.ones(2)
l.register_post_accumulate_grad_hook(lambda t: seen.append(("post accumulate", t.grad)))
Drop.apply(l).sum().backward(inputs=[l])
out = (seen, l.grad)""",
    "autograd.grad: nodes on the way run, AccumulateGrad does not": """
a = l * 2
a.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi, go)))
n = a.grad_fn.next_functions[0][0]
n.register_prehook(lambda g: seen.append(("acc pre", g)))
out = (torch.autograd.grad(Drop.apply(a).sum(), l, allow_unused=True), seen)""",
    "create_graph: the Function's zeros reach the result": """
g = torch.autograd.grad(Drop.apply(Twice.apply(l)).sum(), l, create_graph=True, allow_unused=True)
out = (seen, g)""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_undefined_gradients_as_pytorch(name, torch_ref):
    src = FUNCTIONS + PROGRAMS[name]
    assert outcome(scalargrad, src) == outcome(torch_ref, src)
