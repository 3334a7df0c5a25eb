"""Forward-mode AD (``torch.autograd.forward_ad``): dual levels, dual tensors, and one rule for
every op's tangent.

A dual tensor is a tensor with a tangent attached at the current level (one level, as in
PyTorch, which refuses nested levels). The tangents live here, in ``_tangents``, not on the
tensors: exiting the level drops them all at once, as PyTorch deletes a level's forward grads.

There is no table of forward formulas. Every op's backward rule (``op.backward``, the formula of
``derivatives.yaml``) is linear in the gradient it receives: it computes ``J^T u``. Run once under
``create_graph`` on a dummy cotangent ``u`` and dotted with the inputs' tangents, it gives the
scalar ``<J^T u, t> = <u, J t>``, whose gradient with respect to ``u`` is the Jacobian-vector
product ``J t`` (the "double-vjp" trick). Its elements are computed by the same operations as
PyTorch's forward formulas (``exp``: ``t * result``; ``mm``: ``t_a @ b + a @ t_b``; ``sum``: the
sum of ``t``), the backward of each step of the formula taken with the tangent as the
gradient. The tangent is itself a graph-recording tensor when a tangent or an input requires
grad in grad mode (second derivatives, forward-over-reverse).

``make`` (every op's result) calls ``_propagate`` while a tangent exists; no dual level, no
tangent: ops pay one test of a global (``tensor.set_dual``). In-place ops hand the result's
tangent to the tensor they change (``inplace.py``).
"""

from __future__ import annotations

import re
import weakref
from collections import namedtuple
from contextlib import contextmanager
from functools import partial, wraps

from .._base import grad_mode
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._tensor.make_hooks import set_forward as set_dual
from .._tensor.storage import alias, pick, set_dual_memory
from .._tensor.tensor import Tensor, leaf, next_seq
from .._tensor.tensor_kernel import GraphKernel
from .api import grad
from .gradients import adapt

__all__ = ["UnpackedDualTensor", "dual_level", "current_level", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "tangent_of",
           "set_tangent", "active", "suspended"]

_level = -1  # the current level (-1: none)
_tangents: dict = {}  # id(tensor) -> (weak reference to the tensor, tangent) at the current level


def _drop(key: int, ref) -> None:
    """A dual tensor died: its tangent goes with it (the level keeps no tensor alive)."""
    e = _tangents.get(key)
    if e is not None and e[0] is ref:
        del _tangents[key]
        if not _tangents:
            _resume()


def _store(t: Tensor, tangent) -> None:
    key = id(t)
    _tangents[key] = (weakref.ref(t, partial(_drop, key)), tangent)


class UnpackedDualTensor(namedtuple("_UnpackedDualTensor", ["primal", "tangent"])):
    """Namedtuple returned by :func:`unpack_dual` containing the primal and tangent components of
    the dual tensor."""


def active() -> bool:
    """Whether a tangent exists (a dual level holds one)."""
    return bool(_tangents)


def tangent_of(t: Tensor):
    """``t``'s tangent at the current level, or None."""
    e = _tangents.get(id(t))
    return None if e is None or e[0]() is not t else e[1]


def set_tangent(t: Tensor, tangent) -> None:
    """Attach ``tangent`` (None: none) to ``t`` at the current level."""
    if tangent is None:
        _tangents.pop(id(t), None)
    else:
        _store(t, tangent)
    _resume()


def _resume() -> None:
    """Turn the hooks on while a tangent exists, off otherwise."""
    if _tangents:
        set_dual(_propagate)
        set_dual_memory(_inplace, _written, tangent_of, _viewed)
    else:
        set_dual(None)
        set_dual_memory(None)


@contextmanager
def suspended():
    """Forward-mode AD off inside (a custom Function's forward and jvp): no op gets a tangent."""
    set_dual(None)
    set_dual_memory(None)
    try:
        yield
    finally:
        _resume()


def enter_dual_level() -> int:
    """Enter a new forward grad level (the only one: PyTorch refuses nested levels) and return it."""
    global _level
    if _level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level = 0
    return _level


def exit_dual_level(*, level=None) -> None:
    """Exit the forward grad level: every tangent made in it is deleted."""
    global _level, _last
    if level is None:
        level = _level
    if level != _level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _tangents.clear()
    _last = (None, ())
    _resume()
    _level = level - 1


class dual_level:
    """Context manager (and decorator) in which forward AD runs: entering it makes the level that
    ``make_dual`` and ``unpack_dual`` use; leaving it deletes every tangent made in it."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        exit_dual_level()

    def __call__(self, fn):
        @wraps(fn)
        def wrapped(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapped


def current_level() -> int:
    """The current level (-1: none), PyTorch's ``forward_ad._current_level``."""
    return _level


