"""``t[index]`` and ``t[index] = value``: basic indexing (views) and advanced indexing (copies).

Basic indexing (ints, slices, None, ``...``) gives a view (``views.basic_index``). An index
holding a tensor or a list is advanced indexing: integer tensors pick elements (maybe the same
one twice), a bool tensor keeps the elements where it is True; the result is a copy
(IndexBackward0), whose backward adds the gradient back into zeros in index order.

Assignment writes into the tensor's memory. On a tensor in a graph (or with a value that
requires grad), the tensor is rebased onto a node that passes the gradient through except at
the assigned positions, and hands the value its share (CopySlices for basic indexing,
IndexPutBackward0 for advanced), as PyTorch's in-place index ops do.
"""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.dtypes import TensorType, round_list
from .._base.grad_mode import state as _grad_state
from .._base.layout import advanced_index_strides, contiguous_strides
from .._base.numpy_types import integer_or_double, numpy_type_name
from .._ops.indexing import CopySlices, Index, IndexPut, scatter_class
from .._ops.views import Layout
from .factories import tensor
from .fill import copy_into, fill, mask_of, masked_zero
from .inplace import LEAF_INPLACE, VIEW_OF_LEAF, check_inplace, overlapping, rebase
from .make_hooks import batch_write
from .numpy_bridge import plain_index
from .operands import broadcast_shapes, positions
from .storage import positions_in_base, write
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper
from .views import basic_index, expand, reshape

__all__ = ["getitem", "setitem", "resolve", "install", "scatter_into", "gather_at"]


def _is_bool(it) -> bool:
    """A Python bool or a 0-dim bool tensor: PyTorch's applySlicing adds a dimension there
    (``unsqueeze``) and indexes it with ``[0]`` (True) or ``[]`` (False), an advanced index."""
    return it is True or it is False or _is_bool_scalar(it)


def _bool_index(it) -> Tensor:
    on = it if it is True or it is False else bool(it._val)
    return leaf([0] if on else [], TensorType(dtypes.int64, (1 if on else 0,)))


def _is_advanced(it) -> bool:
    if it is True or it is False:
        return True
    return isinstance(it, (Tensor, list)) and not (isinstance(it, Tensor) and not it._t.ndim
                                                    and not it._t.dtype.is_floating_point
                                                    and it._t.dtype is not dtypes.bool)


