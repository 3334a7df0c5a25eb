"""A lean pure-Python scalar autograd: the yardstick the benchmark runs as its fourth peer.

It is what a minimal engine costs in CPython, with none of scalargrad's duties (dtypes,
float32 emulation, hooks, PyTorch's ordering and errors): slotted nodes holding their data,
grad, parents and the local derivative towards each parent, computed at creation; no
closures, so no reference cycles; backward sorts the reachable nodes by creation number
(parents are always older than their children, so newest-first is a reverse topological
order) and sweeps them once. float64 only. Not part of scalargrad.
"""

from __future__ import annotations

import itertools
from operator import attrgetter

__all__ = ["Node"]

_next_seq = itertools.count().__next__
_by_seq = attrgetter("seq")
_ONE = 1.0
_ZERO = 0.0


class Node:
    """One scalar: ``data``, accumulated ``grad``, ``parents`` and ``local_grads`` (d self / d parent)."""

    __slots__ = ("data", "grad", "parents", "local_grads", "seq")

    def __init__(self, data: float, parents: tuple = (), local_grads: tuple = ()) -> None:
        self.data = data
        self.grad = _ZERO
        self.parents = parents
        self.local_grads = local_grads
        self.seq = _next_seq()

    def __add__(self, other) -> Node:
        if other.__class__ is Node:
            return Node(self.data + other.data, (self, other), (_ONE, _ONE))
        return Node(self.data + other, (self,), (_ONE,))

    __radd__ = __add__

    def __mul__(self, other) -> Node:
        if other.__class__ is Node:
            return Node(self.data * other.data, (self, other), (other.data, self.data))
        return Node(self.data * other, (self,), (other,))

    __rmul__ = __mul__

    def relu(self) -> Node:
        d = self.data
        if d > 0:
            return Node(d, (self,), (_ONE,))
        return Node(_ZERO, (self,), (_ZERO,))

    def backward(self) -> None:
        """Add d(self)/d(node) into the ``grad`` of every node self depends on."""
        seen = {self}
        stack = [self]
        order = [self]
        while stack:
            for p in stack.pop().parents:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
                    order.append(p)
        order.sort(key=_by_seq, reverse=True)
        self.grad += _ONE
        for v in order:
            g = v.grad
            for p, d in zip(v.parents, v.local_grads):
                p.grad += d * g

    def __repr__(self) -> str:
        return f"Node(data={self.data}, grad={self.grad})"