def make_dual(tensor: Tensor, tangent: Tensor, *, level=None) -> Tensor:
    """A view of ``tensor`` with ``tangent`` as its forward gradient (kept as it is)."""
    if level is None:
        level = _level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if level != _level:
        raise RuntimeError(f"Invalid dual level {level}: the current level is {_level}")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent._t.shape != tensor._t.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor._t.shape)} while the "
                           f"given forward gradient is of size {list(tangent._t.shape)}.")
    if tangent._t.dtype is not tensor._t.dtype:
        raise Unsupported(f"a tangent of dtype {tangent.dtype} for a primal of dtype {tensor.dtype}",
                          "give the tangent the primal's dtype")
    if tangent_of(tensor) is not None:
        raise RuntimeError("Trying to make a dual tensor of a tensor that already has a forward gradient at this "
                           "level: unpack it first")
    dual = tensor.view_as(tensor)
    set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor: Tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)``: a view of ``tensor`` without the tangent, and the tangent as it is
    (None when there is none, or no level)."""
    if level is None:
        level = _level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    t = tangent_of(tensor)
    primal = tensor.view_as(tensor)
    set_tangent(primal, None)
    return UnpackedDualTensor(primal, t)


def _node(v: Tensor, op, ins: tuple) -> Tensor:
    """A node of ``op`` with ``v``'s result and inputs ``ins``, for the double-vjp (``v`` itself is
    a node only when an input requires grad)."""
    w = object.__new__(Tensor)
    w._val = v._val
    w._t = v._t
    w._rg = True
    if v._t.ndim or any(u._t.ndim for u in ins):
        op = op.tensor
    w._op = op
    if len(ins) == 1:
        w._a = ins[0]
        w._b = None
    else:
        w._in = ins
    w._c = v._c if v._op is not None else None
    w._seq = next_seq()
    w._g = None
    w._ext = None
    w._s = None
    return w


def _propagate(v: Tensor, op, ins: tuple, c) -> None:
    """Give ``make``'s result ``v`` (of ``op`` on ``ins``, constant ``c``) its tangent: ``J t``, the
    double-vjp of the op's backward rule (see the module docstring), or the op's own ``jvp``."""
    tans = [tangent_of(u) for u in ins]
    if all(x is None for x in tans) or not op.differentiable or not v._t.dtype.is_floating_point:
        return
    graph = grad_mode.state.enabled and any(x is not None and (x._rg or u._rg) for u, x in zip(ins, tans))
    set_dual(None)  # the rule's own ops carry no tangents
    was = grad_mode.state.enabled
    try:
        w = _node(v, op, ins)
        w._c = c
        rule = getattr(w._op, "jvp", None)
        if rule is not None:  # an op whose forward formula PyTorch rounds otherwise declares it
            grad_mode.state.enabled = graph
            out = rule(GraphKernel, tans, w)
        else:
            grad_mode.state.enabled = True
            out = _double_vjp(w, ins, tans, graph)
    except Unsupported as e:  # the rule's double backward is one scalargrad lacks
        name = re.sub(r"Backward\d*$", "", op.name)
        raise Unsupported(f"forward-mode AD through {name}", "its tangent is the double backward of its rule, which "
                          "scalargrad lacks") from e
    finally:
        grad_mode.state.enabled = was
        _resume()
    _store(v, out)
    _resume()
    global _last
    _last = (v, ins)


_last = (None, ())  # the last result given a tangent, and its op's inputs (in-place ops read them)


def _viewed(x: Tensor, v: Tensor) -> None:
    """``v`` was made a view of ``x``: a tangent ``make`` gave it becomes the same view of
    ``x``'s tangent, where it can (``_view_tangent``)."""
    tv = tangent_of(v)
    tx = tangent_of(x)
    if tv is None or tx is None or tv._rg:
        return
    view = _view_tangent(v, x, tx)
    if view is not None:
        _store(v, view)


def _view_tangent(v: Tensor, x: Tensor, tx: Tensor) -> Tensor | None:
    """PyTorch's forward gradient of a view: the same view of its base's tangent (autograd_meta's
    fw_grad, a view op's formula ``self_t.narrow(...)``), so that the view's tangent ``_base`` is
    the base's and an in-place change of either tangent is seen by the other. None when ``v``
    is not a view of ``x`` (no memory shared) or ``x``'s tangent is not laid out as ``x`` (nor of
    its dtype, nor free of a graph): the double-vjp's values then, in a tensor of their own."""
    vs, xs, ts = v._s, x._s, tx._s
    if vs is None or xs is None or vs.store is None or vs.store is not xs.store or tx._rg or \
            tx._t.dtype is not v._t.dtype or tx._t.shape != x._t.shape or tx.stride() != x.stride():
        return None
    positions = range(v._t.numel) if vs.index is None else vs.index  # in the shared memory
    if xs.index is None:
        idx = list(positions)
    else:
        where = {p: i for i, p in enumerate(xs.index)}
        idx = [where.get(p) for p in positions]
        if None in idx:
            return None
    vals = pick(tx._val if tx._t.ndim else [tx._val], idx)
    t = TensorType(v._t.dtype, v._t.shape, v._t.strides if v._t.ndim else None)
    offset = (0 if ts is None else ts.offset) + vs.offset - xs.offset
    return alias(tx, leaf(vals if t.ndim else vals[0], t), idx, view=True, offset=offset)


