"""Gated linear units: ``glu(self, dim)`` (GluBackward0), one node over its input, the output
``a * sigmoid(b)`` with ``a`` the first half of ``dim`` and ``b`` the second. The node's ``_c``
is a ``Gate`` (the dimension, PyTorch's saved ``dim``, and the pairs of input positions of each
output element); the tensor layer computes the values and the backward
(``_tensor/gated.py``)."""

from __future__ import annotations

from .table import Op, register

__all__ = ["Gate", "Glu", "GATED_OPS"]


class Gate:
    """What a glu node keeps: ``dim`` (as given, PyTorch's ``_saved_dim``), the input's shape and,
    per output element, the flat positions of its ``a`` and ``b`` in the input."""

    __slots__ = ("dim", "shape", "pairs")

    def __init__(self, dim: int, shape: tuple, pairs: list) -> None:
        self.dim, self.shape, self.pairs = dim, shape, pairs


@register
class Glu(Op):
    """glu(self, dim): ``a * sigmoid(b)``; self: glu_backward(grad, self, dim)."""

    name = "GluBackward0"
    saved = (("dim", "c.dim"), ("self", 0))
    backward = staticmethod(lambda k, g, v: (k.glu_backward(g, v),))

    @staticmethod
    def sympy(sp, a, b):
        return a / (1 + sp.exp(-b))


GATED_OPS = [Glu]
