"""Applying addcmul, addcdiv and lerp (``_ops/pointwise.py``): argument checks in PyTorch's
words, type promotion over the three tensors, broadcasting, and the elements.

The Python number (``value``, a number ``weight``) takes no part in promotion: the kernel casts
it to the computation dtype (the op's forward does), and the node keeps it as given.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.layout import elementwise_strides
from .._ops import pointwise as P
from .arguments import not_tensor
from .deprecated_overloads import accepting
from .elementwise import column_cast, compute
from .inplace import inplace
from .operands import broadcast_shapes, check_size, result_dtype
from .tensor import Tensor, make

__all__ = ["addcmul", "addcdiv", "lerp", "check_tensor", "check_number", "install"]

_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def check_tensor(name: str, arg: str, pos: int, x) -> None:
    """PyTorch's refusal of a non-tensor where a tensor argument belongs."""
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, arg, pos)


def check_number(name: str, arg: str, x):
    """A Scalar argument as a Python number (a one-element tensor gives its element)."""
    if isinstance(x, Tensor):
        if x._t.numel != 1:
            raise RuntimeError(f"a Tensor with {x._t.numel} elements cannot be converted to Scalar")
        return x.item()
    if x.__class__ not in (int, float, bool):
        raise TypeError(f"{name}(): argument '{arg}' must be Number, not {type(x).__name__}")
    return x


def _apply(op, operands: tuple, c, dt: dtypes.dtype | None = None) -> Tensor:
    """``op`` over broadcast tensor operands, computed in their promoted dtype (or ``dt``), with
    the number ``c``."""
    dt = dt or result_dtype(operands)
    shape = ()
    for x in operands:
        shape = broadcast_shapes(shape, x._t.shape)
    r = dt.round
    if c is not None:
        c = (c, r(c))  # the number as given, and cast to the computation dtype
    if not shape:
        vals = [x._val if x._t.dtype is dt else r(x._val) for x in operands]
        return make(op, TensorType(dt, ()), r(op.forward(r, *vals, c) if op.uses_c else op.forward(r, *vals)),
                    operands, c)
    n = check_size(shape)
    cols = [column_cast(x, dt, shape) for x in operands]
    vals = compute(op, dt, cols, n, c)
    strides = None
    if not all(x._t.contiguous for x in operands):
        strides = elementwise_strides(shape, [(x._t.shape, x._t.strides) for x in operands])
    return make(op, TensorType(dt, shape, strides), vals, operands, c)


def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, value=1) -> Tensor:
    """``self + value * tensor1 * tensor2``, broadcast (see ``_ops/pointwise.py`` for its rounding)."""
    value = check_number("addcmul", "value", value)
    return _apply(P.Addcmul, (self, tensor1, tensor2), value)


def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, value=1) -> Tensor:
    """``self + value * tensor1 / tensor2``, broadcast; integer tensor1 and tensor2 are refused."""
    value = check_number("addcdiv", "value", value)
    if not tensor1._t.dtype.is_floating_point and not tensor2._t.dtype.is_floating_point:
        raise RuntimeError(_INTEGER_ADDCDIV)
    return _apply(P.Addcdiv, (self, tensor1, tensor2), value)


def lerp(self: Tensor, end: Tensor, weight) -> Tensor:
    """``self + weight * (end - self)``, weight a number or a tensor (float dtypes only)."""
    dt = self._t.dtype
    if end._t.dtype is not dt:
        raise RuntimeError(f"expected dtype {dt.c_name} for `end` but got dtype {end._t.dtype.c_name}")
    if isinstance(weight, Tensor):
        # a 0-dim weight of another dtype is cast to self's by the kernel
        if weight._t.ndim and weight._t.dtype is not dt:
            raise RuntimeError(f"expected dtype {dt.c_name} for `weight` but got dtype {weight._t.dtype.c_name}")
        _floating_only(dt, "lerp_kernel_tensor")
        return _apply(P.LerpTensor, (self, end, weight), None, dt)
    weight = check_number("lerp", "weight", weight)
    _floating_only(dt, "lerp_kernel_scalar")
    return _apply(P.LerpScalar, (self, end), weight, dt)


def _floating_only(dt: dtypes.dtype, kernel: str) -> None:
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.short}\'')


def _checked(name: str, fn, in_place: bool = False):
    def apply(self, tensor1, tensor2, *, value=1):
        check_tensor(name, "tensor1", 1, tensor1)
        check_tensor(name, "tensor2", 2, tensor2)
        if in_place:
            return inplace(self, lambda t: fn(t, tensor1, tensor2, value), operands=(tensor1, tensor2))
        return fn(self, tensor1, tensor2, value)

    return apply


def _checked_function(name: str, fn):
    def apply(input, tensor1, tensor2, *, value=1, out=None):
        check_tensor(name, "input", 1, input)
        check_tensor(name, "tensor1", 2, tensor1)
        check_tensor(name, "tensor2", 3, tensor2)
        return fn(input, tensor1, tensor2, value)

    return apply


def _lerp_method(self, end, weight):
    check_tensor("lerp", "end", 1, end)
    return lerp(self, end, weight)


def _lerp_inplace(self, end, weight):
    check_tensor("lerp_", "end", 1, end)
    return inplace(self, lambda t: lerp(t, end, weight), operands=(end, weight))


def _lerp_function(input, end, weight, *, out=None):
    check_tensor("lerp", "input", 1, input)
    check_tensor("lerp", "end", 2, end)
    return lerp(input, end, weight)


def install(method, function) -> None:
    """addcmul, addcdiv, lerp: methods, in-place forms, torch functions."""
    for name, fn in (("addcmul", addcmul), ("addcdiv", addcdiv)):  # each also in PyTorch's deprecated (value, t1, t2)
        method(name, accepting(name, _checked(name, fn), method=True))
        method(name + "_", accepting(name + "_", _checked(name + "_", fn, in_place=True), method=True))
        function(name, accepting(name, _checked_function(name, fn), method=False))
    method("lerp", _lerp_method)
    method("lerp_", _lerp_inplace)
    function("lerp", _lerp_function)
