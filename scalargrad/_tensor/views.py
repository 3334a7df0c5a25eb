"""Shape ops on tensors: views, copies, joins and splits, with PyTorch's layouts and names.

A view shares its base's memory (``storage.alias``) and, when the base requires grad and grad
mode is on, is also a node (ViewBackward0, SelectBackward0, TBackward0...). Its elements are
kept in its own logical order; ``Layout.map`` records where each one sits in the base, for the
backward and for writes through the view. Strides and storage offsets are tracked as PyTorch
would have them (``_base/layout``), so contiguity, ``view``'s refusals and the grad_fn names
that depend on them (``ViewBackward0`` vs ``UnsafeViewBackward0``) match.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import state as _grad_state
from .._base.layout import contiguous_strides, is_contiguous, numel, view_strides
from .._base.meta_data import own_copy
from .._base.numpy_types import integer, is_numpy_scalar
from .._base.warn_once import first_time
from .._ops import views as S
from .._ops.views import Layout
from .arg_parser import parsed
from .arguments import sizes_by_keyword
from .dtype_views import view_dtype
from .inplace import check_inplace, rebase
from .memory_formats import (
    channels_last,
    channels_last_3d,
    check_format,
    contiguous_format,
    is_contiguous_as,
    preserve_format,
    preserved_strides,
    suggest_format,
)
from .operands import broadcast_shapes, check_size, positions
from .storage import TRANSPOSES, alias, creation_meta, pick, write
from .tensor import INFERENCE, Tensor, flat, impl, leaf, make
from .tensor_kernel import helper

__all__ = ["norm_dim", "norm_dims", "sizes_arg", "view", "reshape", "flatten", "squeeze", "unsqueeze", "expand",
           "t", "T", "transpose", "permute", "movedim", "select", "narrow", "basic_index", "install",
           "clone", "contiguous", "mT", "to_dtype", "detach", "data", "gather_index", "infer_shape",
           "make_view", "strides_of", "offset_of"]

_T_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
              "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
              "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
              "tensor.")


def norm_dim(dim: int, ndim: int) -> int:
    """``dim`` in [0, ndim) (0-dim tensors accept 0 and -1), or PyTorch's IndexError."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if isinstance(dim, Tensor):
        dim = int(dim)
    if not isinstance(dim, int) or isinstance(dim, bool):
        if integer(dim) is None:  # an integer NumPy scalar is taken
            raise TypeError(f"dim must be an int, not {type(dim).__name__}")
        dim = integer(dim)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % max(ndim, 1)


def norm_dims(dim, ndim: int) -> tuple:
    """A sorted tuple of distinct dims (None or () mean all)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) or integer(dim) is not None else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    out = []
    for d in dims:
        d = norm_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


def sizes_arg(args, what: str) -> tuple:
    """Sizes given as ``f(2, 3)``, ``f((2, 3))`` or ``f(torch.Size([2, 3]))``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    out = []
    for s in args:
        if isinstance(s, Tensor):
            s = int(s)
        elif is_numpy_scalar(s) and s.dtype.kind in "iu":
            s = int(s)  # PyTorch's parser takes an integer NumPy scalar
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{what}(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(out)}")
        out.append(s)
    return tuple(out)


def strides_of(x: Tensor) -> tuple:
    return x._t.strides


def offset_of(x: Tensor) -> int:
    s = x._s
    return 0 if s is None else s.offset


def gather_index(shape: Sequence[int], strides: Sequence[int], offset: int) -> list:
    """offset + sum(index * stride) over the positions of ``shape``, in row-major order."""
    idx = [offset]
    for size, st in zip(shape, strides):
        idx = [base + i * st for base in idx for i in range(size)]
    return idx


