"""The nested containers a transform's inputs and outputs may be (PyTorch's pytrees, the
containers torch.func handles: tuple, list, dict, namedtuple); anything else is a leaf."""

from __future__ import annotations

from typing import Any

__all__ = ["flatten", "unflatten", "broadcast"]


def flatten(tree: Any) -> tuple[list, Any]:
    """``(leaves in order, spec)``; ``unflatten(leaves, spec)`` rebuilds the tree."""
    leaves: list = []

    def walk(x):
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return ("namedtuple", type(x), [walk(v) for v in x])
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, None, [walk(v) for v in x])
        if isinstance(x, dict):
            return ("dict", list(x.keys()), [walk(v) for v in x.values()])
        leaves.append(x)
        return None

    spec = walk(tree)
    return leaves, spec


def unflatten(leaves: list, spec: Any) -> Any:
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, extra, children = s
        built = [build(c) for c in children]
        if kind == "namedtuple":
            return extra(*built)
        if kind == "tuple":
            return tuple(built)
        if kind == "list":
            return built
        return dict(zip(extra, built))

    return build(spec)


def same_structure(a: Any, b: Any) -> bool:
    """Whether specs ``a`` and ``b`` are the same tree (dict keys as sets, as PyTorch's)."""
    if a is None or b is None:
        return a is None and b is None
    if a[0] != b[0] or len(a[2]) != len(b[2]):
        return False
    if a[0] == "dict":
        if set(a[1]) != set(b[1]):
            return False
        bmap = dict(zip(b[1], b[2]))
        return all(same_structure(c, bmap[k]) for k, c in zip(a[1], a[2]))
    if a[0] == "namedtuple" and a[1] is not b[1]:
        return False
    return all(same_structure(x, y) for x, y in zip(a[2], b[2]))


def broadcast(prefix: Any, tree: Any) -> list | None:
    """The leaves of ``prefix`` (a tree whose leaves are ``int``/``None``, itself possibly one
    leaf) repeated over the leaves of ``tree`` below them; None when ``prefix`` is not a prefix
    of ``tree``'s structure."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * len(flatten(tree)[0])
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            return None
        out: list = []
        for k in tree:
            sub = broadcast(prefix[k], tree[k])
            if sub is None:
                return None
            out += sub
        return out
    if not isinstance(tree, (tuple, list)) or isinstance(tree, dict) or len(prefix) != len(tree) \
            or type(prefix) is not type(tree) and not (isinstance(prefix, tuple) and isinstance(tree, tuple)):
        return None
    out = []
    for p, t in zip(prefix, tree):
        sub = broadcast(p, t)
        if sub is None:
            return None
        out += sub
    return out
