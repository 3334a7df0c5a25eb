"""Counting ops on tensors (``_ops/counting.py``): nonzero/argwhere, count_nonzero, unique,
unique_consecutive, bincount, histc, histogram, searchsorted, bucketize, isin; and the dtype rules a program asks
about (promote_types, can_cast, result_type).

Their results are indices or counts (int64, int32 with ``out_int32``) or, for ``histc`` and a
weighted ``bincount``, sums PyTorch does not differentiate: exact, so compared with PyTorch bit
for bit. ``unique`` sorts as PyTorch's CPU kernel does (stably, nan last, each nan its own value;
``sorted=False`` sorts too) and keeps the first of equal elements.
"""

from __future__ import annotations

import builtins
import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import state as _grad_state
from .._base.layout import contiguous_strides, slices
from .._ops import counting as CO
from .arguments import not_tensor
from .operands import result_dtype
from .ranges import linspace
from .return_types import return_type
from .selection import pick_elements
from .tensor import Tensor, leaf
from .views import norm_dim, norm_dims

__all__ = ["nonzero", "argwhere", "count_nonzero", "unique", "unique_consecutive", "bincount", "histc", "histogram",
           "histogramdd",
           "searchsorted", "isin", "bucketize", "promote_types", "can_cast", "result_type", "install"]


def _flat(x: Tensor) -> list:
    return x._val if x._t.ndim else [x._val]


def _ints(vals: list, shape, dtype=dtypes.int64) -> Tensor:
    shape = tuple(shape)
    return leaf(vals if shape else vals[0], TensorType(dtype, shape))


