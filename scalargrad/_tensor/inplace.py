"""In-place ops (``add_``, ``x *= 2``, ``fill_``, ``copy_``...) with PyTorch's rules.

Checks first, in PyTorch's order, so that nothing is half-applied: a leaf that requires grad
may only change under no_grad; so may a view of one; the result must keep the tensor's shape
and be castable to its dtype. Then:

* without a graph to record, the new elements are written into the tensor's memory
  (``storage.write``: every alias sees them, the version counter moves on);
* with a graph, the tensor is *rebased*: a snapshot takes its old identity in the graph (the
  nodes made before keep consuming it) and the tensor becomes the in-place op's node, whose
  first input is the snapshot. The engine routes the gradients of older consumers to the
  snapshot (``engine.route``), as PyTorch's version of the tensor they saved.
"""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType, can_cast, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import state as _grad_state
from .._base.layout import is_non_overlapping_and_dense
from .._ops.table import Op, saved_node_name, version_error
from .._ops.views import Clone, Layout
from .make_hooks import batch_write
from .nodes import saves_input
from .storage import (
    dual_memory,
    in_place_target,
    inference_outside_mode,
    mem,
    positions_in_base,
    refused_view,
    regenerate,
    snapshot,
    view_rebase_error,
    write,
)
from .tensor import Tensor, ext, leaf, make

__all__ = ["inplace", "check_cast", "FILLS", "overlapping", "check_no_overlap", "LEAF_INPLACE", "VIEW_OF_LEAF",
           "check_inplace",
           "rebase", "rebase_view", "retype"]

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."



def check_inplace(t: Tensor) -> None:
    """PyTorch's refusals of an in-place change of ``t`` before it is made: while grad mode is
    on, leaves that require grad and some views (an inference tensor outside inference mode is
    changed, then refused: ``storage.write``)."""
    if not _grad_state.enabled:
        return
    if t._rg and getattr(t._op, "check_inplace", None) is not None:
        t._op.check_inplace(t)  # a custom Function's output that PyTorch makes a view
    s = t._s
    if t._rg and s is not None and s.no_grad and s.base is not None:
        raise view_rebase_error(t, indirect=False)
    refused = refused_view(t)
    if refused is not None:  # an output of unbind/split after its base changed
        raise RuntimeError(refused.replace(_BASE_CHANGED, "is being modified inplace"))
    if s is not None and s.base is not None and s.base._rg and s.base._op is None:
        raise RuntimeError(VIEW_OF_LEAF)  # before the leaf check: a view that is a leaf itself
    if t._rg and t._op is None:
        raise RuntimeError(LEAF_INPLACE)


def _check_result(t: Tensor, res: Tensor) -> None:
    if tuple(res._t.shape) != tuple(t._t.shape):
        raise RuntimeError(f"output with shape {list(t._t.shape)} doesn't match the broadcast shape "
                           f"{list(res._t.shape)}")
    check_cast(res._t.dtype, t._t.dtype)


def check_cast(rd, td) -> None:
    """A result of dtype ``rd`` may be written into a tensor of ``td`` (PyTorch's ``can_cast``)."""
    if rd is not td and not can_cast(rd, td):
        raise RuntimeError(f"result type {rd.short} can't be cast to the desired output type {td.short}")


FILLS = "fill"  # ``inplace``'s overlap for an op that writes one value into every element


def overlapping(t: Tensor) -> bool:
    """ATen's ``has_internal_overlap`` is YES: a zero stride over a dimension of more than one
    element (an expanded tensor), so several elements share one memory location. An empty
    tensor has no elements to share one (PyTorch writes it in place whatever its strides)."""
    tt = t._t  # a contiguous tensor (the common case) has no zero stride: no loop over its dims
    return not tt.contiguous and tt.numel > 0 and any(st == 0 and n > 1 for n, st in zip(tt.shape, tt.strides))


def windows_overlap(shape, strides) -> bool:
    """Elements at one memory location without a zero stride (``unfold``'s windows with
    step < size), which ATen's overlap check calls too hard to tell and lets through."""
    if is_non_overlapping_and_dense(shape, strides):
        return False
    seen = {0}
    for n, st in zip(shape, strides):
        if n > 1:
            seen = {p + i * st for p in seen for i in range(n)}
    return len(seen) < math.prod(shape)


def check_no_overlap(t: Tensor) -> None:
    """ATen's ``assert_no_internal_overlap`` on a tensor about to be written."""
    if overlapping(t):
        raise RuntimeError(_OVERLAP)


