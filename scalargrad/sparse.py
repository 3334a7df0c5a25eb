"""``torch.sparse``: the functions of PyTorch's sparse namespace that scalargrad has (``mm``,
``sum``, ``spdiags``); every other name answers scalargrad's ``Unsupported`` naming it. The
sparse tensors themselves are in ``_tensor/sparse.py`` and ``_tensor/sparse_ops.py``."""

from __future__ import annotations

from ._base.missing_api import missing_attribute
from ._tensor.sparse_ops import sparse_mm as mm
from ._tensor.sparse_ops import sparse_sum as sum
from ._tensor.sparse_ops import spdiags

__all__ = ["mm", "sum", "spdiags"]


def __getattr__(name: str):
    return missing_attribute("torch.sparse", name)