def _check(x, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise not_tensor(x, name)
    return x


def _positions(x: Tensor) -> list:
    """The multi-indices of ``x``'s nonzero elements, in row-major order."""
    shape = tuple(x._t.shape)
    st = contiguous_strides(shape)
    return [[(j // s) % n for s, n in zip(st, shape)] for j, v in enumerate(_flat(x)) if v != 0]


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or with ``as_tuple`` one
    vector per dim (a 0-dim tensor counts as one of 1 element there)."""
    x = _check(input, "nonzero")
    pos = _positions(x)
    if as_tuple:
        if not x._t.ndim:
            return (_ints([0] * len(pos), (len(pos),)),)
        return tuple(_ints([p[d] for p in pos], (len(pos),)) for d in range(x._t.ndim))
    nd = x._t.ndim
    return _ints([i for p in pos for i in p], (len(pos), nd))


def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``."""
    return nonzero(_check(input, "argwhere"))


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """The number of nonzero elements, over ``dim`` (an int or a sequence; None: all)."""
    x = _check(input, "count_nonzero")
    shape = tuple(x._t.shape)
    dims = norm_dims(dim, len(shape)) if dim is not None else tuple(range(len(shape)))
    out_shape = tuple(n for d, n in enumerate(shape) if d not in dims)
    keep = [d for d in range(len(shape)) if d not in dims]
    ost = contiguous_strides(out_shape)
    st = contiguous_strides(shape)
    counts = [0] * math.prod(out_shape)
    for j, v in enumerate(_flat(x)):
        if v != 0:
            counts[sum(((j // st[d]) % shape[d]) * s for d, s in zip(keep, ost))] += 1
    return _ints(counts, out_shape)


# ---------------------------------------------------------------- unique


def _sort_key(v):
    return (v != v, v if v == v else 0)


def _groups(keys: list, order: list) -> list:
    """Runs of equal keys along ``order``: lists of positions (nan never equals)."""
    out = []
    for i in order:
        if out and keys[out[-1][0]] == keys[i]:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _unique(x: Tensor, groups: list, op, dim, d: int | None, return_inverse: bool, return_counts: bool):
    """The result of unique/unique_consecutive from runs of equal elements (or slices along
    ``d``): the first of each, then the inverse indices and counts asked for."""
    shape = tuple(x._t.shape)
    if d is None:
        m = [g[0] for g in groups]
        values = pick_elements(op, x, (len(m),), m)
        inv_shape = shape
        n = x._t.numel
    else:
        n = shape[d]
        sl = _slices_along(shape, d)
        out_shape = shape[:d] + (len(groups),) + shape[d + 1:]
        # the output in row-major order: for each outer position, each kept slice's inner block
        outer, inner = math.prod(shape[:d]), math.prod(shape[d + 1:])
        m = [sl[g[0]][o * inner + i] for o in range(outer) for g in groups for i in range(inner)]
        values = pick_elements(op, x, out_shape, m)
        inv_shape = (n,)
    out = [values]
    if return_inverse:
        inv = [0] * n
        for k, g in enumerate(groups):
            for i in g:
                inv[i] = k
        out.append(_ints(inv, inv_shape))
    if return_counts:
        out.append(_ints([len(g) for g in groups], (len(groups),)))
    return out[0] if len(out) == 1 else tuple(out)


def _slices_along(shape: tuple, d: int) -> list:
    """For each index along ``d``, the flat indices of its slice, outer dims first."""
    st = contiguous_strides(shape)
    outer, inner = math.prod(shape[:d]), math.prod(shape[d + 1:])
    return [[o * shape[d] * inner + i * st[d] + r for o in range(outer) for r in range(inner)]
            for i in range(shape[d])]


def _slice_keys(x: Tensor, d: int) -> list:
    vals = _flat(x)
    return [tuple(vals[j] for j in s) for s in _slices_along(tuple(x._t.shape), d)]


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim=None):
    """The distinct elements (slices along ``dim``) in ascending order, with the inverse indices
    and counts asked for (Unique2Backward0 / UniqueDimBackward0: no derivative)."""
    x = _check(input, "unique")
    if dim is None:
        vals = _flat(x)
        order = list(range(len(vals)))
        order.sort(key=lambda i: _sort_key(vals[i]))
        return _unique(x, _groups(vals, order), CO.Unique2, None, None, return_inverse, return_counts)
    d = norm_dim(dim, x._t.ndim)
    keys = _slice_keys(x, d)
    order = list(range(len(keys)))
    order.sort(key=lambda i: tuple(_sort_key(v) for v in keys[i]))
    return _unique(x, _groups(keys, order), CO.UniqueDim, dim, d, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The first of each run of equal consecutive elements (slices along ``dim``)
    (UniqueConsecutiveBackward0: no derivative)."""
    x = _check(input, "unique_consecutive")
    if dim is None:
        vals = _flat(x)
        return _unique(x, _groups(vals, range(len(vals))), CO.UniqueConsecutive, None, None, return_inverse,
                       return_counts)
    d = norm_dim(dim, x._t.ndim)
    keys = _slice_keys(x, d)
    return _unique(x, _groups(keys, range(len(keys))), CO.UniqueConsecutive, dim, d, return_inverse, return_counts)


# ---------------------------------------------------------------- histograms


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in a 1-d non-negative integer tensor (the sum of
    its ``weights`` there: float32 weights sum in float32, others in float64)."""
    x = _check(input, "bincount")
    if x._t.dtype.kind != "i":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{x._t.dtype.short}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    vals = _flat(x)
    if x._t.ndim != 1 or any(v < 0 for v in vals):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._t.ndim != 1 or weights._t.numel != len(vals)):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = max(minlength, max(vals) + 1 if vals else 0)
    if weights is None:
        out = [0] * n
        for v in vals:
            out[v] += 1
        return _ints(out, (n,))
    dt = dtypes.float32 if weights._t.dtype is dtypes.float32 else dtypes.float64
    out = [0.0] * n
    for v, w in zip(vals, _flat(weights)):
        out[v] = dt.round(out[v] + dt.round(float(w)))
    return leaf(out, TensorType(dt, (n,)))


def histc(input: Tensor, bins: int = 100, min=0, max=0) -> Tensor:
    """The histogram of the elements in ``bins`` equal bins over [min, max] (the elements' own
    range when both are 0), elements outside left out; computed in the input's dtype as
    PyTorch's linear bin selection does."""
    x = _check(input, "histc")
    dt = x._t.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{dt.short}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    vals = _flat(x)
    if lo == hi and vals:
        lo, hi = _min_max(vals)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_g(lo)}, {_g(hi)}] is not finite")
    r = dt.round
    left, right = r(lo), r(hi)
    out = [0.0] * bins
    for v in vals:
        if not (left <= v <= right):
            continue
        pos = int(r(r(r(v - left) * bins) / r(right - left)))
        out[bins - 1 if pos == bins else pos] += 1.0
    return leaf(out, TensorType(dt, (bins,)))


def _histogram_edges(x: Tensor, bins, range, dim: int = 0, vals: list | None = None) -> tuple:
    """The edges (a float list, and whether they are linspace's) of ``torch.histogram``, or of
    dimension ``dim`` of ``torch.histogramdd`` (``vals``: that dimension's coordinates)."""
    dt = x._t.dtype
    if isinstance(bins, Tensor):
        if bins._t.dtype is not dt:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {_c_name(dt)} and bins for dimension {dim} with dtype "
                               f"{_c_name(bins._t.dtype)}")
        if bins._t.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins._t.ndim} dimensions in the bins tensor for dimension {dim}")
        if not bins._t.numel:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
                               f"in the bins tensor for dimension {dim}")
        return list(bins._val), False
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}")
    vals = _flat(x) if vals is None else vals
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    else:
        lo, hi = _min_max(vals) if vals else (0.0, 1.0)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{_g(lo)}, {_g(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_g(lo)} max {_g(hi)} "
                           f"for dimension {dim}")
    if lo == hi:  # numpy's widening of an empty range
        lo, hi = lo - 0.5, hi + 0.5
    return list(linspace(lo, hi, bins + 1, dtype=dt)._val), True


def _c_name(dt) -> str:
    """A dtype as ATen's ``caffe2::TypeMeta`` prints it (float, double, c10::Half)."""
    return {"Float": "float", "Double": "double"}.get(dt.short, "c10::" + dt.short)


def _bin(edges: list, v, r, linear: bool) -> int:
    """The bin of ``v`` (within the edges): ATen's linear guess corrected by a search of its
    neighbours (bins from linspace), or a binary search (given edges); the last bin is closed."""
    n = len(edges)
    lo, hi = 0, n
    if linear:
        pos = int(r(r(r(v - edges[0]) * (n - 1)) / r(edges[-1] - edges[0])))
        lo, hi = max(0, pos - 1), min(pos + 2, n)
    while lo < hi:  # std::upper_bound
        mid = (lo + hi) // 2
        if v < edges[mid]:
            hi = mid
        else:
            lo = mid + 1
    pos = lo - 1
    return pos - 1 if pos == n - 1 else pos


def histogram(input: Tensor, bins=100, *, range=None, weight=None, density: bool = False):
    """``torch.histogram``: (hist, bin_edges) of the elements over ``bins`` (a count of equal
    bins over ``range``, by default the elements' own, or a 1-d tensor of increasing edges);
    ``weight`` gives each element's contribution, ``density`` divides by the total and the
    bin widths. Computed in the input's dtype, as ATen's histogramdd kernel."""
    x = _check(input, "histogram")
    dt = x._t.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dt.short}'")
    if _grad_state.enabled and (x._rg or (weight is not None and weight._rg)):
        # PyTorch's results require grad there, through a NotImplemented node whose backward raises
        raise Unsupported("histogram of a tensor that requires grad", "PyTorch records a node without a "
                          "derivative (NotImplemented) there, which scalargrad does not")
    edges, linear = _histogram_edges(x, bins, range)
    if len(edges) < 2:
        raise RuntimeError("torch.histogram(): bins must be > 0, but got 0 for dimension 0")
    if weight is not None:
        if weight._t.dtype is not dt:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_c_name(dt)}), "
                               f"and weight({_c_name(weight._t.dtype)})")
        if weight._t.shape != x._t.shape:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"[{x._t.numel}, 1] and weight with shape [{weight._t.numel}]")
    r = dt.round
    nbins = len(edges) - 1
    out = [0.0] * nbins
    weights = _flat(weight) if weight is not None else None
    for j, v in enumerate(_flat(x)):
        if not (edges[0] <= v <= edges[-1]) or not nbins:
            continue
        b = _bin(edges, v, r, linear)
        out[b] = r(out[b] + (weights[j] if weights is not None else 1.0))
    hist = leaf(out, TensorType(dt, (nbins,)))
    edge_t = leaf(list(edges), TensorType(dt, (nbins + 1,)))
    if density:
        hist = hist.div(hist.sum()).div(edge_t.diff())
    return return_type("histogram")("histogram", hist, edge_t)


