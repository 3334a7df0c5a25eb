"""Every factory's ``layout``, ``pin_memory``, ``out`` and ``names`` keywords and the ``*_like``
factories' ``memory_format`` (issue 23: PyTorch's parameter names), against live PyTorch 2.13:
its defaults are taken, ``pin_memory=True`` is CPU-only PyTorch's RuntimeError, a bad type its
TypeError, and a layout scalargrad lacks (sparse) is refused by name. A ``*_like`` result keeps
a dense input's strides (``preserve_format``) and the random ones draw in memory order, as
ATen's kernels walk a dense tensor, so ``rand_like`` of a channels-last tensor is PyTorch's
bit for bit.
"""

from __future__ import annotations

import pytest
from program_outcome import outcome

import scalargrad
from scalargrad.errors import Unsupported

# each program leaves ``out``; both libraries must leave the same repr (or raise alike)
TAKEN = [
    "out = [torch.zeros(2, layout=torch.strided, pin_memory=False), torch.ones(2, 1, layout=None),"
    " torch.empty(0, layout=torch.strided, pin_memory=False).shape, torch.full((2,), 3.0, layout=torch.strided),"
    " torch.tensor([1.0], pin_memory=False), torch.scalar_tensor(2, layout=torch.strided, pin_memory=False),"
    " torch.arange(3, layout=torch.strided, pin_memory=False), torch.linspace(0, 1, 3, layout=torch.strided),"
    " torch.logspace(0, 1, 2, pin_memory=False), torch.eye(2, layout=torch.strided, pin_memory=False)]",
    "torch.manual_seed(0); out = [torch.rand(2, layout=torch.strided, pin_memory=False),"
    " torch.randn(2, layout=torch.strided), torch.randint(5, (3,), layout=torch.strided, pin_memory=False),"
    " torch.randperm(4, layout=torch.strided), torch.normal(0.0, 1.0, (2,), layout=torch.strided)]",
    "x = torch.ones(2, 3); out = [torch.zeros_like(x, layout=torch.strided, pin_memory=False),"
    " torch.ones_like(x, memory_format=torch.preserve_format), torch.full_like(x, 2, layout=torch.strided),"
    " torch.empty_like(x, pin_memory=False).shape, x.new_zeros(size=(2,)), x.new_ones(2, layout=torch.strided),"
    " x.new_empty((1,), pin_memory=False).shape, x.new_full((2,), 4, layout=torch.strided),"
    " x.new_tensor([5], dtype=torch.int32)]",
    # out= of the factories that lacked it: written into out (resized), out returned
    "o = torch.empty(0); r = torch.arange(4, out=o); out = [r is o, o, torch.eye(2, out=torch.empty(5)),"
    " torch.full((2,), 7.0, out=torch.empty(1)), torch.linspace(0, 1, 3, out=torch.empty(3)),"
    " torch.logspace(0, 1, 2, out=torch.empty(0)), torch.empty(2, out=torch.empty(0)).shape]",
    "torch.manual_seed(0); o = torch.empty(0, dtype=torch.int64); r = torch.randperm(3, out=o);"
    " out = [r is o, o, torch.randint(3, (4,), out=torch.empty(0, dtype=torch.int64))]",
    # refusals in PyTorch's words
    "out = torch.zeros(2, pin_memory=True)",
    "out = torch.tensor([1.0], pin_memory=True)",
    "out = torch.arange(3, pin_memory=True)",
    "out = torch.ones_like(torch.ones(2), pin_memory=True)",
    "out = torch.ones(2).new_zeros(2, pin_memory=True)",
    "out = torch.rand(2, pin_memory=True)",
    "out = torch.zeros(2, layout=3)",
    "out = torch.zeros(2, pin_memory=1)",
    "out = torch.ones(2).new_tensor([1], torch.float64)",
    "out = torch.ones(2).new_tensor([1], pin_memory=False)",
    "out = torch.ones(2).new_zeros((2,), size=(2,))",
    "out = torch.empty(2, 3, memory_format=torch.channels_last)",
    "out = torch.empty(2, 3, 4, 5, memory_format=torch.preserve_format)",
    "out = torch.empty(2, 3, 4, 5, memory_format=3)",
    "out = torch.zeros_like(torch.ones(2), memory_format=torch.channels_last)",
]


def test_factories_take_pytorchs_layout_pin_memory_and_out(torch_ref):
    ours = [outcome(scalargrad, p, refusals=(RuntimeError, TypeError)) for p in TAKEN]
    theirs = [outcome(torch_ref, p, refusals=(RuntimeError, TypeError)) for p in TAKEN]
    assert ours == theirs


def test_other_layouts_and_names_are_refused_by_name():
    for call in (lambda: scalargrad.zeros(2, layout=scalargrad.sparse_coo),
                 lambda: scalargrad.full((2,), 1.0, names=("a",)), lambda: scalargrad.empty(2, names=("a",))):
        with pytest.raises(Unsupported):
            call()


LIKE = """
x = torch.zeros(2, 3, 4, 5)
sources = [x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2), torch.zeros(5, 4).t(),
           torch.zeros(3, 1).expand(3, 4), torch.zeros(1, 3, 1, 1).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
           x[:, :, ::2], torch.zeros(2, 3, 2, 2, 2).permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3)]
out = []
for src in sources:
    for f in ("rand_like", "randn_like", "zeros_like", "empty_like", "ones_like"):
        torch.manual_seed(0)
        # float64: randn's vectorised float32 fill (16 or more contiguous elements) rounds by processor
        r = getattr(torch, f)(src, **({"dtype": torch.float64} if f == "randn_like" else {}))
        out.append((f, r.stride(), r.tolist() if f != "empty_like" else None))
    torch.manual_seed(1)
    r = torch.randint_like(src, 10)
    out.append(("randint_like", r.stride(), r.tolist()))
    for fmt in (torch.contiguous_format, torch.preserve_format):
        out.append(torch.zeros_like(src, memory_format=fmt).stride())
out.append(torch.empty_like(x, memory_format=torch.channels_last).stride())
out.append(torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride())
out.append(torch.empty(1, 2, 3, 4, 5, memory_format=torch.channels_last_3d).stride())
out.append(torch.empty(2, 3, memory_format=torch.contiguous_format).stride())
for shape, perm in (((2, 3, 5, 7), (0, 1, 2, 3)), ((2, 3, 5, 7), (0, 2, 3, 1)), ((2, 0, 3), (2, 0, 1)), ((), ()),
                    ((4, 3), (1, 0))):
    r = torch.empty_permuted(shape, perm, layout=torch.strided, pin_memory=False)
    out.append((r.shape, r.stride(), r.dim_order(), r.is_contiguous(), r.dtype))
for shape, perm in (((2, 3), (0,)), ((2, 3), (0, 0)), ((2, 3), (1, 2))):
    try:
        torch.empty_permuted(shape, perm)
    except RuntimeError as e:
        out.append(str(e))
big = torch.zeros(2, 3, 4, 4).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
for dt in (torch.float32, torch.float64):
    torch.manual_seed(3)
    r = torch.randn_like(big, dtype=dt)  # 32 elements, not contiguous: normal_'s scalar path
    out.append((r.stride(), r.tolist()))
"""


def test_like_factories_keep_the_layout_and_draw_in_memory_order(torch_ref):
    # random draws bit for bit: PyTorch's CPU generator, the same on every processor
    assert outcome(scalargrad, LIKE) == outcome(torch_ref, LIKE)
