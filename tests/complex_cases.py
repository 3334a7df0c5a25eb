"""What the complex-number test files share: a source line evaluated under both libraries, and
the fixture that takes the complex gate down after a module (the gate goes up with the first
complex element; later test modules get the process back)."""

from __future__ import annotations

import math
import warnings

import pytest

import scalargrad
from scalargrad._tensor import complex_numbers


@pytest.fixture(autouse=True, scope="module")
def gate_removed_after():
    yield
    complex_numbers.uninstall_gate()


def both(torch_ref, src: str):
    """``src`` evaluated with ``torch`` as scalargrad and as PyTorch (warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(src, {"torch": scalargrad, "math": math}), eval(src, {"torch": torch_ref, "math": math})