def histogramdd(input: Tensor, bins=10, *, range=None, weight=None, density: bool = False):
    """``torch.histogramdd``: (hist, bin_edges) of the points ``input[..., :]`` (the innermost
    dimension holds each point's D coordinates) over a D-dimensional grid of bins: ``bins`` an
    int, D ints or D 1-d tensors of increasing edges; ``range`` D (min, max) pairs, flattened;
    ``weight`` one per point. A point outside any dimension's edges is not counted. Computed in
    the input's dtype as ATen's histogramdd kernel; values only (a grad-requiring input refused)."""
    x = _check(input, "histogramdd")
    dt = x._t.dtype
    if x._t.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dt.short}'")
    if _grad_state.enabled and (x._rg or (weight is not None and weight._rg)):
        raise Unsupported("histogramdd of a tensor that requires grad", "PyTorch records a node without a "
                          "derivative (NotImplemented) there, which scalargrad does not")
    n_dims = x._t.shape[-1]
    if isinstance(bins, int):
        bins = [bins] * n_dims
    bins = list(bins)
    if len(bins) != n_dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * n_dims:
        raise RuntimeError(f"torch.histogramdd: for a {n_dims}-dimensional histogram range should have "
                           f"{2 * n_dims} elements, but got {len(range)}")
    vals = _flat(x)
    points = [vals[i:i + n_dims] for i in builtins_range(0, len(vals), n_dims)] if n_dims else []
    if weight is not None:
        if weight._t.dtype is not dt:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_c_name(dt)}), "
                               f"and weight({_c_name(weight._t.dtype)})")
        if tuple(weight._t.shape) != tuple(x._t.shape[:-1]):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(x._t.shape)} and weight with shape {list(weight._t.shape)}")
    edges = []
    for d in builtins_range(n_dims):
        column = [p[d] for p in points]
        edges.append(_histogram_edges(x, bins[d], None if range is None else range[2 * d:2 * d + 2], d, column))
    counts = [len(e) - 1 for e, _ in edges]
    r = dt.round
    out = [0.0] * math.prod(counts)
    weights = _flat(weight) if weight is not None else None
    for j, p in enumerate(points):
        flat = 0
        for d, (e, linear) in enumerate(edges):
            v = p[d]
            if not (e[0] <= v <= e[-1]) or counts[d] == 0:
                flat = -1
                break
            flat = flat * counts[d] + _bin(e, v, r, linear)
        if flat >= 0:
            out[flat] = r(out[flat] + (weights[j] if weights is not None else 1.0))
    hist = leaf(out, TensorType(dt, tuple(counts)))
    edge_ts = tuple(leaf(list(e), TensorType(dt, (len(e),))) for e, _ in edges)
    if density:  # ATen: divided by the total, then by each dimension's bin lengths in turn
        hist = hist.div(hist.sum())
        for d, e in enumerate(edge_ts):
            shape = [1] * n_dims
            shape[d] = counts[d]
            hist = hist.div(e.diff().reshape(shape))
    return return_type("histogramdd")("histogramdd", hist, edge_ts)


