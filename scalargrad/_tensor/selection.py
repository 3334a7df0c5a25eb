"""Selection ops on tensors (``_ops/selection.py``): each builds the map from output elements
to input elements, then one node. Sort is stable (PyTorch's CPU sort: equal values keep their
order, nan sorts above every number); topk and kthvalue take the same order."""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.introsort import nth_element, partial_sort, sort_range, std_sort
from .._base.layout import contiguous_strides, slices
from .._base.numpy_types import integer
from .._ops import selection as SE
from .._ops.views import Layout
from .arguments import not_tensor, sizes_by_keyword
from .indexing import gather_at, scatter_into
from .inplace import inplace
from .operands import broadcast_shapes, check_size, positions
from .reductions import _out_shape
from .return_types import ReturnTypes
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper
from .views import expand, gather_index, make_view, norm_dim, offset_of, view

__all__ = ["gather", "index_select", "masked_select", "take", "sort", "argsort", "topk", "kthvalue", "tril", "triu",
           "diagonal", "diag", "diagflat", "diag_embed", "repeat", "tile", "roll", "repeat_interleave", "unfold",
           "cummax", "narrow_copy", "install"]


def _uint(d: int) -> int:
    return d + (1 << 64) if d < 0 else d


def _flat(x: Tensor) -> list:
    return x._val if x._t.ndim else [x._val]


def pick_elements(op, x: Tensor, shape, m: list, **saved) -> Tensor:
    """The node of ``op`` copying ``x``'s elements at ``m`` (-1: zero) into ``shape``."""
    vals = _flat(x)
    z = x._t.dtype.round(0)
    out = [vals[i] if i >= 0 else z for i in m]
    shape = tuple(shape)
    layout = Layout(x._t.shape, x._t.dtype, map=list(m), tensors=saved.pop("tensors", None))
    layout.raw = saved
    return make(op, TensorType(x._t.dtype, shape), out if shape else out[0], (x,), layout)


def _int_arg(value, name: str, arg: str, pos: int) -> int:
    """An int argument (an integer tensor of one element too), or PyTorch's TypeError."""
    if isinstance(value, Tensor) and not value._t.dtype.is_floating_point and value._t.numel == 1:
        return int(value.item())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if integer(value) is None:
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {type(value).__name__}")
    return integer(value)


def narrow_copy(x: Tensor, dim: int, start, length) -> Tensor:
    """``narrow`` as a new contiguous tensor (NarrowCopyBackward0), with ATen's
    narrow_copy_dense checks (a dim past the end is its bare TORCH_CHECK)."""
    start, length = _int_arg(start, "narrow_copy", "start", 2), _int_arg(length, "narrow_copy", "length", 3)
    shape = tuple(x._t.shape)
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    raw = {"dim": dim, "start": start, "length": length}
    if isinstance(dim, int) and dim >= len(shape):
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    d = norm_dim(dim, len(shape))
    size = shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start += size if start < 0 else 0
    if length < 0 or start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    inner, outer = math.prod(shape[d + 1:]), math.prod(shape[:d])
    m = [(o * size + start + j) * inner + i for o in range(outer) for j in range(length) for i in range(inner)]
    return pick_elements(SE.NarrowCopy, x, shape[:d] + (length,) + shape[d + 1:], m, **raw)


def _index_tensor(index, name: str, arg: str = "index", pos: int = 2) -> Tensor:
    if not isinstance(index, Tensor):
        raise not_tensor(index, name, arg, pos)
    if name == "gather" and index._t.dtype in (dtypes.int64, dtypes.int32):
        return index
    if index._t.dtype is not dtypes.int64:
        if name == "gather":
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {index._t.dtype.short}")
    return index