def resolve(x: Tensor, index, deferred: list | None = None) -> tuple:
    """(result shape, flat positions in ``x``) of ``x[index]`` with an advanced index (None for
    a basic one): bool masks become one integer index per dimension they cover, each dimension
    of ``x`` gets its source (an index, a slice, all of it, a new one), and the advanced indices
    broadcast together, placed as PyTorch places them. ``deferred``: a list that takes an index
    tensor's out-of-bounds error instead of raising it (index_put_ checks the value's shape and
    dtype first; its kernel finds the bad index last)."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(_is_advanced(it) for it in items):
        return None
    shape = list(x._t.shape)
    dims_src = _dimension_sources(_expanded(items, shape), shape, deferred)
    return _positions(dims_src, shape)


def _expanded(items, shape: list) -> list:
    """The index items, each bool mask as one ("idx", positions, shape) per dimension it covers
    (a 0-dim mask as ("new", hits)), integer tensors and lists as ("idx", values, shape)."""
    nd = len(shape)
    expanded = []
    for it in items:
        if isinstance(it, list):
            it = _list_index(it)
        if isinstance(it, Tensor) and it._t.dtype is dtypes.bool:
            dim0 = sum(1 for e in expanded if e is not None and e is not Ellipsis)
            mshape = tuple(it._t.shape)
            for j, s in enumerate(mshape):
                if dim0 + j >= nd or shape[dim0 + j] != s:
                    raise IndexError(f"The shape of the mask {list(mshape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {shape} at index {dim0 + j}")
            flat = it._val if it._t.ndim else [it._val]
            hits = [i for i, b in enumerate(flat) if b]
            strides = contiguous_strides(mshape)
            for j in range(len(mshape)):
                expanded.append(("idx", [(h // strides[j]) % mshape[j] for h in hits], (len(hits),)))
            if not mshape:
                expanded.append(("new", hits))
            continue
        if isinstance(it, Tensor):
            if it._t.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            vals = it._val if it._t.ndim else [it._val]
            expanded.append(("idx", [int(v) for v in vals], tuple(it._t.shape)))
            continue
        expanded.append(it)
    return expanded


def _dimension_sources(expanded: list, shape: list, deferred: list | None = None) -> list:
    """Each dimension's source: ("all", d), ("new", item), ("idx", d, positions, shape) or
    ("slice", d, positions), checked against ``x``'s sizes."""
    nd = len(shape)
    # advanced indices broadcast together; basic ones (slices, ints) walk their dim
    dims_src = []
    d = 0
    k = 0  # the index tensor's place among them: ATen moves them to the front and names that place
    specified = sum(1 for e in expanded if e is not None and e is not Ellipsis and not (
        isinstance(e, tuple) and e[0] == "new"))
    # ATen applies the ints and slices first, then refuses an index tensor into a dimension of
    # size 0 (AdvancedIndex), and only then checks the index tensors' elements (in the kernel)
    empty_dim = False
    out_of_bounds = None
    for e in expanded:
        if e is Ellipsis:
            for _ in range(nd - specified):
                dims_src.append(("all", d))
                d += 1
        elif e is None or (isinstance(e, tuple) and e[0] == "new"):
            dims_src.append(("new", e))
        elif isinstance(e, tuple) and e[0] == "idx":
            if d >= nd:
                raise IndexError(f"too many indices for tensor of dimension {nd}")
            size = shape[d]
            if not size and e[1]:
                empty_dim = True
            for i in e[1]:
                if not -size <= i < size:
                    if out_of_bounds is None:
                        out_of_bounds = IndexError(f"index {i} is out of bounds for dimension {k} with size {size}")
                    break
            dims_src.append(("idx", d, [i % size for i in e[1]] if size else [], e[2]))
            d += 1
            k += 1
        elif isinstance(e, slice):
            start, stop, step = e.indices(shape[d])
            dims_src.append(("slice", d, list(range(start, stop, step))))
            d += 1
        else:
            i = int(e)
            size = shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            dims_src.append(("idx", d, [i % size], ()))
            d += 1
    while d < nd:
        dims_src.append(("all", d))
        d += 1
    if (empty_dim or out_of_bounds is not None) and not _selects_none(dims_src):
        if empty_dim:
            raise IndexError("index is out of bounds for dimension with size 0")
        if not _walks_nothing(dims_src, shape):
            if deferred is None:
                raise out_of_bounds
            deferred.append(out_of_bounds)
    return dims_src


def _walks_nothing(dims_src: list, shape: list) -> bool:
    """Whether a dimension the index keeps is empty (``x[idx, 3:]`` with 3: past the end, or an
    empty dimension of ``x``): ATen's index kernel then walks no element and checks no index
    against its dimension (``cpu_index_kernel``), read or written."""
    for s in dims_src:
        if s[0] == "all" and not shape[s[1]] or s[0] == "slice" and not s[2]:
            return True
        if s[0] == "new" and isinstance(s[1], tuple) and not s[1][1]:
            return True  # a 0-dim False mask: a new dimension of size 0
    return False


def _selects_none(dims_src: list) -> bool:
    """Whether ATen's kernel reads no index: the index tensors broadcast to no element (a False
    among them: ``x[t, False]``), or not at all (its shape mismatch error comes first, from
    ``_positions``); then no index is checked against its dimension."""
    bshape: tuple = ()
    try:
        for s in dims_src:
            if s[0] == "idx":
                bshape = broadcast_shapes(bshape, s[3])
    except RuntimeError:
        return True
    return 0 in bshape


