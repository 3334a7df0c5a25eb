"""Write ops on tensors (``_ops/scatter.py``): scatter, scatter_add, index_add, index_copy,
index_fill, masked_scatter, out of place and in place, with PyTorch's checks in its order and
words; diagonal_scatter, select_scatter and slice_scatter write src into the view of the input
that diagonal, select and slicing make (their checks and errors). Each lists its writes as
``(output position, src position)`` pairs in the order PyTorch's CPU kernel makes them, then one
node computes the values from them."""

from __future__ import annotations

import itertools
import math
import warnings

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.kernel_order import fma
from .._base.layout import contiguous_strides
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import scatter as W
from .._ops import selection as SE
from .._ops.views import Layout
from .arguments import not_tensor
from .inplace import inplace
from .operands import broadcast_shapes, positions
from .reductions import sum as tsum
from .selection import diagonal, gather, index_select, pick_elements
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper, running
from .views import expand, norm_dim, reshape, select

__all__ = ["scatter_writes", "slice_writes", "index_func_checks", "scatter", "scatter_add", "index_add", "index_copy",
           "index_fill", "masked_scatter", "diagonal_scatter", "select_scatter", "slice_scatter", "install"]


_REDUCE_DEPRECATED = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future PyTorch "
    "release. Use torch.scatter_reduce instead for more reduction options. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:225.)")


def _uint(d: int) -> int:
    return d + (1 << 64) if d < 0 else d


def _flat(x: Tensor) -> list:
    return x._val if x._t.ndim else [x._val]


def _type_name(x) -> str:
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, (list, tuple)):
        inner = sorted({type(e).__name__ for e in x})
        return f"{type(x).__name__} of [{', '.join(inner)}]"
    return type(x).__name__