def make_view(src: Tensor, shape, mstrides, moffset: int, lmap, op, layout: Layout, copy: bool = False,
              columns: int = 0) -> Tensor:
    """A view of ``src`` with ``shape``, laid out in memory as (mstrides, moffset), whose
    elements are ``src``'s at the flat logical positions ``lmap`` (None: the same order): a
    node of ``op`` when recording, sharing ``src``'s memory unless ``copy``. ``columns`` (a 2-D
    transpose of a source with that many columns) gathers them a column slice at a time."""
    shape = tuple(shape)
    check_size(shape)
    src_vals = flat(src)
    if columns:  # the same elements as pick's, 3-4 times as fast for columns of 16 or more
        vals = []
        for j in range(columns):
            vals.extend(src_vals[j::columns])
    else:
        vals = list(src_vals) if lmap is None else pick(src_vals, lmap)
    val = vals if shape else vals[0]
    t = TensorType(src._t.dtype, shape, None if mstrides is None else tuple(mstrides))
    layout.map = lmap
    if src._c is INFERENCE and src._op is None and not copy:
        # a view of an inference tensor, in or out of inference mode, is an inference tensor over
        # the same memory, neither an autograd view (``_is_view()`` False) nor recorded, even of
        # one that requires grad: PyTorch's inference tensors skip the ADInplaceOrView and
        # Autograd kernels of view ops
        enabled = _grad_state.enabled
        _grad_state.enabled = False
        try:
            out = make(op, t, val, (src,), layout)
        finally:
            _grad_state.enabled = enabled
        return alias(src, out, index=lmap if lmap is not None else None, offset=moffset)
    out = make(op, t, val, (src,), layout)
    if not copy:
        alias(src, out, index=lmap if lmap is not None else None, view=True, offset=moffset)
        creation_meta(src, out)
    return out


def _layout_src(x: Tensor) -> tuple:
    return list(x._t.shape), list(x._t.strides), offset_of(x)


def infer_shape(shape: tuple, n: int) -> tuple:
    infer = [i for i, s in enumerate(shape) if s == -1]
    if len(infer) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if infer:
        if known == 0 and n == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified "
                               "dimension size -1 can be any value and is ambiguous")
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape = tuple(n // known if s == -1 else s for s in shape)
    elif known != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return tuple(shape)


# ---------------------------------------------------------------- views keeping the order


def view(x: Tensor, *shape) -> Tensor:
    """``x.view(*shape)``: the same elements in a new shape, sharing memory."""
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        return view_dtype(x, shape[0], offset_of(x))
    new = infer_shape(sizes_arg(shape, "view"), x._t.numel)
    st = view_strides(x._t.shape, x._t.strides, new)
    if st is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return make_view(x, new, st, offset_of(x), None, S.View, Layout(x._t.shape))


def reshape(x: Tensor, *shape) -> Tensor:
    """``x.reshape(*shape)``: a view when the layout allows, else a copy (UnsafeViewBackward0)."""
    new = infer_shape(sizes_arg(shape, "reshape"), x._t.numel)
    st = view_strides(x._t.shape, x._t.strides, new)
    if st is not None:  # a view: named after view() when contiguous, _reshape_alias otherwise
        op = S.View if x._t.contiguous or is_contiguous(x._t.shape, x._t.strides) else S.Reshape
        return make_view(x, new, st, offset_of(x), None, op, Layout(x._t.shape))
    # not viewable: PyTorch copies to a contiguous tensor and views the copy
    c = clone(x, contiguous_only=True)
    return make_view(c, new, contiguous_strides(new), 0, None, S.UnsafeView, Layout(x._t.shape), copy=True)


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = x._t.ndim
    if nd == 0:
        return reshape(x, 1)
    s, e = norm_dim(start_dim, nd), norm_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x
    shape = x._t.shape
    return reshape(x, tuple(shape[:s]) + (numel(shape[s:e + 1]),) + tuple(shape[e + 1:]))


def unflatten(x: Tensor, dim: int, sizes) -> Tensor:
    """``x.unflatten(dim, sizes)``: dimension ``dim`` split into ``sizes`` (one may be -1), a view."""
    if isinstance(sizes, int) or not isinstance(sizes, (tuple, list, dtypes.Size)):
        raise TypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not {type(sizes).__name__}")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    nd = x._t.ndim
    d = norm_dim(dim, nd)
    if not nd:  # 0 and -1 are in range, then refused (PyTorch's Python wrapper reports the C++ error)
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {d} but tensor has no "
                           "dimensions")
    shape = tuple(x._t.shape)
    sizes = tuple(int(s) for s in sizes)
    if -1 in sizes:
        inferred = infer_shape(sizes, shape[d])
    else:
        if numel(sizes) != shape[d]:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                               f"({shape[d]}) in the input tensor")
        inferred = sizes
    return view(x, shape[:d] + tuple(inferred) + shape[d + 1:])