def _positions(dims_src: list, shape: list) -> tuple:
    """The result's shape and the flat positions in ``x`` of its elements."""
    adv = [s for s in dims_src if s[0] == "idx"]
    bshape = ()
    try:
        for s in adv:
            bshape = broadcast_shapes(bshape, s[3])
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s[3])) for s in adv)) from None
    adv_lists = [[s[2][p] for p in positions(s[3], bshape)] if s[3] != bshape else s[2] for s in adv]
    n_adv = 1
    for s in bshape:
        n_adv *= s
    # PyTorch puts the broadcast index dims where the first advanced index was, if the
    # advanced indices are adjacent, else first
    kinds = [s[0] for s in dims_src]
    first = kinds.index("idx")
    last = len(kinds) - 1 - kinds[::-1].index("idx")
    adjacent = all(k == "idx" for k in kinds[first:last + 1])
    xst = contiguous_strides(shape)
    out_shape: list = []
    parts: list = []  # per output dim group: list of flat offsets
    adv_part = [sum(lst[j] * xst[s[1]] for lst, s in zip(adv_lists, adv)) for j in range(n_adv)]
    placed = False
    if not adjacent:
        out_shape.extend(bshape)
        parts.append(adv_part)
        placed = True
    for s in dims_src:
        if s[0] == "idx":
            if not placed:
                out_shape.extend(bshape)
                parts.append(adv_part)
                placed = True
            continue
        if s[0] == "new":
            out_shape.append(1)
            parts.append([0])
        elif s[0] == "all":
            out_shape.append(shape[s[1]])
            parts.append([i * xst[s[1]] for i in range(shape[s[1]])])
        else:
            out_shape.append(len(s[2]))
            parts.append([i * xst[s[1]] for i in s[2]])
    flat = [0]
    for p in parts:
        flat = [b + o for b in flat for o in p]
    return tuple(out_shape), flat


def _list_index(lst: list) -> Tensor:
    """A list index as PyTorch's indexing_tensor_from_data reads it: bool (or uint8) data stays a
    mask, anything else is int64 (an empty list too; floats truncated)."""
    t = tensor(lst)
    if t._t.dtype in (dtypes.bool, dtypes.uint8, dtypes.int64):
        return t
    return tensor(lst, dtype=dtypes.int64)


def _is_bool_scalar(it) -> bool:
    return isinstance(it, Tensor) and not it._t.ndim and it._t.dtype is dtypes.bool


_PLAIN = (int, slice, Tensor, type(None), type(Ellipsis), bool)
_NUMBERS = (int, float, bool)


def getitem(x: Tensor, index):
    """``x[index]``: a view for basic indexing, a copy (IndexBackward0) for advanced."""
    if index.__class__ not in _PLAIN:
        index = plain_index(index)  # NumPy arrays and scalars
    if isinstance(index, Tensor) and not index._t.ndim and index._t.dtype not in (dtypes.bool,) \
            and not index._t.dtype.is_floating_point:
        index = int(index._val)
    if not _has_advanced(index):
        return basic_index(x, index)
    y, yindex, saved = _apply_basic(x, index)
    shape, flat = resolve(y, yindex)
    vals = y._val if y._t.ndim else [y._val]
    out = [vals[i] for i in flat]
    layout = Layout(y._t.shape, map=flat, tensors=saved)
    t = TensorType(y._t.dtype, shape, _index_strides(y, yindex) if len(shape) > 1 else None)
    return make(Index, t, out if shape else out[0], (y,), layout)


def _index_strides(y: Tensor, yindex: tuple) -> tuple:
    """The strides ATen gives ``y[yindex]`` (``yindex`` as ``_apply_basic`` leaves it: full
    slices and index tensors): each indexed dimension's index tensor as (shape, strides), a
    bool mask's k dimensions indexed by the columns of its ``nonzero()`` (shape (n, k))."""
    per_dim: list = []
    for it in yindex:
        if not isinstance(it, Tensor):
            per_dim.append(None)
        elif it._t.dtype is dtypes.bool:
            k = it._t.ndim
            n = sum(1 for b in (it._val if k else [it._val]) if b)
            per_dim.extend([((n,), (k,))] * k)
        else:
            per_dim.append((it._t.shape, it._t.strides))
    per_dim.extend([None] * (y._t.ndim - len(per_dim)))
    return advanced_index_strides(y._t.shape, y._t.strides, per_dim)