def _bad_scatter_args(name: str, dim, index, src) -> TypeError:
    """PyTorch's argument parser on a scatter call no overload accepts."""
    got = ", ".join(_type_name(a).split(" of ")[0] for a in (dim, index, src))

    def marked(second: str) -> str:
        ok = (isinstance(dim, int), isinstance(index, Tensor),
              isinstance(src, Tensor) if second == "Tensor" else isinstance(src, (int, float, bool)))
        return ", ".join(t if good else f"!{t}!" for t, good in zip((_type_name(dim), _type_name(index),
                                                                     _type_name(src)), ok))

    lines = [f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:"]
    if name == "scatter":
        lines += [" * (int dim, Tensor index, Tensor src)",
                  f"      didn't match because some of the arguments have invalid types: ({marked('Tensor')})",
                  " * (int dim, Tensor index, Tensor src, *, str reduce)",
                  " * (int dim, Tensor index, Number value)",
                  f"      didn't match because some of the arguments have invalid types: ({marked('Number')})",
                  " * (int dim, Tensor index, Number value, *, str reduce)"]
    return TypeError("\n".join(lines) + "\n")


# ---------------------------------------------------------------- the writes


def scatter_writes(name: str, x: Tensor, d: int, index: Tensor, src: Tensor | None) -> list:
    """(output position, src position) for each index element, in index order (the CPU kernel
    walks each slice along ``dim`` in order, so the last of equal targets wins)."""
    if index._t.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and src._t.dtype is not x._t.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    shape = tuple(x._t.shape) or (1,)
    ishape = tuple(index._t.shape) or (1,)
    nd = len(shape)
    if index._t.numel == 0:
        return []
    if max(index._t.ndim, 1) != max(x._t.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    sshape = (tuple(src._t.shape) or (1,)) if src is not None else None
    too_big = any(k != d and ishape[k] > shape[k] for k in range(nd))
    if src is not None:
        too_big = too_big or any(ishape[k] > sshape[k] for k in range(min(nd, len(sshape))))
        if too_big:
            raise RuntimeError(f"Expected index {list(index._t.shape)} to be no larger than self {list(x._t.shape)} "
                               f"apart from dimension {d} and to be no larger size than src {list(src._t.shape)}")
    elif too_big:
        raise RuntimeError(f"Expected index {list(index._t.shape)} to be no larger than self {list(x._t.shape)} "
                           f"apart from dimension {d}")
    xs, its = contiguous_strides(shape), contiguous_strides(ishape)
    ss = contiguous_strides(sshape) if src is not None else None
    writes = []
    for j, i in enumerate(_flat(index)):
        if not 0 <= i < shape[d]:
            raise RuntimeError(f"index {i} is out of bounds for dimension {d} with size {shape[d]}")
        pos = [(j // its[k]) % ishape[k] for k in range(nd)]
        s = sum(p * st for p, st in zip(pos, ss)) if ss is not None else -1
        pos[d] = i
        writes.append((sum(p * st for p, st in zip(pos, xs)), s))
    return writes


def slice_writes(x: Tensor, d: int, idx: list, source_shape: tuple | None) -> list:
    """index_add/index_copy/index_fill: slice ``i`` of the source (or the number) into slice
    ``idx[i]`` of ``x`` along ``d``, slice after slice, each in memory order."""
    shape = tuple(x._t.shape) or (1,)
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    size = shape[d]
    writes = []
    for i, target in enumerate(idx):
        for o in range(outer):
            for q in range(inner):
                dest = (o * size + target) * inner + q
                src = (o * len(idx) + i) * inner + q if source_shape is not None else -1
                writes.append((dest, src))
    return writes


def _node(op, x: Tensor, src: Tensor | None, writes: list, value=None, scale=1, tensors=None, index=None,
          shape: tuple | None = None, **raw) -> Tensor:
    """The result of writing ``src``'s elements (or ``value``) into a copy of ``x`` at ``writes``;
    ``index``: the layout's saved index (masked_scatter's expanded mask), set before the node is
    made, as a dual level's tangent is propagated through the backward formula in ``make``.
    ``shape``: the result's, when self broadcasts to it (out-of-place masked_scatter)."""
    dt = x._t.dtype
    r = dt.round
    out = list(_flat(x))
    t = x._t
    if shape is not None and shape != tuple(t.shape):
        out = [out[p] for p in positions(t.shape, shape)] if t.ndim else out * math.prod(shape)
        t = TensorType(dt, shape)
    sv = None if src is None else _flat(src) if src._t.dtype is dt else [r(v) for v in _flat(src)]
    if op.accumulate:
        f32 = dt is dtypes.float32
        for dest, s in writes:
            if scale == 1:
                out[dest] = r(out[dest] + sv[s])
            elif dt.is_floating_point and x._t.ndim > 1:
                # slice by slice, ATen's vectorized add: self + alpha * source, one fused
                # multiply-add (compiled with FMA for AVX2 and AVX512, as add(alpha=))
                out[dest] = r(fma(scale, sv[s], out[dest], f32))
            else:  # a vector: the scalar loop, self += source * alpha, rounded twice
                out[dest] = r(out[dest] + r(sv[s] * scale))
    elif op in (W.ScatterReduce, W.ScatterReduceValue, W.ScatterReduceInplace, W.ScatterReduceValueInplace):
        for dest, s in writes:
            w = sv[s] if s >= 0 else value
            out[dest] = r(out[dest] + w) if raw["reduce"] == "add" else r(out[dest] * w)
    else:
        for dest, s in writes:
            out[dest] = sv[s] if s >= 0 else value
    layout = Layout(x._t.shape, dt, map=writes, tensors=tensors, value=value)
    layout.raw = raw
    layout.dim = raw.get("d")
    if index is not None:
        layout.index = index
    ins = (x,) if src is None else (x, src)
    op = op.tensor if not t.ndim and (src is None or not src._t.ndim) else op
    return make(op, t, out if t.ndim else out[0], ins, layout)


# ---------------------------------------------------------------- scatter, scatter_add


def scatter(x: Tensor, dim, index, src=None, value=None, *, reduce=None, _inplace: bool = False) -> Tensor:
    """``scatter(dim, index, src)`` / ``scatter(dim, index, value)``: a copy of ``x`` with
    ``src``'s elements (or the number) at ``index`` along ``dim`` (ScatterBackward0/1);
    ``reduce=`` 'add' or 'multiply' combines them instead (no derivative, as PyTorch's)."""
    if src is None:
        src = value
    if not isinstance(dim, int) or not isinstance(index, Tensor) or not (
            isinstance(src, Tensor) or src.__class__ in (int, float, bool)):
        raise _bad_scatter_args("scatter", dim, index, src)
    d = norm_dim(dim, x._t.ndim)
    is_tensor = isinstance(src, Tensor)
    if reduce is not None:
        if is_tensor and first_time("scatter_reduce_arg"):  # TORCH_WARN_ONCE
            warnings.warn(_REDUCE_DEPRECATED, UserWarning, stacklevel=program_stacklevel())
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
    writes = scatter_writes("scatter", x, d, index, src if is_tensor else None)
    if reduce is not None:
        if _inplace:
            op = W.ScatterReduceInplace if is_tensor else W.ScatterReduceValueInplace
        else:
            op = W.ScatterReduce if is_tensor else W.ScatterReduceValue
        number = None if is_tensor else x._t.dtype.round(src)
        return _node(op, x, src if is_tensor else None, writes, number, tensors=index, reduce=reduce, d=d,
                     dim=_uint(dim))
    if is_tensor:
        return _node(W.Scatter, x, src, writes, tensors=index, d=d, dim=_uint(dim))
    return _node(W.ScatterValue, x, None, writes, x._t.dtype.round(src), tensors=index, d=d, dim=_uint(dim))


def scatter_add(x: Tensor, dim, index, src) -> Tensor:
    """``scatter_add(dim, index, src)``: ``src``'s elements added at ``index`` along ``dim``,
    in index order (ScatterAddBackward0)."""
    if not isinstance(src, Tensor):
        raise not_tensor(src, 'scatter_add', 'src', 3)
    if not isinstance(index, Tensor):
        raise not_tensor(index, 'scatter_add', 'index', 2)
    d = norm_dim(dim, x._t.ndim)
    writes = scatter_writes("scatter", x, d, index, src)  # PyTorch's checks name scatter
    return _node(W.ScatterAdd, x, src, writes, tensors=index, d=d, dim=_uint(dim))


# ---------------------------------------------------------------- index_add, index_copy, index_fill


def _vector(index, name: str, pos: int) -> list:
    if not isinstance(index, Tensor):
        raise not_tensor(index, name, 'index', pos)
    return _flat(index)


def _source_slices(name: str, x: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    """The checks index_add and index_copy share on ``source``'s shape."""
    sshape, shape = tuple(source._t.shape), tuple(x._t.shape)
    n = index._t.numel
    if name in ("index_add", "index_reduce"):
        if sshape and n != sshape[d if d < len(sshape) else 0]:
            raise RuntimeError(f"{name}_(): Number of indices ({n}) should be equal to source.size(dim): "
                               f"({sshape[d]}), for dim: {d}")
        if len(sshape) != len(shape) or any(a != b for k, (a, b) in enumerate(zip(sshape, shape)) if k != d):
            if shape or sshape:
                raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                                   f"dimension. Got self.shape = {list(shape)} source.shape = {list(sshape)}")
        return
    if sshape and n != sshape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({sshape[d]})")
    for k, (a, b) in enumerate(zip(sshape, shape)):
        if k != d and a != b:
            k = k if k < d else k - 1  # a dimension of the slice, which lacks ``dim``
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {b} at dimension {k} and source slice shape: {a} at dimension {k}.")


def index_func_checks(name: str, x: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    """ATen's index_func_meta_impl checks, shared by index_add and index_reduce (``name``)."""
    if index._t.ndim > 1:
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {index._t.ndim} with type: "
                         f"{index._t.dtype.short} and size: {list(index._t.shape)}")
    if index._t.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}_(): Expected dtype int32/int64 for index but got: {index._t.dtype.short}")
    if source._t.dtype is not x._t.dtype:
        raise RuntimeError(f"{name}_(): self ({x._t.dtype.short}) and source ({source._t.dtype.short}) must "
                           f"have the same scalar type")
    _source_slices(name, x, d, index, source)


def index_add(x: Tensor, dim, index, source, *, alpha=1) -> Tensor:
    """``index_add(dim, index, source, alpha=1)``: ``alpha`` times source's slice ``i`` added to
    slice ``index[i]`` of ``x`` along ``dim`` (IndexAddBackward0)."""
    idx = _vector(index, "index_add", 2)
    if not isinstance(source, Tensor):
        raise not_tensor(source, 'index_add', 'source', 3)
    d = norm_dim(dim, x._t.ndim)
    index_func_checks("index_add", x, d, index, source)
    size = x._t.shape[d] if x._t.ndim else 1
    for i in idx:
        if not 0 <= i < size:
            raise RuntimeError(f"index {i} is out of bounds for dimension {d} with size {size}")
    dt = x._t.dtype
    a = dt.round(alpha)  # ATen's scalar_t alpha
    writes = slice_writes(x, d, idx, tuple(source._t.shape))
    return _node(W.IndexAdd, x, source, writes, scale=a, tensors=index, d=d, dim=_uint(dim), alpha=alpha,
                 source_dim=source._t.ndim)


def index_copy(x: Tensor, dim, index, source) -> Tensor:
    """``index_copy(dim, index, source)``: source's slice ``i`` copied into slice ``index[i]``
    of ``x`` along ``dim`` (IndexCopyBackward0)."""
    idx = _vector(index, "index_copy", 2)
    if not isinstance(source, Tensor):
        raise not_tensor(source, 'index_copy', 'source', 3)
    d = norm_dim(dim, x._t.ndim)
    if index._t.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index._t.ndim})")
    _source_slices("index_copy", x, d, index, source)
    if index._t.dtype is not dtypes.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index._t.dtype.short}")
    if source._t.dtype is not x._t.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{x._t.dtype.short} and (source) {source._t.dtype.short}")
    size = x._t.shape[d] if x._t.ndim else 1
    for i in idx:
        if not 0 <= i < size:
            raise IndexError(f"index_copy_(): index {i} is out of bounds for dimension {d} with size {size}")
    writes = slice_writes(x, d, idx, tuple(source._t.shape))
    return _node(W.IndexCopy, x, source, writes, tensors=index, d=d, dim=_uint(dim), source_dim=source._t.ndim)