def gather(x: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """out[i][j] = x[index[i][j]][j] along ``dim`` (GatherBackward0)."""
    index = _index_tensor(index, "gather")
    nd = max(x._t.ndim, 1)
    d = norm_dim(dim, x._t.ndim)
    shape, ishape = tuple(x._t.shape) or (1,), tuple(index._t.shape) or (1,)
    if len(ishape) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(nd):
        if k != d and ishape[k] > shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(ishape)} to be no "
                               f"larger than self {list(shape)} apart from dimension {d}")
    xs, its = contiguous_strides(shape), contiguous_strides(ishape)
    m = []
    for j, i in enumerate(_flat(index)):
        if not -shape[d] <= i < shape[d]:
            raise RuntimeError(f"index {i} is out of bounds for dimension {d} with size {shape[d]}")
        pos = [(j // its[k]) % ishape[k] for k in range(nd)]
        pos[d] = i % shape[d]
        m.append(sum(p * s for p, s in zip(pos, xs)))
    return pick_elements(SE.Gather, x, index._t.shape, m, dim=_uint(dim), tensors=index)


def index_select(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``x`` at ``index`` along ``dim`` (IndexSelectBackward0)."""
    if not isinstance(index, Tensor):
        raise not_tensor(index, 'index_select', 'index', 2)
    if index._t.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._t.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    shape = tuple(x._t.shape)
    d = norm_dim(dim, x._t.ndim)
    idx = _flat(index)
    if not shape:
        for i in idx:
            if i not in (0, -1):
                raise IndexError("index out of range in self")
        return pick_elements(SE.IndexSelect, x, (), [0] * len(idx), dim=_uint(dim), tensors=index)  # a 0-dim result
    size = shape[d]
    for i in idx:
        if not 0 <= i < size:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={i} axis_dim={size}")
    out_shape = shape[:d] + (len(idx),) + shape[d + 1:]
    xs = contiguous_strides(shape)
    m = []
    for j in range(math.prod(out_shape)):
        pos = [(j // s) % n for s, n in zip(contiguous_strides(out_shape), out_shape)]
        pos[d] = idx[pos[d]]
        m.append(sum(p * s for p, s in zip(pos, xs)))
    return pick_elements(SE.IndexSelect, x, out_shape, m, dim=_uint(dim), tensors=index)


def masked_select(x: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``x`` where the (broadcast) bool ``mask`` holds, as a vector."""
    if not isinstance(mask, Tensor):
        raise not_tensor(mask, 'masked_select', 'mask', 1)
    if mask._t.dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(x._t.shape, mask._t.shape)
    if shape != tuple(x._t.shape):
        raise Unsupported("masked_select with a mask that broadcasts the input")
    mv = _flat(mask)
    pm = positions(mask._t.shape, shape)
    m = [j for j in range(math.prod(shape)) if mv[pm[j]]]
    return pick_elements(SE.MaskedSelect, x, (len(m),), m, tensors=mask)


def take(x: Tensor, index: Tensor) -> Tensor:
    """The elements of ``x`` (flattened) at ``index``, in index's shape (TakeBackward0)."""
    index = _index_tensor(index, "take", pos=1)
    n = x._t.numel
    m = []
    for i in _flat(index):
        if not -n <= i < n:
            raise IndexError(f"out of range: tried to access index {i} on a tensor of {n} elements.")
        m.append(i % n)
    return pick_elements(SE.Take, x, index._t.shape, m, tensors=index)


def _order(vals: list, descending: bool, stable: bool = True) -> list:
    """PyTorch's CPU sort of one slice: positions in order, nan above every number; stable
    (std::stable_sort), or as libstdc++'s introsort leaves equal values (std::sort)."""
    if not stable:
        if descending:
            def less(i, j):
                a, b = vals[i], vals[j]
                return (a != a and b == b) or a > b
        else:
            def less(i, j):
                a, b = vals[i], vals[j]
                return (a == a and b != b) or a < b
        return std_sort(list(range(len(vals))), less)
    if descending:
        return sorted(range(len(vals)), key=lambda i: (vals[i] == vals[i], -vals[i] if vals[i] == vals[i] else 0))
    return sorted(range(len(vals)), key=lambda i: (vals[i] != vals[i], vals[i] if vals[i] == vals[i] else 0))


def _along(x: Tensor, dim: int, k: int | None, descending: bool, op, name: str, keep=True, pick=None,
           stable: bool = True, sorted_: bool = True, **saved):
    """Sorted values (the first ``k`` of each slice) and their indices along ``dim``."""
    shape = tuple(x._t.shape)
    nd = len(shape)
    d = norm_dim(dim, nd)
    vals = _flat(x)
    size = shape[d] if nd else 1
    k = size if k is None else k
    out_shape = list(shape) if nd else []
    if nd:
        out_shape[d] = k
    n_out = math.prod(out_shape) if out_shape else 1
    m = [0] * n_out
    idx = [0] * n_out
    out_slices = slices(tuple(out_shape), d) if nd else [[0]]
    for s_in, s_out in zip(slices(shape, d) if nd else [[0]], out_slices):
        sv = [vals[i] for i in s_in]
        if op is SE.Topk:
            order = _topk_order(sv, k, descending, sorted_)
        else:
            order = _order(sv, descending, stable)
        chosen = order[:k] if pick is None else [order[pick]]
        for o, j in zip(s_out, chosen):
            m[o] = s_in[j]
            idx[o] = j
    if pick is not None and not keep:
        out_shape = list(_out_shape(shape, (d,) if nd else (), False))
    indices = leaf(idx if out_shape else idx[0], TensorType(dtypes.int64, tuple(out_shape)))
    values = pick_elements(op, x, out_shape, m, dim=_uint(dim), tensors=indices, **saved)
    return ReturnTypes(name, values, indices)


def cummax(input: Tensor, dim: int, _largest: bool = True):
    """``cummax``/``cummin`` along ``dim``: (values, indices) of the running extreme, as ATen's
    kernel: a later equal element takes over, a nan takes over and holds (CummaxBackward0)."""
    name = "cummax" if _largest else "cummin"
    if not isinstance(input, Tensor):
        raise not_tensor(input, name)
    if dim.__class__ is not int:
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    shape = tuple(input._t.shape)
    d = norm_dim(dim, len(shape))
    vals = _flat(input)
    m, idx = [0] * len(vals), [0] * len(vals)
    for s in slices(shape, d) if shape else [[0]]:
        best, at = None, 0
        for j, i in enumerate(s):
            v = vals[i]
            if best is None or v != v or (best == best and (v >= vals[best] if _largest else v <= vals[best])):
                best, at = i, j
            m[i], idx[i] = best, at
    indices = leaf(idx if shape else idx[0], TensorType(dtypes.int64, shape))
    values = pick_elements(SE.Cummax if _largest else SE.Cummin, input, shape, m, dim=_uint(dim), tensors=indices)
    return ReturnTypes(name, values, indices)


def _topk_order(vals: list, k: int, largest: bool, sorted_: bool) -> list:
    """The positions PyTorch's CPU topk picks, in its order: std::partial_sort of the (value,
    index) pairs when k * 64 <= n, else std::nth_element and, sorted, std::sort of the first
    k - 1 (nan above every number)."""
    if largest:
        def less(i, j):
            a, b = vals[i], vals[j]
            return (a != a and b == b) or a > b
    else:
        def less(i, j):
            a, b = vals[i], vals[j]
            return (a == a and b != b) or a < b
    n = len(vals)
    items = list(range(n))
    if not k:
        return []
    if k * 64 <= n:
        return partial_sort(items, k, less)
    out = nth_element(items, k - 1, less)
    if sorted_:
        sort_range(out, 0, k - 1, less)
    return out


def sort(x: Tensor, dim: int = -1, descending: bool = False, *, stable=None):
    """``sort``: (values, indices) along ``dim``, stable (SortBackward0; SortBackward1 for the
    overload with ``stable``)."""
    return _along(x, dim, None, bool(descending), SE.Sort if stable is None else SE.SortStable, "sort",
                  stable=bool(stable))


def argsort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    return sort(x, dim, descending, stable=stable)[1]


def topk(x: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """``topk``: the ``k`` largest (smallest) along ``dim`` (TopkBackward0); equal values in
    index order."""
    size = x._t.shape[norm_dim(dim, x._t.ndim)] if x._t.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return _along(x, dim, k, bool(largest), SE.Topk, "topk", sorted_=bool(sorted))


def kthvalue(x: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """``kthvalue``: the k-th smallest along ``dim`` (KthvalueBackward0)."""
    d = norm_dim(dim, x._t.ndim)
    size = x._t.shape[d] if x._t.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _along(x, dim, 1, False, SE.Kthvalue, "kthvalue", keep=bool(keepdim), pick=k - 1, keepdim=bool(keepdim))


def _triangle(x: Tensor, diagonal: int, lower: bool) -> Tensor:
    name = "tril" if lower else "triu"
    if x._t.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    shape = tuple(x._t.shape)
    rows, cols = shape[-2], shape[-1]
    m = []
    for j in range(x._t.numel):
        r, c = (j // cols) % rows, j % cols
        keep = (c - r <= diagonal) if lower else (c - r >= diagonal)
        m.append(j if keep else -1)
    return pick_elements(SE.Tril if lower else SE.Triu, x, shape, m, diagonal=_uint(diagonal))


def tril(x: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(x, diagonal, True)


def triu(x: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(x, diagonal, False)


def diagonal(x: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, _op=SE.Diagonal) -> Tensor:
    """The diagonal of ``x`` in dims ``dim1``, ``dim2`` (DiagonalBackward0), as a last dim after
    the others: a view of x's memory (writes through it reach x), stepping both dims' strides."""
    nd = x._t.ndim
    d1, d2 = norm_dim(dim1, nd), norm_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape, strides = x._t.shape, x._t.strides
    n = max(0, min(shape[d1], shape[d2] - offset) if offset >= 0 else min(shape[d1] + offset, shape[d2]))
    rest = [i for i in range(nd) if i not in (d1, d2)]
    out_shape = tuple(shape[i] for i in rest) + (n,)
    logical = contiguous_strides(shape)
    start = (offset * logical[d2] if offset >= 0 else -offset * logical[d1]) if n else 0
    m = gather_index(out_shape, [logical[i] for i in rest] + [logical[d1] + logical[d2]], start)
    raw = {"dim1": _uint(dim1), "dim2": _uint(dim2), "offset": _uint(offset)}
    if _op is not SE.Diagonal:
        return pick_elements(_op, x, out_shape, m, **raw)
    moffset = offset_of(x) + ((offset * strides[d2] if offset >= 0 else -offset * strides[d1]) if n else 0)
    layout = Layout(x._t.shape, x._t.dtype)
    layout.raw = raw
    return make_view(x, out_shape, [strides[i] for i in rest] + [strides[d1] + strides[d2]], moffset, m, _op,
                     layout)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: the windows of ``size`` elements every ``step`` along ``dimension``,
    as a new last dim; a view of the input's memory (UnfoldBackward0)."""
    x = self
    nd = x._t.ndim
    d = norm_dim(dimension, nd)
    n = x._t.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, strides = list(x._t.shape), list(x._t.strides)
    logical = list(contiguous_strides(tuple(shape)))
    if nd:
        count = (n - size) // step + 1
        out_shape = tuple(shape[:d] + [count] + shape[d + 1:] + [size])
        lst = logical[:d] + [logical[d] * step] + logical[d + 1:] + [logical[d]]
        mst = strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]
    else:
        out_shape, lst, mst = (size,), [1], [1]
    m = gather_index(out_shape, lst, 0)
    layout = Layout(x._t.shape, x._t.dtype)
    layout.raw = {"dimension": _uint(dimension), "size": size, "step": step}
    return make_view(x, out_shape, mst, offset_of(x), m, SE.Unfold, layout)


def diag(x: Tensor, diagonal: int = 0) -> Tensor:
    """``diag``: a matrix's diagonal, or the square matrix with a vector on its diagonal."""
    if x._t.ndim == 2:
        return globals()["diagonal"](x, diagonal, _op=SE.DiagonalCopy)
    if x._t.ndim != 1:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{x._t.ndim}D")
    n = x._t.shape[0] + abs(diagonal)
    m = [-1] * (n * n)
    for i in range(x._t.shape[0]):
        r, c = (i, i + diagonal) if diagonal >= 0 else (i - diagonal, i)
        m[r * n + c] = i
    return pick_elements(SE.DiagEmbed, x, (n, n), m, dim1=_uint(-2), dim2=_uint(-1), offset=_uint(diagonal))


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """``diagflat``: ATen's composite, ``input.contiguous().view(-1).diag(offset)`` (the flattened
    elements on the ``offset`` diagonal of a square matrix: DiagEmbedBackward0 over ViewBackward0)."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "diagflat")
    return diag(view(input.contiguous(), -1), offset)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Each vector of ``input``'s last dim on the ``offset`` diagonal of a matrix in dims
    ``dim1``, ``dim2`` of the result (one dim more), zeros elsewhere (DiagEmbedBackward0)."""
    shape = tuple(input._t.shape)
    nd = len(shape) + 1
    d1, d2 = norm_dim(dim1, nd), norm_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    k = shape[-1] if shape else 1
    n = k + abs(offset)
    rest = iter(shape[:-1])
    out_shape = tuple(n if i in (d1, d2) else next(rest) for i in range(nd))
    ost = contiguous_strides(out_shape)
    others = [i for i in range(nd) if i not in (d1, d2)]
    m = []
    for j in range(math.prod(out_shape)):
        p = [(j // s) % size for s, size in zip(ost, out_shape)]
        if p[d2] - p[d1] != offset:
            m.append(-1)
            continue
        outer = 0
        for i in others:
            outer = outer * out_shape[i] + p[i]
        m.append(outer * k + min(p[d1], p[d2]))
    return pick_elements(SE.DiagEmbed, input, out_shape, m, dim1=_uint(dim1), dim2=_uint(dim2), offset=_uint(offset))


def _repeats_vector(repeats: Tensor) -> list:
    """``torch.repeat_interleave(repeats)``: each index i, repeats[i] times."""
    if repeats._t.dtype.kind != "i":
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{repeats._t.dtype.short}'")
    if repeats._t.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    out = []
    for i, r in enumerate(repeats._val):
        if r < 0:
            raise RuntimeError("repeats can not be negative")
        out += [i] * r
    return out


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (slice along ``dim``; of the flattened tensor without) repeated ``repeats``
    times, as ATen's composite: an int repeats through unsqueeze, expand, a contiguous clone
    and a view; a tensor of repeats through index_select; ``repeat_interleave(repeats)`` alone
    the indices 0, 1... each repeated."""
    if repeats is None:
        idx = _repeats_vector(input)
        return leaf(idx, TensorType(dtypes.int64, (len(idx),)))
    x = input
    if dim is None:
        x = x.flatten()
        d = 0
    else:
        d = norm_dim(dim, x._t.ndim)
    if isinstance(repeats, Tensor):
        if repeats._t.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = x._t.shape[d] if x._t.ndim else 1
        if repeats._t.numel == 1:
            repeats = repeats.reshape(1).expand(size).contiguous()
        elif repeats._t.shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats._t.shape[0]} and input.size({d}) = {size}")
        idx = _repeats_vector(repeats)
        if output_size is not None and output_size != len(idx):
            raise RuntimeError("allocated size does not match required size")
        return index_select(x, d, leaf(idx, TensorType(dtypes.int64, (len(idx),))))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(x._t.shape)
    sizes = shape[:d + 1] + [repeats] + shape[d + 1:]
    return x.unsqueeze(d + 1).expand(sizes).contiguous().flatten(d, d + 1)


def repeat(x: Tensor, *sizes) -> Tensor:
    """``repeat``: the tensor tiled ``sizes`` times (RepeatBackward0)."""
    if len(sizes) == 1 and not isinstance(sizes[0], int) and integer(sizes[0]) is None:
        sizes = tuple(sizes[0])
    sizes = tuple(s if s.__class__ is int else int(s) if integer(s) is not None else s for s in sizes)
    shape = tuple(x._t.shape)
    if len(sizes) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    src = (1,) * (len(sizes) - len(shape)) + shape
    out_shape = tuple(a * b for a, b in zip(src, sizes))
    check_size(out_shape)
    ss, os_ = contiguous_strides(src), contiguous_strides(out_shape)
    m = []
    for j in range(math.prod(out_shape)):
        m.append(sum(((j // o) % n) % s * st for o, n, s, st in zip(os_, out_shape, src, ss)))
    return pick_elements(SE.Repeat, x, out_shape, m, repeats=tuple(sizes))


def tile(input: Tensor, *sizes, dims=None) -> Tensor:
    """``tile``: ``repeat`` with ``dims`` first given leading 1s up to the tensor's dims (ATen's
    ``tile``; RepeatBackward0); ``x.tile(2, 3)``, ``x.tile((2, 3))`` or ``x.tile(dims=(2, 3))``."""
    if dims is not None:
        if sizes:
            raise TypeError("tile() got multiple values for argument 'dims'")
        sizes = (dims,)
    dims = sizes
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = tuple(dims[0])
    return repeat(input, (1,) * (input._t.ndim - len(dims)) + tuple(dims))


def roll(x: Tensor, shifts, dims=None) -> Tensor:
    """``roll``: elements shifted cyclically along ``dims`` (the flattened tensor without)."""
    if isinstance(shifts, Tensor):  # a tensor of shifts passes as its numbers
        shifts = [int(v) for v in _flat(shifts)]
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    ds = () if dims is None else ((dims,) if isinstance(dims, int) else tuple(dims))
    shape = tuple(x._t.shape)
    n = x._t.numel
    if not ds:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        m = [(j - sh[0]) % n for j in range(n)] if n else []
    else:
        if len(sh) != len(ds):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
        st = contiguous_strides(shape)
        m = list(range(n))
        for s, d in zip(sh, ds):
            if not shape:
                raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
            d = norm_dim(d, len(shape))
            size = shape[d]
            m = [m[j - ((j // st[d]) % size) * st[d] + (((j // st[d]) % size - s) % size) * st[d]] for j in range(n)]
    return pick_elements(SE.Roll, x, shape, m, dims=tuple(_uint(d) for d in ds), shifts=tuple(_uint(v) for v in sh))


def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    """ATen's composite: ``gather`` along ``dim`` of input and indices expanded to each other's sizes
    (but at ``dim``), or of both flattened when ``dim`` is None (GatherBackward0)."""
    if dim is None:
        return gather(view(input, -1), 0, view(indices, -1))
    n, ni = input._t.ndim, indices._t.ndim
    if n != ni:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {n} dimensions for input, and {ni} dimensions for indices")
    if indices._t.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices._t.dtype.short}")
    d = norm_dim(dim, n)
    sizes, isizes = list(input._t.shape), list(indices._t.shape)
    sizes[d] = indices._t.shape[d]
    indices = expand(indices, broadcast_shapes(sizes, indices._t.shape))
    isizes[d] = input._t.shape[d]
    return gather(expand(input, broadcast_shapes(isizes, input._t.shape)), d, indices)


def install(method, function) -> None:
    """gather, index_select, masked_select, take, sort, argsort, topk, kthvalue, tril, triu, diagonal,
    diag, diagflat, diag_embed, roll, repeat_interleave, repeat, unfold, tile."""
    method("gather", lambda self, dim, index, *, sparse_grad=False: gather(self, dim, index))
    function("gather", lambda input, dim, index, *, sparse_grad=False, out=None: gather(input, dim, index))
    for name, largest in (("cummax", True), ("cummin", False)):
        method(name, lambda self, dim, _l=largest: cummax(self, dim, _l))
        function(name, lambda input, dim, _l=largest: cummax(input, dim, _l))
    for name in ("index_select", "masked_select", "take", "sort", "argsort", "topk", "kthvalue", "tril", "triu",
                 "diagonal", "diag", "diagflat", "roll", "diag_embed", "repeat_interleave"):
        fn = globals()[name]
        method(name, fn)
        function(name, fn)
    method("take_along_dim", lambda self, indices, dim=None: take_along_dim(self, indices, dim))
    function("take_along_dim", lambda input, indices, dim=None, *, out=None: take_along_dim(input, indices, dim))
    method("msort", lambda self: sort(self, 0)[0])  # ATen's composite: sort's values along dim 0 (SortBackward0)
    function("msort", lambda input, *, out=None: sort(input, 0)[0])
    method("repeat", sizes_by_keyword(repeat, "repeat", "repeats"))
    method("unfold", unfold)
    method("narrow_copy", narrow_copy)
    function("narrow_copy", lambda input, dim, start, length, *, out=None: narrow_copy(input, dim, start, length))
    method("tile", tile)
    function("tile", lambda input, dims: tile(input, dims))
    method("tril_", lambda self, diagonal=0: inplace(self, lambda t: tril(t, diagonal), "tril_"))
    method("triu_", lambda self, diagonal=0: inplace(self, lambda t: triu(t, diagonal), "triu_"))


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def pick_backward(g, layout, name, adds_into_zeros):
    """The gradient of a selection op: ``g``'s elements put at ``layout.map`` of zeros of the
    input's shape (skipping the -1 entries, the zeros the op wrote), in order; added into the
    zeros, or written with elements picked twice added."""
    g = g if isinstance(g, Tensor) else leaf(g, TensorType(layout.in_dtype, ()))
    m = layout.map
    if any(i < 0 for i in m):
        keep = [j for j, i in enumerate(m) if i >= 0]
        g = gather_at(g, keep, (len(keep),))
        m = [m[j] for j in keep]
    return scatter_into(g, layout.in_shape, m, name, accumulate=True, from_zero=adds_into_zeros)