def _has_advanced(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(_is_advanced(it) or _is_bool(it) for it in items)


def _apply_basic(x: Tensor, index) -> tuple:
    """PyTorch's applySlicing before advanced indexing: the ints, slices and None of ``index``
    applied as views (one node each), giving ``(view, index of the view, indices PyTorch saves)``;
    the tensors (and lists) stay, at their dimensions of the view."""
    given = index if isinstance(index, tuple) else (index,)
    items = [_list_index(it) if isinstance(it, list) else it for it in given]
    nd = x._t.ndim
    consumed = 0
    for it in items:
        if _is_bool(it):
            continue  # a new dimension, as None
        if isinstance(it, Tensor) and _is_advanced(it):
            consumed += it._t.ndim if it._t.dtype is dtypes.bool else 1
        elif it is not None and it is not Ellipsis:
            consumed += 1
    basic, yindex, saved = [], [], []
    for it in items:
        if it is None or isinstance(it, slice):
            basic.append(it)
            yindex.append(slice(None))
            saved.append(None)
        elif _is_bool(it):
            basic.append(None)
            yindex.append(_bool_index(it))
            saved.append(yindex[-1])
        elif it is Ellipsis:
            k = max(nd - consumed, 0)
            basic.append(Ellipsis)
            yindex.extend([slice(None)] * k)
            saved.extend([None] * k)
        elif isinstance(it, Tensor) and _is_advanced(it):
            basic.extend([slice(None)] * (it._t.ndim if it._t.dtype is dtypes.bool else 1))
            yindex.append(it)
            saved.append(it)
        else:
            basic.append(it)  # an int: a select, its dimension is gone from the view
    while saved and saved[-1] is None:
        saved.pop()
    y = basic_index(x, tuple(basic), plain=True)
    return y, tuple(yindex), tuple(saved)


def _target(x: Tensor, index) -> tuple:
    """(shape of x[index], its flat positions in x, advanced?)."""
    res = resolve(x, index)
    if res is not None:
        return res[0], res[1], True
    v = basic_index(x, index) if _grad_state.enabled is False or not x._rg else _no_grad_index(x, index)
    m = v._s.index if v._s is not None else None
    n = v._t.numel
    flat = list(range(n)) if m is None else list(m)
    if x._s is not None and x._s.index is not None and m is not None:
        # positions relative to x, not to x's store root
        inv = {p: i for i, p in enumerate(x._s.index)}
        flat = [inv[p] for p in m]
    return tuple(v._t.shape), flat, False


def _whole(x: Tensor, index) -> bool:
    """Whether ``index`` is only Ellipsis and slices that each start at 0 and stop at or past the
    end of their dimension with step 1: PyTorch's slicing then returns the tensor itself
    (applySlice's shortcut), and assigning writes into it directly, not through a view."""
    items = index if isinstance(index, tuple) else (index,)
    if not all(it is Ellipsis or isinstance(it, slice) for it in items) or items.count(Ellipsis) > 1:
        return False
    shape = x._t.shape
    n = len(items) - items.count(Ellipsis)
    if n > len(shape):
        return False
    cut = items.index(Ellipsis) if Ellipsis in items else len(items)
    dims = list(range(cut)) + list(range(len(shape) - (len(items) - cut - 1), len(shape)))
    slices = [it for it in items if it is not Ellipsis]
    # as given, not normalised: start 0 (or none), step 1 (or none), stop at or past the end
    return all(s.start in (None, 0) and s.step in (None, 1) and (s.stop is None or _at_least(s.stop, shape[d]))
               for s, d in zip(slices, dims))


def _at_least(stop, size: int) -> bool:
    try:
        return int(stop) >= size
    except (TypeError, ValueError):  # a bad slice: the ordinary path raises PyTorch's error
        return False


def _copy_to(x: Tensor, value) -> None:
    """PyTorch's copy_to for ``x[...] = value``: ``copy_`` of a value of ``x``'s shape, ``fill_``
    of a 0-dim one (a number becomes a 0-dim tensor of ``x``'s dtype, so into a 0-dim ``x`` it is
    a ``copy_``: the shapes are equal), else ``copy_`` of the value without its leading 1s,
    expanded to ``x``'s shape."""
    if value.__class__ in (int, float, bool):
        (copy_into if not x._t.ndim else fill)(x, tensor(value, dtype=x._t.dtype))
    elif not isinstance(value, Tensor):
        raise TypeError(f"can't assign a {numpy_type_name(value)} to a {x._t.dtype.legacy}")
    elif tuple(value._t.shape) == tuple(x._t.shape):
        copy_into(x, value)
    elif not value._t.ndim:
        fill(x, value)
    else:
        copy_into(x, _expanded_value(value, x._t.shape))


def _expanded_value(value: Tensor, shape) -> Tensor:
    """``value`` without its leading 1s, expanded to ``shape`` (copy_to's slicePrefix1sSize and
    expand_inplace), or expand's error."""
    own = list(value._t.shape)
    while own and own[0] == 1:
        own.pop(0)
    return expand(reshape(value, tuple(own)), *shape)


def _masked_fill_dispatch(index, value: Tensor) -> bool:
    """PyTorch's index_put_ runs ``masked_fill_`` (which converts the value) for a one-element
    value and a single index tensor that is a bool mask (canDispatchToMaskedFill)."""
    items = index if isinstance(index, tuple) else (index,)
    adv = [_list_index(it) if isinstance(it, list) else it for it in items if _is_advanced(it) or _is_bool(it)]
    return (value._t.numel == 1 and len(adv) == 1 and isinstance(adv[0], Tensor)
            and adv[0]._t.dtype is dtypes.bool and adv[0]._t.ndim > 0)


def _no_grad_index(x: Tensor, index):
    prev = _grad_state.enabled
    _grad_state.enabled = False
    try:
        return basic_index(x, index)
    finally:
        _grad_state.enabled = prev


def setitem(x: Tensor, index, value) -> None:
    """``x[index] = value`` (a number or a tensor broadcast to the indexed shape), as PyTorch
    records it: a basic index writes through a view (CopySlices on the tensor, or on its base
    if it is a view itself); an advanced index is ``index_put_`` on the view its ints and
    slices select (IndexPutBackward0, or CopySlices over it when that is a view)."""
    if index.__class__ not in _PLAIN:
        index = plain_index(index)
    if value.__class__ not in _NUMBERS and not isinstance(value, Tensor) and integer_or_double(value) is not None:
        value = integer_or_double(value)  # np.float64, np.int64: PyTorch's parser takes them
    if isinstance(index, Tensor) and not index._t.ndim and index._t.dtype is not dtypes.bool \
            and not index._t.dtype.is_floating_point:
        index = int(index._val)
    target, saved = x, ()
    deferred: list = []  # an index out of bounds, raised after the value's checks (resolve)
    if index is False:
        return  # PyTorch's setitem does nothing for a lone False, not even check the value
    if isinstance(value, Tensor):  # under vmap, a batched value into an unbatched x is refused
        batch_write(x, value, "index_put_" if _has_advanced(index) or _is_bool_scalar(index) else
                    "inplace arithmetic")
    if _whole(x, index):
        _copy_to(x, value)
        return
    if _is_bool_scalar(index):
        index = (index,)  # index_put_ through a new dimension, as beside other indices
    if index is not True and overlapping(x) and not _has_advanced(index):
        # x's elements share memory (an expanded view): PyTorch's copy into the view x[index],
        # recorded over that view's own elements (which may not share memory: copy_ refuses)
        _copy_to(basic_index(x, index), value)
        return
    if index is True:
        # PyTorch: a copy into a view with a new dimension of size 1
        shape = (1,) + tuple(x._t.shape)
        flat = list(range(x._t.numel))
        advanced = False
    elif _has_advanced(index):
        bools = isinstance(index, tuple) and any(_is_bool(it) for it in index)
        target, yindex, saved = _apply_basic(x, index) if _grad_state.enabled or bools else (x, index, ())
        shape, flat = resolve(target, yindex, deferred)
        advanced = True
    else:
        shape, flat, advanced = _target(x, index)
    dt = target._t.dtype
    if isinstance(value, Tensor):
        try:
            full = broadcast_shapes(shape, value._t.shape)
        except RuntimeError:
            full = None
        if full != tuple(shape) and not advanced:
            # PyTorch's copy_to drops the value's leading 1s and expands it (or raises expand's error)
            value = _expanded_value(value, shape)
            full = tuple(shape)
        if full != tuple(shape):
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._t.shape)} cannot be "
                               f"broadcast to indexing result of shape {list(shape)}")
        if advanced and value._t.dtype is not dt and not _masked_fill_dispatch(index, value):
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got {dt.short} for "
                               f"the destination and {value._t.dtype.short} for the source.")
        vv = value._val if value._t.ndim else [value._val]
        col = [vv[i] for i in positions(value._t.shape, shape)] if value._t.shape != tuple(shape) else list(vv)
        col = round_list(dt, col) if value._t.dtype is not dt else col
    elif value.__class__ in (int, float, bool):
        col = [dt.round(value)] * len(flat)
        value = leaf(dt.round(value), TensorType(dt, ()))  # PyTorch copies from a wrapped number
    else:
        raise TypeError(f"can't assign a {numpy_type_name(value)} to a {x._t.dtype.legacy}")
    grad = _grad_state.enabled and (target._rg or value._rg)
    if grad:
        if target._rg and target._op is None:
            raise RuntimeError(LEAF_INPLACE if advanced and target is x else VIEW_OF_LEAF)
        if not advanced and index is not True and x._rg and _multi_output(x):
            # PyTorch writes through the view x[index], which inherits x's MULTI_OUTPUT_NODE:
            # its error names that view's node (Select, Slice...), not unbind's or split's
            check_inplace(basic_index(x, index))
        check_inplace(target)
    if deferred:
        raise deferred[0]
    old = target._val if target._t.ndim else [target._val]
    new = list(old)
    for i, v in zip(flat, col):
        new[i] = v
    if overlapping(target):
        new = _aliases_written(target, flat, new, _masked_fill_dispatch(index, value) if advanced else None)
    if not grad:
        write(target, new if target._t.ndim else new[0])
        return
    layout = Layout(target._t.shape, value._t.dtype, map=flat, tensors=saved)
    layout.sizes = tuple(shape)
    op = IndexPut if advanced else CopySlices
    res = make(op.tensor if not target._t.ndim else op, target._t, new if target._t.ndim else new[0],
               (target, value), layout)
    rebase(target, res)


