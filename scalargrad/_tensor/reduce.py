"""Reductions on tensors: sum, mean, max/min, argmax/argmin, all/any, in PyTorch's order.

A float32 sum rounds after every addition, so its result depends on the order of the
additions: ``_base/kernel_order.sum_program`` writes down the order of PyTorch's CPU sum kernel
for the input's shape and memory layout, and the sum follows it. The accumulator starts at
+0.0, so a sum is never -0.0.
"""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType, round_list
from .._base.kernel_order import sum_program
from .._base.layout import contiguous_strides
from .._ops import reductions as R
from .._ops.reductions import Reduced
from .tensor import Tensor, leaf, make
from .views import gather_index, norm_dim, norm_dims, to_dtype

__all__ = ["sum", "mean", "max_min", "amax", "arg_max_min", "all_any", "ReturnTypes", "sum_values", "group_index"]


def _out_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if d in dims else shape[d] for d in range(len(shape)))
    return tuple(shape[d] for d in range(len(shape)) if d not in dims)


def sum_values(x: Tensor, dims: tuple, dt) -> list:
    """The sums of ``x``'s elements over ``dims`` (row-major over the kept dims), added in
    PyTorch's kernel order, rounded to ``dt``, never -0.0."""
    shape = tuple(x._t.shape)
    vals = x._val if x._t.ndim else [x._val]
    if x._t.dtype is not dt:
        vals = round_list(dt, vals)
    if not dt.is_floating_point:
        return [dt.round(s) for s in group_sums(vals, shape, dims)]
    prog = sum_program(shape, tuple(x._t.strides), dims, dt.name)
    return [s + 0.0 for s in prog.evaluate(vals, dt)]


def group_sums(vals: list, shape: tuple, dims: tuple) -> list:
    """Exact (integer) sums over ``dims``."""
    out: dict = {}
    for i, o in enumerate(group_index(shape, dims)):
        out[o] = out.get(o, 0) + vals[i]
    n = 1
    for d in range(len(shape)):
        if d not in dims:
            n *= shape[d]
    return [out.get(o, 0) for o in range(n)]


def group_index(shape: tuple, dims: tuple) -> list:
    """For each element (row-major), the flat index of the output element it reduces into."""
    nd = len(shape)
    kept = [d for d in range(nd) if d not in dims]
    ocs = contiguous_strides([shape[d] for d in kept])
    ost = [0] * nd
    for i, d in enumerate(kept):
        ost[d] = ocs[i]
    return gather_index(shape, ost, 0)


def _reduced_dtype(x: Tensor, dtype):
    dt = dtype if dtype is not None else x._t.dtype
    if not dt.is_floating_point:
        dt = dtypes.int64
    return dt


