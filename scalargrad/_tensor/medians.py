"""``median`` and ``nanmedian``: the lower median of every element (one node, ties sharing the
gradient), or along a dimension, a (values, indices) pair whose index among tied values is the
one PyTorch's kernel picks: the (n - 1) // 2-th position in the order of (value, position).
``mode`` along a dimension: the most frequent value and the index PyTorch's kernel picks (the
last of its run after libstdc++'s unstable ``std::sort`` of the slice, ``_base/introsort``)."""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.introsort import std_sort
from .._ops import medians as M
from .._ops.reductions import Reduced
from .arguments import check_input
from .reductions import _out_shape
from .return_types import ReturnTypes
from .tensor import Tensor, leaf, make
from .views import norm_dim

__all__ = ["median", "nanmedian", "mode", "install"]


def _slice_median(vals: list, ignore_nan: bool) -> int:
    """The position in ``vals`` of its median as ``median_with_indices_impl`` picks it."""
    if not ignore_nan:
        for i, v in enumerate(vals):
            if v != v:
                return i
    kept = sorted((v, i) for i, v in enumerate(vals) if v == v)
    if not kept:  # every element nan: nth_element leaves the first in place
        return 0
    return kept[(len(kept) - 1) // 2][1]


def _all(x: Tensor, ignore_nan: bool) -> Tensor:
    vals = x._val if x._t.ndim else [x._val]
    op = M.NanmedianAll if ignore_nan else M.MedianAll
    if vals:
        value = vals[_slice_median(vals, ignore_nan)]
    else:  # PyTorch 2.13 gives nan for an empty input
        value = float("nan")
    c = Reduced(x._t.shape, tuple(range(x._t.ndim)), False, True)
    return make(op, TensorType(x._t.dtype, ()), value, (x,), c)


def _slice_mode(vals: list) -> int:
    """The position in ``vals`` of its mode as ``mode_kernel_impl`` picks it: (value, position)
    pairs sorted by value alone with ``std::sort``, then the last position of the first run of
    equal values that is longer than every earlier one (a nan equals nothing: a run of one)."""
    order = std_sort(list(range(len(vals))), lambda i, j: vals[i] < vals[j])
    best, pick, run = 0, 0, 0
    for q, i in enumerate(order):
        run += 1
        if q == len(order) - 1 or vals[i] != vals[order[q + 1]]:
            if run > best:
                best, pick = run, i
            run = 0
    return pick


def _along(x: Tensor, dim, keepdim: bool, ignore_nan: bool, name: str):
    nd = x._t.ndim
    d = norm_dim(dim, nd)
    shape = tuple(x._t.shape)
    if nd and shape[d] == 0:
        # ATen's shared median kernel names itself median() for nanmedian too
        raise IndexError(f"{'mode' if name == 'mode' else 'median'}(): Expected reduction dim {d} to have "
                         "non-zero size.")
    vals = x._val if nd else [x._val]
    size = shape[d] if nd else 1
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    outer = len(vals) // (size * inner) if vals else 0
    pick = _slice_mode if name == "mode" else lambda sv: _slice_median(sv, ignore_nan)
    values, indices, picked = [], [], []
    for o in range(outer):
        for j in range(inner):
            base = o * size * inner + j
            pos = [base + r * inner for r in range(size)]
            i = pick([vals[p] for p in pos])
            values.append(vals[pos[i]])
            indices.append(i)
            picked.append(pos[i])
    out_shape = _out_shape(shape, (d,) if nd else (), keepdim)
    idx = leaf(indices if out_shape else indices[0], TensorType(dtypes.int64, out_shape))
    op = M.ModeDim if name == "mode" else M.NanmedianDim if ignore_nan else M.MedianDim
    c = Reduced(shape, (d,) if nd else (), bool(keepdim), False, indices=idx, raw={"dim": dim})
    c.picked = picked
    # the backward is a scatter, which only the tensor kernel has: a 0-dim input runs it too
    out = make(op if nd else op.tensor, TensorType(x._t.dtype, out_shape), values if out_shape else values[0],
               (x,), c)
    return ReturnTypes(name, out, idx)


def _median(ignore_nan: bool):
    name = "nanmedian" if ignore_nan else "median"

    def apply(input: Tensor, dim=None, keepdim: bool = False):
        check_input(name, input)
        if input._t.dtype is dtypes.bool:
            kernel = "median_cpu" if dim is None else "median_out"  # nanmedian shares the kernels
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if dim is None:
            return _all(input, ignore_nan)
        return _along(input, dim, keepdim, ignore_nan, name)

    apply.__name__ = name
    apply.__doc__ = (f"``{name}(input)``: the lower median of every element{' not nan' if ignore_nan else ''}; "
                     f"``{name}(input, dim, keepdim=False)``: (values, indices) along ``dim``.")
    return apply


median = _median(False)
nanmedian = _median(True)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """``mode(input, dim=-1, keepdim=False)``: (values, indices), the most frequent value of each
    slice along ``dim`` (ModeBackward0) and the index PyTorch's CPU kernel gives for it."""
    check_input("mode", input)
    return _along(input, dim, keepdim, False, "mode")


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    for name, fn in (("median", median), ("nanmedian", nanmedian)):
        method(name, lambda self, dim=None, keepdim=False, _f=fn: _f(self, dim, keepdim))
        function(name, lambda input, dim=None, keepdim=False, _f=fn: _f(input, dim, keepdim))
    method("mode", lambda self, dim=-1, keepdim=False: mode(self, dim, keepdim))
    function("mode", mode)
