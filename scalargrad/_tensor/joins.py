"""Joins and splits on tensors (``_ops/joins.py``): ``cat``, ``stack``, ``unbind``, ``split``,
``chunk``, and ATen's composites of them (``tensor_split``/``hsplit``/``vsplit``/``dsplit`` of
slices, ``hstack``/``vstack``/``dstack``/``column_stack`` and ``diff`` over ``cat``), with
PyTorch's checks in its words. A split's outputs are views of the input (each
one a node handing its gradient to the one node with several outputs, as PyTorch's); a join is
a copy.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._base.dtypes import TensorType, float32, int64, round_list
from .._base.dtypes import bool as dtypes_bool
from .._base.errors import Unsupported
from .._base.grad_mode import state as _grad_state
from .._base.layout import numel
from .._base.numpy_types import numpy_type_name
from .._ops import joins as J
from .._ops.table import Op
from .._ops.views import Layout
from .memory_formats import channels_last_input, in_format
from .operands import check_size, result_dtype
from .storage import multi_output_views
from .tensor import INFERENCE, Tensor, defaults, ext, flat, leaf, make, next_seq
from .tensor_kernel import helper
from .views import basic_index, narrow, norm_dim, select, squeeze

__all__ = ["unbind", "split", "split_with_sizes", "chunk", "cat", "stack", "tensor_split", "hsplit", "vsplit",
           "dsplit", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack", "diff",
           "block_diag", "install"]


def unbind(x: Tensor, dim: int = 0) -> tuple:
    """The slices of ``x`` along ``dim``: outputs of one UnbindBackward0 node."""
    d = norm_dim(dim, x._t.ndim)
    if not x._t.ndim:  # 0 and -1 are in range, then refused
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return _multi(x, [basic_index(x, (slice(None),) * d + (i,), select_dim=d) for i in range(x._t.shape[d])],
                  J.Unbind, Layout(x._t.shape, x._t.dtype, dim=d, raw={"dim": dim}))


def split(x: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    if not x._t.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = norm_dim(dim, x._t.ndim)
    size = x._t.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        starts = list(range(0, size, step)) or [0]
        parts = [(s, min(step, size - s)) for s in starts]
        op, layout = J.Split, Layout(x._t.shape, x._t.dtype, dim=d, index=step, raw={"dim": dim, "split_size": step})
    else:
        sizes = list(split_size_or_sections)
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {d}), but got split_sizes={sizes}")
        parts, s = [], 0
        for n in sizes:
            parts.append((s, n))
            s += n
        op, layout = J.SplitWithSizes, Layout(x._t.shape, x._t.dtype, dim=d, split_sizes=tuple(sizes), raw={"dim": dim})
    outs = [basic_index(x, (slice(None),) * d + (slice(s, s + n),), force_slice=True) for s, n in parts]
    return _multi(x, outs, op, layout)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split_with_sizes``: ``split`` by a list of sizes alone (SplitWithSizesBackward0)."""
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    for i, n in enumerate(split_sizes):
        if n.__class__ is not int:
            raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, but "
                            f"found element of type {type(n).__name__} at pos {i}")
    return split(input, list(split_sizes), dim)


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple:
    if not x._t.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = norm_dim(dim, x._t.ndim)
    size = x._t.shape[d]
    if not size:  # as ATen's chunk: `chunks` empty parts (split would give one)
        return split(x, [0] * chunks, dim)
    return split(x, -(-size // chunks), dim)


def _multi(x: Tensor, outs: list, op, layout: Layout) -> tuple:
    """Outputs of one node of ``op`` with several outputs (unbind, split): each output's node
    hands its gradient to the shared node (``_ext.pick``), as PyTorch's one node with several
    outputs does."""
    if not (x._rg and _grad_state.enabled) or x._c is INFERENCE and x._op is None:  # no node (views.make_view)
        multi_output_views(outs)
        return tuple(outs)

    layout.outputs = tuple((o._t.shape, o._c.map) for o in outs)
    hidden = make(op, TensorType(x._t.dtype, x._t.shape), x._val, (x,), layout)
    for i, o in enumerate(outs):
        ext(o).pick = (hidden, i)
        o._op = _pick_op(o._op)
        o._a = hidden
        o._b = None
        o._seq = next_seq()  # an output is newer than the node it hands its gradient to
    return tuple(outs)


_picks: dict = {}


def _pick_op(op):
    """The op of an output of a multi-output node: it hands its gradient over."""

    p = _picks.get(op.name)
    if p is None:
        p = _picks[op.name] = type("Pick", (Op,), {"name": op.name, "saves": False, "saves_inputs": False,
                                                   "backward": staticmethod(_pick_backward),
                                                   "forward": staticmethod(lambda r, a: a),
                                                   "sympy": staticmethod(lambda sp, a: a)})
    return p


def _pick_backward(k, g, v):
    raise RuntimeError("an output of a multi-output node hands its gradient to the node (engine)")


def _check_join(tensors, what: str) -> list:
    tensors = list(tensors)
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {numpy_type_name(x)}")
    return tensors


def cat(tensors: Sequence, dim: int = 0) -> Tensor:
    """``torch.cat``: join tensors of equal shapes (but along ``dim``) along ``dim``."""
    if isinstance(tensors, Tensor):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = _check_join(tensors, "cat")
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if not x._t.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # legacy: 1-D empty tensors are skipped
    nd = tensors[0]._t.ndim
    d = norm_dim(dim, nd)
    ref = tensors[0]._t.shape
    for i, x in enumerate(tensors[1:], 1):
        s = x._t.shape
        if len(s) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(s)}")
        for k in range(nd):
            if k != d and s[k] != ref[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} "
                                   f"but got size {s[k]} for tensor number {i} in the list.")
    out = _join(tensors, d, J.Cat, False, dim)
    # ATen's compute_output_memory_format: the inputs' one suggested format, channels-last included
    formats = {channels_last_input(x) for x in tensors}
    return in_format(out, formats.pop()) if len(formats) == 1 else out


