"""The elements of a meta tensor (``device='meta'``): none.

A meta tensor has a shape, strides and a dtype and no data. Its ``_val`` is ``NO_DATA``, one
shared object that refuses every use of elements: an op that reads or writes its input's
numbers without knowing about the meta device raises ``Unsupported`` naming the meta device
instead of computing anything, so no number is ever made up for a meta tensor. An op that only
passes ``_val`` along (``detach``, ``nn.Parameter``, ``requires_grad_``) gives a meta tensor
again, with the metadata it computed, as PyTorch's meta kernels do.

``NO_DATA`` is a list (so the code that tells a 0-dim tensor's number from a list of elements
takes the list branch) whose every element operation, conversion, comparison and arithmetic
raises; it holds nothing itself.
"""

from __future__ import annotations

from .errors import Unsupported

__all__ = ["NO_DATA", "is_no_data", "meta_refusal", "own_copy", "item_error"]


def meta_refusal() -> Unsupported:
    """What an op scalargrad has no meta kernel for raises on a meta tensor."""
    return Unsupported("this operation on meta tensors (device='meta')",
                       "scalargrad's meta tensors have a shape and a dtype but no data: they can be made by the "
                       "factories, initialised in place, detached, wrapped as Parameters and loaded into, nothing "
                       "else")


def _refuse(self, *args, **kwargs):
    raise meta_refusal()


_REFUSED = (
    "__len__", "__iter__", "__reversed__", "__getitem__", "__setitem__", "__delitem__", "__contains__", "__add__",
    "__radd__", "__iadd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__imul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__divmod__", "__rdivmod__", "__pow__", "__rpow__",
    "__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__",
    "__rlshift__", "__rshift__", "__rrshift__", "__neg__", "__pos__", "__abs__", "__invert__", "__float__", "__int__",
    "__index__", "__complex__", "__bool__", "__round__", "__trunc__", "__floor__", "__ceil__", "__lt__", "__le__",
    "__gt__", "__ge__", "__eq__", "__ne__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__", "__format__",
    "__str__", "copy", "index", "count", "append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear",
)


class _NoData(list):
    """A list with no elements that refuses to be read, written, compared or converted."""

    __slots__ = ()
    __hash__ = None  # a list's

    def __repr__(self) -> str:
        return "NO_DATA"


for _name in _REFUSED:
    setattr(_NoData, _name, _refuse)

NO_DATA = _NoData()


def is_no_data(val) -> bool:
    """Whether ``val`` (a tensor's ``_val``) is a meta tensor's."""
    return val is NO_DATA


def own_copy(val, ndim: int):
    """A tensor's elements for a new tensor over the same memory: a copy of the list (the
    number of a 0-dim tensor as it is); a meta tensor's ``NO_DATA`` as it is."""
    return list(val) if ndim and val is not NO_DATA else val


def item_error(numel: int) -> str:
    """PyTorch's message where ``Tensor.item()`` has no one element to give: the tensor has
    ``numel`` elements, or it is a meta tensor (checked second, as PyTorch does)."""
    if numel != 1:
        return f"a Tensor with {numel} elements cannot be converted to Scalar"
    return "Tensor.item() cannot be called on meta tensors"