def _aliases_written(target: Tensor, flat: list, new: list, masked: bool) -> list:
    """``new`` (``target``'s elements after writing those at ``flat``) with every element that
    shares memory with a written one showing what was written there, as PyTorch's index_put_
    writes only the indexed elements (with its deprecation warnings for an expanded tensor: a
    mask filled with one value goes on to masked_fill_, which warns again)."""
    warns = [] if masked is None else [("index_put_", "tensor[indices] = tensor")]
    if masked:
        warns.append(("masked_fill_", "tensor[mask] = scalar"))
    for what, example in warns:
        warnings.warn(f"Use of {what} on expanded tensors is deprecated. Please clone() the tensor before performing "
                      f"this operation. This also applies to advanced indexing e.g. {example}", UserWarning,
                      stacklevel=3)
    pos = positions_in_base(target)
    written = {pos[i]: new[i] for i in flat}
    return [written.get(p, x) for p, x in zip(pos, new)]


def _multi_output(x: Tensor) -> bool:
    """``x`` is an output of unbind/split, or a view of one (PyTorch's MULTI_OUTPUT_NODE)."""
    e = x._ext
    return e is not None and e.pick is not None or x._s is not None and x._s.no_grad == "multi"


def install(method, function) -> None:
    """``x[index]`` and ``x[index] = value``."""
    method("__getitem__", getitem)
    method("__setitem__", setitem)


