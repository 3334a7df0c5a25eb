"""What hooks may ask about the backward call under way: its id (PyTorch's
``_current_graph_task_id``) and whether a tensor's node will run in it
(``_will_engine_execute_node``). ``register_multi_grad_hook`` is built on them."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Sequence

from .._base.errors import Unsupported
from .._base.handles import RemovableHandle
from .._tensor.tensor import Tensor
from . import engine

__all__ = ["current_graph_task_id", "current_autograd_node", "will_engine_execute", "register_multi_grad_hook"]

_LEAF_IN_GRAD = ("A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). "
                 "This is currently not supported.")


def current_graph_task_id() -> int:
    """An id of the innermost backward call under way, -1 outside backward."""
    return engine.running[-1].task if engine.running else -1


def current_autograd_node():
    """The node (grad_fn) whose saved tensors the unpack hooks under way are reading, else None
    (PyTorch's ``torch._C._current_autograd_node``, which also names the node running any
    other hook: scalargrad answers only from unpack hooks and refuses elsewhere)."""
    v = engine.running[-1].current if engine.running else None
    if v is None:
        if engine.running:
            raise Unsupported("torch._C._current_autograd_node() outside a saved-tensor unpack hook")
        return None
    return v.grad_fn


def will_engine_execute(t: Tensor) -> bool:
    """Whether the backward call under way will run ``t``'s node (its AccumulateGrad for a
    leaf). Its exact sweep knows the nodes still to run, and a node with hooks (the only kind
    a hook asks about) is always run by the exact sweep."""
    if not engine.running:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    run = engine.running[-1]
    if t._op is None:
        if run.capture is not None and not run.accumulate:
            raise RuntimeError(_LEAF_IN_GRAD)
        found = run.leaves is not None and t in run.leaves
    else:
        found = run.nodes is not None and t in run.nodes
    if run.need is not None:
        found = found and t in run.need
    return found


class _MultiHandle(RemovableHandle):
    """Removes every tensor hook a multi-grad hook registered."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all"):
    """``mode="all"``: ``fn(grads)`` once the gradients of every tensor of ``tensors`` that this
    backward call computes have arrived (None for the others). ``mode="any"``: ``fn(grad)``
    with the first of them. Returns a handle whose ``remove()`` unregisters it."""
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        # PyTorch takes each tensor's node when the hook is registered: a tensor changed in
        # place afterwards counts by the node it had then (which keeps its hooks)
        nodes = tuple(t if t._op is None else t.grad_fn for t in tensors)
        counts: dict = {}
        buffers: dict = {}
        expected: dict = {}

        def inner(idx: int):
            def hook(grad):
                task = current_graph_task_id()
                n = counts.get(task, 0)
                counts[task] = n + 1
                buf = buffers.setdefault(task, [None] * len(tensors))
                if n == 0:
                    expected[task] = sum(will_engine_execute(n if isinstance(n, Tensor) else n._v) for n in nodes)
                buf[idx] = grad
                if n == expected[task] - 1:
                    del counts[task], buffers[task], expected[task]
                    fn(buf)

            return hook

        return _MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors)))
    ran: dict = defaultdict(bool)

    @functools.wraps(fn)
    def first(grad):
        task = current_graph_task_id()
        if ran[task]:
            return
        ran[task] = True
        fn(grad)

    return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))
