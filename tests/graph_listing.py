"""A grad_fn graph as text, for tests that compare scalargrad's graph with PyTorch's."""

from __future__ import annotations


def grad_fn_tree(f, max_depth: int) -> list:
    """The names of the nodes below ``f`` in depth-first order, each indented by its depth (a
    node reached twice is listed twice); nodes at ``max_depth`` and deeper are left out."""
    out, stack = [], [(f, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None or depth >= max_depth:
            continue
        out.append(" " * depth + node.name())
        stack.extend((n, depth + 1) for n, _ in reversed(node.next_functions))
    return out


def first_edge_chain(t) -> list:
    """The names of ``t.grad_fn`` and of the nodes reached by following each node's first edge."""
    names, f = [], t.grad_fn
    while f is not None:
        names.append(f.name())
        f = f.next_functions[0][0] if f.next_functions else None
    return names


def node_chain(t) -> list:
    """The node class names from ``t.grad_fn`` down, following each node's first edge to a node
    that is not a leaf's AccumulateGrad."""
    out, fn = [], t.grad_fn
    while fn is not None:
        out.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        fn = nxt[0] if nxt else None
    return out