def index_fill(x: Tensor, dim, index, value) -> Tensor:
    """``index_fill(dim, index, value)``: slices ``index`` of ``x`` along ``dim`` set to the number
    (IndexFillBackward0) or the 0-dim tensor ``value`` (IndexFillBackward1); negative indices
    count from the end."""
    idx = _vector(index, "index_fill", 2)
    d = norm_dim(dim, x._t.ndim)
    if index._t.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index._t.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value._t.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._t.ndim} dimension(s).")
    if not isinstance(value, Tensor) and value.__class__ not in (int, float, bool):
        raise TypeError(f"index_fill(): argument 'value' (position 3) must be Number, not {type(value).__name__}")
    if x._t.dtype is not dtypes.bool:  # the kernel converts the value (a tensor's item()) checked, first
        dtypes.check_scalar_fits(x._t.dtype, value.item() if isinstance(value, Tensor) else value)
    size = x._t.shape[d] if x._t.ndim else 1
    for i in idx:
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
    writes = slice_writes(x, d, [i % size for i in idx], None)
    if isinstance(value, Tensor):
        writes = [(dest, 0) for dest, _ in writes]
        # a value of another dtype is its input as it is (the node rounds it, the engine casts its gradient)
        return _node(W.IndexFillTensor, x, value, writes, tensors=index, d=d, dim=_uint(dim))
    return _node(W.IndexFill, x, None, writes, x._t.dtype.round(value), tensors=index, d=d, dim=_uint(dim))


