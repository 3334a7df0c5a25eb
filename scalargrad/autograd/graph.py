"""Node objects: what ``grad_fn`` returns (``<MulBackward0 object at ...>``).

The engine does not need them: a Value is its own node. A Node is made on first request
(``v.grad_fn``), cached on the Value, and is where node hooks live: ``register_prehook``
(called with the gradients w.r.t. the node's outputs) and ``register_hook`` (called with the
gradients w.r.t. its inputs and outputs). Leaves show up in ``next_functions`` as
``AccumulateGrad`` nodes, one per leaf.
"""

from __future__ import annotations

from collections import OrderedDict

from ..utils.hooks import add_hook

_classes: dict = {}


class Node:
    """A backward function of the graph, named as PyTorch names it."""

    __slots__ = ("_v", "_pre", "_post", "_metadata", "__weakref__")

    def __init__(self, v) -> None:
        self._v = v
        self._pre = None
        self._post = None
        self._metadata = None

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        out = []
        for u in self._v._in:
            if not u._rg:
                out.append((None, 0))
            elif u._op is None:
                out.append((accumulate_grad_for(u), 0))
            else:
                out.append((u.grad_fn, 0))
        return tuple(out) + ((None, 0),) * self._v._op.extra_none

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_prehook(self, fn):
        """``fn(grad_outputs) -> tuple | None``, called before this node runs."""
        if self._pre is None:
            self._pre = OrderedDict()
        h = add_hook(self._pre, fn)
        _mark(self._v)
        return h

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs) -> tuple | None``, called after this node ran."""
        if self._post is None:
            self._post = OrderedDict()
        h = add_hook(self._post, fn)
        _mark(self._v)
        return h

    def __repr__(self) -> str:
        # custom Functions' nodes live in torch.autograd.function, built-in ones print bare
        prefix = "torch.autograd.function." if getattr(self._v._op, "function", None) else ""
        return f"<{prefix}{self.name()} object at {id(self):#x}>"


class AccumulateGradFace:
    """What an AccumulateGrad node shows (no next functions, PyTorch's name and repr), for the
    leaves' nodes here and those of multi-element tensors (``shaped.TensorAccumulateGrad``)."""

    __slots__ = ()

    @property
    def next_functions(self) -> tuple:
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


class AccumulateGrad(AccumulateGradFace, Node):
    """The node that accumulates a leaf's gradient into its ``.grad``."""

    __slots__ = ()

    @property
    def variable(self):
        return self._v


def _mark(v) -> None:
    from ..value import _ext

    _ext(v)


def node_class(name: str) -> type:
    cls = _classes.get(name)
    if cls is None:
        cls = _classes[name] = type(name, (Node,), {"__slots__": ()})
    return cls


def node_for(v) -> Node:
    """The Node of non-leaf ``v`` (made once)."""
    return node_class(v._op.name)(v)


def accumulate_grad_for(leaf) -> AccumulateGrad:
    from ..value import _ext

    e = _ext(leaf)
    if e.node is None:
        e.node = AccumulateGrad(leaf)
    return e.node