def isin(elements=None, test_elements=None, *, element=None, test_element=None, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """For each element of ``elements``, whether it is among ``test_elements`` (either may be a
    number: PyTorch's overloads name it ``element``, ``test_element``), compared in their
    promoted dtype; ``invert`` negates."""
    elements = element if elements is None else elements
    test_elements = test_element if test_elements is None else test_elements
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (" f"{type(elements).__name__}, "
                        f"{type(test_elements).__name__}), but expected a Tensor among elements and test_elements")
    dt = result_dtype([elements, test_elements])

    def values(t):
        if isinstance(t, Tensor):
            return dtypes.cast_values(t._t.dtype, dt, _flat(t)) if t._t.dtype is not dt else _flat(t), t._t.shape
        return [dt.round(t)], ()

    xs, shape = values(elements)
    pool = set(values(test_elements)[0])
    out = [(v in pool and v == v) != bool(invert) for v in xs]
    return leaf(out if shape else out[0], TensorType(dtypes.bool, tuple(shape)))


def _min_max(vals: list) -> tuple:
    if any(v != v for v in vals):
        return math.nan, math.nan
    return float(min(vals)), float(max(vals))


def _g(v: float) -> str:
    """A bound as C++'s stream prints it (a nan from the data's aminmax prints as -nan here)."""
    return "-nan" if v != v else f"{v:g}"


# ---------------------------------------------------------------- bisection


def _bound(seq: list, v, right: bool) -> int:
    """ATen's cus_lower_bound / cus_upper_bound (a nan compares false everywhere)."""
    start, end = 0, len(seq)
    while start < end:
        mid = start + ((end - start) >> 1)
        if (not seq[mid] > v) if right else (not seq[mid] >= v):
            start = mid + 1
        else:
            end = mid
    return start


def _bisect(seq: Tensor, x, right: bool, out_int32: bool) -> Tensor:
    if not isinstance(x, Tensor):
        if seq._t.ndim != 1:
            raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                               f"dimension is 1, but we got boundaries tensor dim({seq._t.ndim}) and input "
                               f"value's dim(0) numel(1)")
        x = leaf(x, TensorType(result_dtype([seq, x]), ()))
    sshape, xshape = tuple(seq._t.shape), tuple(x._t.shape)
    if len(sshape) > 1 and (len(sshape) != len(xshape) or sshape[:-1] != xshape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(sshape)} and input value tensor {list(xshape)}")
    svals, xvals = _flat(seq), _flat(x)
    rows = slices(sshape, len(sshape) - 1) if len(sshape) > 1 else [list(range(len(svals)))]
    inner = xshape[-1] if xshape else 1
    out = []
    for j, v in enumerate(xvals):
        row = rows[j // inner] if len(sshape) > 1 else rows[0]
        out.append(_bound([svals[i] for i in row], v, right))
    return _ints(out, xshape, dtypes.int32 if out_int32 else dtypes.int64)


def searchsorted(sorted_sequence: Tensor, input=None, *, out_int32: bool = False, right: bool = False, side=None,
                 sorter=None, self=None) -> Tensor:
    """For each element of ``input``, where it would go in the innermost dim of the sorted
    ``sorted_sequence``: the first position whose value is >= it (> it with ``right``). A number
    may be given as ``self`` (PyTorch's Scalar overload names it so)."""
    if self is not None and input is None and not isinstance(self, Tensor):
        input = self
    elif input is None or self is not None:
        raise TypeError('searchsorted() missing 1 required positional arguments: "input"' if self is None else
                        "searchsorted(): argument 'self' must be Number")
    if not isinstance(sorted_sequence, Tensor):
        raise not_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if sorter is not None:
        if sorter._t.shape != sorted_sequence._t.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(sorted_sequence._t.shape)}and got sorter tensor "
                               f"{list(sorter._t.shape)}")
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    return _bisect(sorted_sequence, input, bool(right), bool(out_int32))


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """``searchsorted(boundaries, input)`` for 1-d ``boundaries``."""
    if not isinstance(boundaries, Tensor):
        raise not_tensor(boundaries, "bucketize", "boundaries", 2)
    if boundaries._t.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._t.ndim})")
    return _bisect(boundaries, input, bool(right), bool(out_int32))