# ---------------------------------------------------------------- masked_scatter


def put(x: Tensor, index, source, accumulate: bool = False) -> Tensor:
    """``put(index, source, accumulate)``: source's elements written (or, accumulating, added in
    order) at the flat row-major positions ``index`` of a copy of ``x``, negative positions
    counted from the end. Its derivative (PutBackward0) is not implemented: refused by name in a graph."""
    if not isinstance(index, Tensor):
        raise not_tensor(index, "put", "index", 1)
    if not isinstance(source, Tensor):
        raise not_tensor(source, "put", "source", 2)
    if index._t.dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index._t.dtype.short}")
    if source._t.dtype is not x._t.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{x._t.dtype.short} and source.dtype = {source._t.dtype.short}")
    if source._t.numel != index._t.numel:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._t.numel}, index.numel() = {index._t.numel}")
    if (x._rg or source._rg) and is_grad_enabled():
        raise Unsupported("Tensor.put / put_ in a graph (PutBackward0)")
    n = x._t.numel
    writes = []
    for k, i in enumerate(_flat(index)):
        if not -n <= i < n:
            raise IndexError(f"out of range: tried to access index {i} on a tensor of {n} elements.")
        writes.append((i % n, k))
    return _node(W.ScatterAdd if accumulate else W.Scatter, x, source, writes, tensors=index, d=0)


