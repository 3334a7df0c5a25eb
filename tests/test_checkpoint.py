"""torch.utils.checkpoint against live PyTorch: the reentrant variant's CheckpointFunctionBackward
node, its recomputation from the forward's random state (dropout), the gradients of the inputs
and of the parameters the function uses, its errors and warnings; the non-reentrant variant's
plain graph; checkpoint_sequential. The functions are elementwise (one IEEE operation per
element), so every value is the same on every processor."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import warnings
    import {lib} as torch
    from {lib}.utils.checkpoint import checkpoint, checkpoint_sequential

    warnings.simplefilter("always")
    warnings.showwarning = lambda m, c, *a: print("warning:", c.__name__, m)
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(3))
    b = torch.nn.Parameter(torch.randn(3))
    x = torch.randn(2, 3, requires_grad=True)
    drop = torch.nn.Dropout(0.5)

    def f(a):
        return drop(torch.relu(a * w + b)) * 2

    y = checkpoint(f, x)
    print(y)
    y.sum().backward()
    print(x.grad, w.grad, b.grad)
    y = checkpoint(f, x, use_reentrant=True)
    print(y, torch.rand(2))  # the recomputation leaves the program's random stream where it was
    y.sum().backward()
    print(x.grad, w.grad, b.grad, torch.rand(2))
    y = checkpoint(f, x, use_reentrant=False)
    print(y, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
    y.sum().backward()
    print(x.grad, w.grad)
    for call in (lambda: torch.autograd.grad(checkpoint(f, x, use_reentrant=True).sum(), x),
                 lambda: checkpoint(f, x, use_reentrant=True).sum().backward(inputs=[x]),
                 lambda: checkpoint(f, x, use_reentrant=True, foo=1),
                 lambda: checkpoint(f, x, use_reentrant=True, debug=True),
                 lambda: checkpoint(f, x, use_reentrant=False, determinism_check="all")):
        try:
            call()
        except (RuntimeError, ValueError) as e:
            print(type(e).__name__, e)
    z = checkpoint(f, torch.ones(2, 3), use_reentrant=True)
    print(z.requires_grad, z.grad_fn)

    class Scale(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.s = torch.nn.Parameter(torch.arange(1.0, n + 1))

        def forward(self, v):
            return v * self.s

    seq = torch.nn.Sequential(Scale(3), torch.nn.ReLU(), Scale(3), torch.nn.Hardtanh(), Scale(3))
    for reentrant in (True, False, None):
        out = checkpoint_sequential(seq, 2, x, use_reentrant=reentrant)
        out.sum().backward()
        print(out, out.grad_fn.name(), seq[0].s.grad, seq[4].s.grad)
    print(torch.utils.checkpoint.detach_variable((x, 3)))
""")


def _run(lib: str) -> str:
    proc = subprocess.run([sys.executable, "-c", PROGRAM.format(lib=lib)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_checkpoint_is_pytorchs(torch_ref):
    assert _run("scalargrad") == _run("torch")


def test_checkpoint_without_pytorch():
    out = _run("scalargrad")
    assert out.count("warning: UserWarning torch.utils.checkpoint: the use_reentrant parameter should be passed "
                     "explicitly.") == 1
    assert out.count("grad_fn=<CheckpointFunctionBackward>") == 2
    assert "RuntimeError When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()" in out
    assert "ValueError Unexpected keyword arguments: foo" in out
    assert "warning: UserWarning None of the inputs have requires_grad=True. Gradients will be None" in out
