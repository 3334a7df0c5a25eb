"""The in-place logical ops, ``x.logical_not_()`` and ``x.logical_and_(y)``...: ``x`` keeps its
dtype and holds 1s and 0s (the Api of ``_ops/predicates.py`` binds the out-of-place forms).
PyTorch declares no derivative for them and leaves the graph as it was: a tensor that requires
grad keeps its grad_fn (and a leaf is not refused), only its values and version change."""

from __future__ import annotations

from .._base.grad_mode import no_grad
from .._ops import predicates as PR
from .arguments import check_other
from .elementwise import binary, unary
from .inplace import inplace
from .tensor import Tensor

__all__ = ["install"]


def _in_place(t: Tensor, compute) -> Tensor:
    with no_grad():  # written outside the graph: its history and refusals are not PyTorch's here
        return inplace(t, compute)


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``)."""
    method("logical_not_", lambda self: _in_place(self, lambda t: unary(PR.LogicalNot, t)))
    for op in PR.LOGICAL:
        name = op.api.method + "_"

        def apply(self, other, _op=op, _name=name):
            check_other(_name, other, 1)
            return _in_place(self, lambda t: binary(_op, t, other))

        method(name, apply)