def _double_vjp(w: Tensor, ins: tuple, tans: list, graph: bool) -> Tensor:
    """``J t`` for node ``w``: the gradient, with respect to a cotangent ``u``, of ``<J^T u, t>``."""
    t = TensorType(w._t.dtype, w._t.shape)
    # a cotangent of ones, not zeros: the rule is linear in it, so any value gives J t, but a
    # rule that meets 0 * inf (xlogy's log(0), logit's nan outside (0, 1)) would hide PyTorch's
    # infinite and nan tangents behind zeros
    u = leaf([1.0] * len(w._val) if t.ndim else 1.0, t, requires_grad=True)
    grad_mode.state.every_input = True  # every input's term, whether or not it requires grad
    try:
        grads = w._op.backward(GraphKernel, u, w)
    finally:
        grad_mode.state.every_input = False
    total = None
    for x, gi, ti in zip(ins, grads, tans):
        if ti is None or gi is None:
            continue
        gi = adapt(gi, x, w, True)
        term = (gi * ti).sum()
        total = term if total is None else total + term
    if total is None or not total._rg:
        return leaf([0.0] * len(w._val) if t.ndim else 0.0, t)
    (out,) = grad([total], [u], create_graph=graph, allow_unused=True, materialize_grads=True)
    return out if graph else out.detach()


def _shares(x: Tensor, t: Tensor) -> bool:
    return x is t or (x._s is not None and t._s is not None and x._s.ver is t._s.ver)


_writing = None  # the tensor an in-place op is changing, its tangent handled by _inplace


def _written(t: Tensor) -> None:
    """A write into ``t``'s memory that is not an in-place op's (setitem, copy from a custom
    Function, an initialiser...): refused when it would leave a tangent behind."""
    if t is _writing:
        return
    for r, _ in list(_tangents.values()):
        x = r()
        if x is not None and _shares(x, t):
            raise Unsupported("forward-mode AD through this in-place change of a dual tensor (or of memory a dual "
                              "tensor shares)", "apply the op out of place")


def _inplace(t: Tensor, res: Tensor, apply, keep: bool = False) -> Tensor:
    """In-place op: ``t`` becomes ``res`` (whose tangent ``make`` computed from ``t``'s), and takes
    its tangent. As PyTorch, an existing tangent of ``t`` is changed in place where it can be.
    ``keep``: an op PyTorch declares no output differentiable for (the in-place logical ops),
    whose generated kernel never touches the forward gradient: ``t`` keeps its tangent as it was."""
    global _writing
    new = tangent_of(res)
    old = tangent_of(t)
    if keep and new is None:
        _writing = t
        try:
            return apply(t, res)
        finally:
            _writing = None
    if new is None and old is None:
        return apply(t, res)  # no tangent here; write() refuses one left behind on an alias
    sharers = [x for x in (r() for r, _ in list(_tangents.values()))
               if x is not None and x is not t and x is not res and _shares(x, t)]
    if sharers and not (old is not None and _changeable(old, new)
                        and all(_shares(tangent_of(x), old) for x in sharers)):
        # a view and its base whose tangents are a view and its base too (``_view_tangent``)
        # see the change through the tangent's memory, as in PyTorch; others would not
        raise Unsupported("forward-mode AD through an in-place change of a tensor that shares memory with "
                          "another dual tensor whose tangent does not share its tangent's memory",
                          "clone() it first")
    if _last[0] is res and any(u is t for u in _last[1][1:]):
        raise Unsupported("forward-mode AD through an in-place op whose operand is the tensor it changes "
                          "(x.mul_(x))", "PyTorch's formula there reads the tangent it is changing: write "
                          "x.mul_(x.clone())")
    _tangents.pop(id(res), None)
    set_dual(None)
    set_dual_memory(None)
    _writing = t
    try:
        out = apply(t, res)
        if new is None:
            new = leaf([0.0] * len(t._val) if t._t.ndim else 0.0, TensorType(t._t.dtype, t._t.shape))
        if old is not None and _changeable(old, new):
            with grad_mode.no_grad():
                old.copy_(new)
        else:
            _store(t, new)
    finally:
        _writing = None
        _resume()
    return out


def _changeable(old: Tensor, new: Tensor | None) -> bool:
    """Whether an in-place op can write its result's tangent ``new`` (None: zeros) into the
    tangent ``old`` it changes, in place (no graph on either, the same dtype and shape)."""
    return not old._rg and not _in_grad_graph(old) and (new is None or (
        not new._rg and old._t.dtype is new._t.dtype and old._t.shape == new._t.shape))


def _in_grad_graph(x: Tensor) -> bool:
    return x._op is not None

