"""In-place writes where memory is shared, compared with live PyTorch. An operand that shares part
of the written tensor's memory (both dense, spans intersecting, not the same elements in the same
layout) is refused with ATen's partial-overlap error. Into a tensor whose elements share memory
(an expanded view): an empty one is written like any other; fill_/zero_ and masked_fill_ with a number
write one value per memory location (masked_fill_ where any alias is masked); item assignment
copies into the view ``x[index]`` (refused if that view's elements share memory too) and
index_put_ writes only the indexed elements, every alias showing them. In a graph, the base's
CopySlices over such a view refuses backward, as PyTorch's copy of the gradient into it does."""

from __future__ import annotations

import warnings

import pytest

import scalargrad
from tests.program_outcome import outcome

EXPANDED = """
l = torch.tensor([1., -2.], requires_grad=True)
v1 = l * 1
v2 = v1.unsqueeze(0).expand(2, 2)
w = torch.tensor([[1., 2.], [3., 4.]])
"""

PROGRAMS = {
    "empty: arithmetic in place": """
v = (-torch.zeros((2, 0, 3), requires_grad=True)).unsqueeze(0).expand(2, 2, 0, 3)
v.mul_(1.5); v.sigmoid_(); v.copy_(torch.ones(2, 2, 0, 3))
out = (v.shape, v._version)""",
    "zero_ in a graph: forward as PyTorch": EXPANDED + """
v2.zero_()
out = (v1, v2, v1.grad_fn.name(), v2.grad_fn.name())""",
    "zero_ in a graph: backward refuses": EXPANDED + """
v2.zero_()
torch.autograd.grad((v1 * w[0]).sum(), l)""",
    "masked_fill_ without a graph": """
v1 = torch.tensor([1., -2.]); v2 = v1.unsqueeze(0).expand(2, 2)
v2.masked_fill_(torch.tensor([[False, False], [True, True]]), 7)
out = (v1, v2)""",
    "masked_fill_ in a graph: backward refuses": EXPANDED + """
v2.masked_fill_(v2 > 0, 7)
torch.autograd.grad(v1.sum(), l)""",
    "item assignment copies into the view x[0]": EXPANDED + """
v4 = torch.tensor([3., 4.], requires_grad=True)
v2[0] = v4
out = (v1, v2, torch.autograd.grad((v2 * w).sum(), [l, v4]))""",
    "item assignment of a number": EXPANDED + """
v2[0, 1] = 5.
out = (v1, v2, torch.autograd.grad((v2 * w).sum(), l))""",
    "item assignment into a view whose elements share memory refuses": EXPANDED + """
v2[:, 1] = 5.""",
    "index_put_ without a graph writes the indexed elements": """
v1 = torch.tensor([1., 2.]); v2 = v1.unsqueeze(0).expand(2, 2)
v2[torch.tensor([0])] = 7
a = v1.clone()
v1 = torch.tensor([1., 2.]); v2 = v1.unsqueeze(0).expand(2, 2)
v2[torch.tensor([True, False])] = 7
out = (a, v1, v2)""",
    "index_put_ in a graph": EXPANDED + """
v2[torch.tensor([0])] = 5.
out = (v1, v2)""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_expanded_in_place_as_pytorch(name, torch_ref):
    src = PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # index_put_'s deprecation, compared below
        assert outcome(scalargrad, src) == outcome(torch_ref, src)


@pytest.mark.parametrize("src", ["v2[torch.tensor([0])] = 7", "v2[torch.tensor([True, False])] = 7",
                                 "v2.masked_fill_(torch.tensor([[True, False], [False, False]]), 7)"])
def test_expanded_index_put_warns_as_pytorch(src, torch_ref):
    def warned(mod):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            outcome(mod, "v1 = torch.tensor([1., 2.]); v2 = v1.unsqueeze(0).expand(2, 2)\n" + src,
                    read=lambda env: None)
        return [str(w.message).split(" (Triggered")[0] for w in seen]

    assert warned(scalargrad) == warned(torch_ref)


PARTIAL = [
    "x = torch.arange(4.).reshape(2, 2); x.add_(x.t())",
    "x = torch.arange(6.); x[:4].add_(x[2:])",
    "x = torch.arange(6.); x[:3].add_(x[3:])",
    "x = torch.arange(6.); x.mul_(x.view(2, 3).view(6))",
    "x = torch.arange(6.); x[:4].copy_(x[2:])",
    "x = torch.arange(6.); x[:4].div_(x[2:])",
    "x = torch.arange(6.); x[:4].sub_(x[2:], alpha=2)",
    "x = torch.arange(6.); x[:4] -= x[2:]",
    "x = torch.arange(6.); x[::2].add_(x[1::2])",
    "x = torch.arange(6.); x[:4].pow_(x[2:])",
    "l = torch.arange(4., requires_grad=True); x = l * 1; x[:3].add_(x[1:])",
    "x = torch.arange(6.); y = x.detach(); x[:4].add_(y[2:])",
    # the in-place ops with a second (or third) tensor operand: addcmul_, addcdiv_, lerp_ (end
    # and weight), clamp_ with tensor bounds, the comparisons and logical ops (scalargrad wrote
    # them element by element where ATen refuses)
    "x = torch.arange(8.); x[:6].addcmul_(x[2:], torch.ones(6))",
    "x = torch.arange(8.); x[:6].addcmul_(torch.ones(6), x[2:])",
    "x = torch.arange(8.); x[:6].addcdiv_(x[2:], torch.ones(6))",
    "x = torch.arange(8.); x[:6].lerp_(x[2:], 0.5)",
    "x = torch.arange(8.); x[:6].lerp_(torch.ones(6), x[2:])",
    "x = torch.arange(8.); x[:6].clamp_(x[2:], None)",
    "x = torch.arange(8.); x[:6].clamp_max_(x[2:])",
    "x = torch.arange(8.); x[:6].lt_(x[2:])",
    "x = torch.arange(8.); x[:6].logical_xor_(x[2:])",
    "x = torch.arange(8.); x[:6].lerp_(x[:6], 0.5)",
    "x = torch.arange(8.); x[:6].addcmul_(x[:6], x[:6])",
]


def test_partial_overlap_as_pytorch(torch_ref):
    def outcomes(mod):
        return [outcome(mod, src + "\nout = x") for src in PARTIAL]

    assert outcomes(scalargrad) == outcomes(torch_ref)
