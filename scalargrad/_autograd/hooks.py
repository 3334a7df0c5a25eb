"""Hooks during backward, in PyTorch's order and with its checks: a tensor's hooks (they may
replace its gradient), a node's pre hooks (on the gradients of its outputs) and post hooks (on
its inputs' gradients too), a leaf's post-accumulate hooks. The engine (``engine.py``) decides
when each runs; here is what running one means.
"""

from __future__ import annotations

from collections import OrderedDict

from .._base.dtypes import TensorType
from .._base.handles import add_hook
from .._tensor.tensor import Tensor, ext, impl
from .gradients import unwrap, wrap

__all__ = ["register_hook", "tensor_hooks", "output_hooks", "pre_hooks", "post_hooks", "post_accumulate_hooks",
           "n_outputs", "output_types", "node_pre_hooks"]


def register_hook(v: Tensor, hook):
    """``Tensor.register_hook``. An output of a multi-output node joins that node's list at its
    first hook: PyTorch keeps the output's hooks as a tensor pre-hook of the shared node, which
    runs every output's hooks in that order (``output_hooks``), even once the output is gone."""
    if not v._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    e = ext(v)
    if e.hooks is None:
        e.hooks = OrderedDict()
        if e.pick is not None:
            h = ext(e.pick[0])
            h.out_hooks = (h.out_hooks or ()) + (v,)
    return add_hook(e.hooks, hook)


impl.register_hook = register_hook


def tensor_hooks(v: Tensor, g, graph: bool):
    """Run ``v``'s tensor hooks; an undefined gradient (None) is passed to them as None. A hook
    may return a replacement of the same shape and dtype."""
    hooks = v._ext.hooks
    if hooks:
        t = v._t
        gv = None if g is None else wrap(g, t)
        for hook in list(hooks.values()):
            res = hook(gv)
            if res is not None and res is not gv:
                name = getattr(hook, "__name__", hook)
                if gv is None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
                if not isinstance(res, Tensor):
                    raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
                if gv is not None and res._t.dtype is not gv._t.dtype:
                    raise RuntimeError(f"hook '{name}' has changed the type of value (was {gv._t.dtype.legacy} "
                                       f"got {res._t.dtype.legacy})")
                if gv is not None and tuple(res._t.shape) != tuple(gv._t.shape):
                    raise RuntimeError(f"hook '{name}' has changed the size of value")
                gv = res
        # a tensor that came in as one goes on as one (a 0-dim leaf's view into a larger gradient)
        g = None if gv is None else (gv if graph or gv is g else unwrap(gv, False))
    return g


def output_hooks(h: Tensor, slots: list, graph: bool) -> None:
    """A multi-output node's turn: its outputs' tensor hooks, which PyTorch keeps as the node's
    tensor pre-hooks. Every hooked output's run, in the order the outputs got their first hook
    (removing hooks keeps an output's place), each on its output's gradient (None where none
    arrived); a replacement takes that output's slot."""
    for o in h._ext.out_hooks or ():
        p = o._ext.pick
        if p is not None and p[0] is h:  # (still its output)
            slots[p[1]] = tensor_hooks(o, slots[p[1]], graph)


def node_pre_hooks(node, v: Tensor, grads: tuple, types: tuple, graph: bool) -> list:
    """``pre_hooks`` of node ``v``: a Function's non-tensor outputs have slots too, where its
    pre-hooks see None (PyTorch's node has an output for each)."""
    slots = getattr(v._c, "_out_slots", None) if getattr(v._op, "function", None) is not None else None
    n = getattr(v._c, "_n_outputs", None)
    if slots is None or len(slots) == n:
        return pre_hooks(node, grads, types, graph)
    full_grads, full_types = [None] * n, [None] * n
    for i, x, t in zip(slots, grads, types):
        full_grads[i], full_types[i] = x, t
    vals = pre_hooks(node, tuple(full_grads), tuple(full_types), graph)
    return [vals[i] for i in slots]


def _checked(hook, res, prev: tuple) -> tuple:
    """A node hook's returned gradients, checked as PyTorch checks them: a tuple of as many
    values, each None or a tensor of the replaced gradient's type and size."""
    if not isinstance(res, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(res).__name__}'")
    name = getattr(hook, "__name__", None)
    name = name if isinstance(name, str) else "<unknown>"
    if len(res) != len(prev):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(res)}, but "
                           f"expected {len(prev)})")
    for old, new in zip(prev, res):
        if new is None:
            continue
        if old is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if new._t.dtype is not old._t.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {old._t.dtype.legacy} got "
                               f"{new._t.dtype.legacy})")
        if tuple(new._t.shape) != tuple(old._t.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
    return res


def pre_hooks(node, grads: tuple, types: tuple, graph: bool) -> list:
    """Run a node's pre hooks on the gradients of its outputs (None: undefined); a hook may
    return replacements. Returns the gradients in the engine's representation."""
    gv = tuple(None if x is None else wrap(x, t) for x, t in zip(grads, types))
    for hook in list(node._pre.values()):
        res = hook(gv)
        if res is not None:
            gv = _checked(hook, res, gv)
    return [unwrap(x, graph) for x in gv]


def post_hooks(node, g_in: tuple, g_out: tuple) -> tuple:
    """Run a node's post hooks on its inputs' gradients and its outputs'; a hook may return
    replacements of the inputs' gradients."""
    for hook in list(node._post.values()):
        res = hook(g_in, g_out)
        if res is not None:
            g_in = _checked(hook, res, g_in)
    return g_in


def post_accumulate_hooks(u: Tensor, hooks: dict) -> None:
    """A leaf's post-accumulate-grad hooks, after its ``.grad`` was updated."""
    for hook in list(hooks.values()):
        res = hook(u)
        # PyTorch accepts None or the tensor itself (``return p.add_(...)``), nothing else
        if res is not None and res is not u:
            if not isinstance(res, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def n_outputs(h: Tensor) -> int:
    c = h._c
    outs = getattr(c, "outputs", None)
    if outs is None:
        outs = c.outputs_types
    return len(outs)


def output_types(v: Tensor, multi: bool) -> tuple:
    if not multi:
        return (v._t,)
    c = v._c
    types = getattr(c, "outputs_types", None)
    if types is not None:
        return tuple(types)
    # a built-in node with several outputs (unbind, split): each output is contiguous in the
    # input's dtype, so a 0-dim output's gradient (a bare float) can be handed to hooks as a tensor
    dtype = v._t.dtype
    return tuple(TensorType(dtype, tuple(shape)) for shape, _map in c.outputs)