def _expand_error(target: tuple, sizes: tuple) -> RuntimeError | None:
    """ATen's expand of a tensor of ``sizes`` to ``target`` (an in-place op's operand to self's
    shape): its error, or None when it expands. The dims are checked from the last one."""
    if len(target) < len(sizes):
        return RuntimeError(f"expand(CPUBoolType{{{list(sizes)}}}, size={list(target)}): the number of sizes provided "
                            f"({len(target)}) must be greater or equal to the number of dimensions in the tensor "
                            f"({len(sizes)})")
    for i in range(len(target) - 1, -1, -1):
        j = i - (len(target) - len(sizes))
        if j >= 0 and sizes[j] != 1 and sizes[j] != target[i]:
            return RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size "
                                f"({sizes[j]}) at non-singleton dimension {i}.  Target sizes: {list(target)}.  "
                                f"Tensor sizes: {list(sizes)}")
    return None


def masked_scatter(x: Tensor, mask, source, _inplace: bool = False) -> Tensor:
    """``masked_scatter(mask, source)``: the elements of ``x`` where the (broadcast) bool mask
    holds replaced by source's first elements, in order (MaskedScatterBackward0). Out of place,
    self and mask broadcast together (ATen's expand_outplace: the result may be larger than
    self, whose gradient the engine sums back to its shape); in place, the mask expands to self."""
    if not isinstance(mask, Tensor):
        raise not_tensor(mask, 'masked_scatter', 'mask', 1)
    if not isinstance(source, Tensor):
        raise not_tensor(source, "masked_scatter", "source", 2)
    if mask._t.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask._t.dtype.short}")
    if source._t.dtype is not x._t.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{x._t.dtype.short} and {source._t.dtype.short}")
    shape = tuple(x._t.shape)
    if _inplace:
        error = _expand_error(shape, tuple(mask._t.shape))
        if error is not None:
            raise error
    else:
        shape = tuple(broadcast_shapes(mask._t.shape, shape))
    mv = _flat(mask)
    full = [bool(mv[p]) for p in positions(mask._t.shape, shape)] if shape else [bool(mv[0])]
    hits = [j for j, b in enumerate(full) if b]
    if len(hits) > source._t.numel:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    expanded = leaf(full if shape else full[0], TensorType(dtypes.bool, shape))
    return _node(W.MaskedScatter, x, source, [(j, k) for k, j in enumerate(hits)], tensors=mask, index=expanded,
                 shape=shape)


# ---------------------------------------------------------------- src written into a view