# ---------------------------------------------------------------- derivative helpers, on tensors


def scatter_into(g, in_shape, m, name: str, accumulate: bool = False, from_zero: bool = True,
                 self_input: Tensor | None = None) -> Tensor:
    """Zeros of ``in_shape`` with ``g``'s elements at the flat positions ``m`` (added in order
    when ``accumulate``: into the zero, or, without ``from_zero``, onto the first one written):
    a node named ``name`` (SliceBackwardBackward0...), differentiable. ``self_input``: the
    forward's input, a second input of the node whose gradient is zeros (max pooling's
    backward takes ``self``, so its result requires grad when ``self`` does)."""
    gv = g._val if g._t.ndim else [g._val]
    n = 1
    for s in in_shape:
        n *= s
    dt = g._t.dtype
    z = dt.round(0)
    out = [z] * n
    if accumulate:
        r = dt.round
        seen = set()
        for i, x in zip(m, gv):
            out[i] = r(out[i] + x) if i in seen else (r(z + x) if from_zero else x)
            seen.add(i)
    else:
        for i, x in zip(m, gv):
            out[i] = x
    layout = Layout(in_shape, dt, map=list(m))
    layout.sizes = tuple(g._t.shape)
    ins = (g,) if self_input is None else (g, self_input)
    return make(scatter_class(name, self_input is not None), TensorType(dt, tuple(in_shape)),
                out if in_shape else out[0], ins, layout)