def sum(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:  # noqa: A001 - torch.sum
    """Sum over all elements or over ``dim``, added in PyTorch's CPU kernel order."""
    nd = x._t.ndim
    dims = norm_dims(dim, nd)
    src = x if dtype is None else to_dtype(x, dtype)
    dt = _reduced_dtype(src, None)
    sums = sum_values(src, dims if nd else (), dt)
    out_shape = () if dim is None else _out_shape(tuple(x._t.shape), dims, keepdim)
    op = R.Sum if dim is None else R.SumDim
    c = Reduced(x._t.shape, dims, bool(keepdim) and dim is not None, dim is None, raw=_raw_dims(dim))
    return make(op, TensorType(dt, out_shape), sums if out_shape else sums[0], (src,), c)


def _raw_dims(dim) -> dict | None:
    """The dims as the caller gave them, which PyTorch saves (``_saved_dim``)."""
    if dim is None:
        return None
    return {"dims": (dim,) if isinstance(dim, int) else tuple(int(d) for d in dim)}


def mean(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Mean over all elements or over ``dim``: PyTorch's sum, then one division by the count."""
    src = x if dtype is None else to_dtype(x, dtype)
    dt = src._t.dtype
    if not dt.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dt.short}")
    nd = x._t.ndim
    dims = norm_dims(dim, nd)
    sums = sum_values(src, dims if nd else (), dt)
    n = 1
    for d in dims if nd else ():
        n *= x._t.shape[d]
    r = dt.round
    from .._base.ieee import div

    vals = [r(div(s, float(n))) for s in sums]
    out_shape = () if dim is None else _out_shape(tuple(x._t.shape), dims, keepdim)
    op = R.Mean if dim is None else R.MeanDim
    c = Reduced(x._t.shape, dims, bool(keepdim) and dim is not None, dim is None, raw=_raw_dims(dim))
    return make(op, TensorType(dt, out_shape), vals if out_shape else vals[0], (src,), c)


class ReturnTypes(tuple):
    """A (values, indices) pair, as PyTorch's ``torch.return_types`` structseqs: one class per
    function, named after it (``type(x.max(0)).__name__ == "max"``)."""

    __slots__ = ()
    _name = "max"

    def __new__(cls, name: str, values, indices):
        return tuple.__new__(_RETURN_TYPES[name], (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


_RETURN_TYPES = {name: type(name, (ReturnTypes,), {"__slots__": (), "_name": name, "__module__": "torch.return_types",
                                                   "__qualname__": name})
                 for name in ("max", "min")}


def _pick(group: list, largest: bool, ties_last: bool = False):
    """(value, index) of the max (min) of ``group``: nan wins; ties keep the first (the last
    with ``ties_last``, as the all-element reduction's kernel does: it shows in the sign of a
    zero maximum of -0.0 and 0.0)."""
    best_i = 0
    best = group[0]
    for i in range(1, len(group)):
        v = group[i]
        if best != best:
            break
        if v != v or (v > best if largest else v < best) or (ties_last and v == best):
            best, best_i = v, i
    return best, best_i


def max_min(x: Tensor, dim=None, keepdim: bool = False, largest: bool = True, other=None):
    """``max()``/``min()`` of all elements, ``max(dim)`` with indices, or ``max(other)``
    (the elementwise maximum)."""
    name = "max" if largest else "min"
    if other is not None:
        from .._ops import elementwise as E
        from .build import binary

        return binary(E.Maximum if largest else E.Minimum, x, other)
    vals = x._val if x._t.ndim else [x._val]
    if dim is None:
        if not vals:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        v, _ = _pick(vals, largest, ties_last=True)
        op = R.MaxAll if largest else R.MinAll
        return make(op, TensorType(x._t.dtype, ()), v, (x,), Reduced(x._t.shape, tuple(range(x._t.ndim)), False, True))
    nd = x._t.ndim
    d = norm_dim(dim, nd)
    shape = tuple(x._t.shape)
    if nd and shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    values, indices, picked = _along(vals, shape, d, largest)
    out_shape = _out_shape(shape, (d,) if nd else (), keepdim)
    it = TensorType(dtypes.int64, out_shape)
    idx = leaf(indices if out_shape else indices[0], it)
    op = R.MaxDim if largest else R.MinDim
    c = Reduced(shape, (d,) if nd else (), bool(keepdim), False, indices=idx, raw={"dim": dim})
    c.picked = picked  # the flat input index each value came from, for the backward
    # the backward is a scatter, which only the tensor kernel has: a 0-dim input runs it too
    out = make(op if nd else op.tensor, TensorType(x._t.dtype, out_shape), values if out_shape else values[0], (x,), c)
    return ReturnTypes(name, out, idx)


def amax(x: Tensor, dim=(), keepdim: bool = False, largest: bool = True) -> Tensor:
    """``amax``/``amin`` over ``dim`` (() or None: every dimension): the extreme value of each
    slice, nan if the slice holds one (AmaxBackward0 shares the gradient among ties)."""
    name = "amax" if largest else "amin"
    if isinstance(dim, Tensor):
        raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not Tensor")
    nd = x._t.ndim
    given = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    dims = norm_dims(given, nd) if given else tuple(range(nd))
    if not nd:
        dims = ()
    shape = tuple(x._t.shape)
    vals = x._val if nd else [x._val]
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if not vals:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    groups: dict = {}
    for i, o in enumerate(group_index(shape, dims)):
        groups.setdefault(o, []).append(vals[i])
    out_shape = _out_shape(shape, dims, keepdim)
    picked = [_pick(groups[o], largest)[0] for o in range(len(groups))]
    op = R.Amax if largest else R.Amin
    c = Reduced(shape, dims, bool(keepdim), not given, raw={"dims": given})
    return make(op, TensorType(x._t.dtype, out_shape), picked if out_shape else picked[0], (x,), c)


def _along(vals: list, shape: tuple, d: int, largest: bool):
    if not shape:
        return [vals[0]], [0], [0]
    size = shape[d]
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    outer = 1
    for s in shape[:d]:
        outer *= s
    values, indices, picked = [], [], []
    for o in range(outer):
        for i in range(inner):
            base = o * size * inner + i
            group = [vals[base + j * inner] for j in range(size)]
            v, j = _pick(group, largest)
            values.append(v)
            indices.append(j)
            picked.append(base + j * inner)
    return values, indices, picked


def arg_max_min(x: Tensor, dim=None, keepdim: bool = False, largest: bool = True) -> Tensor:
    """argmax/argmin: the index of the first extreme element (flat without ``dim``)."""
    name = "argmax" if largest else "argmin"
    if x._t.dtype is dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    vals = x._val if x._t.ndim else [x._val]
    if dim is None:
        if not vals:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        _, i = _pick(vals, largest)
        shape = tuple(1 for _ in x._t.shape) if keepdim else ()
        return leaf([i] if shape else i, TensorType(dtypes.int64, shape))
    d = norm_dim(dim, x._t.ndim)
    _, indices, _ = _along(vals, tuple(x._t.shape), d, largest)
    out_shape = _out_shape(tuple(x._t.shape), (d,) if x._t.ndim else (), keepdim)
    return leaf(indices if out_shape else indices[0], TensorType(dtypes.int64, out_shape))


def all_any(x: Tensor, dim=None, keepdim: bool = False, want_all: bool = True) -> Tensor:
    vals = x._val if x._t.ndim else [x._val]
    if dim is None:
        r = all(bool(v) for v in vals) if want_all else any(bool(v) for v in vals)
        return leaf(r, TensorType(dtypes.bool, ()))
    dims = norm_dims(dim, x._t.ndim)
    shape = tuple(x._t.shape)
    groups: dict = {}
    for i, o in enumerate(group_index(shape, dims)):
        groups.setdefault(o, []).append(bool(vals[i]))
    out_shape = _out_shape(shape, dims, keepdim)
    n = 1
    for s in out_shape:
        n *= s
    res = [(all if want_all else any)(groups.get(o, [])) for o in range(n)]
    return leaf(res if out_shape else res[0], TensorType(dtypes.bool, out_shape))


_ = math
