"""Where hooks sit on a backward graph: the ONE place in ``viz`` that reads scalargrad's internals.

``make_dot`` draws the graph from the public API torchviz uses (``grad_fn``,
``next_functions``, ``variable``, ``_saved_*``, ``name()``). Which tensors and nodes carry
hooks is not public, in PyTorch either, so it is read here and nowhere else. This is the
internal interface between the picture and the tensor core; when the core changes,
``_hook_points`` is re-pointed and the rest of ``viz`` stays as it is:

``_hook_points(tensors) -> {id(obj): (obj, [HookSlot, ...])}``
    every hook on the graph behind ``tensors``, grouped by the public object the picture
    draws it at: a graph node (what ``grad_fn`` / ``next_functions`` return) for the hooks
    that fire around it, a leaf tensor (an ``AccumulateGrad`` node's ``variable``, or an
    output without ``grad_fn``) for the hooks registered on it. In each group the hooks are
    listed in the order they fire: the tensor hooks of the tensor(s) the node made (PyTorch
    runs them as pre-hooks of their ``grad_fn``), ``retain_grad``, the node's pre-hooks, then
    its post-hooks; a module's backward hooks (run as post-hooks of its
    ``BackwardHookFunctionBackward`` nodes, or of its last node for a legacy
    ``register_backward_hook``) are listed as the module's. For a leaf: tensor hooks, then
    post-accumulate-grad hooks.

Each hook is a ``HookSlot``: what it is, a name for the picture, and the container and key
under which the callable is stored, so that ``recorder.HookRecorder`` can learn the order in
which they fire by swapping in a recording wrapper for one backward call.

Today's core, read below: a tensor of any shape is its own graph node, whose rarely used parts
(hooks, its grad_fn object, retain_grad) live in ``_ext``; the graph is the tensors' ``_in``;
an output of a node with several outputs (unbind, a custom Function) "picks" its gradient from
a hidden tensor that holds the node (``_ext.pick``); graph nodes keep their hooks in ``_pre`` /
``_post``; module hooks live on ``nn.hooks.BackwardHook`` objects or in ``ModuleBoundHook``
wrappers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..nn.hooks import BackwardHook
from ..nn.modules.module import ModuleBoundHook

__all__ = ["HookSlot", "_hook_points", "hook_name"]


@dataclass(frozen=True, eq=False)
class HookSlot:
    """One hook at one point of the graph. ``container[key]`` is the callable (``container`` is
    None for ``retain_grad``, which is not a callable the recorder can observe)."""

    kind: str  # 'tensor hook', 'retain_grad', 'node pre-hook', 'node post-hook', ...
    name: str  # the hook's name, with its module's class for module hooks
    container: Any = None
    key: Any = None

    def same_as(self, other: HookSlot) -> bool:
        return self.container is not None and self.container is other.container and self.key == other.key

    @property
    def text(self) -> str:
        return self.kind if self.kind == "retain_grad" else f"{self.kind} {self.name}"


def hook_name(hook: Any) -> str:
    """How a hook is named on the picture: its function's name."""
    inner = getattr(hook, "hook", None)  # nn.modules.module.ModuleBoundHook
    if inner is not None and callable(inner):
        hook = inner
    name = getattr(hook, "__name__", None)
    if name is None:
        name = getattr(getattr(hook, "func", None), "__name__", None)  # functools.partial
    return name or type(hook).__name__


def _dict_slots(kind: str, hooks) -> list[HookSlot]:
    if not hooks:
        return []
    return [HookSlot(kind, hook_name(h), hooks, k) for k, h in hooks.items()]


def _post_hook_slots(post) -> list[HookSlot]:
    """A node's post-hooks, a module's backward hooks listed as the module's."""
    slots = []
    for key, hook in (post or {}).items():
        owner = getattr(hook, "__self__", None)
        if isinstance(owner, BackwardHook):
            of = f" of {type(owner.module).__name__}"
            if getattr(hook, "__func__", None) is BackwardHook._on_input_grads:
                hooks, kind = owner.user_hooks, "module full backward hook"
            else:
                hooks, kind = owner.user_pre_hooks, "module backward pre-hook"
            slots += [HookSlot(kind, hook_name(h) + of, hooks, i) for i, h in enumerate(hooks)]
        elif isinstance(hook, ModuleBoundHook):
            module = hook.module_ref()
            of = f" of {type(module).__name__}" if module is not None else ""
            slots.append(HookSlot("module backward hook (legacy)", hook_name(hook) + of, post, key))
        else:
            slots.append(HookSlot("node post-hook", hook_name(hook), post, key))
    return slots


def _hook_points(tensors) -> dict[int, tuple[Any, list[HookSlot]]]:
    """Every hook on the graph behind ``tensors``, by where it is drawn (module docstring)."""
    points: dict[int, tuple[Any, list[HookSlot]]] = {}

    def add(obj: Any, slots: list[HookSlot]) -> None:
        if slots:
            points.setdefault(id(obj), (obj, []))[1].extend(slots)

    stack = list(tensors)
    seen: set = set()
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v._op is not None:
            stack.extend(v._in)
        ext = v._ext
        if ext is None:
            continue
        if v._op is None:
            add(v, _dict_slots("tensor hook", ext.hooks) + _dict_slots("post-accumulate-grad hook", ext.post_acc))
        else:
            where = v.grad_fn  # for an output of a multi-output Function: the shared node
            add(where, _dict_slots("tensor hook", ext.hooks))
            if ext.retain:
                add(where, [HookSlot("retain_grad", "")])
        node = ext.node
        if node is not None and ext.pick is None:
            add(node, _dict_slots("node pre-hook", node._pre) + _post_hook_slots(node._post))
    for _obj, slots in points.values():  # node hooks after the tensor hooks of its outputs
        slots.sort(key=lambda s: s.kind.startswith(("node", "module")))
    return points
