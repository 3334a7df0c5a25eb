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

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.handles import add_hook
from .._ops.table import SECOND_BACKWARD, version_error
from .saved_hooks import SavedTensor, unpack_one
from .storage import alias, version_then
from .tensor import GRADLESS_VIEW, MANY, Ext, Tensor, ext, impl, leaf

__all__ = ["Node", "AccumulateGrad", "node_for", "accumulate_grad_for", "node_class"]



def saves_input(op, ins: tuple, u: Tensor, rg: tuple | None = None) -> bool:
    """Whether a node of ``op`` with inputs ``ins`` saved its input ``u`` (and so refuses a
    changed one). An op that declares its saved inputs (``saved`` entries with an input index,
    and the inputs whose gradients need each) answers for that input: PyTorch saves it only where
    a gradient that reads it is computed; any other op by its ``saves_inputs`` flag. ``rg``: the
    inputs' requires_grad when the node was made, if they may have changed since (detach_)."""
    declared = False
    for entry in op.saved or ():
        i = entry[1]
        if i.__class__ is str and i.startswith("opt."):  # an optional tensor argument (clamp's bounds)
            i = int(i[4:])
        if i.__class__ is not int:
            continue
        declared = True
        if i < len(ins) and ins[i] is u:
            need = entry[2] if len(entry) > 2 else None
            if need is None or any(ins[j]._rg if rg is None else rg[j] for j in need if j < len(ins)):
                return True
    return op.saves_inputs if not declared else False


def consumed_version(u: Tensor, v: Tensor) -> Tensor:
    """The version of ``u`` that node ``v`` consumed, ``u`` having been changed in place after
    ``v`` was made (its stamp is newer): a rebased tensor's older versions hang off its first
    input (a view regenerated over its changed base keeps it in ``_c.prev``); a tensor detached
    in place keeps the node it was in ``_ext.detached``."""
    w = u
    while True:
        older = _older(w, v)
        if older is None:
            return w
        w = older


def detached_since(u: Tensor, v: Tensor) -> bool:
    """Whether ``consumed_version(u, v)`` crosses a ``detach_`` (PyTorch then refuses to unpack
    the tensor if ``v`` saved it)."""
    w = u
    while True:
        older = _older(w, v)
        if older is None:
            return False
        if w._op is None:
            return True
        w = older


def _older(w: Tensor, v: Tensor) -> Tensor | None:
    """The version before ``w`` on the way to the one ``v`` consumed, or None: ``w`` is it."""
    if w._seq <= v._seq:
        return None
    if w._op is not None:
        return w._c.prev if w._op.older_in_c else (w._a if w._b is not MANY else w._a[0])
    d = w._ext.detached if w._ext is not None else None
    return None if d is None or d[1] < v._seq else d[0]  # detached after v was made: the node it was


class Node(abc.ABC):  # noqa: B024 - an ABC so that isinstance() recognises every node class
    """A backward function of the graph (``torch.autograd.graph.Node``), named as PyTorch names it."""

    __slots__ = ("_v", "_pre", "_post", "_metadata", "__weakref__")

    def __init__(self, v) -> None:
        self._v = v
        self._pre = None
        self._post = None
        self._metadata = None

    _qualified = ""

    def name(self) -> str:
        """The node's name, as PyTorch gives it (``MulBackward0``; the engine's own nodes with
        their namespace, ``torch::autograd::CopyBackwards``)."""
        return self._qualified or type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """``(node, output index)`` for each input: its grad_fn, its AccumulateGrad, or None."""
        out = []
        v = self._v
        only_grad = v._op.grad_edges_only
        for u in v._in[: v._op.edges]:
            if u._seq > v._seq:  # changed in place since: the version v consumed
                u = consumed_version(u, v)
            if not u._rg:
                if only_grad:
                    continue
                out.append((None, 0))
            elif u._op is None:  # a view made with grad mode off has no AccumulateGrad: its edge is None
                out.append((None if u._c is GRADLESS_VIEW else accumulate_grad_for(u), 0))
            else:
                e = u._ext
                nr = e.pick[1] if e is not None and e.pick is not None else 0
                out.append((u.grad_fn, nr))
        return tuple(out) + ((None, 0),) * v._op.extra_none

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

    def __getattr__(self, name: str):
        # a custom Function's node is its ctx in PyTorch: what forward set on ctx reads here
        v = self._v
        if not name.startswith("__") and getattr(v._op, "function", None) is not None:
            try:
                return getattr(v._c, name)
            except AttributeError:
                pass
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __call__(self, *args):
        raise Unsupported("calling a grad_fn Node directly")

    def __repr__(self) -> str:
        # custom Functions' nodes live in torch.autograd.function, built-in ones print bare
        prefix = "torch.autograd.function." if getattr(self._v._op, "function", None) else ""
        return f"<{prefix}{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The node that accumulates a leaf's gradient into its ``.grad``."""

    __slots__ = ()
    __module__ = "builtins"  # a C++ class in PyTorch: <class 'AccumulateGrad'>
    _qualified = "torch::autograd::AccumulateGrad"

    @property
    def next_functions(self) -> tuple:
        return ()

    @property
    def variable(self):
        """The leaf tensor this node accumulates into."""
        return self._v

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