def stack(tensors: Sequence, dim: int = 0) -> Tensor:
    """``torch.stack``: join tensors of one shape along a new dimension ``dim``."""
    tensors = _check_join(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tuple(tensors[0]._t.shape)
    for i, x in enumerate(tensors):
        if tuple(x._t.shape) != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                               f"{list(x._t.shape)} at entry {i}")
    n = len(ref) + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    if any(channels_last_input(x) is not None for x in tensors):  # refused rather than laid out otherwise
        raise Unsupported("torch.stack of channels_last tensors", "the layout ATen gives the result is not "
                          "reproduced: stack x.contiguous() instead")
    return _join(tensors, dim % n, J.Stack, True, dim)


def block_diag(*tensors) -> Tensor:
    """The tensors (0-dim: 1x1, 1-D: one row, 2-D) as the blocks of a block diagonal matrix, zeros
    elsewhere, in their promoted dtype (BlockDiagBackward0)."""
    tensors = _check_join(tensors, "block_diag")
    if not tensors:
        return leaf([], TensorType(defaults["dtype"], (1, 0)))
    blocks = []
    for i, x in enumerate(tensors):
        shape = tuple(x._t.shape)
        if len(shape) > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{len(shape)} dimensions")
        blocks.append(shape if len(shape) == 2 else (1, shape[0]) if shape else (1, 1))
    rd = result_dtype(tensors) if len({x._t.dtype for x in tensors}) > 1 else tensors[0]._t.dtype
    rows, cols = sum(b[0] for b in blocks), sum(b[1] for b in blocks)
    check_size((rows, cols))
    where: list = [None] * (rows * cols)
    r0 = c0 = 0
    for i, (h, w) in enumerate(blocks):
        for r in range(h):
            for c in range(w):
                where[(r0 + r) * cols + c0 + c] = (i, r * w + c)
        r0, c0 = r0 + h, c0 + w
    cols_of = [flat(x) if x._t.dtype is rd else round_list(rd, flat(x)) for x in tensors]
    zero = rd.round(0)
    vals = [zero if p is None else cols_of[p[0]][p[1]] for p in where]
    layout = Layout((rows, cols), rd, map=where)
    layout.outputs = tuple((tuple(x._t.shape), x._t.dtype) for x in tensors)
    return make(J.BlockDiag, TensorType(rd, (rows, cols)), vals, tuple(tensors), layout)