def _view(op, x: Tensor, args: tuple) -> Tensor:
    """The view ``op`` writes into: ``x.diagonal(...)``, ``x.select(...)`` or ``x[..., start:end:step]``."""
    if op is W.DiagonalScatter:
        return diagonal(x, *args)
    if op is W.SelectScatter:
        return select(x, *args)
    dim, start, end, step = args
    if not x._t.ndim:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, x._t.ndim)
    return x[(slice(None),) * d + (slice(start, end, step),)]


def _view_scatter(op, name: str, x: Tensor, src, args: tuple, pos: int, **raw) -> Tensor:
    """A copy of ``x`` with ``src`` written into its view ``args`` (its shape exactly); ``pos`` is
    src's argument position (1 for the Tensor method, 2 for the torch function)."""
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, "input", 1)
    if not isinstance(src, Tensor):
        raise not_tensor(src, name, "src", pos)
    where = _view(op, leaf(list(range(x._t.numel)) if x._t.ndim else 0, TensorType(dtypes.int64, x._t.shape)), args)
    if tuple(src._t.shape) != tuple(where._t.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._t.shape)}, slice size = {list(where._t.shape)}")
    writes = [(dest, k) for k, dest in enumerate(_flat(where))]
    return _node(op, x, src, writes, args=args, **raw)


def _diagonal_scatter(input, src, offset, dim1, dim2, pos: int) -> Tensor:
    return _view_scatter(W.DiagonalScatter, "diagonal_scatter", input, src, (offset, dim1, dim2), pos,
                         offset=_uint(offset), dim1=dim1, dim2=_uint(dim2))


def _select_scatter(input, src, dim, index, pos: int) -> Tensor:
    return _view_scatter(W.SelectScatter, "select_scatter", input, src, (dim, index), pos, dim=dim, index=index)