# ---------------------------------------------------------------- dtype rules


def promote_types(type1: dtypes.dtype, type2: dtypes.dtype) -> dtypes.dtype:
    """The dtype of a binary op's result between tensors of ``type1`` and ``type2``."""
    return dtypes.promote_types(type1, type2)


def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether a result of ``from_`` may be written into a tensor of ``to`` (no lost category)."""
    return dtypes.can_cast(from_, to)


def result_type(tensor=None, other=None, *, scalar=None, scalar1=None, scalar2=None) -> dtypes.dtype:
    """The dtype of an arithmetic op's result between two tensors or numbers (PyTorch's overloads'
    names: ``tensor``, ``other``, ``scalar``, ``scalar1``, ``scalar2``)."""
    operands = [v for v in (tensor, other, scalar, scalar1, scalar2) if v is not None]
    if len(operands) != 2:
        raise TypeError("result_type() takes two tensors or numbers")
    return result_dtype(operands)


def install(method, function) -> None:
    """nonzero, argwhere, count_nonzero, unique, unique_consecutive, bincount, histc, histogram,
    searchsorted, bucketize, isin; torch.promote_types, can_cast, result_type."""
    for name in ("nonzero", "argwhere", "count_nonzero", "bincount", "histc"):
        fn = globals()[name]
        method(name, fn)
        function(name, fn)
    function("unique", unique)
    function("unique_consecutive", unique_consecutive)
    method("unique", lambda self, sorted=True, return_inverse=False, return_counts=False, dim=None:
           unique(self, sorted, return_inverse, return_counts, dim))
    method("unique_consecutive", lambda self, return_inverse=False, return_counts=False, dim=None:
           unique_consecutive(self, return_inverse, return_counts, dim))
    function("searchsorted", searchsorted)
    function("bucketize", bucketize)
    function("isin", isin)
    function("histogram", histogram)
    method("histogram", histogram)
    function("histogramdd", histogramdd)
    for name in ("promote_types", "can_cast", "result_type"):
        function(name, globals()[name], checked=False)


builtins_range = builtins.range  # histogramdd's parameter ``range`` shadows the builtin there
