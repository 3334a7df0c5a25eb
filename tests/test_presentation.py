"""Classes are shown under PyTorch's module paths (``<class 'torch.nn.modules.linear.Linear'>``),
as a program run with ``torch`` resolved to scalargrad prints them."""

from __future__ import annotations

import importlib

import pytest

import scalargrad

# the packages whose public classes a program may print, as PyTorch names them
PACKAGES = ["", "nn", "nn.init", "nn.utils", "optim", "optim.lr_scheduler", "utils.data", "utils.hooks", "autograd",
            "autograd.function", "autograd.graph"]

# classes scalargrad stands in for with a placeholder that refuses to be made (not implemented)
_PLACEHOLDERS = {"Adafactor", "Muon", "SparseAdam"}


@pytest.mark.parametrize("package", PACKAGES)
def test_every_class_has_pytorchs_module_path(torch_ref, package):
    sm = importlib.import_module("scalargrad" + ("." + package if package else ""))
    tm = importlib.import_module("torch" + ("." + package if package else ""))
    differ = []
    for name in dir(tm):
        t_obj = getattr(tm, name, None)
        if name.startswith("_") or not isinstance(t_obj, type) or name in _PLACEHOLDERS:
            continue
        try:
            s_obj = getattr(sm, name)
        except (AttributeError, NotImplementedError):
            continue  # not implemented (Unsupported)
        if isinstance(s_obj, type):
            got, want = (f"{c.__module__}.{c.__qualname__}" for c in (s_obj, t_obj))
            if got != want:
                differ.append((name, got, want))
    assert differ == []


def test_classes_and_default_reprs_read_as_pytorchs():
    # PyTorch 2.13 prints these (its documentation's and tutorials' outputs)
    nn = scalargrad.nn
    assert str(type(nn.Linear(2, 3))) == "<class 'torch.nn.modules.linear.Linear'>"
    assert str(nn.BatchNorm2d) == "<class 'torch.nn.modules.batchnorm.BatchNorm2d'>"
    assert str(scalargrad.optim.SGD) == "<class 'torch.optim.sgd.SGD'>"
    assert str(scalargrad.utils.data.TensorDataset) == "<class 'torch.utils.data.dataset.TensorDataset'>"
    assert str(scalargrad.Size) == "<class 'torch.Size'>" and str(scalargrad.no_grad) == \
        "<class 'torch.autograd.grad_mode.no_grad'>"
    handle = scalargrad.tensor(1.0, requires_grad=True).register_hook(lambda g: g)
    assert repr(handle).startswith("<torch.utils.hooks.RemovableHandle object at 0x")


_GRAPH_PROGRAM = """
x = torch.tensor(2.0, requires_grad=True)
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
y = x * 3
nodes = [y.grad_fn, y.grad_fn.next_functions[0][0], Twice.apply(x).grad_fn]
shown = [str(type(n)) for n in nodes] + [repr(x.register_hook(lambda g: g)), repr(torch.Generator())]
"""


def test_graph_nodes_handles_and_generators_read_as_pytorchs(torch_ref):
    """The classes of graph nodes (C++ classes in PyTorch, a Python one for a custom Function),
    and the default reprs of a hook handle and a generator, in a fresh namespace (nothing else
    of scalargrad's imported first)."""
    import re
    import subprocess
    import sys

    def shown(lib: str) -> list:
        code = f"import {lib} as torch\n{_GRAPH_PROGRAM}\nprint(shown)"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        return re.sub(r"0x[0-9a-f]+", "0x", out)

    assert shown("scalargrad") == shown("torch")