def inplace(t: Tensor, compute, overlap: str | None = None, operands: tuple = (), keep_tangent: bool = False) -> Tensor:
    """``t`` changed to ``compute(t)`` in place; returns ``t``. An expanded ``t`` (elements
    sharing memory) is refused with ATen's ``assert_no_internal_overlap`` error, as every
    TensorIterator op refuses it, unless ``overlap`` says otherwise: ``FILLS`` (one value for
    every element, which PyTorch allows), or the op's name for the ops PyTorch lets write an
    expanded tensor element by element in an order of its own (masked_fill_, index_fill_,
    tril_, triu_): scalargrad refuses those by name rather than guess that order. ``operands``,
    the op's other tensors, may not share part of ``t``'s memory (ATen's partial overlap check).
    ``keep_tangent``: under forward-mode AD ``t`` keeps its tangent (an op with no differentiable
    output, whose in-place kernel PyTorch leaves the tangent alone in)."""
    check_inplace(t)
    if overlap != FILLS and overlapping(t):
        if overlap is None:
            raise RuntimeError(_OVERLAP)
        raise Unsupported(f"Tensor.{overlap} of an expanded tensor (elements sharing memory)",
                          "PyTorch writes them one by one in its kernel's order; clone() the tensor first")
    if overlap != FILLS and not t._t.contiguous and windows_overlap(t._t.shape, t._t.strides):
        raise Unsupported("an in-place op on a view whose elements overlap in memory (Tensor.unfold with step < size)",
                          "PyTorch writes them one by one in its kernel's order; clone() the tensor first")
    for u in operands:
        if isinstance(u, Tensor) and _partial_overlap(t, u):
            raise RuntimeError(_PARTIAL_OVERLAP)
    if inference_outside_mode(t):
        in_place_target(t, True)
        try:
            res = compute(t)
        finally:
            in_place_target(None, True)
    else:
        res = compute(t)
    _check_result(t, res)
    batch_write(t, res)
    dual = dual_memory()
    if dual is not None:
        return dual[0](t, res, _apply, keep_tangent)  # forward-mode AD: the tangent changes with it
    return _apply(t, res)


def _apply(t: Tensor, res: Tensor) -> Tensor:
    """Make ``t`` the in-place op's result ``res``: written, or rebased when recorded."""
    if res._op is None or not t._t.dtype.is_floating_point:  # an integer tensor takes no graph
        if res._op is not None:
            res = res.detach()
        vals = res._val
        if res._t.dtype is not t._t.dtype:
            vals = round_list(t._t.dtype, vals) if t._t.ndim else t._t.dtype.round(vals)
        elif t._t.ndim and vals is t._val:
            vals = list(vals)
        write(t, vals)
        return t
    return rebase(t, res)


_SAME = object()
_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                    "single memory location. Please clone() the tensor before performing the operation.")


def _partial_overlap(t: Tensor, u: Tensor) -> bool:
    """ATen's ``get_overlap_status`` is Partial: ``u`` and ``t`` share memory, both dense without
    holes or repeats (else ATen calls it too hard to tell and lets it through), their spans of
    memory intersect and they are not the same elements in the same layout."""
    ts, us = t._s, u._s
    if u is t or ts is None or us is None or ts.store is None or ts.store is not us.store:
        return False
    tt, ut = t._t, u._t
    if not tt.numel or not ut.numel or not is_non_overlapping_and_dense(tt.shape, tt.strides) \
            or not is_non_overlapping_and_dense(ut.shape, ut.strides):
        return False
    t0, u0 = ts.offset, us.offset
    t1, u1 = t0 + tt.numel, u0 + ut.numel
    if t0 == u0 and t1 == u1:
        return tuple(tt.strides) != tuple(ut.strides)
    return t0 < u1 and u0 < t1


def rebase(t: Tensor, res: Tensor, index=_SAME) -> Tensor:
    """Make ``t`` the node ``res`` (computed from ``t``): see the module docstring. ``index``,
    for an in-place view op (``t_()``), is where ``t``'s elements now sit in its memory. A view
    changes its base instead (``rebase_view``)."""
    if index is _SAME and t._s is not None and t._s.base is not None:
        return rebase_view(t, res)
    rebase_root(t, res, index=index)
    return t


def retype(t: Tensor, v: Tensor, index) -> None:
    """``t`` takes the shape and strides of ``v``, a view of it, whose elements sit at ``index``
    in their memory (squeeze_, t_...)."""
    st = t._s.store if t._s is not None else None
    if st is not None:
        t._s.index = index
    t._t = v._t
    if v._t.ndim and st is not None and index is None:
        t._val = st.data  # in memory order: the store's own list, as for any member
    else:
        t._val = list(v._val) if v._t.ndim else v._val


