"""Joins and splits on tensors (``_ops/joins.py``): ``cat``, ``stack``, ``unbind``, ``split``,
``chunk``, with PyTorch's checks in its words. A split's outputs are views of the input (each
one a node handing its gradient to the one node with several outputs, as PyTorch's); a join is
a copy.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._base.dtypes import TensorType, float32, round_list
from .._base.grad_mode import state as _grad_state
from .._base.layout import numel
from .._base.numpy_types import numpy_type_name
from .._ops import joins as J
from .._ops.table import Op
from .._ops.views import Layout
from .operands import check_size, result_dtype
from .storage import multi_output_views
from .tensor import Tensor, ext, flat, leaf, make, next_seq
from .tensor_kernel import helper
from .views import basic_index, narrow, norm_dim, select

__all__ = ["unbind", "split", "split_with_sizes", "chunk", "cat", "stack", "install"]


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
    if not (x._rg and _grad_state.enabled):
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
    return _join(tensors, d, J.Cat, False, dim)


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
    return _join(tensors, dim % n, J.Stack, True, dim)


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


def install(method, function) -> None:
    """unbind, split, split_with_sizes, chunk; cat (concat, concatenate) and stack."""
    for name, fn in (("unbind", unbind), ("split", split), ("split_with_sizes", split_with_sizes), ("chunk", chunk)):
        method(name, fn)
        function(name, fn)
    for name in ("cat", "concat", "concatenate"):
        function(name, cat)
    function("stack", stack)


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