@helper(name="gather_positions")
def gather_at(g: Tensor, m, shape) -> Tensor:
    """``g``'s elements at the flat positions ``m``, in ``shape`` (an IndexBackward0 node)."""
    gv = g._val if g._t.ndim else [g._val]
    vals = [gv[i] for i in m]
    layout = Layout(g._t.shape, g._t.dtype, map=list(m))
    shape = tuple(shape)
    return make(Index, TensorType(g._t.dtype, shape), vals if shape else vals[0], (g,), layout)


@helper(name="scatter")
def _scatter_grad(g, layout, name="SliceBackwardBackward0", into_zeros: bool = False):
    """``g`` put back at the picked positions of zeros; under create_graph a node named
    ``name`` (the view op's own double backward: SelectBackwardBackward0 for select). A view
    that kept every element in order (no ``map``) reshapes ``g`` unless ``into_zeros`` (select's
    and slice's backward, which copy into new zeros whatever the view picked)."""
    m = layout.map
    if m is None:
        if not into_zeros:
            return reshape(g, layout.in_shape)
        m = range(g._t.numel)
    return scatter_into(g, layout.in_shape, m, name)


@helper
def index_backward(g, layout):
    return scatter_into(g, layout.in_shape, layout.map, "IndexBackwardBackward0", accumulate=True)


@helper
def index_put_backward(g, layout):
    m = layout.map
    return masked_zero(g, mask_of(m, g)), gather_at(g, m, layout.sizes)


@helper
def in_base_layout(g: Tensor, base: TensorType) -> Tensor:
    """CopySlices' gradient for its base, ``g`` (a tensor the backward just made), laid out as
    PyTorch's: it copies the gradient into ``new_empty_strided(base's sizes, base's strides)``
    (torch/csrc/autograd/functions/tensor.cpp), so the base's strides, whatever ``g``'s were.
    A base whose elements share memory keeps ``g``'s (PyTorch's copy into it refuses)."""
    if base.contiguous:
        strides = None
    elif any(n > 1 and st == 0 for n, st in zip(base.shape, base.strides)):
        return g
    else:
        strides = base.strides
    if g._t.strides != base.strides or g._t.contiguous != base.contiguous:
        g._t = TensorType(g._t.dtype, g._t.shape, strides)
    return g
