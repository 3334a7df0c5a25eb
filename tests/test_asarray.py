"""torch.asarray against live PyTorch: what is shared and what copied, requires_grad's default
and its warn-once, the aliasing errors, sequences and NumPy arrays and scalars (every value
here is data movement or a cast: exact)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import warnings
    import numpy as np
    import {lib} as torch

    warnings.simplefilter("always")
    warnings.showwarning = lambda m, c, f, n, *a: print("warning:", c.__name__, m)

    def attempt(f):
        try:
            return f()
        except Exception as e:
            return type(e).__name__ + ": " + str(e)

    t = torch.tensor([1., 2.], requires_grad=True)
    y = t * 2
    for kw in ({{}}, {{"copy": True}}, {{"copy": False}}, {{"dtype": torch.float64}}, {{"requires_grad": True}},
               {{"dtype": torch.float64, "copy": False}}, {{"dtype": torch.float32, "copy": True}}):
        for src in (t, y):
            r = attempt(lambda: torch.asarray(src, **kw))
            print(kw, r if isinstance(r, str) else (r is src, r, r.requires_grad, r.is_leaf))
    n = np.array([1., 2.])
    r = torch.asarray(n); n[0] = 9; print(r)
    r = torch.asarray(n, copy=True); n[0] = 8; print(r, torch.asarray(n, dtype=torch.float32))
    print(torch.asarray([1, 2.5]), torch.asarray([1, 2]), torch.asarray(3), torch.asarray((1.5, 2)).dtype,
          torch.asarray([[1, 2], [3, 4]], dtype=torch.float32), torch.asarray([1., 2.], requires_grad=True))
    print(torch.asarray(np.float32(2.5)), torch.asarray(True), torch.asarray(np.int64(3), dtype=torch.float64))
    for f in (lambda: torch.asarray([1, 2], copy=False), lambda: torch.asarray(np.float32(1), copy=False),
              lambda: torch.asarray(n, dtype=torch.float32, copy=False), lambda: torch.asarray([1], dtype="x")):
        print(attempt(f))
    u = torch.tensor([1., 2.])
    print(torch.asarray(t, requires_grad=False) is t, t.requires_grad, torch.asarray(u, requires_grad=True) is u,
          u.requires_grad)
    z = torch.asarray(y, requires_grad=False)
    print(z, z.requires_grad, z._base is y)
    a = torch.tensor([1., 2., 3.]); b = torch.asarray(a); b[0] = 5
    print(a, torch.asarray(a, copy=True) is a)
""")


def _run(lib: str) -> str:
    proc = subprocess.run([sys.executable, "-c", PROGRAM.format(lib=lib)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_asarray_is_pytorchs(torch_ref):
    assert _run("scalargrad") == _run("torch")


def test_asarray_shares_copies_and_warns_once():
    pytest.importorskip("numpy")  # the program builds arrays (NumPy is an optional extra)
    out = _run("scalargrad")
    # the default requires_grad follows the tensor's, with one warning in the process
    assert out.count("warning: UserWarning torch.asarray: unspecified requires_grad now defaults") == 1
    assert "{} (True, tensor([1., 2.], requires_grad=True), True, True)" in out
    assert "{'copy': True} (False, tensor([1., 2.], grad_fn=<CloneBackward0>), True, False)" in out
    assert "ValueError: can't alias tensor with dtype 'Float' into dtype 'Double'." in out
    assert "ValueError: can't alias arbitrary sequence into a tensor." in out
    assert "tensor([9., 2.], dtype=torch.float64)\n" in out  # the array's write seen through the tensor
    assert "tensor([5., 2., 3.]) False" in out