def squeeze(x: Tensor, dim=None) -> Tensor:
    shape, st = list(x._t.shape), list(x._t.strides)
    if dim is None:
        keep = [d for d in range(len(shape)) if shape[d] != 1]
        op, layout = S.Squeeze, Layout(shape)
    else:
        dims = norm_dims(dim, len(shape)) if not (isinstance(dim, (tuple, list)) and not dim) else ()
        keep = [d for d in range(len(shape)) if not (d in dims and shape[d] == 1)]
        if isinstance(dim, int):
            op, layout = S.SqueezeDim, Layout(shape, dim=dim)
        else:
            op, layout = S.SqueezeDims, Layout(shape, dims=tuple(dim))
    return make_view(x, [shape[d] for d in keep], [st[d] for d in keep], offset_of(x), None, op, layout)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    shape, st = list(x._t.shape), list(x._t.strides)
    n = len(shape) + 1
    if isinstance(dim, bool) or not isinstance(dim, int):
        if integer(dim) is None:
            raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
        dim = integer(dim)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    given = dim
    dim %= n
    st.insert(dim, 1 if dim >= len(shape) else shape[dim] * st[dim])
    shape.insert(dim, 1)
    return make_view(x, shape, st, offset_of(x), None, S.Unsqueeze, Layout(x._t.shape, dim=given))


# ---------------------------------------------------------------- views that reorder or pick


_PERMUTATIONS: dict = {}  # (shape, perm) -> the flat positions of a permuted view, made once (never changed)


def _permutation(shape: tuple, perm: list) -> list:
    key = (tuple(shape), tuple(perm))
    lmap = _PERMUTATIONS.get(key)
    if lmap is None:
        lst = contiguous_strides(shape)
        lmap = gather_index([shape[d] for d in perm], [lst[d] for d in perm], 0)
        if len(_PERMUTATIONS) < 256:
            _PERMUTATIONS[key] = lmap
            if key[1] == (1, 0) and shape[0] >= 16:  # kept alive here: its id stays its own
                TRANSPOSES[id(lmap)] = (lmap, shape[1])
    return lmap


def _permuted(x: Tensor, perm: list, op, layout: Layout) -> Tensor:
    shape = x._t.shape
    new_shape = [shape[d] for d in perm]
    lmap = _permutation(shape, perm) if perm != sorted(perm) else None
    layout.perm = tuple(perm)
    cols = shape[1] if perm == [1, 0] and shape[0] >= 16 else 0
    return make_view(x, new_shape, [x._t.strides[d] for d in perm], offset_of(x), lmap, op, layout, columns=cols)


def t(x: Tensor) -> Tensor:
    nd = x._t.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return _permuted(x, [1, 0] if nd == 2 else list(range(nd)), S.T, Layout(x._t.shape))


def T(x: Tensor) -> Tensor:  # PyTorch's property name
    nd = x._t.ndim
    if nd != 2 and first_time("tensor_T"):
        warnings.warn(_T_WARNING, UserWarning, stacklevel=3)
    return _permuted(x, list(range(nd - 1, -1, -1)), S.Permute, Layout(x._t.shape))


def mT(x: Tensor) -> Tensor:  # PyTorch's property name
    """``x.mT``: the last two dimensions swapped; a 0-dim tensor is its own (deprecated)."""
    nd = x._t.ndim
    if nd == 0:
        if first_time("tensor_mT_0d"):
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                          UserWarning, stacklevel=3)
        return x
    if nd == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(x, -2, -1)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    nd = x._t.ndim
    d0, d1 = norm_dim(dim0, nd), norm_dim(dim1, nd)
    perm = list(range(nd))
    if nd:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permuted(x, perm, S.Transpose, Layout(x._t.shape, dim=dim0, index=dim1))


def permute(x: Tensor, *dims) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = sizes_arg(dims, "permute")
    nd = x._t.ndim
    if len(dims) != nd:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           "length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{nd} is not equal to len(dims) = {len(dims)}")
    perm = [norm_dim(d, nd) for d in dims]
    if len(set(perm)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permuted(x, perm, S.Permute, Layout(x._t.shape, raw={"perm": tuple(dims)}))


def select(x: Tensor, dim: int, index: int) -> Tensor:
    """``x.select(dim, index)`` (and ``x[..., index, ...]``)."""
    nd = x._t.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, nd)
    size = x._t.shape[d]
    i = int(index)
    if not -size <= i < size:
        raise IndexError(f"select(): index {i} out of range for tensor of size {list(x._t.shape)} at dimension {d}")
    i %= size
    return basic_index(x, (slice(None),) * d + (i,), select_dim=d, raw={"dim": dim, "index": int(index)})


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    if not x._t.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, x._t.ndim)
    size = x._t.shape[d]
    if length < 0:  # ATen's narrow_symint checks, in its order
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return basic_index(x, (slice(None),) * d + (slice(start, start + length),), force_slice=True,
                       raw={"dim": dim})


