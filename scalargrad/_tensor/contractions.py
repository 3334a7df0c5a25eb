"""Contractions composed of matrix products: ``torch.tensordot``, ``torch.linalg.multi_dot`` and
the deprecated ``torch.chain_matmul``.

Each is composed as PyTorch 2.13 composes it (``at::tensordot``: sum out broadcast contracted
dimensions, permute and reshape each operand to a matrix, one ``mm``, reshape the result;
``linalg_multi_dot``: the products in the order of least multiplications), so grad_fn names,
``next_functions`` and the rounding of each product are those of the ops it is made of.
"""

from __future__ import annotations

import warnings

from .._base.errors import Unsupported
from .._base.layout import numel
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .products import dot, mm
from .reductions import sum as tsum
from .tensor import Tensor
from .views import clone, flatten, norm_dim, permute, reshape, unsqueeze, view

__all__ = ["tensordot", "multi_dot", "chain_matmul", "install"]

_DIMS_MESSAGE = ("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two "
                 "lists, but got dims={}")


def _dim_lists(a: Tensor, b: Tensor, dims) -> tuple:
    """(dims of ``a``, dims of ``b``) from torch.functional.tensordot's ``dims`` forms."""
    if isinstance(dims, Tensor):
        if dims._t.numel > 1:
            if dims._t.shape[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims._t.shape[0]}")
            rows = dims.tolist()
            return list(rows[0]) if isinstance(rows[0], list) else [rows[0]], \
                list(rows[1]) if isinstance(rows[1], list) else [rows[1]]
        dims = int(dims.item())
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if isinstance(dims, (tuple, list)):
        try:
            da, db = dims
        except (TypeError, ValueError):
            raise ValueError(f"too many values to unpack (expected 2, got {len(dims)})" if len(dims) > 2 else
                             f"not enough values to unpack (expected 2, got {len(dims)})") from None
        return [da] if isinstance(da, int) else list(da), [db] if isinstance(db, int) else list(db)
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._t.ndim, b._t.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    raise RuntimeError(_DIMS_MESSAGE.format(dims))


