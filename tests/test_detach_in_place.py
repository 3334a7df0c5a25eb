"""``detach_()`` of a node, compared with live PyTorch: the tensor becomes a leaf that does not
require grad, while the nodes made from it before keep their edge to the node it was (PyTorch's
nodes are objects of their own). Those that saved it refuse to unpack it; a later write to it is
a version error for a node that saved it as its result. reciprocal, relu and multiplication are
IEEE-exact kernels, so the printed figures are compared as text."""

from __future__ import annotations

import pytest

import scalargrad
from tests.program_outcome import outcome

PROGRAMS = {
    "older consumer still reaches the leaf": """
l = torch.tensor([1., 2., 4.], requires_grad=True)
a = l.clone(); b = a.reciprocal(); a.detach_()
b.sum().backward()
out = (l.grad, a.requires_grad, a.is_leaf, a.grad_fn, a._version)""",
    "a consumer made after it takes it as a constant": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; b = a.reciprocal(); a.detach_(); c = b * a
c.sum().backward()
out = (l.grad, [None if f is None else f.name() for f, _ in c.grad_fn.next_functions])""",
    "requires_grad_ afterwards: both versions get their own gradient": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; b = a.reciprocal(); a.detach_(); a.requires_grad_(); c = a.relu() * 3
out = torch.autograd.grad((b + c).sum(), [l, a])""",
    "a hook registered before fires": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; seen = []; a.register_hook(lambda g: seen.append(g))
b = a.reciprocal(); a.detach_(); b.sum().backward()
out = (l.grad, seen)""",
    "a node that saved it refuses": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l.clone(); b = a * a; a.detach_()
b.sum().backward()""",
    "refused under create_graph too": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; b = a * l; a.detach_()
torch.autograd.grad(b.sum(), l, create_graph=True)""",
    "its saved accessor still reads it": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; b = a * l; a.detach_()
out = b.grad_fn._saved_self""",
    "a saved result written after": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l.reciprocal(); c = a * 2; a.detach_(); a.add_(1)
c.sum().backward()""",
    "written after: an older node that did not save it is unaffected": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; b = a * 3; a.detach_(); c = a * l; a.add_(1)
b.sum().backward()
out = l.grad""",
    "written after: a newer node that saved it refuses": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; a.detach_(); c = a * l; a.add_(1)
c.sum().backward()""",
    "in place with a graph afterwards: older consumers still reach the node": """
l = torch.tensor([1., 2.], requires_grad=True)
m = torch.tensor([3., 5.], requires_grad=True)
a = l * 2; b = a.reciprocal(); a.detach_(); a.mul_(m)
(b.sum() + a.sum()).backward()
out = (l.grad, m.grad)""",
    "second order through the node it was": """
l = torch.tensor([1., 2.], requires_grad=True)
a = l * 2; b = a.reciprocal(); a.detach_()
g = torch.autograd.grad(b.sum(), l, create_graph=True)[0]
g.sum().backward()
out = (g, l.grad)""",
    "a leaf detached in place gets nothing": """
l = torch.tensor([1., 2.], requires_grad=True)
c = l * 3; l.detach_(); c.sum().backward()
out = (l.grad, l.requires_grad)""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_detach_in_place_as_pytorch(name, torch_ref):
    src = PROGRAMS[name]
    assert outcome(scalargrad, src) == outcome(torch_ref, src)