_INT64 = {"dim", "dim0", "dim1", "dims", "index", "start", "end", "step", "split_size", "split_sizes", "pad",
          "padding"}
"""Saved attributes PyTorch keeps as int64 and shows as unsigned: -1 prints 18446744073709551615."""


_TENSOR_SOURCES = ("result", "c", "c.tensors", "c.indices", "c.result1", "c.result2", "c.running_mean", "c.running_var",
                   "c.weight", "c.bias", "c.logsumexp", "c.attn_mask")
"""Sources of saved tensors (as opposed to numbers and sizes): freed by a backward without
retain_graph, as PyTorch frees its saved variables."""


def _as_uint64(x):
    if isinstance(x, tuple):
        return tuple(_as_uint64(e) for e in x)
    if isinstance(x, int) and not isinstance(x, bool) and x < 0:
        return x + (1 << 64)
    return x


def _saved(attr: str, source, needed_for=None):
    """A ``_saved_*`` property reading ``source`` (see ``_ops.table.Op.saved``)."""

    def get(self):
        v = self._v
        op = v._op
        if source is None:
            return None
        if isinstance(source, tuple):  # ("value", x): a constant of the op (gelu's approximate)
            return source[1]
        if needed_for is not None and not any(v._in[i]._rg for i in needed_for if i < len(v._in)):
            # no gradient that reads it is computed: PyTorch does not save it
            return () if isinstance(source, str) and source.startswith("in") else None
        if isinstance(source, str) and source.startswith("opt.") and v._c[int(source[4:]) - 1]:
            return None  # an optional tensor argument not given
        if op.is_freed and (isinstance(source, int) or source in _TENSOR_SOURCES or source.startswith("opt.")):
            raise RuntimeError(SECOND_BACKWARD)
        e = v._ext
        if e is not None and e.packed is not None and attr in e.packed:
            src, value, unpack = e.packed[attr]
            original = _result_view(v) if src == "result" else v._in[src]
            got = unpack_one(original, value, unpack)
            # PyTorch hands out a new tensor object even when the hook returns the saved one
            return _copy_of(got) if got is original and src != "result" else got
        if isinstance(source, int):
            if source == 0 and e is not None and e.saved_self is not None:
                return e.saved_self  # an in-place op's clone of self
            return _saved_input(v, source) if source < len(v._in) else None
        if source == "result":
            return _result_view(v)
        if source == "c":
            return _wrapped(v._c)
        if source == "number":  # a Scalar argument, kept as the Python number it was
            c = v._c
            if c.__class__ is tuple:  # (given, cast): addcmul/addcdiv/lerp's value and weight
                return c[0]
            return getattr(c, "number", c)
        if source == "scalar":
            return v._c
        if source == "alpha":
            c = v._c
            return 1 if c is None or not isinstance(c, (int, float)) else c
        if source == "one":
            return 1
        if source.startswith("op."):  # a property of the op itself (div's rounding_mode)
            return getattr(op, source[3:])
        if source == "false":
            return False
        if source.startswith("opt."):  # an optional tensor argument (given: see above)
            return _saved_input(v, int(source[4:]))
        if source in ("min", "max"):
            lo, hi = v._c
            bound = lo if source == "min" else hi
            return getattr(bound, "number", bound)
        if source.startswith("c."):
            key = source[2:]
            raw = getattr(v._c, "raw", None)
            value = raw[key] if raw is not None and key in raw else getattr(v._c, key)
            return _as_uint64(value) if attr in _INT64 else value
        if source.startswith("in"):
            i, what = source[2:].split(".")
            u = v._in[int(i)]
            if what[5:].isdigit():  # "in1.shape0": one size (a ``_sym_argsize_0``)
                return u._t.shape[int(what[5:])]
            return tuple(u._t.strides) if what == "strides" else tuple(u._t.shape)
        raise AttributeError(source)

    return property(get)


