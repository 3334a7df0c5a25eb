"""The in-place logical ops, ``x.logical_not_()`` and ``x.logical_and_(y)``...: ``x`` keeps its
dtype and holds 1s and 0s (the Api of ``_ops/predicates.py`` binds the out-of-place forms), and
``torch.logical_*(..., out=t)`` (PyTorch's docs use it), which writes the result into ``t`` in
``t``'s dtype (``out_argument``).
PyTorch declares no derivative for them and leaves the graph as it was: a tensor that requires
grad keeps its grad_fn (and a leaf is not refused), only its values and version change."""

from __future__ import annotations

from .._base.grad_mode import no_grad
from .._ops import predicates as PR
from .arguments import check_input, check_other
from .elementwise import binary, unary
from .inplace import inplace
from .out_argument import CAST, call_with_out
from .tensor import Tensor

__all__ = ["install"]


def _in_place(t: Tensor, compute) -> Tensor:
    with no_grad():  # written outside the graph: its history and refusals are not PyTorch's here
        return inplace(t, compute)


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and the functions taking ``out``."""
    method("logical_not_", lambda self: _in_place(self, lambda t: unary(PR.LogicalNot, t)))
    for op in PR.LOGICAL:
        name = op.api.method + "_"

        def apply(self, other, _op=op, _name=name):
            check_other(_name, other, 1, True)
            return _in_place(self, lambda t: binary(_op, t, other))

        method(name, apply)

    def logical_not(input, *, out=None):  # PyTorch's names
        check_input("logical_not", input)
        if out is not None:
            return call_with_out("logical_not", logical_not, (input,), {}, out, CAST, False)
        return unary(PR.LogicalNot, input)

    function("logical_not", logical_not, checked=False)
    for op in PR.LOGICAL:
        def call(input, other, *, out=None, _op=op, _name=op.api.method):
            check_input(_name, input)
            check_other(_name, other, 2, True)
            if out is not None:
                return call_with_out(_name, lambda a, b: binary(_op, a, b), (input, other), {}, out, CAST, False)
            return binary(_op, input, other)

        function(op.api.method, call, checked=False)