def _slice_scatter(input, src, dim, start, end, step, pos: int) -> Tensor:
    return _view_scatter(W.SliceScatter, "slice_scatter", input, src, (dim, start, end, step), pos, dim=dim,
                         start=start, end=end, step=step)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` as its diagonal ``offset`` in dims ``dim1``, ``dim2``."""
    return _diagonal_scatter(input, src, offset, dim1, dim2, 2)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` as its slice ``index`` along ``dim``."""
    return _select_scatter(input, src, dim, index, 2)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` as its elements ``start:end:step`` along ``dim``."""
    return _slice_scatter(input, src, dim, start, end, step, 2)


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` (its strides kept) with ``src`` written at the memory positions
    ``storage_offset + sum(i_k * stride_k)`` of the copy, cast to ``input``'s dtype; ``input``
    must be all of its storage (dense, offset 0). No graph: AsStridedScatterBackward0 is refused."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "as_strided_scatter", "input", 1)
    if not isinstance(src, Tensor):
        raise not_tensor(src, "as_strided_scatter", "src", 2)
    if is_grad_enabled() and (input.requires_grad or src.requires_grad):
        raise Unsupported("autograd through torch.as_strided_scatter (AsStridedScatterBackward0)")
    size, stride = tuple(int(v) for v in size), tuple(int(v) for v in stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    t = input._t
    shape, n = tuple(t.shape), t.numel
    strides = tuple(t.strides)
    base = input._base
    if not _dense(shape, strides) or input.storage_offset() or (base is not None and base.numel() != n):
        # ATen's output copies the input's whole storage (offset and strides included), and the
        # positions are in that storage: built for a tensor that is all of its storage
        raise Unsupported("torch.as_strided_scatter of a tensor that is not all of its storage (a view of a part "
                          "of another, or not dense)")
    where = {}  # memory position -> logical (row-major) index of the copy
    for i, idx in enumerate(_indices(shape)):
        where[sum(k * st for k, st in zip(idx, strides))] = i
    if any(v < 0 for v in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    if all(size):
        need = offset + sum((sz - 1) * st for sz, st in zip(size, stride)) + 1
        if need > n:
            item = t.dtype.itemsize
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
                               f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
                               f"for storage of size {n * item}")
    if tuple(src._t.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._t.shape)}, slice size = {list(size)}")
    positions_ = [offset + sum(k * st for k, st in zip(idx, stride)) for idx in _indices(size)]
    if len(set(positions_)) != len(positions_):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                           "memory location. Please clone() the tensor before performing the operation.")
    vals = list(_flat(input))
    for p, v in zip(positions_, _flat(src.detach().to(t.dtype))):
        vals[where[p]] = v
    return leaf(vals if shape else vals[0], TensorType(t.dtype, shape, strides))


def _dense(shape: tuple, strides: tuple) -> bool:
    """Whether the elements of (shape, strides) fill 0..numel-1 once each (ATen's non-overlapping and dense)."""
    dims = sorted((st, sz) for sz, st in zip(shape, strides) if sz != 1)
    expect = 1
    for st, sz in dims:
        if st != expect:
            return False
        expect *= sz
    return True


def _indices(shape: tuple):
    """The multi-indices of ``shape`` in row-major order."""
    return itertools.product(*(range(s) for s in shape))


_VIEW_SCATTERS = {W.DiagonalScatter: diagonal_scatter, W.SelectScatter: select_scatter,
                  W.SliceScatter: slice_scatter}


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def view_scatter_zero(g: Tensor, v: Tensor) -> Tensor:
    """self's gradient of a view scatter: ``grad.<op>(zeros_like(src), args...)``."""
    op, src = v._op.base, v._in[1]
    zeros = leaf([0.0] * src._t.numel if src._t.ndim else 0.0, TensorType(g._t.dtype, src._t.shape))
    return _VIEW_SCATTERS[op](g, zeros, *v._c.raw["args"])


@helper
def view_of_grad(g: Tensor, v: Tensor) -> Tensor:
    """src's gradient of a view scatter: the same view of ``grad``."""
    return _view(v._op.base, g, v._c.raw["args"])


@helper
def gather_src(g: Tensor, d: int, index: Tensor, v: Tensor) -> Tensor | None:
    """src's gradient of a scatter node ``v``, ``grad.gather(dim, index)``: in index's shape,
    which PyTorch's engine refuses (validate_outputs) when src's shape does not broadcast to
    it, if src's gradient is wanted at all (``autograd.grad`` of other inputs computes none)."""
    out = gather(g, d, index)
    src = v._in[1]
    got, want = tuple(out._t.shape), tuple(src._t.shape)
    if got == want or (len(want) <= len(got) and all(a in (b, 1) for a, b in zip(want[::-1], got[::-1]))):
        return out
    need = running[-1].need if running else None
    if need is not None and src not in need:
        return None
    raise RuntimeError(f"Function {v.grad_fn.name()} returned an invalid gradient at index 1 - got {list(got)} "
                       f"but expected shape compatible with {list(want)}")


@helper(name="scatter_value")
def scatter_zero(g: Tensor, d: int, index: Tensor, value=0) -> Tensor:
    """``grad.scatter(dim, index, 0)``."""
    return scatter(g, d, index, value=value)


@helper
def index_select_as(g: Tensor, d: int, index: Tensor, source: Tensor) -> Tensor:
    """``grad.index_select(dim, index).expand_as(source)`` (a 0-dim source: its one slice)."""
    if not source._t.ndim:
        return reshape(index_select(g, d, reshape(index, -1) if index._t.ndim else index), ())
    part = index_select(g, d, index)
    return expand(part, *source._t.shape)


@helper
def index_fill_zero(g: Tensor, d: int, index: Tensor) -> Tensor:
    """``grad.index_fill(dim, index, 0)``."""
    return index_fill(g, d, index, 0)


@helper
def index_fill_value_backward(g: Tensor, d: int, index: Tensor) -> Tensor:
    """``grad.index_select(dim, unique(index)).sum()`` (the distinct indices, in order)."""
    seen = []
    size = g._t.shape[d] if g._t.ndim else 1
    for i in _flat(index):
        if i % size not in seen:
            seen.append(i % size)
    return tsum(index_select(g, d, leaf(seen, TensorType(dtypes.int64, (len(seen),)))))


@helper
def masked_scatter_backward(g: Tensor, c: Layout, source: Tensor) -> Tensor:
    """masked_scatter_backward: the gradient's elements where the mask holds, in order, then
    zeros, in source's shape (MaskedScatterBackwardBackward0)."""
    m = [dest for dest, _ in c.map]
    m += [-1] * (source._t.numel - len(m))
    return pick_elements(SE.MaskedScatterGrad, g, tuple(source._t.shape), m, tensors=c.tensors)


# ---------------------------------------------------------------- the surface


def install(method, function) -> None:
    """Tensor methods, in-place forms and torch functions of the write ops."""

    def scatter_method(self, dim, index, src=None, value=None, *, reduce=None):
        return scatter(self, dim, index, src, value, reduce=reduce)

    def scatter_inplace(self, dim, index, src=None, value=None, *, reduce=None):
        return inplace(self, lambda t: scatter(t, dim, index, src, value, reduce=reduce, _inplace=True))

    method("scatter", scatter_method)
    method("scatter_", scatter_inplace)
    function("scatter", lambda input, dim, index, src=None, value=None, *, reduce=None, out=None: scatter(
        input, dim, index, src, value, reduce=reduce))
    method("scatter_add", scatter_add)
    method("scatter_add_", lambda self, dim, index, src: inplace(self, lambda t: scatter_add(t, dim, index, src)))
    function("scatter_add", lambda input, dim, index, src, *, out=None: scatter_add(input, dim, index, src))
    method("index_add", index_add)
    method("index_add_", lambda self, dim, index, source, *, alpha=1: inplace(
        self, lambda t: index_add(t, dim, index, source, alpha=alpha)))
    function("index_add", lambda input, dim, index, source, *, alpha=1, out=None: index_add(
        input, dim, index, source, alpha=alpha))
    method("index_copy", index_copy)
    method("index_copy_", lambda self, dim, index, source: inplace(self, lambda t: index_copy(t, dim, index, source)))
    function("index_copy", lambda input, dim, index, source, *, out=None: index_copy(input, dim, index, source))
    method("index_fill", index_fill)
    method("index_fill_", lambda self, dim, index, value: inplace(self, lambda t: index_fill(t, dim, index, value),
                                                                  "index_fill_"))
    function("index_fill", lambda input, dim, index, value: index_fill(input, dim, index, value))
    method("put", lambda self, index, source, accumulate=False: put(self, index, source, accumulate))
    method("put_", lambda self, index, source, accumulate=False: inplace(self, lambda t: put(t, index, source,
                                                                                                accumulate)))
    function("put", lambda input, index, source, accumulate=False: put(input, index, source, accumulate))
    method("masked_scatter", masked_scatter)
    method("masked_scatter_", lambda self, mask, source: inplace(self, lambda t: masked_scatter(t, mask, source,
                                                                                               _inplace=True)))
    function("masked_scatter", lambda input, mask, source: masked_scatter(input, mask, source))
    method("diagonal_scatter", lambda self, src, offset=0, dim1=0, dim2=1: _diagonal_scatter(
        self, src, offset, dim1, dim2, 1))
    method("select_scatter", lambda self, src, dim, index: _select_scatter(self, src, dim, index, 1))
    method("slice_scatter", lambda self, src, dim=0, start=None, end=None, step=1: _slice_scatter(
        self, src, dim, start, end, step, 1))
    function("diagonal_scatter", diagonal_scatter)
    method("as_strided_scatter", as_strided_scatter)
    function("as_strided_scatter", as_strided_scatter)
    function("select_scatter", select_scatter)
    function("slice_scatter", lambda input, src, dim=0, start=None, end=None, step=1, *, out=None: slice_scatter(
        input, src, dim, start, end, step))