def _join(tensors: list, d: int, op, new_dim: bool, given: int) -> Tensor:
    rd = result_dtype(tensors) if len({x._t.dtype for x in tensors}) > 1 else tensors[0]._t.dtype
    ref = list(tensors[0]._t.shape)
    if new_dim:
        out_shape = ref[:d] + [len(tensors)] + ref[d:]
        chunks = [numel(ref[d:])] * len(tensors)
        outer = numel(ref[:d])
    else:
        out_shape = ref[:d] + [sum(x._t.shape[d] for x in tensors)] + ref[d + 1:]
        inner = numel(ref[d + 1:])
        chunks = [x._t.shape[d] * inner for x in tensors]
        outer = numel(ref[:d])
    check_size(out_shape)
    cols = [flat(x) if x._t.dtype is rd else round_list(rd, flat(x)) for x in tensors]
    vals: list = []
    for o in range(outer):
        for col, c in zip(cols, chunks):
            vals.extend(col[o * c:(o + 1) * c])
    layout = Layout(tuple(out_shape), dim=d, raw={"dim": given})
    layout.outputs = tuple((tuple(x._t.shape), x._t.dtype) for x in tensors)
    return make(op, TensorType(rd, tuple(out_shape)), vals if out_shape else vals[0], tuple(tensors), layout)


def _sections_or_indices(ios, named: dict, fn: str):
    """The one of PyTorch's overloads' argument names given (``sections=``, ``indices=``,
    ``tensor_indices_or_sections=``), or the positional argument."""
    given = {k: v for k, v in named.items() if v is not None}
    if ios is not None:
        given["indices_or_sections"] = ios
    if len(given) != 1:
        raise TypeError(f"{fn}() takes one of sections, indices or tensor_indices_or_sections")
    return next(iter(given.values()))


def tensor_split(input: Tensor, indices_or_sections=None, dim: int = 0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None) -> tuple:
    """Views of ``input`` along ``dim`` (SliceBackward0 each): ``sections`` parts, the first
    ``size % sections`` one longer, or the parts between the given indices (clamped)."""
    indices_or_sections = _sections_or_indices(indices_or_sections, {
        "sections": sections, "indices": indices, "tensor_indices_or_sections": tensor_indices_or_sections},
        "tensor_split")
    x = input
    if not x._t.ndim:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{x._t.ndim} dims")
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._t.dtype is not int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{ios._t.dtype.short}")
        if ios._t.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios._t.ndim} dims")
        ios = ios._val if ios._t.ndim else int(ios._val)
    d = norm_dim(dim, x._t.ndim)
    size = x._t.shape[d]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        bounds, start = [], 0
        for i in range(ios):
            end = start + size // ios + (i < size % ios)
            bounds.append((start, end))
            start = end
    else:
        starts = [0] + list(ios)
        bounds = list(zip(starts, list(ios) + [None]))
    return tuple(basic_index(x, (slice(None),) * d + (slice(a, b),), force_slice=True) for a, b in bounds)


def _split_along(name: str, x: Tensor, ios, dim: int, need: int) -> tuple:
    if isinstance(ios, Tensor):  # PyTorch's argument parser: a 0-dim tensor is sections, one element indices
        if ios._t.numel != 1:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor), but expected one "
                            f"of:\n * (int sections)\n      didn't match because some of the arguments have invalid "
                            f"types: (!Tensor!)\n * (tuple of ints indices)\n      didn't match because some of the "
                            f"arguments have invalid types: (!Tensor!)\n")
        ios = [int(ios._val[0])] if ios._t.ndim else int(ios._val)
    if x._t.ndim < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor with "
                           f"{x._t.ndim} dimensions!")
    if isinstance(ios, int) and (ios == 0 or x._t.shape[dim] % ios):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{x._t.shape[dim]} is not divisible by the split_size {ios}!")
    return tensor_split(x, ios, dim)


