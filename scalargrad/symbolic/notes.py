"""Notes attached to nodes and carried down to the inputs below them: PyTorch's conventions at
kinks, hooks that may change a gradient, custom Functions (interned as tag ids, carried as
frozensets of them)."""

from __future__ import annotations

from .graph import ElementGraph

__all__ = ["Tags", "NO_TAGS", "union", "hook_tag"]


class Tags:
    """Notes attached to nodes and carried down to the inputs below them (interned)."""

    def __init__(self) -> None:
        self.texts: list = []  # (kind, text)
        self._ids: dict = {}

    def id(self, kind: str, text: str) -> int:
        key = (kind, text)
        i = self._ids.get(key)
        if i is None:
            i = self._ids[key] = len(self.texts)
            self.texts.append(key)
        return i


NO_TAGS: frozenset = frozenset()


def union(a: frozenset, b: frozenset) -> frozenset:
    if a is b or not b:
        return a
    if not a:
        return b
    return a | b


def _node_hook_kinds(node) -> list:
    """The hooks of grad_fn ``node`` that may change a gradient, for notes. A hook that is a
    method of an object with ``hooks_for_check(hook)`` (an ``nn`` module's backward hooks)
    is named by it (an empty list: nothing there can change a gradient); any other is a
    'node hook'."""
    kinds: list = []
    for hook in (*(node._pre or {}).values(), *(node._post or {}).values()):
        names = getattr(getattr(hook, "__self__", None), "hooks_for_check", None)
        found = ["node hook"] if names is None else names(hook)
        kinds.extend(k for k in found if k not in kinds)
    return kinds


def hook_tag(v, tags: Tags, graph: ElementGraph):
    """The tag of the hooks on tensor ``v`` (or its grad_fn) that may change a gradient."""
    ext = v._ext
    if ext is None:
        return None
    kinds = []
    if ext.hooks:
        kinds.append("tensor hook")
    if v._op is not None and ext.node is not None and (ext.node._pre or ext.node._post):
        kinds.extend(_node_hook_kinds(ext.node))
    if v._op is None and ext.post_acc:
        kinds.append("post-accumulate-grad hook")
    if not kinds:
        return None
    where = graph.describe(v) if v._op is not None else "the input itself"
    return tags.id("hook", f"{' and '.join(kinds)} on {where}")
