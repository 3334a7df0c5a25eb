"""Shared test helpers: PyTorch (optional) as the source of truth."""

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