_MULTI_OUTPUT_VIEW = (
    "Output {i} of {name} is a view and is being modified inplace. This view is the output of a function that "
    "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one.")
_BASE_CHANGED = "its base or another view of its base has been modified inplace"
_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


def rebase_view(t: Tensor, res: Tensor) -> Tensor:
    """An in-place op ``res`` on view ``t``, as PyTorch records it: the base becomes a CopySlices
    node, which replays ``res``'s backward on the view's part of the gradient; the view
    becomes an AsStridedBackward0 node over the base (``storage.regenerate``), as every other
    view of that memory in a graph does."""
    if t._s.no_grad:  # an operand requires grad (check_inplace saw the view's own flag)
        raise view_rebase_error(t, indirect=False)
    e = t._ext
    if e is not None and e.pick is not None:
        h, i = e.pick
        raise RuntimeError(_MULTI_OUTPUT_VIEW.format(i=i, name=h.grad_fn.name().replace("Backward0", "")))
    prior = t._c.saved_out if isinstance(t._c, Layout) else None
    if prior is not None and res._op.name != "CopySlices":
        # an earlier op on this view saved its result; PyTorch's error then names that op (the
        # view's AsStridedBackward0 it remembered is regenerated away by this op, but not by an
        # item assignment, which writes through a view of the view)
        prior[2] = saved_node_name(prior[3])
    base = t._s.base
    pos = positions_in_base(t)
    vals = res._val if res._t.ndim else [res._val]
    if res._t.dtype is not t._t.dtype:
        vals = round_list(t._t.dtype, vals)
    overlap = len(set(pos)) != len(pos)
    if overlap:
        _check_same_writes(pos, vals)
    new = list(base._val) if base._t.ndim else [base._val]
    for p, x in zip(pos, vals):
        new[p] = x
    old_t = snapshot(t)
    layout = Layout(base._t.shape, base._t.dtype, map=pos, sizes=tuple(t._t.shape), fn=res)
    operands = tuple(old_t if u is t else u for u in res._in[1:])  # v.add_(v): the view as it was
    ver = mem(t).ver
    # v.div_(v), v.mul_(base): an operand PyTorch saved shares the memory the op then overwrote
    # (the view itself, its base, another view of it): backward through the node is a version
    # error naming that operand as it is then
    overwritten = None
    if res._op.saves_inputs:
        shared = [u for u in operands if u is old_t or (u._s is not None and u._s.ver is ver)]
        overwritten = (t if shared[0] is old_t else shared[0]) if shared else None
    node = make(copy_slices(res._op, overlap), base._t, new if base._t.ndim else new[0], (base,) + operands, layout)
    rebase_root(base, node, keep=t)
    res._in = tuple(old_t if u is t else u for u in res._in)
    regenerate(t, old_t)
    if overwritten is not None:
        layout.error = (overwritten, ver.n - 1)
    if res._op.saves_output:
        # backward reads the view as the op left it: any later change of its memory (through
        # the view, its base or another view) makes that a version error
        layout.saved_out = t._c.saved_out = [old_t, ver.n, "AsStrided", res._op.namespace + res._op.name]
    return t


def rebase_root(t: Tensor, res: Tensor, keep=None, index=_SAME) -> Tensor:
    """``rebase`` of a tensor that is not a view (or of an in-place view op's target, retyped
    by ``index``); view ``keep`` of it is left to the caller to regenerate. Returns the
    snapshot that keeps ``t``'s former version in the graph."""
    # what was registered on the old version stays with it: its grad_fn object and the tensor
    # hooks (a hook registered before mul_ sees the older version's gradient)
    old = snapshot(t)
    ver = mem(t).ver
    if old._op is not None and old._op.saves_output:
        old._op = old._op.stale  # the result its backward reads is about to change
        ext(old).saved_version = ver.n
    vals = res._val
    if res._t.dtype is not t._t.dtype:
        vals = round_list(t._t.dtype, vals) if t._t.ndim else t._t.dtype.round(vals)
    elif res._t.ndim:
        vals = list(vals)
    seq = res._seq
    ins = tuple(old if u is t else u for u in res._in)
    clone = None
    if old._rg and saves_input(res._op, ins, old):
        # the op overwrites self, so PyTorch saves a clone of it taken just before (recorded:
        # CloneBackward0, numbered before the op's node): ``_saved_self`` and the formulas run
        # under create_graph read it; the edge stays on the old version. Made before the write,
        # whose version stamps on aliases must stay newer than the node
        clone = make(Clone, old._t, list(old._val) if old._t.ndim else old._val, (old,), Layout(old._t.shape))
        clone._seq, seq = seq, clone._seq
    if index is not _SAME:  # squeeze_, t_...: t takes the view's shape and layout
        retype(t, res, index)
    write(t, vals, keep=keep, graph=True)
    t._rg = True
    t._op = res._op
    t._in = ins
    t._c = res._c
    t._seq = seq
    if t._ext is not None:
        t._ext.modified = 0
    if clone is not None:
        ext(t).saved_self = clone
    if res._op.saves_inputs and any(u is t for u in res._in[1:]):
        # x.mul_(x): PyTorch saves the operand x itself (only self, the first input, is cloned
        # first), which the op then overwrites: backward through the node is a version error
        t._op = t._op.stale
        ext(t).saved_version = ver.n - 1
    return old


