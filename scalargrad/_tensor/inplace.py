"""In-place ops (``add_``, ``x *= 2``, ``fill_``, ``copy_``...) with PyTorch's rules.

Checks first, in PyTorch's order, so that nothing is half-applied: a leaf that requires grad
may only change under no_grad; so may a view of one; the result must keep the tensor's shape
and be castable to its dtype. Then:

* without a graph to record, the new elements are written into the tensor's memory
  (``storage.write``: every alias sees them, the version counter moves on);
* with a graph, the tensor is *rebased*: a snapshot takes its old identity in the graph (the
  nodes made before keep consuming it) and the tensor becomes the in-place op's node, whose
  first input is the snapshot. The engine routes the gradients of older consumers to the
  snapshot (``engine._route``), as PyTorch's version of the tensor they saved.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import round_list
from .._base.grad_mode import _state as _grad_state
from .storage import Mem, mem, write
from .tensor import Tensor, _Ext

__all__ = ["inplace", "LEAF_INPLACE", "VIEW_OF_LEAF", "check_inplace", "rebase"]

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def check_inplace(t: Tensor) -> None:
    """PyTorch's refusals of an in-place change of ``t`` while grad mode is on."""
    if not _grad_state.enabled:
        return
    if t._rg and t._op is None:
        raise RuntimeError(LEAF_INPLACE)
    s = t._s
    if s is not None and s.base is not None and s.base._rg and s.base._op is None:
        raise RuntimeError(VIEW_OF_LEAF)
    if t._rg and getattr(t._op, "check_inplace", None) is not None:
        t._op.check_inplace(t)  # a custom Function's output that PyTorch makes a view


def _check_result(t: Tensor, res: Tensor) -> None:
    if tuple(res._t.shape) != tuple(t._t.shape):
        raise RuntimeError(f"output with shape {list(t._t.shape)} doesn't match the broadcast shape "
                           f"{list(res._t.shape)}")
    rd, td = res._t.dtype, t._t.dtype
    # c10's canCast: a float result into an integer tensor, or anything but bool into a bool
    # one, is refused; a narrower float or integer type takes the result rounded
    if rd is not td and ((rd.is_floating_point and not td.is_floating_point)
                         or (td is dtypes.bool and rd is not dtypes.bool)):
        raise RuntimeError(f"result type {rd.short} can't be cast to the desired output type {td.short}")


def inplace(t: Tensor, compute, *args, **kwargs) -> Tensor:
    """``t`` changed to ``compute(t, *args, **kwargs)`` in place; returns ``t``."""
    check_inplace(t)
    res = compute(t, *args, **kwargs)
    _check_result(t, res)
    if res._op is None:
        vals = res._val
        if res._t.dtype is not t._t.dtype:
            vals = round_list(t._t.dtype, vals) if t._t.ndim else t._t.dtype.round(vals)
        elif t._t.ndim and vals is t._val:
            vals = list(vals)
        write(t, vals)
        return t
    return rebase(t, res)


def rebase(t: Tensor, res: Tensor) -> Tensor:
    """Make ``t`` the node ``res`` (computed from ``t``): see the module docstring."""
    if t._s is not None and t._s.base is not None and t._s.base._rg:
        from .._base.errors import Unsupported

        raise Unsupported("an in-place operation on a view of a tensor that requires grad",
                          "PyTorch rewrites the base's graph (CopySlices); apply the operation out of place")
    old = object.__new__(Tensor)
    for s in ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g"):
        setattr(old, s, getattr(t, s))
    if t._t.ndim:
        old._val = list(t._val)
    ver = mem(t).ver
    old._s = Mem(ver)  # the snapshot reports the live tensor's version in errors
    e = t._ext
    old._ext = None
    if e is not None:
        # what was registered on the old version stays with it: its grad_fn object and the
        # tensor hooks (a hook registered before mul_ sees the older version's gradient)
        oe = old._ext = _Ext()
        oe.node, oe.hooks, oe.modified = e.node, e.hooks, e.modified
        if oe.node is not None:
            oe.node._v = old
        e.node = None
        e.hooks = None
        e.modified = 0
    if old._op is not None and old._op.saves_output:
        old._op = old._op.stale  # the result its backward reads is about to change
    vals = res._val
    if res._t.dtype is not t._t.dtype:
        vals = round_list(t._t.dtype, vals) if t._t.ndim else t._t.dtype.round(vals)
    elif t._t.ndim:
        vals = list(vals)
    seq = res._seq
    write(t, vals)
    t._rg = True
    t._op = res._op
    t._in = tuple(old if u is t else u for u in res._in)
    t._c = res._c
    t._seq = seq
    if t._ext is not None:
        t._ext.modified = 0
    return t