def hsplit(input: Tensor, indices_or_sections=None, *, sections=None, indices=None) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 of a vector), sections dividing it evenly."""
    indices_or_sections = _sections_or_indices(indices_or_sections, {"sections": sections, "indices": indices},
                                               "hsplit")
    return _split_along("hsplit", input, indices_or_sections, 1 if input._t.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections=None, *, sections=None, indices=None) -> tuple:
    """``tensor_split`` along dim 0 of a tensor of 2 dims or more."""
    indices_or_sections = _sections_or_indices(indices_or_sections, {"sections": sections, "indices": indices},
                                               "vsplit")
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections=None, *, sections=None, indices=None) -> tuple:
    """``tensor_split`` along dim 2 of a tensor of 3 dims or more."""
    indices_or_sections = _sections_or_indices(indices_or_sections, {"sections": sections, "indices": indices},
                                               "dsplit")
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def _at_least(tensors, n: int):
    """ATen's atleast_nd: a 0-dim tensor reshaped, a smaller one unsqueezed (a tensor alone
    returns a tensor, several a tuple)."""
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    seq = tensors if not (len(tensors) == 1 and isinstance(tensors[0], (list, tuple))) else tensors[0]
    out = []
    for x in seq:
        nd = x._t.ndim
        if nd == 0:
            x = x.reshape((1,) * n)
        elif nd < n:
            x = x.unsqueeze(0) if n == 2 or nd == 1 else x
            x = x.unsqueeze(-1) if n == 3 else x
        out.append(x)
    return out[0] if one else tuple(out)


def atleast_1d(*tensors):
    return _at_least(tensors, 1)


def atleast_2d(*tensors):
    return _at_least(tensors, 2)


def atleast_3d(*tensors):
    return _at_least(tensors, 3)


def hstack(tensors: Sequence) -> Tensor:
    """``cat`` of ``atleast_1d`` tensors along dim 1 (dim 0 of vectors)."""
    rep = _at_least((_check_join(tensors, "hstack"),), 1)
    return cat(rep, 0 if rep and rep[0]._t.ndim == 1 else 1)


def vstack(tensors: Sequence) -> Tensor:
    """``cat`` of ``atleast_2d`` tensors along dim 0."""
    return cat(_at_least((_check_join(tensors, "vstack"),), 2), 0)


def dstack(tensors: Sequence) -> Tensor:
    """``cat`` of ``atleast_3d`` tensors along dim 2."""
    return cat(_at_least((_check_join(tensors, "dstack"),), 3), 2)


def column_stack(tensors: Sequence) -> Tensor:
    """``hstack`` of the tensors, each of fewer than 2 dims as a column first."""
    cols = [x.reshape(x._t.numel, 1) if x._t.ndim <= 1 else x for x in _check_join(tensors, "column_stack")]
    return hstack(cols)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim``, as ATen's: ``prepend``, ``input`` and
    ``append`` joined by ``cat``, then ``n`` times the later slice minus the earlier one
    (SubBackward0 of two SliceBackward0; for bools the two differ)."""
    x = input
    if not x._t.ndim:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = norm_dim(dim, x._t.ndim)
    parts = []
    for other in (prepend, x, append):
        if other is None:
            continue
        if other is not x:
            if other._t.ndim != x._t.ndim:
                raise RuntimeError("diff expects prepend or append to be the same dimension as input")
            for i, (a, b) in enumerate(zip(x._t.shape, other._t.shape)):
                if i != d and a != b:
                    raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of "
                                       f"input except along the differencing dimension; input.size({i}) = {a}, but "
                                       f"got tensor.size({i}) = {b}")
        parts.append(other)
    if len(parts) > 1:
        x = cat(parts, d)
    if n == 0:
        return x.new_zeros(x._t.shape).copy_(x)
    size = x._t.shape[d]
    n = min(n, size)
    length = size - 1
    for _ in range(n):
        later, earlier = narrow(x, d, 1, length), narrow(x, d, 0, length)
        x = later != earlier if x._t.dtype is dtypes_bool else later - earlier
        length -= 1
    return x