class _CopySlices(Op):
    """The base of a view changed in place (PyTorch's CopySlices): inputs (the base's old
    version, the in-place op's other inputs); ``_c.fn`` is the op's node on the view. Its
    backward replays ``fn``'s on the view's part of the gradient and puts the result back
    there; the rest of the gradient passes through unchanged (copies, so -0.0 stays)."""

    name = "CopySlices"
    namespace = "torch::autograd::"
    saves_inputs = False

    @staticmethod
    def forward(r, *args):
        return args[0]

    @staticmethod
    def sympy(sp, *args):
        return args[0]

    @staticmethod
    def backward(k, g, v):
        c = v._c
        if c.error is not None:  # the op's operand was the view it overwrote (rebase_view)
            view, then = c.error
            which = f", which is output 0 of {saved_node_name(view.grad_fn.name())},"
            raise version_error(view, which, view._version, then)
        if c.saved_out is not None:
            view, then, name, _ = c.saved_out
            if v._version != then:
                raise version_error(view, f", which is output 0 of {name},", v._version, then)
        scalar = not k.bulk
        if scalar:
            k = k.tensors
            g = k.scalar(g, v)
        fn = c.fn
        part = k.index_put_backward(g, c)[1]
        grads = list(fn._op.tensor.backward(k, part, fn))
        g_view = grads[0]
        if g_view is None or not isinstance(g_view, Tensor):
            g_view = k.zero(part) if g_view is None else leaf(g_view, part._t)
        mask = [False] * v._t.numel
        for p in c.map:
            mask[p] = True
        cond = leaf(mask if v._t.ndim else mask[0], TensorType(dtypes.bool, v._t.shape))
        out = [k.in_base_layout(k.where(cond, k.scatter(g_view, c), g), v._t)] + grads[1:]
        if scalar:  # a 0-dim base in a float backward: its inputs take floats
            out = [x._val if isinstance(x, Tensor) and not x._t.ndim and not u._t.ndim else x
                   for x, u in zip(out, v._in)]
        return tuple(out)


_copy_slices_ops: dict = {}


def copy_slices(fn_op, overlap: bool = False) -> type:
    """The CopySlices op for an in-place op ``fn_op`` on a view: it lists ``fn_op``'s Python-number
    operand as PyTorch does, and keeps saved values only when ``fn_op`` does. With ``overlap`` (the
    view's elements share memory: an expanded view) its backward refuses, as PyTorch's copies the
    gradient into that view with an in-place copy that refuses an overlapping destination."""
    key = (fn_op.extra_none, fn_op.saves, overlap)
    op = _copy_slices_ops.get(key)
    if op is None:
        body = {"extra_none": fn_op.extra_none, "saves": fn_op.saves}
        if overlap:
            body["backward"] = staticmethod(_overlap_backward)
        op = _copy_slices_ops[key] = type("CopySlices", (_CopySlices,), body)
    return op


def _overlap_backward(k, g, v):
    raise RuntimeError(_OVERLAP)


def _check_same_writes(pos: list, vals: list) -> None:
    """An in-place op on a view whose elements share memory (``pos`` repeats a position) writes
    one value per position whatever order PyTorch's kernel takes (fill_, zero_, a mask filled
    alike), or its result depends on that order, which scalargrad refuses to guess."""
    first: dict = {}
    for p, x in zip(pos, vals):
        y = first.setdefault(p, x)
        if y is not x and not (x == y and math.copysign(1.0, x) == math.copysign(1.0, y)) and not (x != x and y != y):
            raise Unsupported("an in-place op writing different values to elements of a view that share memory "
                              "(an expanded view)", "PyTorch writes them in its kernel's order; clone() the view first")
