"""Index patterns and combinations: ``tril_indices``/``triu_indices`` (the coordinates of a
triangle of a matrix, as a 2 x N integer tensor) and ``combinations`` (ATen's composite: the
``ij`` meshgrid of ``r`` copies of a 1-d tensor, each grid ``masked_select``-ed by the mask of
strictly (or, with replacement, weakly) increasing indices, stacked as columns: StackBackward0
over MaskedSelectBackward0 over ExpandBackward0 over ViewBackward0, as PyTorch's graph)."""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .arguments import not_tensor
from .factories import check_dtype
from .joins import stack
from .selection import masked_select
from .tensor import Tensor, leaf
from .views import expand, view

__all__ = ["tril_indices", "triu_indices", "combinations", "install"]


def _triangle(row, col, offset, dtype, lower: bool, requires_grad) -> Tensor:
    name = "tril_indices" if lower else "triu_indices"
    for arg, pos, value in (("row", 1, row), ("col", 2, col), ("offset", 3, offset)):
        if value.__class__ is not int:
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {type(value).__name__}")
    dt = check_dtype(dtype) or dtypes.int64
    if dt is not dtypes.int64 and dt is not dtypes.int32:
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.short}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if requires_grad:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    pairs = [(i, j) for i in range(row) for j in range(col) if ((j - i <= offset) if lower else (j - i >= offset))]
    return leaf([i for i, _ in pairs] + [j for _, j in pairs], TensorType(dt, (2, len(pairs))))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory=False, requires_grad=False) -> Tensor:
    """The (row, column) coordinates of the lower triangle of a ``row`` x ``col`` matrix (its
    elements with ``column - row <= offset``), in row-major order: a 2 x N int64 (or int32) tensor."""
    return _triangle(row, col, offset, dtype, True, requires_grad)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory=False, requires_grad=False) -> Tensor:
    """The coordinates of the upper triangle (``column - row >= offset``), as ``tril_indices``."""
    return _triangle(row, col, offset, dtype, False, requires_grad)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """``itertools.combinations`` (or ``combinations_with_replacement``) of a 1-d tensor's
    elements, ``r`` at a time: an (N, r) tensor, built as ATen's composite (see the module)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "combinations")
    if r.__class__ is not int:
        raise TypeError(f"combinations(): argument 'r' (position 2) must be int, not {type(r).__name__}")
    if input._t.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._t.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return leaf([], TensorType(input._t.dtype, (0,)))
    n = input._t.shape[0]
    shape = [n] * r
    mask = []
    for flat in range(n ** r):
        idx, rest = [], flat
        for _ in range(r):
            idx.append(rest % n)
            rest //= n
        idx.reverse()
        mask.append(all((a <= b) if with_replacement else (a < b) for a, b in zip(idx, idx[1:])))
    mask_t = leaf(mask, TensorType(dtypes.bool, tuple(shape)))
    grids = []
    for i in range(r):
        view_shape = [1] * r
        view_shape[i] = -1
        grids.append(masked_select(expand(view(input, view_shape), shape), mask_t))
    return stack(grids, 1)


def install(method, function) -> None:
    """torch.tril_indices, torch.triu_indices, torch.combinations."""
    function("tril_indices", tril_indices, checked=False)
    function("triu_indices", triu_indices, checked=False)
    function("combinations", combinations)
