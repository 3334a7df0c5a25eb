"""``out=`` (issue 23's core list, P0): PyTorch writes the result into ``out``; scalargrad's
functions took ``out=None`` and ignored it (``torch.maximum(a, b, out=c)`` left ``c`` as it was:
a silently wrong value). Until the core writes it, every function of the torch namespace that
takes ``out`` refuses a given one by name; ``out=None`` is PyTorch's default and changes nothing."""

from __future__ import annotations

import inspect

import pytest

import scalargrad
from scalargrad._tensor.surface import FUNCTIONS
from scalargrad.errors import Unsupported


def _taking_out() -> list:
    names = []
    for name, fn in sorted(FUNCTIONS.items()):
        try:
            params = inspect.signature(getattr(fn, "__wrapped__", fn)).parameters
        except (TypeError, ValueError):
            continue
        if "out" in params:
            names.append(name)
    return names


def test_many_functions_take_out():
    assert {"add", "mul", "maximum", "exp", "zeros", "rand", "normal"} - set(_taking_out()) == {"normal"}


@pytest.mark.parametrize("name", _taking_out() + ["normal"])
def test_a_given_out_is_refused_by_name_and_left_unchanged(name):
    out = scalargrad.tensor([7.0, 7.0])
    with pytest.raises(Unsupported, match=rf"^torch\.{name}\(out=\.\.\.\) is not supported: .*out\.copy_"):
        FUNCTIONS[name](scalargrad.tensor([1.0, 2.0]), scalargrad.tensor([3.0, 4.0]), out=out)
    assert out.tolist() == [7.0, 7.0]


def test_out_none_is_pytorchs_default():
    a, b = scalargrad.tensor([1.0, 5.0]), scalargrad.tensor([3.0, 2.0])
    assert scalargrad.maximum(a, b, out=None).tolist() == [3.0, 5.0]
    assert scalargrad.zeros(2, out=None).tolist() == [0.0, 0.0]
