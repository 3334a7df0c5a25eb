"""The element graph: tensor-level nodes seen as the scalar nodes of their elements.

The engine keeps one node per tensor op, as PyTorch does: ``y = x * w`` for 2x3 tensors is one
MulBackward0 node whose value is a list of six numbers. ``scalargrad.symbolic`` proves every
element's gradient with SymPy, so it reads a graph through this expansion: each tensor node
becomes one *element* per output element, whose inputs are the input elements it depends on.

* A 0-dim node of 0-dim tensors is its own element (the tensor itself, no copy): a scalar
  program of millions of nodes is checked as cheaply as before tensors had dimensions.
* An elementwise op's element ``j`` takes the element of each input broadcast to position
  ``j`` (``_tensor.operands.positions``), and keeps the op itself: its ``sympy`` form and its
  ``backward`` formula run on the element's numbers (the float kernels) as on a 0-dim node.
* Every other family (reductions, products, views, losses...) says, in its module of this
  package, which structural element ops (``element_op.ElementOp``) a node of each of its ops is
  made of: ``elements_of(Op)(build)`` registers ``build(v, vin, vals)``, which gives, per output
  element, ``(element op, c, ((input tensor, flat index), ...))``.
* A custom Function on multi-element tensors is applied element by element when it declares
  its form holds element by element (``sympy_elementwise``, e.g. ``nn``'s identity
  ``BackwardHookFunction``); otherwise its elements are opaque.

Which version of an input a node consumed is decided at the tensor level first
(``_tensor.nodes.consumed_version``: a tensor changed in place since), then the node is expanded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .._autograd.function import Pick as FunctionPick
from .._base.dtypes import TensorType
from .._ops.elementwise import Elementwise
from .._ops.views import Layout
from .._tensor.nodes import consumed_version
from .._tensor.operands import positions
from .._tensor.tensor import MANY
from .element_op import Same, opaque_op

__all__ = ["Elem", "ElementGraph", "NO_ELEMENT", "Runs", "element_index", "shape_pick", "covers", "elements_of",
           "expanded_always"]


class Elem:
    """One element of a tensor node (or of a leaf or constant tensor with dimensions).

    It has the slots the symbolic check and the float kernels read from a 0-dim node: ``_op``
    (the declared op, or an ``ElementOp``; None for a leaf or a constant), ``_a``/``_b`` (its
    input elements, ``(tuple, MANY)`` for three or more), ``_c``, ``_val`` (the element's
    number), ``_t`` (a 0-dim TensorType of the node's dtype), ``_rg``, ``_seq`` (the node's) and
    ``_ext`` (always None: hooks belong to the tensor, ``node``). ``index`` is its flat position
    in ``node``; a custom Function's output element also knows the Function's node ``fn``, its
    output ``slot`` and, per tensor input, the flat position of its argument (``pos_in``).
    """

    __slots__ = ("_op", "_a", "_b", "_c", "_val", "_t", "_rg", "_seq", "_ext", "node", "index", "fn", "slot",
                 "pos_in")

    @property
    def _in(self) -> tuple:
        b = self._b
        if b is None:
            a = self._a
            return () if a is None else (a,)
        return self._a if b is MANY else (self._a, b)

    def __repr__(self) -> str:
        return f"<element {self.index} of {self.node._op.name if self.node._op is not None else 'a leaf'}>"


def _elem(node, index: int, op, c, val, t, ins: tuple, rg: bool = True) -> Elem:
    e = object.__new__(Elem)
    e._op = op
    n = len(ins)
    if n == 0:
        e._a = e._b = None
    elif n == 1:
        e._a, e._b = ins[0], None
    elif n == 2:
        e._a, e._b = ins
    else:
        e._a, e._b = ins, MANY
    e._c = c
    e._val = val
    e._t = t
    e._rg = rg
    e._seq = node._seq
    e._ext = None
    e.node = node
    e.index = index
    e.fn = None
    e.slot = 0
    e.pos_in = None
    return e


def _constant() -> Elem:
    e = object.__new__(Elem)
    e._op = None
    e._a = e._b = None
    e._c = None
    e._val = 0.0
    e._t = None
    e._rg = False
    e._seq = 0
    e._ext = None
    e.node = None
    e.index = 0
    e.fn = None
    e.slot = 0
    e.pos_in = None
    return e


NO_ELEMENT = _constant()
"""Stands for an argument a custom Function's declared form does not use at an output element
(an input whose shape does not broadcast to that output's)."""


def element_index(shape, flat: int) -> tuple:
    """The multi-index of flat (row-major) position ``flat`` in ``shape``."""
    idx = []
    for s in reversed(tuple(shape)):
        idx.append(flat % s if s else 0)
        flat = flat // s if s else 0
    return tuple(reversed(idx))


# ---------------------------------------------------------------- what each family's nodes are made of


class Runs(tuple):
    """An element's inputs given as runs, ``((input tensor, flat indices), ...)``: the same
    inputs, in the same order, as the pairs ``((tensor, i) for i in indices)`` of each run in
    turn, without a pair per input (a product's or a convolution's element reads hundreds)."""

    __slots__ = ()


_builders: dict = {}  # op class -> build(v, vin, vals)
_class_builders: dict = {}  # op class -> the build of its nodes and its subclasses' (unless their own)
_always: list = []  # op classes whose nodes are expanded whatever their shape


def elements_of(*ops: type, subclasses: bool = False) -> Callable:
    """Register, as a decorator, ``build(v, vin, vals)``: the structural elements of a node of
    any of ``ops`` (with ``subclasses``, of their subclasses too; the closest registered class
    wins). It returns, per output element, ``(element op, c, ((input tensor, flat index), ...))``
    (or ``Runs`` of ``(input tensor, flat indices)`` in place of the pairs)."""
    table = _class_builders if subclasses else _builders

    def register(build: Callable) -> Callable:
        for op in ops:
            table[op] = build
        return build

    return register


def expanded_always(*ops: type) -> None:
    """Nodes of ``ops`` (and their subclasses) are expanded even on 0-dim tensors: their
    elements are not their declared form (a filled element is the number, not the input; an
    assigned number has no input)."""
    _always.extend(ops)


def builder(base) -> Callable | None:
    """The build of ``base``'s nodes, or None."""
    build = _builders.get(base)
    if build is None:
        for cls in base.__mro__:
            build = _class_builders.get(cls)
            if build is not None:
                break
    return build


def covers(op) -> bool:
    """Does a family of this package know the elements of ``op``'s nodes (else they are opaque)?"""
    base = getattr(op, "base", op)
    return issubclass(base, Elementwise) or builder(base) is not None


# ---------------------------------------------------------------- the graph


def _seq(v) -> int:
    return v._seq


_special: dict = {}  # op -> does a node of it need expanding whatever its shape


def shape_pick(v) -> bool:
    """An output of a multi-output shape op (unbind, split): a Pick of the shared node."""
    e = v._ext
    return e is not None and e.pick is not None and isinstance(v._c, Layout)


class ElementGraph:
    """The elements below some tensor roots.

    ``nodes``: the tensor nodes, in creation order (``describe`` counts them); ``order``: the
    non-leaf elements in a topological order; ``ins``: each element's input elements, as it
    consumed them; ``leaves``: the leaf elements requiring grad, in order of first use.
    ``stop``: non-leaf tensors treated as variables (the walk does not go below them).
    ``functions``: each custom Function node -> its output elements (whose ``pos_in`` say
    where their arguments sit in the Function's inputs) and how it is checked: "declared"
    (its form, element by element), "opaque" (no form) or "not elementwise".
    """

    __slots__ = ("order", "ins", "leaves", "nodes", "node_ins", "stop", "single", "many", "functions", "fn_mode",
                 "_index", "expanded")

    def __init__(self, roots: Iterable, stop=frozenset()) -> None:
        self._index = None
        self.stop = stop
        self.single: dict = {}  # 0-dim tensor node -> its one Elem (when not its own element)
        self.many: dict = {}  # tensor with dimensions -> its Elems
        self.functions: dict = {}
        self.fn_mode: dict = {}
        self.expanded: list = []  # tensor nodes expanded into Elems
        roots = list(roots)
        node_ins: dict = {}
        stack = []
        for r in roots:
            if r._op is not None and r not in stop and r not in node_ins:
                node_ins[r] = None
                stack.append(r)
        while stack:
            v = stack.pop()
            vseq = v._seq
            vin = v._in
            for u in vin:
                if u._seq > vseq:  # changed or detached in place since: take the version v consumed
                    vin = tuple(consumed_version(u, v) if u._seq > vseq else u for u in v._in)
                    break
            node_ins[v] = vin
            for u in vin:
                if u._rg and u._op is not None and u not in node_ins and u not in stop:
                    node_ins[u] = None
                    stack.append(u)
        # inputs are older than their consumers, so creation order is a topological order
        # (but for a multi-output shape op, whose outputs are made before the shared node)
        nodes = self.nodes = sorted(node_ins, key=_seq)
        self.node_ins = node_ins
        # a node that is its own element keeps its inputs (unless one is a 0-dim node expanded
        # into an element); the order is the nodes' own until the first node that is not
        ins = self.ins = dict(node_ins)
        self.order = None
        single = self.single
        special = _special
        deferred = []
        for i, v in enumerate(nodes):
            op = v._op
            flag = special.get(op)
            if flag is None:
                flag = special[op] = bool(op.bulk or op.runs_user_code or op is FunctionPick
                                          or issubclass(op.base, tuple(_always)))
            if flag or v._t.ndim or (v._ext is not None and v._ext.pick is not None):
                if self.order is None:
                    self.order = nodes[:i]
                if shape_pick(v) and v._a in node_ins and v._a._seq > v._seq:
                    deferred.append(v)  # after its shared node
                    continue
                self._expand(v, node_ins[v])
                if deferred:
                    for w in [w for w in deferred if w._a is v]:
                        deferred.remove(w)
                        self._expand(w, node_ins[w])
                continue
            if single:
                ins[v] = tuple(single.get(u, u) for u in node_ins[v])
            if self.order is not None:
                self.order.append(v)
        if self.order is None:
            self.order = nodes
        for w in deferred:
            self._expand(w, node_ins[w])
        self.leaves = self._find_leaves(roots)

    # ------------------------------------------------------------ elements of a tensor

    def elements(self, u) -> tuple | list:
        """The elements of tensor ``u`` (leaf and constant tensors get theirs on first request)."""
        if not u._t.ndim:
            e = self.single.get(u)
            return (u,) if e is None else (e,)
        es = self.many.get(u)
        if es is None:
            es = self.many[u] = self._plain(u)
        return es

    def _plain(self, u) -> list:
        """Elements of a leaf, a constant, or a node treated as a variable (``stop``)."""
        t = TensorType(u._t.dtype, ())
        rg = u._rg
        out = []
        for j, x in enumerate(u._val):
            e = _elem(u, j, None, None, x, t, (), rg)
            out.append(e)
        return out

    def node_of(self, e):
        """The tensor node an element belongs to."""
        return e.node if e.__class__ is Elem else e

    def _find_leaves(self, roots) -> list:
        leaves = []
        found = set()
        stop = self.stop

        def visit(u) -> None:
            if u._rg and (u._op is None or u in stop) and u not in found:
                found.add(u)
                leaves.append(u)

        for r in roots:
            for e in self.elements(r):
                visit(e)
        ins = self.ins
        for v in self.order:
            for u in ins[v]:
                if u._rg and (u._op is None or u in stop) and u not in found:
                    found.add(u)
                    leaves.append(u)
        return leaves

    def describe(self, e) -> str:
        """``MulBackward0 (node 3 of 40)``, with the element's index for a tensor with dimensions."""
        v = self.node_of(e)
        if e._op is None or v is None or v._op is None:
            return "a leaf"
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.nodes)}
        i = self._index.get(v)
        name = v._op.base.name if getattr(v._op, "base", None) is not None else v._op.name
        where = f"{name} (node {i + 1} of {len(self.nodes)})" if i is not None else name
        if e.__class__ is Elem and v._t.ndim:
            idx = ", ".join(str(k) for k in element_index(v._t.shape, e.index))
            where += f", element [{idx}]"
        return where

    # ------------------------------------------------------------ expansion

    def _add(self, v, elems: list) -> None:
        """Record ``v``'s elements (in order, after every older node's)."""
        self.expanded.append(v)
        if v._t.ndim:
            self.many[v] = elems
        else:
            self.single[v] = elems[0]
        ins = self.ins
        for e in elems:
            ins[e] = e._in
        self.order.extend(elems)

    def _expand(self, v, vin: tuple) -> None:
        op = v._op
        base = op.base
        if op.runs_user_code or base is FunctionPick:
            return self._function(v, vin)
        t = TensorType(v._t.dtype, ())
        vals = v._val if v._t.ndim else [v._val]
        if shape_pick(v):
            return self._structural(v, t, vals, [(Same, None, ((vin[0], _map(v._c, j)),)) for j in range(len(vals))])
        if issubclass(base, Elementwise):
            return self._elementwise(v, base, t, vals, vin)
        build = builder(base)
        if build is None:
            return self._opaque(v, t, vals, vin)
        return self._structural(v, t, vals, build(v, vin, vals))

    def _elementwise(self, v, op, t, vals, vin) -> None:
        shape = tuple(v._t.shape)
        cols = []
        for u in vin:
            es = self.elements(u)
            if tuple(u._t.shape) == shape:
                cols.append(es)
            elif len(es) == 1:
                cols.append(es[0])  # the one element, at every position
            else:
                cols.append([es[i] for i in positions(u._t.shape, shape)])
        c = v._c
        per_element = getattr(op, "c_per_element", False)  # where: the condition's element
        if per_element:
            c = c._val if c._t.ndim else [c._val]
        elems = []
        for j, x in enumerate(vals):
            ins = tuple(col[j] if col.__class__ is list or col.__class__ is tuple else col for col in cols)
            elems.append(_elem(v, j, op, c[j] if per_element else c, x, t, ins))
        self._add(v, elems)

    def _structural(self, v, t, vals, spec: list) -> None:
        """``spec``: per output element, (element op, c, ((input tensor, flat index)...)), or
        (element op, c, ``Runs``((input tensor, flat indices)...))."""
        elems = []
        cache: dict = {}
        for j, (op, c, srcs) in enumerate(spec):
            ins = []
            if srcs.__class__ is Runs:
                for u, idx in srcs:
                    es = cache.get(id(u))
                    if es is None:
                        es = cache[id(u)] = self.elements(u)
                    ins.extend(map(es.__getitem__, idx))
            else:
                for u, q in srcs:
                    es = cache.get(id(u))
                    if es is None:
                        es = cache[id(u)] = self.elements(u)
                    ins.append(es[q])
            elems.append(_elem(v, j, op, c, vals[j], t, tuple(ins)))
        self._add(v, elems)

    def _opaque(self, v, t, vals, vin) -> None:
        """A node whose elements no family expresses: each element depends on every
        input element (the check reports what is below it unverifiable)."""
        ins = tuple(e for u in vin for e in self.elements(u))
        op = opaque_op(v._op.name)
        self._add(v, [_elem(v, j, op, None, x, t, ins) for j, x in enumerate(vals)])

    def _function(self, v, vin) -> None:
        """A custom Function's output (its node, or a Pick of its hidden node)."""
        if v._op is FunctionPick or v._op.base is FunctionPick:
            fnode, slot = v._a, v._c
            fins = self.node_ins.get(fnode) or fnode._in
        else:
            fnode, slot = v, 0
            fins = vin
            if v._val is None:  # the hidden node of a multi-output Function: its Picks carry the values
                return
        ctx = fnode._c
        fn = getattr(fnode._op, "function", None)
        all_0dim = not v._t.ndim and all(not u._t.ndim for u in fins)
        form = fn is not None and fn.sympy is not None and hasattr(ctx, "_sympy_args")
        if all_0dim:
            mode = "declared" if form else "opaque"
        elif form and getattr(fn, "sympy_elementwise", False):
            mode = "declared"
        else:
            mode = "not elementwise" if form else "opaque"
        self.fn_mode[fnode] = mode
        members = self.functions.setdefault(fnode, [])
        if all_0dim:
            # the tensor is its own element; its inputs are the Function's (past a hidden node)
            ins = tuple(self.single.get(u, u) for u in fins)
            self.ins[v] = ins
            self.order.append(v)
            members.append((v, slot, (0,) * len(fins)))
            return
        t = TensorType(v._t.dtype, ())
        vals = v._val if v._t.ndim else [v._val]
        shape = tuple(v._t.shape)
        cols = []
        for u in fins:
            ok = _broadcasts(tuple(u._t.shape), shape)
            cols.append((self.elements(u), positions(u._t.shape, shape) if ok else None))
        elems = []
        if mode != "declared":
            pos_all = [(u, es) for u, (es, _) in zip(fins, cols)]
        for j, x in enumerate(vals):
            if mode == "declared":
                ins = tuple(es[p[j]] if p is not None else NO_ELEMENT for es, p in cols)
                pos_in = tuple(p[j] if p is not None else None for _, p in cols)
            elif all(p is not None for _, p in cols):
                ins = tuple(es[p[j]] for es, p in cols)
                pos_in = tuple(p[j] for _, p in cols)
            else:
                ins = tuple(e for _, es in pos_all for e in es)
                pos_in = None
            e = _elem(v, j, v._op, v._c, x, t, ins)
            e.fn = fnode
            e.slot = slot
            e.pos_in = pos_in
            elems.append(e)
            members.append((e, slot, pos_in))
        self._add(v, elems)


def _broadcasts(shape: tuple, out: tuple) -> bool:
    """Does ``shape`` broadcast to ``out`` (without growing ``out``)?"""
    if len(shape) > len(out):
        return False
    lead = len(out) - len(shape)
    return all(s == 1 or s == out[lead + i] for i, s in enumerate(shape))


def _map(layout: Layout, j: int) -> int:
    m = layout.map
    return j if m is None else m[j]

