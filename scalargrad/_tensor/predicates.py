"""The in-place logical ops, ``x.logical_not_()`` and ``x.logical_and_(y)``...: ``x`` keeps its
dtype and holds 1s and 0s (the Api of ``_ops/predicates.py`` binds the out-of-place forms), and
``torch.logical_*(..., out=t)`` (PyTorch's docs use it), which writes the result into a ``t`` of
the result's shape in ``t``'s dtype; an ``out`` of another shape is refused by name.
PyTorch declares no derivative for them and leaves the graph as it was: a tensor that requires
grad keeps its grad_fn (and a leaf is not refused), only its values and version change."""

from __future__ import annotations

from .._base.errors import Unsupported
from .._base.grad_mode import no_grad
from .._ops import predicates as PR
from .arguments import check_input, check_other
from .elementwise import binary, unary
from .inplace import inplace
from .storage import write
from .tensor import Tensor

__all__ = ["install"]


def _in_place(t: Tensor, compute) -> Tensor:
    with no_grad():  # written outside the graph: its history and refusals are not PyTorch's here
        return inplace(t, compute)


def _into(out, res: Tensor, name: str) -> Tensor:
    if out is None:
        return res
    if not isinstance(out, Tensor) or tuple(out.shape) != tuple(res.shape):
        raise Unsupported(f"torch.{name}(out=...) of another shape than the result", "PyTorch resizes it")
    with no_grad():
        write(out, res.to(out.dtype)._val)
    return out


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
        return _into(out, unary(PR.LogicalNot, input), "logical_not")

    function("logical_not", logical_not, checked=False)
    for op in PR.LOGICAL:
        def call(input, other, *, out=None, _op=op, _name=op.api.method):
            check_input(_name, input)
            check_other(_name, other, 2, True)
            return _into(out, binary(_op, input, other), _name)

        function(op.api.method, call, checked=False)
