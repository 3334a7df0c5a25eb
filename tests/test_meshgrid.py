"""torch.meshgrid (issue 23's census: 11 sources, d2l's attention and plotting code): a
composition of views as ATen builds it (each input viewed along its dimension, then expanded:
``ExpandBackward0`` over ``ViewBackward0``), "ij" and "xy" indexing, PyTorch's warning when
``indexing`` is not given (once per process) and its errors, against live PyTorch."""

from __future__ import annotations

import subprocess
import sys

import pytest

import scalargrad


def _seen(L) -> list:
    t = L.tensor
    x = t([1.0, 2.0, 3.0], requires_grad=True)
    y = t([4.0, 5.0])
    z = t([-1.0, 0.5, 2.0, 7.0], dtype=L.float32)
    out = []
    for args, kwargs in [((x, y), {"indexing": "ij"}), (([x, y],), {"indexing": "xy"}), ((x, y, z), {"indexing": "xy"}),
                         ((x, y, z), {"indexing": "ij"}), ((x,), {"indexing": "xy"}), (((x, y),), {"indexing": "ij"}),
                         ((t(3.0), y), {"indexing": "ij"}), ((t([1, 2]), t([3, 4, 5])), {"indexing": "xy"}),
                         ((t([]), y), {"indexing": "ij"})]:
        grids = L.meshgrid(*args, **kwargs)
        out.append([(g.tolist(), tuple(g.shape), g.stride(), str(g.dtype), g.is_contiguous(),
                     type(g.grad_fn).__name__ if g.grad_fn else None,
                     [type(n).__name__ for n, _ in g.grad_fn.next_functions] if g.grad_fn else None) for g in grids])
    a, b, c = L.meshgrid(x, y, z, indexing="xy")
    (a * L.arange(24.0).view(2, 3, 4)).sum().backward()
    out.append(x.grad.tolist())
    for bad in (lambda: L.meshgrid(indexing="ij"), lambda: L.meshgrid(x, y, indexing="xx"),
                lambda: L.meshgrid(x, t([1, 2]), indexing="ij"), lambda: L.meshgrid([], indexing="ij")):
        try:
            bad()
            out.append("no error")
        except RuntimeError as e:
            out.append(str(e))
    return out


def test_grids_views_and_gradients_as_pytorchs(torch_ref):
    assert _seen(scalargrad) == _seen(torch_ref)


def test_a_tensor_of_two_dimensions_is_refused_as_in_pytorch():
    # PyTorch's message ends with the tensor as its C++ printer shows it; scalargrad gives its type and size
    with pytest.raises(RuntimeError, match=r"^torch\.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                                           r"\[ torch\.FloatTensor\{2,2\} \]$"):
        scalargrad.meshgrid(scalargrad.ones(2, 2), scalargrad.ones(2), indexing="ij")


PROGRAM = """
import warnings
import torch
warnings.simplefilter("always")
x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    a, b = torch.meshgrid(x, y)
    torch.meshgrid(x, y)
    torch.meshgrid(x, y, indexing="ij")
print([(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in caught], a.tolist(), b.tolist())
"""


def test_the_indexing_warning_once_per_process(torch_ref, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM, encoding="utf-8")
    outs = [subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300).stdout
            for cmd in ([sys.executable, str(prog)], [sys.executable, "-m", "scalargrad", "run", str(prog)])]
    assert outs[0] == outs[1] and "it will be required to pass the indexing argument." in outs[0]
    assert outs[0].count("UserWarning") == 1