def install(method, function) -> None:
    """unbind, split, split_with_sizes, chunk; cat (concat, concatenate) and stack; tensor_split,
    hsplit, vsplit, dsplit; atleast_1d/2d/3d, hstack, vstack (row_stack), dstack, column_stack;
    diff."""
    for name in ("tensor_split", "hsplit", "vsplit", "dsplit", "diff"):
        method(name, globals()[name])
        function(name, globals()[name])
    for name in ("atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack"):
        function(name, globals()[name])
    function("row_stack", vstack)
    for name, fn in (("unbind", unbind), ("split_with_sizes", split_with_sizes), ("chunk", chunk)):
        method(name, fn)
        function(name, fn)
    # PyTorch's Python spellings name split's arguments so (Tensor.split, torch.functional.split)
    method("split", lambda self, split_size, dim=0: split(self, split_size, dim))
    function("split", lambda tensor, split_size_or_sections, dim=0: split(tensor, split_size_or_sections, dim))
    for name in ("cat", "concat", "concatenate"):
        function(name, cat)
    function("stack", stack)
    function("block_diag", block_diag)


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def cat_backward(g, layout):
    """Each input's slice of the gradient (cat: narrow; stack: select)."""
    d = layout.dim
    out = []
    start = 0
    for shape, _dt in layout.outputs:
        if len(shape) < len(layout.in_shape):  # stack: the input is one index of the new dim
            out.append(select(g, d, start))
            start += 1
        else:
            n = shape[d]
            out.append(narrow(g, d, start, n))
            start += n
    return tuple(out)


@helper
def cat_jvp(tangents, v):
    """Forward mode of cat and stack, derivatives.yaml's: the inputs' tangents joined as the
    inputs are (zeros for an input without one), so a tangent's elements, signed zeros included,
    move unchanged (the double-vjp of cat_backward would add +0 to them)."""
    layout = v._c
    ts = [t if t is not None else leaf(round_list(dt, [0.0] * numel(shape)) if shape else dt.round(0.0),
                                       TensorType(dt, shape))
          for t, (shape, dt) in zip(tangents, layout.outputs)]
    if any(len(shape) < len(layout.in_shape) for shape, _ in layout.outputs):
        return stack(ts, layout.dim)
    return cat(ts, layout.dim)


@helper
def block_diag_backward(g, layout):
    """Each input's block: ``grad.slice(0, r, r + rows).slice(1, c, c + cols)``, then squeeze(-1)
    for a 1-D input (a no-op unless it has one element: the engine sums the (1, n) block to (n,),
    as PyTorch's) and twice for a 0-dim one; an empty 1-D input gets zeros."""
    out = []
    r0 = c0 = 0
    for shape, _dt in layout.outputs:
        if shape == (0,):
            out.append(leaf([], TensorType(g._t.dtype, (0,))))
            continue
        h, w = shape if len(shape) == 2 else (1, shape[0]) if shape else (1, 1)
        block = narrow(narrow(g, 0, r0, h), 1, c0, w)
        if len(shape) == 1:
            block = squeeze(block, -1)
        elif not shape:
            block = squeeze(squeeze(block, -1), -1)
        out.append(block)
        r0, c0 = r0 + h, c0 + w
    return tuple(out)


@helper
def unbind_backward(gs, layout):
    """The outputs' gradients joined again (zeros for an output that got none)."""
    d = layout.dim
    parts = []
    for (shape, _map), g in zip(layout.outputs, gs):
        if g is None:
            g = leaf([0.0] * numel(shape) if shape else 0.0, TensorType(layout.in_dtype or float32, tuple(shape)))
        elif not isinstance(g, Tensor):  # a 0-dim output's gradient on the float path
            g = leaf(g, TensorType(layout.in_dtype or float32, ()))
        parts.append(g)
    if len(parts[0]._t.shape) < len(layout.in_shape):
        return stack(parts, d)
    return cat(parts, d)
