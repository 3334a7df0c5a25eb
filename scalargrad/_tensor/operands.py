"""How operands combine, as PyTorch's TensorIterator combines them: the result dtype (type
promotion: tensors with dimensions over 0-dim tensors over Python numbers, a lower category
counting only when it is of a higher kind), the broadcast shape and the position of each
operand's element in it, the memory layout of a result, and the largest tensor scalargrad
builds.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._base import dtypes
from .._base.dtypes import TensorType, promote_types
from .._base.errors import Unsupported
from .._base.layout import elementwise_strides, numel
from .tensor import Tensor, defaults

__all__ = ["MAX_ELEMENTS", "check_size", "number_dtype", "result_dtype", "number_type", "broadcast_shapes", "positions",
           "cast", "laid_out"]

MAX_ELEMENTS = 1 << 24
"""The largest tensor scalargrad builds (each element is a Python float in a list)."""

_TOO_BIG = ("scalargrad keeps tensors as Python lists, so it refuses tensors of more than {limit} elements; "
            "this one would have {n} (shape {shape}). Verify the computation on a smaller tensor")


def check_size(shape: Sequence[int]) -> int:
    """The number of elements of ``shape``, or a clear error when scalargrad refuses it."""
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    n = numel(shape)
    if n > MAX_ELEMENTS:
        # a limit of scalargrad's, not an error of the program's: refused by name (exit status 3 under run)
        raise Unsupported(f"a tensor of {n} elements", _TOO_BIG.format(limit=MAX_ELEMENTS, n=n, shape=list(shape)))
    return n




def _promote_all(dts):
    out = None
    for d in dts:
        out = d if out is None else promote_types(out, d)
    return out


def _combine(higher, lower):
    """c10's ``combine_categories``: a lower-priority group only counts when of a higher kind."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":  # a float keeps its width, made complex; an integral or bool takes lower's
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is dtypes.bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def number_dtype(x):
    """The dtype PyTorch gives a Python number in type promotion."""
    if x.__class__ is bool:
        return dtypes.bool
    if x.__class__ is int:
        return dtypes.int64
    if isinstance(x, complex):  # the default complex dtype: complex64, complex128 under float64
        return defaults["dtype"].to_complex()
    return defaults["dtype"]


def result_dtype(operands: Sequence) -> dtypes.dtype:
    """PyTorch's ``result_type``: tensors with dimensions, then 0-dim tensors, then Python numbers."""
    dim, zero, wrapped = [], [], []
    for x in operands:
        if isinstance(x, Tensor):
            (dim if x._t.ndim else zero).append(x._t.dtype)
        elif x is not None:
            wrapped.append(number_dtype(x))
    return _combine(_promote_all(dim), _combine(_promote_all(zero), _promote_all(wrapped)))


def number_type(t: TensorType, c) -> TensorType:
    """Result type of tensor (op) Python number: a float number makes an integer tensor float,
    an int makes a bool tensor int64."""
    dt = t.dtype
    if c.__class__ is float and not dt.is_floating_point:
        return t.with_dtype(defaults["dtype"])
    if c.__class__ is int and dt is dtypes.bool:
        return t.with_dtype(dtypes.int64)
    return t




def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple:
    """The broadcast of two shapes, with PyTorch's message when they do not broadcast."""
    if tuple(a) == tuple(b):
        return tuple(a)
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        off = ndim - 1 - i
        da, db = len(a) - 1 - off, len(b) - 1 - off
        sa = a[da] if da >= 0 else 1
        sb = b[db] if db >= 0 else 1
        if not (sa == sb or sa == 1 or sb == 1):
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


_positions_cache: dict = {}


def positions(shape: Sequence[int], out_shape: Sequence[int]) -> list:
    """For each position of ``out_shape``, the flat index of the element of ``shape`` broadcast there."""
    key = (tuple(shape), tuple(out_shape))
    pos = _positions_cache.get(key)
    if pos is not None:
        return pos
    lead = len(out_shape) - len(shape)
    strides = [0] * len(out_shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[lead + i] = 0 if shape[i] == 1 else acc
        acc *= shape[i]
    idx = [0]
    for size, st in zip(out_shape, strides):
        idx = [base + i * st for base in idx for i in range(size)]
    if len(_positions_cache) < 512:
        _positions_cache[key] = idx
    return idx


def cast(x: Tensor, dt: dtypes.dtype):
    """``x``'s elements (a number or a list) converted to ``dt``."""
    if x._t.dtype is dt:
        return x._val
    return dtypes.cast_values(x._t.dtype, dt, x._val)



def laid_out(dt, shape: tuple, operands) -> TensorType:
    """The type of an elementwise result of ``shape`` over operands of these TensorTypes: laid
    out in their memory order, as TensorIterator allocates it (``x.t() * 2`` keeps the
    transposed strides; row-major when every operand is contiguous)."""
    for t in operands:  # a loop, not all(generator): this runs once per op
        if not t.contiguous:
            break
    else:
        if 0 not in shape or all(t.shape == shape for t in operands):
            # (an empty result of operands of other shapes takes TensorIterator's permuted
            # allocation, whose ties between equal strides can put an empty dim first: (4, 0, 1) + 1)
            return TensorType(dt, shape)
    return TensorType(dt, shape, elementwise_strides(shape, [(t.shape, t.strides) for t in operands]))
