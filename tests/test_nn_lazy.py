"""Lazy modules (issue 23's census: LazyLinear is used by 31 of the documents, d2l's mostly):
LazyLinear, LazyConv1d/2d, LazyBatchNorm1d/2d. Before the first forward their parameters are
``<UninitializedParameter>``; the first input fixes the shapes, the parameters are drawn then
(PyTorch's generator, the ordinary layer's ``reset_parameters``) and the module becomes the
ordinary class. Each program runs under both libraries and must print the same."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import scalargrad

PROGRAMS = {
    "linear": """
        import torch
        from torch import nn
        torch.manual_seed(0)
        net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
        print(net, net[0].weight, type(net[0].weight), net[0].in_features, net[0].has_uninitialized_params())
        opt = torch.optim.SGD(net.parameters(), lr=0.1)   # made before: holds the same parameter objects
        print(net.state_dict())
        x = torch.rand(2, 3)
        loss = net(x).pow(2).sum()
        loss.backward()
        opt.step()
        print(net, type(net[0]).__name__, net[0].weight, net[2].bias, loss)
        print(list(net.state_dict().keys()), [type(p).__name__ for p in net.parameters()])
        print(net(torch.rand(5, 3)).shape)
    """,
    "conv_and_batch_norm": """
        import torch
        from torch import nn
        torch.manual_seed(3)
        c = nn.Sequential(nn.LazyConv2d(2, kernel_size=3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(),
                          nn.LazyConv1d(1, 2) if False else nn.Flatten(), nn.LazyLinear(2), nn.LazyBatchNorm1d())
        print(c)
        out = c(torch.rand(4, 3, 5, 5))
        print(c, out, c[1].running_mean, c[1].num_batches_tracked, c[5].running_var)
        d = nn.LazyConv1d(3, 2)
        print(d(torch.rand(2, 4, 6)).shape, d)
    """,
    "load_into_lazy": """
        import torch
        from torch import nn
        torch.manual_seed(0)
        src = nn.Linear(3, 2)
        lazy = nn.LazyLinear(2)
        print(lazy.load_state_dict(src.state_dict()), type(lazy).__name__, lazy.weight.shape)
        print(lazy(torch.ones(1, 3)), src(torch.ones(1, 3)))
        print(type(lazy).__name__)
    """,
    # nothing computes on a parameter before the first forward: PyTorch's ValueError, never an empty result
    "use_before_forward": """
        import torch
        from torch import nn
        net = nn.Sequential(nn.LazyLinear(2), nn.LazyBatchNorm1d())
        w = net[0].weight
        for use in (lambda: sum(p.numel() for p in net.parameters()), lambda: w.sum(), lambda: w * 2,
                    lambda: 2 + w, lambda: torch.add(w, 1), lambda: nn.init.normal_(w), lambda: w.tolist(),
                    lambda: len(w), lambda: w.dim(), lambda: w.detach(), lambda: torch.nn.functional.linear(
                    torch.ones(3), w), lambda: net[1].running_mean + 1, lambda: w.requires_grad_(False)):
            try:
                print("computed", use())
            except ValueError as e:
                print("ValueError", str(e)[:46])
        print(w.size(), w.dtype, w.grad, w.is_floating_point(), w.data, w.float() is w)
        net.to(torch.float64)
        print(w, w.dtype, net[1].running_var.dtype, net[0].weight is w)
        torch.manual_seed(0)
        y = net(torch.rand(3, 4, dtype=torch.float64))
        print(y.dtype, w.dtype, type(w).__name__, net[1].running_var.dtype, sum(p.numel() for p in net.parameters()))
    """,
}


@pytest.mark.slow  # two child interpreters per program (the quick run leaves it to CI)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_as_pytorch_prints(torch_ref, tmp_path, name):
    prog = tmp_path / f"{name}.py"
    prog.write_text(textwrap.dedent(PROGRAMS[name]), encoding="utf-8")
    runs = []
    for cmd in ([sys.executable, str(prog)], [sys.executable, "-m", "scalargrad", "run", str(prog)]):
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300)
        runs.append((proc.returncode, proc.stdout, proc.stderr.strip().splitlines()[-1:]))
    assert runs[0] == runs[1]


def test_materialize_keeps_the_object_and_changes_its_class():
    p = scalargrad.nn.UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad
    with pytest.raises(RuntimeError, match="^Can't access the shape of an uninitialized parameter"):
        _ = p.shape
    same = p
    p.materialize((2, 3))
    assert same is p and type(p) is scalargrad.nn.Parameter and p.shape == (2, 3)
    b = scalargrad.nn.UninitializedBuffer()
    b.materialize((4,))
    assert type(b) is scalargrad.Tensor and b.shape == (4,) and not b.requires_grad
