"""nan_to_num (its replacements parsed as PyTorch's parser takes optional floats); the in-place
logical ops, ``x.logical_not_()`` and ``x.logical_and_(y)``...: ``x`` keeps its dtype and holds
1s and 0s (the Api of ``_ops/predicates.py`` binds the out-of-place forms), and
``torch.logical_*(..., out=t)`` (PyTorch's docs use it), which writes the result into ``t`` in
``t``'s dtype (``out_argument``).
PyTorch declares no derivative for the logical ops and leaves the graph as it was: a tensor that
requires grad keeps its grad_fn (and a leaf is not refused), only its values and version change."""

from __future__ import annotations

from .._base.dtypes import finite_max
from .._base.grad_mode import no_grad
from .._ops import predicates as PR
from .arguments import check_input, check_other
from .elementwise import binary, elementwise, unary
from .inplace import inplace
from .out_argument import CAST, call_with_out
from .tensor import Tensor
from .tensor_kernel import helper

__all__ = ["install", "nan_to_num", "nan_to_num_backward"]

_REPLACED = ("nan", "posinf", "neginf")


def nan_to_num(x: Tensor, nan=0.0, posinf=None, neginf=None) -> Tensor:
    """nan, +inf and -inf replaced (defaults: 0 and the dtype's largest finite values), as ATen's
    static_cast to the dtype; an integer or bool tensor is copied (NanToNumBackward0)."""
    dt = x._t.dtype
    if not dt.is_floating_point:
        return x.clone()
    top, r = finite_max(dt), dt.round
    c = (r(float(nan or 0.0)), r(top if posinf is None else float(posinf)),
         r(-top if neginf is None else float(neginf)))
    return elementwise(PR.NanToNum, (x,), c)


def _replacements(name: str, args: tuple, kw: dict, first: int) -> list:
    """nan, posinf, neginf from positional ``args`` (the first at position ``first``) and keywords."""
    if len(args) > 3:
        raise TypeError(f"{name}() takes from {first - 1} to {first + 2} positional arguments but "
                        f"{len(args) + first - 1} were given")
    for k in kw:
        if k not in _REPLACED:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
    out = []
    for i, k in enumerate(_REPLACED):
        positional = i < len(args)
        v = args[i] if positional else kw.get(k)
        if isinstance(v, Tensor) and not v._t.ndim:
            v = float(v.item())
        elif v is not None and v.__class__ not in (int, float, bool):
            where = f" (position {first + i})" if positional else ""
            raise TypeError(f"{name}(): argument '{k}'{where} must be float, not {type(v).__name__}")
        out.append(v)
    return out


def _in_place(t: Tensor, compute, other=None) -> Tensor:
    # written outside the graph: its history and refusals are not PyTorch's here; a dual
    # tensor keeps its tangent (PyTorch's in-place logical kernels never touch it)
    with no_grad():
        return inplace(t, compute, operands=(other,), keep_tangent=True)


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and the functions taking ``out``."""
    method("logical_not_", lambda self: _in_place(self, lambda t: unary(PR.LogicalNot, t)))
    for op in PR.LOGICAL:
        name = op.api.method + "_"

        def apply(self, other, _op=op, _name=name):
            check_other(_name, other, 1, True)
            return _in_place(self, lambda t: binary(_op, t, other), other)

        method(name, apply)

    def logical_not(input, *, out=None):  # PyTorch's names
        check_input("logical_not", input)
        if out is not None:
            return call_with_out("logical_not", logical_not, (input,), {}, out, CAST, False)
        return unary(PR.LogicalNot, input)

    function("logical_not", logical_not, checked=False)

    def nan_to_num_function(input, *args, out=None, **kw):  # PyTorch's names
        check_input("nan_to_num", input)
        values = _replacements("nan_to_num", args, kw, 2)
        if out is not None:
            return call_with_out("nan_to_num", lambda a: nan_to_num(a, *values), (input,), {}, out, CAST, False)
        return nan_to_num(input, *values)

    function("nan_to_num", nan_to_num_function, checked=False)
    method("nan_to_num", lambda self, *args, **kw: nan_to_num(self, *_replacements("nan_to_num", args, kw, 1)))

    def nan_to_num_(self, *args, **kw):
        values = _replacements("nan_to_num_", args, kw, 1)
        return inplace(self, lambda t: nan_to_num(t, *values))

    method("nan_to_num_", nan_to_num_)
    # is_nonzero is ``bool(t)``: the one element's truth (nan is true), PyTorch's refusal of 0 or 2+ elements
    method("is_nonzero", lambda self: bool(self))

    def is_nonzero(input):  # PyTorch's name
        check_input("is_nonzero", input)
        return bool(input)

    function("is_nonzero", is_nonzero, checked=False)
    for op in PR.LOGICAL:
        def call(input, other, *, out=None, _op=op, _name=op.api.method):
            check_input(_name, input)
            check_other(_name, other, 2, True)
            if out is not None:
                return call_with_out(_name, lambda a, b: binary(_op, a, b), (input, other), {}, out, CAST, False)
            return binary(_op, input, other)

        function(op.api.method, call, checked=False)


@helper
def nan_to_num_backward(k, g: Tensor, a: Tensor) -> Tensor:
    """derivatives.yaml's ``grad * at::isfinite(self)`` (a MulBackward0 under create_graph)."""
    return g * unary(PR.Isfinite, a)