_INT64_MAX = (1 << 63) - 1


def _skipped(it: slice, size: int) -> bool:
    """A slice inside a tuple index that PyTorch's ``applySlice`` skips (no SliceBackward0): the
    slice as written, not normalised, starts at 0 and stops at or past the size with step 1
    (``x[None, 0:]`` is skipped, ``x[None, -2:]`` of a size-2 dim is a slice)."""
    return ((it.start is None or int(it.start) == 0) and (it.stop is None or int(it.stop) >= size)
            and (it.step is None or int(it.step) == 1))


def basic_index(src: Tensor, index, select_dim=None, force_slice: bool = False, raw=None,
                plain: bool = False) -> Tensor:
    """``src[index]`` for ints, slices, None and Ellipsis, following PyTorch's
    ``applySlicing``: one view op (node) per item, in order (``x[1:, 0]`` is a SliceBackward0
    then a SelectBackward0); a full slice inside a tuple is skipped, and an index that applies
    no op gives an alias (``plain``: ``src`` itself, as before advanced indexing)."""
    if not isinstance(index, tuple) or select_dim is not None or force_slice or raw is not None:
        return _one_step(src, index, select_dim, force_slice, raw)
    nd = src._t.ndim
    specified = sum(1 for it in index if it is not None and it is not Ellipsis)
    if specified > nd:  # applySlicing checks the count before any item
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    steps = []
    dim = 0
    odim = 0  # the item's dimension in src
    for pos, it in enumerate(index):  # PyTorch's messages name the item's place in the index
        if it is None:
            steps.append((dim, None))
            dim += 1
        elif it is Ellipsis:
            dim += nd - specified
            odim += nd - specified
        elif isinstance(it, slice):
            # dim: where the slice acts in the partly indexed result (Nones before it count);
            # odim: the dimension of src it walks
            if odim < nd:
                if not _skipped(it, src._t.shape[odim]):
                    steps.append((dim, it))
            dim += 1
            odim += 1
        else:
            if odim < nd:
                size = src._t.shape[odim]
                i = int(it)
                if not -size <= i < size:
                    raise IndexError(f"index {i} is out of bounds for dimension {pos} with size {size}")
            steps.append((dim, it))
            odim += 1
    if plain and not steps:
        _one_step(src, index, None, False, None, check_only=True)
        return src
    if len(steps) <= 1:
        return _one_step(src, index, None, False, None)
    _one_step(src, index, None, False, None, check_only=True)
    cur = src
    for d, it in steps:
        cur = _one_step(cur, (slice(None),) * d + (it,), None, False, None)
    return cur


