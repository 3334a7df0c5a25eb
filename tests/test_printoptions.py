"""torch.set_printoptions: every option honoured by the tensor repr, as PyTorch 2.13 prints.

The expected texts without PyTorch are those of ``set_printoptions``' own docstring; the
conformance test prints the same tensors (exactly representable values or float32 roundings
of decimal literals, the same bits in both libraries) under each setting in both libraries.
"""

from __future__ import annotations

import pytest

import scalargrad as torch
from scalargrad import nn
from scalargrad._base.formatting import get_printoptions


@pytest.fixture(autouse=True)
def _default_options():
    torch.set_printoptions(profile="default")
    yield
    torch.set_printoptions(profile="default")


def test_the_docstring_examples():
    torch.set_printoptions(precision=2)
    assert repr(torch.tensor([1.12345])) == "tensor([1.12])"
    torch.set_printoptions(threshold=5)
    assert repr(torch.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    torch.set_printoptions(profile="default")
    assert repr(torch.tensor([1.12345])) == "tensor([1.1235])"
    assert repr(torch.arange(10)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"


def test_profiles_and_sci_mode_reset():
    torch.set_printoptions(profile="short")
    assert get_printoptions() == {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80,
                                  "sci_mode": None}
    torch.set_printoptions(sci_mode=True)
    assert repr(torch.tensor([1.5, 2.0])) == "tensor([1.50e+00, 2.00e+00])"
    torch.set_printoptions(precision=3)  # sci_mode not given: back to automatic, as in PyTorch
    assert get_printoptions()["sci_mode"] is None
    assert repr(torch.tensor([1.5, 2.0])) == "tensor([1.500, 2.000])"
    torch.set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == float("inf")
    assert "..." not in repr(torch.arange(2000))


def _cases(torch_mod, nn_mod) -> list:
    t = torch_mod.tensor
    torch_mod.manual_seed(0)
    p = nn_mod.Parameter(t([[0.125, -1.5, 3.0], [2.0, 0.0, -0.25]]))
    return [
        t(3.14159265),
        t([1.12345, -2.5, 0.001]),
        t([1e-5, 1.0, 123456.0]),
        t([1.0, 2.0, float("nan"), float("inf")]),
        t([100.0, 20000.0]),
        t([0.1, 0.2], dtype=torch_mod.float64) / 3,
        torch_mod.arange(30) * 7 - 100,
        torch_mod.arange(40.0).reshape(5, 8) / 8,
        torch_mod.arange(120.0).reshape(2, 3, 20) - 60.5,
        torch_mod.arange(1500).reshape(30, 50),
        t([True, False, True]),
        t([0.5, 0.25], requires_grad=True) * 3,
        p,
        t([], dtype=torch_mod.float64),
    ]


_SETTINGS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"sci_mode": True},
    {"sci_mode": False},
    {"precision": 3, "sci_mode": True},
    {"threshold": 5},
    {"threshold": 10, "edgeitems": 1},
    {"threshold": 10, "edgeitems": 0},
    {"edgeitems": 5},
    {"linewidth": 40},
    {"linewidth": 20, "precision": 6},
    {"profile": "short"},
    {"profile": "full", "linewidth": 120},
    {"profile": "short", "precision": 5, "threshold": 50},
]


@pytest.mark.parametrize("options", _SETTINGS, ids=[",".join(f"{k}={v}" for k, v in o.items()) for o in _SETTINGS])
def test_reprs_are_pytorchs(torch_ref, options):
    torch_ref.set_printoptions(**options)
    try:
        theirs = [repr(x) for x in _cases(torch_ref, torch_ref.nn)]
    finally:
        torch_ref.set_printoptions(profile="default")
    torch.set_printoptions(**options)
    ours = [repr(x) for x in _cases(torch, nn)]
    for a, b in zip(ours, theirs):
        assert a == b
