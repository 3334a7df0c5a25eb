"""Node objects: what ``grad_fn`` returns (``<MulBackward0 object at ...>``).

The engine does not need them: a tensor is its own node. A Node is made on first request
(``t.grad_fn``), cached on the tensor, and is where node hooks live: ``register_prehook``
(called with the gradients w.r.t. the node's outputs) and ``register_hook`` (called with the
gradients w.r.t. its inputs and outputs). Leaves show up in ``next_functions`` as
``AccumulateGrad`` nodes, one per leaf. Each grad_fn name gets its own Node subclass, with the
``_saved_*`` attributes its op declares.
"""

from __future__ import annotations

import abc
from collections import OrderedDict

from .._base.handles import add_hook
from .._ops.table import SECOND_BACKWARD
from .tensor import Tensor, _Ext, ext, impl, leaf

__all__ = ["Node", "AccumulateGrad", "node_for", "accumulate_grad_for", "node_class"]


class Node(abc.ABC):  # noqa: B024 - an ABC so that isinstance() recognises every node class
    """A backward function of the graph (``torch.autograd.graph.Node``), named as PyTorch names it."""

    __slots__ = ("_v", "_pre", "_post", "_metadata", "__weakref__")

    def __init__(self, v) -> None:
        self._v = v
        self._pre = None
        self._post = None
        self._metadata = None

    def name(self) -> str:
        """The node's class name, as PyTorch prints it (``MulBackward0``; the node of an op without
        a derivative is ``torch::autograd::NotImplemented``)."""
        n = type(self).__name__
        return "torch::autograd::NotImplemented" if n == "NotImplemented" else n

    @property
    def next_functions(self) -> tuple:
        """``(node, output index)`` for each input: its grad_fn, its AccumulateGrad, or None."""
        out = []
        for u in self._v._in:
            if not u._rg:
                out.append((None, 0))
            elif u._op is None:
                out.append((accumulate_grad_for(u), 0))
            else:
                e = u._ext
                nr = e.pick[1] if e is not None and e.pick is not None else 0
                out.append((u.grad_fn, nr))
        return tuple(out) + ((None, 0),) * self._v._op.extra_none

    @property
    def metadata(self) -> dict:
        """A dict for the user's own notes about this node."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_prehook(self, fn):
        """``fn(grad_outputs) -> tuple | None``, called before this node runs."""
        if self._pre is None:
            self._pre = OrderedDict()
        ext(self._v)
        return add_hook(self._pre, fn)

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs) -> tuple | None``, called after this node ran."""
        if self._post is None:
            self._post = OrderedDict()
        ext(self._v)
        return add_hook(self._post, fn)

    def __call__(self, *args):
        from .._base.errors import Unsupported

        raise Unsupported("calling a grad_fn Node directly")

    def __repr__(self) -> str:
        # custom Functions' nodes live in torch.autograd.function, built-in ones print bare
        prefix = "torch.autograd.function." if getattr(self._v._op, "function", None) else ""
        return f"<{prefix}{self.name()} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The node that accumulates a leaf's gradient into its ``.grad``."""

    __slots__ = ()

    @property
    def next_functions(self) -> tuple:
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    @property
    def variable(self):
        """The leaf tensor this node accumulates into."""
        return self._v

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


def _saved(source):
    """A ``_saved_*`` property reading ``source`` (see ``_ops.table.Op.saved``)."""

    def get(self):
        v = self._v
        op = v._op
        if source is None:
            return None
        if isinstance(source, tuple):  # ("value", x): a constant of the op (gelu's approximate)
            return source[1]
        if op.is_freed and (isinstance(source, int) or source == "result"):
            raise RuntimeError(SECOND_BACKWARD)
        if isinstance(source, int):
            return v._in[source] if source < len(v._in) else None
        if source == "result":
            return _result_view(v)
        if source == "c":
            return _wrapped(v._c)
        if source == "alpha":
            c = v._c
            return 1 if c is None or not isinstance(c, (int, float)) else c
        if source == "one":
            return 1
        if source in ("min", "max"):
            lo, hi = v._c
            return lo if source == "min" else hi
        if source.startswith("c."):
            return getattr(v._c, source[2:])
        if source.startswith("in"):
            i, attr = source[2:].split(".")
            u = v._in[int(i)]
            return tuple(u._t.strides) if attr == "strides" else tuple(u._t.shape)
        raise AttributeError(source)

    return property(get)


def _wrapped(c):
    """A Python-number operand as PyTorch saves it: a 0-dim tensor (int64 or float64)."""
    from .._base import dtypes
    from .._base.dtypes import TensorType

    if isinstance(c, bool):
        return leaf(c, TensorType(dtypes.bool, ()))
    if isinstance(c, int):
        return leaf(c, TensorType(dtypes.int64, ()))
    if isinstance(c, float):
        return leaf(c, TensorType(dtypes.float64, ()))
    return c


def _result_view(v: Tensor) -> Tensor:
    """A saved result: a new tensor object of the same node (PyTorch unpacks a saved output
    into a new Python tensor whose grad_fn is the node itself)."""
    r = object.__new__(Tensor)
    for s in ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g", "_s"):
        setattr(r, s, getattr(v, s))
    r._g = None
    r._ext = _Ext()
    r._ext.node = v.grad_fn
    return r


_classes: dict = {}


def node_class(name: str, op=None) -> type:
    """The Node subclass named ``name`` (with ``op``'s ``_saved_*`` attributes)."""
    key = (name, op.base if op is not None else None)
    cls = _classes.get(key)
    if cls is None:
        attrs: dict = {"__slots__": ()}
        if op is not None:
            for attr, source in op.base.saved:
                attrs["_saved_" + attr] = _saved(source)
        cls = _classes[key] = type(name, (Node,), attrs)
    return cls


def node_for(v: Tensor) -> Node:
    """The Node of non-leaf ``v`` (made once, cached in its ``_ext``)."""
    return node_class(v._op.name, v._op)(v)


def accumulate_grad_for(t: Tensor) -> AccumulateGrad:
    """The AccumulateGrad node of leaf ``t`` (made once)."""
    e = ext(t)
    if e.node is None:
        e.node = AccumulateGrad(t)
    return e.node


impl.node_for = node_for