def _distinct(dims: list, ndim: int) -> list:
    """``at::dim_list_to_bitset``: each dim wrapped, none twice."""
    seen = []
    for d in dims:
        d = norm_dim(d, ndim)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    return seen


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """``torch.tensordot(a, b, dims=2, out=None)``: the contraction of ``a``'s dims ``dims[0]``
    with ``b``'s ``dims[1]`` (an int d: a's last d with b's first d), the result a's free dims
    then b's, as ``at::tensordot`` composes it (ViewBackward0 over MmBackward0)."""
    for pos, x in enumerate((a, b), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"tensordot(): argument '{'self' if pos == 1 else 'other'}' (position {pos}) must be "
                            f"Tensor, not {type(x).__name__}")
    if out is not None:
        raise Unsupported("torch.tensordot(out=...)")
    if not isinstance(dims, (Tensor, tuple, list, int)):
        raise RuntimeError(_DIMS_MESSAGE.format(dims))
    dims_a, dims_b = _dim_lists(a, b, dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._t.dtype is not b._t.dtype:
        raise RuntimeError("both inputs should have same dtype")
    na, nb = a._t.ndim, b._t.ndim
    sa, sb = tuple(a._t.shape), tuple(b._t.shape)
    t1, t2 = a, b
    csize = 1
    for da, db in zip(dims_a, dims_b):
        s1, s2 = sa[norm_dim(da, na)], sb[norm_dim(db, nb)]
        if s2 == 1:  # a broadcast dimension is summed out of the other operand first
            t1 = tsum(t1, da, keepdim=True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = tsum(t2, db, keepdim=True, dtype=t2.dtype)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {da} and second "
                               f"has size {s2} in dim {db}")
        else:
            csize *= s1
    ca, cb = _distinct(dims_a, na), _distinct(dims_b, nb)
    free_a = [i for i in range(na) if i not in ca]
    free_b = [i for i in range(nb) if i not in cb]
    rsizes = tuple(t1._t.shape[i] for i in free_a) + tuple(t2._t.shape[i] for i in free_b)
    size1 = numel(tuple(t1._t.shape[i] for i in free_a))
    size2 = numel(tuple(t2._t.shape[i] for i in free_b))
    p1, p2 = permute(t1, *(free_a + list(dims_a))), permute(t2, *(list(dims_b) + free_b))
    if size1 == 1 and size2 == 1:  # one element: ATen takes the dot product of the flattened operands
        return reshape(dot(flatten(p1), flatten(p2)), rsizes)
    return reshape(mm(reshape(p1, size1, csize), reshape(p2, csize, size2)), rsizes)


def _order(shapes: list) -> list:
    """The matrix-chain order of least multiplications: ``s[i][j]``, where chain i..j splits."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(mats: list, split: list, i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = split[i][j]
    return mm(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def multi_dot(tensors, *, out=None, _name: str = "multi_dot") -> Tensor:
    """``torch.linalg.multi_dot(tensors)``: the product of two or more matrices (the first may be
    a vector, so may the last), in the order ATen's ``linalg_multi_dot`` picks (two as given,
    three by comparing the two orders' costs, more by the matrix-chain DP), the product viewed
    to the output's shape (ViewBackward0 over MmBackward0)."""
    if out is not None:
        raise Unsupported("torch.linalg.multi_dot(out=...)")
    mats = list(tensors)
    n = len(mats)
    for x in mats:
        if not isinstance(x, Tensor):
            raise TypeError(f"linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                            f"{type(x).__name__}")
    if n < 2:
        raise RuntimeError(f"{_name}(): expected at least 2 tensors but got {n}")
    shapes = [tuple(x._t.shape) for x in mats]
    out_shape = []
    for i, edge in ((0, "first"), (n - 1, "last")):
        nd = len(shapes[i])
        if nd == 2:
            out_shape.append(shapes[i][0] if i == 0 else shapes[i][1])
        elif nd != 1:
            raise RuntimeError(f"{_name}(): the {edge} tensor must be 1D or 2D but got {nd}D")
    if len(shapes[0]) == 1:
        mats[0] = unsqueeze(mats[0], 0)
    if len(shapes[-1]) == 1:
        mats[-1] = unsqueeze(mats[-1], -1)
    for i in range(1, n - 1):
        if len(shapes[i]) != 2:
            raise RuntimeError(f"{_name}(): tensor {i} must be 2D but got {len(shapes[i])}D")
    dt = mats[0]._t.dtype
    for i in range(1, n):
        if mats[i]._t.dtype is not dt:
            raise RuntimeError(f"{_name}(): all tensors must have be the same dtype but tensor 0 is {dt.c_name} and "
                               f"tensor {i} {mats[i]._t.dtype.c_name}")
        if mats[i - 1]._t.shape[-1] != mats[i]._t.shape[0]:
            raise RuntimeError(f"{_name}(): tensors {i - 1} and {i} with shapes {list(shapes[i - 1])} and "
                               f"{list(shapes[i])} cannot be multiplied")
    if n == 2:
        result = mm(mats[0], mats[1])
    elif n == 3:
        a, b = mats[0]._t.shape[0], mats[1]._t.shape[0]
        c, d = mats[2]._t.shape
        cost_1 = (a * c) * (b + d)  # (A B) C
        cost_2 = (b * d) * (a + c)  # A (B C)
        result = mm(mats[0], mm(mats[1], mats[2])) if cost_1 > cost_2 else mm(mm(mats[0], mats[1]), mats[2])
    else:
        result = _chain(mats, _order([tuple(x._t.shape) for x in mats]), 0, n - 1)
    return view(result, *out_shape) if out_shape else view(result, ())


def chain_matmul(*matrices, out=None) -> Tensor:
    """``torch.chain_matmul(*matrices)`` (deprecated, PyTorch's warning once): ``multi_dot`` of
    two or more 2-D tensors, a clone of a single one."""
    if first_time("chain_matmul"):
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                      "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                      "multiple parameters. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                      "LinearAlgebra.cpp:1102.)", UserWarning, stacklevel=program_stacklevel())
    if out is not None:
        raise Unsupported("torch.chain_matmul(out=...)")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for x in matrices:
        if isinstance(x, Tensor) and x._t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {x._t.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return clone(matrices[0])
    return multi_dot(matrices, _name="multi_dot")


def install(method, function) -> None:
    function("tensordot", tensordot, checked=False)
    function("chain_matmul", chain_matmul, checked=False)
