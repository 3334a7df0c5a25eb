"""Counting ops' nodes: ``unique`` and ``unique_consecutive`` of a tensor that requires grad.

Their values are input elements (``_c.map`` as every selection op's), so their SymPy form is the
copy of ``selection.Picked``; but PyTorch declares no derivative for ``_unique2``, ``unique_dim``
or ``unique_consecutive``: the node prints its name (``Unique2Backward0``) and a backward through
it raises PyTorch's NotImplementedError. The other counting ops (nonzero, count_nonzero,
bincount, histc, searchsorted, bucketize) give integer or non-differentiable results: no node.
"""

from __future__ import annotations

from .selection import Picked
from .table import register

__all__ = ["Unique2", "UniqueDim", "UniqueConsecutive", "COUNTING"]


def _not_implemented(aten: str):
    def backward(k, g, v):
        raise NotImplementedError(f"the derivative for '{aten}' is not implemented.")

    return staticmethod(backward)


def _unique_op(cls_name: str, name: str, aten: str):
    return register(type(cls_name, (Picked,), {"name": name, "saved": (), "api": None, "saves": False,
                                               "saves_inputs": False, "backward": _not_implemented(aten)}))


Unique2 = _unique_op("Unique2", "Unique2Backward0", "_unique2")
UniqueDim = _unique_op("UniqueDim", "UniqueDimBackward0", "unique_dim")
UniqueConsecutive = _unique_op("UniqueConsecutive", "UniqueConsecutiveBackward0", "unique_consecutive")

COUNTING = [Unique2, UniqueDim, UniqueConsecutive]
