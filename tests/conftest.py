"""Shared test helpers: PyTorch (optional) as the source of truth.

Checking a gradient? Use the ``assert_grads`` fixture: ``assert_grads(z, {x: 0.6000000238418579})``
asserts autograd's gradients (exactly, or within ``rel``/``abs``) AND proves them with SymPy
(``scalargrad.symbolic.sympy_check``), so every gradient test is also a symbolic check.
"""

from __future__ import annotations

import pytest

try:  # the conformance tests compare with PyTorch and skip without it
    import torch as _torch
except ImportError:  # pragma: no cover - depends on the environment
    _torch = None


@pytest.fixture
def torch_ref():
    """Real PyTorch, or skip the test."""
    if _torch is None:
        pytest.skip("PyTorch is not installed (pip install -e '.[conformance]')")
    return _torch


@pytest.fixture
def assert_grads():
    """``assert_grads(output, {input: expected, ...}, rel=None, abs=None, symbols=None)``.

    Computes ``autograd.grad(output, inputs, retain_graph=True)`` (``.grad`` untouched),
    asserts each gradient equals its expected figure (exactly unless ``rel``/``abs`` are
    given; an expected None means "not used"), then runs ``sympy_check`` on the same inputs
    and fails with its report unless SymPy agrees. Returns the ``SymbolicReport``.
    """
    from scalargrad.autograd import grad
    from scalargrad.symbolic import sympy_check

    def check(output, expected: dict, rel=None, abs=None, symbols=None):  # noqa: A002 - pytest's name
        inputs = list(expected)
        got = grad(output, inputs, retain_graph=True, allow_unused=True)
        for i, (g, want) in enumerate(zip(got, expected.values())):
            value = None if g is None else g.item()
            if want is None or (rel is None and abs is None):
                assert value == want, f"input {i}: autograd gives {value!r}, expected {want!r}"
            else:
                assert value == pytest.approx(want, rel=rel, abs=abs), f"input {i}: autograd gives {value!r}"
        return sympy_check(output, inputs, symbols=symbols, raise_on_mismatch=True)

    return check