def _raw_saved(attr: str, source, needed_for=None):
    """A ``_raw_saved_*`` property: the saved tensor as an object with hooks (``SavedTensor``),
    an empty one (source None) where PyTorch saved nothing (no gradient reads it)."""

    def get(self):
        v = self._v
        if needed_for is not None and not any(v._in[i]._rg for i in needed_for if i < len(v._in)):
            source_now = None
        else:
            source_now = source
        return SavedTensor(self, v, attr, source_now)

    return property(get)


def _saved_input(v: Tensor, i: int):
    """Input ``i`` of node ``v``, as PyTorch unpacks a saved input: the tensor itself, or
    PyTorch's version error if it was changed in place since ``v`` saved it."""
    u = v._in[i]
    e = u._ext
    only_detached = e is not None and e.detached is not None and e.detached[1] == u._seq and u._op is None
    if (u._seq > v._seq and not only_detached) or (e is not None and e.modified > v._seq):
        which = ""
        if u._op is not None:
            which = f", which is output 0 of {short_name(u.grad_fn.name())},"
        now = u._version
        raise version_error(u, which, max(now, 1), min(version_then(u, v._seq), max(now, 1) - 1))
    return u


def _copy_of(t: Tensor) -> Tensor:
    """A new tensor object with ``t``'s elements, memory and place in the graph."""
    r = object.__new__(type(t))
    for s in ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g", "_ext", "_s"):
        setattr(r, s, getattr(t, s))
    return r


def short_name(name: str) -> str:
    """A node's name as PyTorch's version error gives it ("Mul", "Pow1"), as the engine does."""
    return name.replace("Backward0", "").replace("Backward", "")


def _wrapped(c):
    """A Python-number operand as PyTorch saves it: a 0-dim tensor (int64, float64 or bool)."""
    c = getattr(c, "number", c)
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
    r._ext = Ext()
    r._ext.node = v.grad_fn
    if v._s is None or v._s.store is None:  # the same memory and version counter as the output
        r._s = None
        alias(v, r)
    return r


_classes: dict = {}


def node_class(name: str, op=None) -> type:
    """The Node subclass named ``name`` (with ``op``'s ``_saved_*`` attributes)."""
    key = (name, op.base if op is not None else None)
    cls = _classes.get(key)
    if cls is None:
        attrs: dict = {"__slots__": (), "__module__": "builtins"}  # PyTorch's are C++ classes: <class 'MulBackward0'>
        if op is not None:
            for entry in op.base.saved:
                attrs["_saved_" + entry[0]] = _saved(*entry)
                if entry[1] == "result" or (isinstance(entry[1], int) and not isinstance(entry[1], bool)):
                    attrs["_raw_saved_" + entry[0]] = _raw_saved(*entry)
            if op.base.namespace:
                attrs["_qualified"] = op.base.namespace + name
            if getattr(op.base, "function", None) is not None:  # a custom Function's: Python-made in PyTorch
                attrs["__module__"] = "torch.autograd.function"
        cls = _classes[key] = type(name, (Node,), attrs)
    return cls


def node_for(v: Tensor) -> Node:
    """The Node of non-leaf ``v`` (made once, cached in its ``_ext``)."""
    error = getattr(v._c, "error", None) if v._op.older_in_c else None
    if error is not None:  # a multi-output view whose memory changed: PyTorch refuses it
        raise RuntimeError(error)
    return node_class(v._op.name, v._op)(v)


def accumulate_grad_for(t: Tensor) -> AccumulateGrad:
    """The AccumulateGrad node of leaf ``t`` (made once)."""
    e = ext(t)
    if e.node is None:
        e.node = AccumulateGrad(t)
    return e.node


impl.node_for = node_for