def _one_step(src: Tensor, index, select_dim=None, force_slice: bool = False, raw=None,
              check_only: bool = False) -> Tensor:
    """One view node for ``src[index]`` (see ``basic_index``); ``check_only`` just checks the
    index."""
    single = not isinstance(index, tuple)
    items = (index,) if single else tuple(index)
    shape, mst, moff = _layout_src(src)
    lst = list(contiguous_strides(shape))
    loff = 0
    nd = len(shape)
    specified = 0
    for it in items:
        if it is None or it is Ellipsis:
            continue
        specified += 1
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if specified > nd:
        if nd == 0 and single:
            # PyTorch's single-index path: an int other than 0 is checked against a size of 0
            # first, a slice has its own refusal; a tuple of indices is "too many" (below)
            if isinstance(index, slice):
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            if isinstance(index, int) and not isinstance(index, bool) and index != 0:
                raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
        if nd == 0 and single and isinstance(index, int):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    if check_only:
        return src
    dim = 0
    op = None
    layout = Layout(src._t.shape)
    for real_dim, it in enumerate(items):
        if it is None:
            for st in (mst, lst):
                st.insert(dim, 1 if dim >= len(shape) else shape[dim] * st[dim])
            shape.insert(dim, 1)
            op = op or S.Unsqueeze
            layout.dim = dim
            dim += 1
        elif it is Ellipsis:
            dim += nd - specified
        elif isinstance(it, slice):
            size = shape[dim]
            step = 1 if it.step is None else int(it.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, _ = slice(it.start, it.stop, step).indices(size)
            length = max(0, (stop - start + step - 1) // step)
            if not force_slice and not single and _skipped(it, size):
                dim += 1
                continue
            moff += start * mst[dim]
            loff += start * lst[dim]
            mst[dim] *= step
            lst[dim] *= step
            shape[dim] = length
            op = S.Slice
            layout.dim, layout.start, layout.end, layout.step = dim, start, start + length * step, step
            if it.stop is not None and it.stop < size and step == 1:
                layout.end = start + length
            if raw is None:  # PyTorch saves the slice as written: None is 0 or INT64_MAX
                layout.raw = {"start": 0 if it.start is None else int(it.start),
                              "end": _INT64_MAX if it.stop is None else int(it.stop)}
            dim += 1
        else:
            i = int(it)
            size = shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {size}")
            i %= size
            moff += i * mst[dim]
            loff += i * lst[dim]
            del shape[dim], mst[dim], lst[dim]
            op = S.Select
            layout.dim, layout.index = (dim if select_dim is None else select_dim), i
            if raw is None:
                layout.raw = {"index": int(it)}
    if raw is not None:
        layout.raw = raw
    lmap = gather_index(shape, lst, loff)
    if lmap == list(range(len(lmap))) and src._t.numel == len(lmap):
        lmap = None
    return make_view(src, shape, mst, moff, lmap, op or S.Alias, layout)


def expand(x: Tensor, *sizes) -> Tensor:
    sizes = sizes_arg(sizes, "expand")
    shape = tuple(x._t.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({x._t.dtype.legacy}{{{list(shape)}}}, size={list(sizes)}): the number "
                           f"of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    new = [0] * len(sizes)
    for i in reversed(range(len(sizes))):  # PyTorch checks from the last dim
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            new[i] = s
            continue
        have = shape[i - lead]
        if s == -1:
            s = have
        if have != s and have != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(shape)}")
        new[i] = s
    new = tuple(new)
    check_size(new)
    mst = [0] * len(new)
    sst = x._t.strides
    for i, s in enumerate(shape):
        if s == new[lead + i]:
            mst[lead + i] = sst[i]
    lmap = positions(shape, new) if new != shape else None
    return make_view(x, new, mst, offset_of(x), lmap, S.Expand, Layout(shape))


# ---------------------------------------------------------------- splits and joins


# ---------------------------------------------------------------- copies


def clone(x: Tensor, memory_format=None, contiguous_only: bool = False) -> Tensor:
    """A copy with its own memory (CloneBackward0), laid out in ``memory_format``: by default
    (preserve) a dense layout's strides are kept, another takes the format its strides suggest."""
    fmt = check_format(memory_format, "clone")
    shape = x._t.shape
    strides = None
    if not contiguous_only and (not x._t.contiguous or fmt in (channels_last, channels_last_3d)):
        strides = preserved_strides(shape, x._t.strides, fmt)
    val = list(x._val) if x._t.ndim else x._val
    return make(S.Clone, TensorType(x._t.dtype, shape, strides), val, (x,), Layout(shape))


def contiguous(x: Tensor, memory_format=None) -> Tensor:
    """``x`` itself when already contiguous in ``memory_format`` (contiguous, channels-last), else
    a copy laid out so (CloneBackward0)."""
    fmt = check_format(memory_format, "contiguous")
    if fmt in (channels_last, channels_last_3d):
        return x if is_contiguous_as(x._t.shape, x._t.strides, fmt) else clone(x, memory_format=fmt)
    if x._t.contiguous or is_contiguous(x._t.shape, x._t.strides):
        return x
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(x, contiguous_only=True)


def to_dtype(x: Tensor, dt, copy: bool = False, memory_format=None) -> Tensor:
    """``x.to(dt, memory_format=...)`` (ToCopyBackward0); ``x`` itself when it already has that
    dtype and (ATen's ``to_will_alias``) the format is preserve or the one its strides suggest."""
    fmt = check_format(memory_format, "to")
    t = x._t
    if dt is t.dtype and not copy and (fmt is None or fmt is preserve_format or
                                       fmt is suggest_format(t.shape, t.strides)):
        return x
    if dt.kind == "c" and x._rg:
        raise Unsupported(f"a {dt!r} copy of a tensor that requires grad (autograd of complex numbers)")
    if t.dtype.kind == "c" and dt.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
    val = dtypes.cast_values(t.dtype, dt, x._val)
    # _to_copy with memory_format=preserve: a dense tensor's strides are kept; an expanded or
    # strided one (not dense) takes the format its strides suggest
    if t.contiguous and fmt in (None, preserve_format, contiguous_format):
        t = t.with_dtype(dt)
    else:
        t = TensorType(dt, t.shape, preserved_strides(t.shape, t.strides, fmt))
    if not dt.is_floating_point:  # an integer result is outside the graph, as in PyTorch
        return leaf(val, t)
    return make(S.ToCopy, t, val, (x,), Layout(x._t.shape, x._t.dtype))


def detach(x: Tensor) -> Tensor:
    """A new leaf sharing ``x``'s memory and version counter."""
    new = leaf(own_copy(x._val, x._t.ndim), x._t)
    return alias(x, new, offset=offset_of(x))


def data(x: Tensor) -> Tensor:
    """``x.data``: a new leaf sharing ``x``'s memory, with a version counter of its own."""
    new = leaf(own_copy(x._val, x._t.ndim), x._t)
    return alias(x, new, share_version=False, offset=offset_of(x))


impl.detach = detach
impl.data = data


_INPLACE_VIEWS = {S.Squeeze: S.SqueezeInplaceAll, S.SqueezeDim: S.SqueezeInplace, S.SqueezeDims: S.SqueezeInplaceDims,
                  S.Unsqueeze: S.UnsqueezeInplace, S.T: S.TInplace, S.Transpose: S.TransposeInplace}


def _inplace_view(self, view_of):
    """``squeeze_``/``unsqueeze_``/``t_``/``transpose_``: ``self`` takes the view's shape and
    strides (its memory stays; the version counter moves on). In a graph, ``self`` becomes the
    in-place op's node (SqueezeBackward3, TBackward1...) over its old version."""
    check_inplace(self)
    v = view_of(self)  # a view of self: its layout, its elements' places in memory
    index = v._s.index if v._s is not None else None
    vals = list(v._val) if v._t.ndim else v._val
    if v._op is not None and self._op is not None and _grad_state.enabled:
        op = _INPLACE_VIEWS.get(v._op.base, v._op.base)
        res = make(op, v._t, vals, (self,), v._c)
        return rebase(self, res, index=index)
    if self._s is not None and self._s.store is not None:
        self._s.index = index
    self._t = v._t
    self._val = v._val  # the store's own list when in memory order, as for any member
    write(self, vals)
    return self


def _broadcast_tensors(*tensors):
    """``torch.broadcast_tensors``: each tensor expanded to the common shape (a tensor that
    already has it is returned itself, as ATen's expand_outplace does)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {len(shape)} in argument 0, but got {type(t).__name__}")
        shape = broadcast_shapes(shape, t._t.shape)
    return tuple(t if tuple(t._t.shape) == shape else expand(t, shape) for t in tensors)


def _broadcast_shapes(*shapes):
    out = ()
    for s in shapes:
        out = broadcast_shapes(out, (s,) if isinstance(s, int) else tuple(s))
    return dtypes.Size(out)


def movedim(input: Tensor, source, destination) -> Tensor:
    """``movedim``/``moveaxis``: the dims ``source`` moved to ``destination``, the others kept in
    order (ATen's ``movedim``: one permute, PermuteBackward0)."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    n = input._t.ndim
    src, dst = [norm_dim(d, n) for d in src], [norm_dim(d, n) for d in dst]
    for name, ds, given in (("source", src, source), ("destination", dst, destination)):
        if len(set(ds)) != len(ds):
            given = [given] if isinstance(given, int) else list(given)
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    if n == 0:  # ATen: self.alias()
        return basic_index(input, Ellipsis)
    order = [-1] * n
    for a, b in zip(src, dst):
        order[b] = a
    rest = iter(d for d in range(n) if d not in src)
    return permute(input, *[o if o >= 0 else next(rest) for o in order])


_NARROW = ("(int dim, Tensor start, int length)", "(int dim, int start, int length)")  # PyTorch's parser's


def install(method, function) -> None:
    """The view and copy spellings: view, reshape, flatten, squeeze/unsqueeze (and in place),
    expand, t/T/mT, transpose, permute, movedim/moveaxis, select, narrow, clone, contiguous, detach,
    broadcasting."""
    method("view", sizes_by_keyword(view, "view", "size", "dtype"))  # PyTorch's keywords: view(size=...)
    method("reshape", sizes_by_keyword(reshape, "reshape", "shape"))
    method("view_as", lambda self, other: view(self, other._t.shape))
    method("reshape_as", lambda self, other: reshape(self, other._t.shape))
    method("flatten", flatten)
    method("unflatten", unflatten)
    # ATen's ravel is contiguous().view(-1): a copy (CloneBackward0) under a ViewBackward0, never reshape's nodes
    method("ravel", lambda self: view(contiguous(self), -1))
    function("ravel", lambda input: view(contiguous(input), -1))
    method("squeeze", squeeze)
    method("unsqueeze", unsqueeze)
    method("squeeze_", lambda self, dim=None: _inplace_view(self, lambda t: squeeze(t, dim)))
    method("unsqueeze_", lambda self, dim: _inplace_view(self, lambda t: unsqueeze(t, dim)))
    # implicit=True marks an expand the tracer inserted: nothing else changes
    method("expand", sizes_by_keyword(lambda self, *sizes, implicit=False: expand(self, *sizes), "expand", "size",
                                      flags=("implicit",)))
    method("expand_as", lambda self, other: expand(self, other._t.shape))
    method("broadcast_to", lambda self, size: expand(self, size))
    method("t", t)
    method("t_", lambda self: _inplace_view(self, t))
    Tensor.T = property(T)
    Tensor.mT = property(mT)
    for n in ("transpose", "swapdims"):
        method(n, transpose)
        method(n + "_", lambda self, dim0, dim1: _inplace_view(self, lambda x: transpose(x, dim0, dim1)))
        function(n, transpose)
    method("swapaxes", lambda self, axis0, axis1: transpose(self, axis0, axis1))
    method("swapaxes_", lambda self, axis0, axis1: _inplace_view(self, lambda x: transpose(x, axis0, axis1)))
    function("swapaxes", lambda input, axis0, axis1: transpose(input, axis0, axis1))
    method("permute", sizes_by_keyword(permute, "permute", "dims"))
    for name in ("movedim", "moveaxis"):
        method(name, movedim)
        function(name, movedim)
    method("select", select)
    method("narrow", parsed(narrow, "narrow", _NARROW, True))
    function("narrow", parsed(narrow, "narrow", tuple("(Tensor input, " + t[1:] for t in _NARROW)))
    method("contiguous", contiguous)
    method("clone", clone)
    for name, fn in (("reshape", lambda input, shape: reshape(input, shape)), ("flatten", flatten),
                     ("squeeze", squeeze), ("unsqueeze", unsqueeze), ("t", t),
                     ("permute", lambda input, dims: permute(input, dims)), ("select", select), ("clone", clone),
                     ("unflatten", unflatten), ("broadcast_shapes", _broadcast_shapes),
                     ("broadcast_tensors", _broadcast_tensors), ("detach", lambda input: detach(input)),
                     ("broadcast_to", lambda input, size: expand(input, size))):
        function(name, fn)


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper(name="reshape")
def _reshape_grad(g, shape):
    if tuple(g._t.shape) == tuple(shape):
        return g
    return reshape(g, tuple(shape))


@helper(name="view_back")
def _view_grad(g, shape):
    """``grad.reshape(sizes)``, the backward of view, _reshape_alias and _unsafe_view. A gradient
    of the same shape is handed on as it is, except under create_graph where it requires grad:
    ATen's reshape has no same-shape shortcut, so PyTorch records a ViewBackward0 (a
    ReshapeAliasBackward0 for a non-contiguous gradient) there."""
    if tuple(g._t.shape) == tuple(shape) and not (g._rg and _grad_state.enabled):
        return g
    return reshape(g, tuple(shape))


helper(permute)
helper(squeeze)  # unsqueeze's backward (SqueezeBackward1 under create_graph)
helper(unsqueeze)  # squeeze's (unsqueeze_to: UnsqueezeBackward0)
helper(t)
helper(transpose)  # ``grad.transpose(dim0, dim1)``: transpose's backward (TransposeBackward0)
helper(to_dtype)
