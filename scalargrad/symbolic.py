"""SymPy proofs of the gradients scalargrad computes.

``to_sympy(v)`` writes a graph as a SymPy expression, built from each op's own ``sympy`` form
(``ops.py``): the symbolic check tests the very rule the engine runs. ``sympy_check(out)``
compares the gradients ``autograd.grad`` returns with the derivative SymPy proves, by one of
two strategies:

* **whole** (small graphs): differentiate the whole expression w.r.t. each input and evaluate
  it exactly at the leaves' values; the report shows each derivative (``q/x``).
* **local** (any size, linear time): for each op kind, differentiate its SymPy form once
  (cached) and, at every node, compare those partial derivatives, evaluated at the node's
  input values, with the local gradient the engine's ``op.backward`` gives for a unit
  incoming gradient; then redo the chain rule in float64 from the verified partials, node by
  node in reverse creation order, and compare with autograd. The check also proves each
  node's forward value against its SymPy form.

The local pass always runs: it verifies the op rules, finds PyTorch's conventions at
non-differentiable points (``ops.Op.convention``: the report says where calculus and PyTorch
part), hooks that change gradients on purpose, and custom ``autograd.Function`` nodes, and it
bounds the float rounding of autograd's result, which sets the comparison's tolerance.

A custom Function is proved like an op when its class declares its form with a static
``sympy(sp, *args)`` (see ``Function``; ``nn``'s ``BackwardHookFunction`` declares identity,
so gradients through modules with full backward hooks are proved). Without one its inputs
are reported unverifiable. The chain rule goes through the derivative of the declared form;
the user's backward is never called by the check (it may print or record: a second call
would change the program, and a custom backward is often not linear in its gradient, e.g.
clipping, so a unit-gradient probe would miss what it does). Instead the engine's own call
is compared, after it ran: what the Function's backward returned against the declared
form's partials times the gradient it received. Where they part the inputs below get the
status ``custom backward`` (a custom backward may deviate on purpose), with both values.

``check_every_backward()`` cross-checks every backward call made inside it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import sympy as sp

from ._autograd import engine
from ._autograd.engine import _route
from ._autograd.kernels import FloatKernel
from ._base import dtypes
from ._ops.table import Op
from ._tensor.tensor import Tensor as Value

__all__ = ["to_sympy", "sympy_check", "SymbolicReport", "InputCheck", "SymbolicMismatch",
           "check_every_backward", "BackwardChecks", "WHOLE_MAX_NODES", "WHOLE_MAX_TREE"]

WHOLE_MAX_NODES = 60
"""Graphs with more nodes are checked by the local strategy only."""
WHOLE_MAX_TREE = 600
"""... and so are graphs whose expression, written out as a tree (shared nodes repeated), is
bigger than this: differentiating it would blow up."""

_EVALUATED_MAX = 400  # to_sympy lets SymPy simplify graphs up to this size
_INF = math.inf
_EPS = {"float32": 2.0**-23, "float64": 2.0**-52}
_TINY = {"float32": 2.0**-126, "float64": 2.0**-1022}
_ULP_SHIFT = {"float32": 2.0**29, "float64": 1.0}  # a float32 ulp is 2**29 double ulps
_NODE_RTOL = 8  # a local partial may differ from the exact one by this many epsilons, relatively
_PROBE_ULPS = 4  # ... or by what moving the node's inputs or output this many ulps gives
_EDGE_ROUNDINGS = 4  # roundings one backward edge may add (the rule's own ops and the product)


class SymbolicMismatch(AssertionError):
    """autograd's gradient differs from the one SymPy proves (the message is the report)."""


# ---------------------------------------------------------------- the graph


_live_of: dict = {}


def _live(op):
    """The op class whose rules ``op`` runs: a node whose saved values were freed has the
    op's ``freed`` subclass; its derivative rule is still the parent's."""
    live = _live_of.get(op)
    if live is None:
        base = op.__bases__[0] if op.__bases__ else op
        live = _live_of[op] = base if getattr(base, "freed", None) is op and base is not op else op
    return live


_opaque_of: dict = {}


def _opaque(op) -> str | None:
    """The name of a node whose op has no ``sympy`` form (a custom Function's, which may declare
    one: see ``_declared``), None for ops with one."""
    try:
        return _opaque_of[op]
    except KeyError:
        pass
    fn = getattr(op, "function", None)
    if fn is not None:
        name = fn.__name__
    elif op.__name__ == "Pick":
        name = "Pick"
    elif op.sympy is Op.sympy:
        name = op.name
    else:
        name = None
    _opaque_of[op] = name
    return name


def _declared(v: Value):
    """The custom Function class of node ``v`` if it declares a SymPy form, else None."""
    fn = getattr(v._op, "function", None)
    if fn is None or fn.sympy is None or not hasattr(v._c, "_sympy_args"):
        return None
    return fn


class _Outputs:
    """The SymPy expressions of a multi-output custom Function's outputs (its hidden node's)."""

    __slots__ = ("exprs",)

    def __init__(self, exprs: tuple) -> None:
        self.exprs = exprs


def _form(v: Value, args) -> tuple:
    """The declared form of custom Function node ``v``: one SymPy expression per tensor
    output, ``args`` standing for its tensor inputs (its other arguments as they were given)."""
    fn = _declared(v)
    ctx = v._c
    plain, kwargs = ctx._sympy_args
    if getattr(ctx, "_layout", None) is not None:
        # applied to multi-element tensors: the node's inputs are elements, and only a form that
        # holds element by element (sympy_elementwise, e.g. the identity) can be used
        res = fn.sympy(sp, *args, **kwargs)
    else:
        full = list(plain)
        for pos, e in zip(ctx._tensor_positions, args):
            full[pos] = e
        res = fn.sympy(sp, *full, **kwargs)
    outs = tuple(res) if isinstance(res, (tuple, list)) else (res,)
    n = len(ctx.outputs_types)
    if len(outs) != n:
        raise TypeError(f"{fn.__name__}.sympy returned {len(outs)} expression(s), but its forward has "
                        f"{n} tensor output(s)")
    return tuple(sp.sympify(o) for o in outs)


class _Graph:
    """The nodes below some roots: creation order, and each node's inputs as it consumed them.

    ``stop``: non-leaf Values treated as variables (the walk does not go below them).
    """

    __slots__ = ("order", "ins", "leaves", "_index")

    def __init__(self, roots, stop=frozenset()) -> None:
        self._index = None
        ins: dict = {}
        stack = []
        for r in roots:
            if r._op is not None and r not in stop and r not in ins:
                ins[r] = None
                stack.append(r)
        while stack:
            v = stack.pop()
            vseq = v._seq
            vin = v._in
            for u in vin:
                if u._rg and u._seq > vseq:  # changed in place since: take the version v consumed
                    vin = tuple(_route(u, v, False) if (u._rg and u._seq > vseq) else u for u in v._in)
                    break
            ins[v] = vin
            for u in vin:
                if u._rg and u._op is not None and u not in ins and u not in stop:
                    ins[u] = None
                    stack.append(u)
        # inputs are older than their consumers, so creation order is a topological order
        self.order = sorted(ins, key=_seq)
        self.ins = ins
        leaves = []
        found = set()
        for r in roots:
            if r._rg and (r._op is None or r in stop) and r not in found:
                found.add(r)
                leaves.append(r)
        for v in self.order:
            for u in ins[v]:
                if u._rg and (u._op is None or u in stop) and u not in found:
                    found.add(u)
                    leaves.append(u)
        self.leaves = leaves  # in order of first use

    def describe(self, v: Value) -> str:
        """``MulBackward0 (node 3 of 40)``, for messages."""
        if v._op is None:
            return "a leaf"
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.order)}
        return f"{_live(v._op).name} (node {self._index[v] + 1} of {len(self.order)})"


def _seq(v: Value) -> int:
    return v._seq


# ---------------------------------------------------------------- SymPy forms


def _exact(x):
    """A float as the exact SymPy number it holds (integral floats become Integers)."""
    if x is None:
        return None
    if isinstance(x, bool):
        return sp.Integer(int(x))
    if isinstance(x, int):
        return sp.Integer(x)
    x = float(x)
    if x != x:
        return sp.nan
    if x in (_INF, -_INF):
        return sp.oo if x > 0 else -sp.oo
    if x.is_integer():
        return sp.Integer(int(x))
    return sp.Rational(x)


def _exact_operand(c):
    if isinstance(c, tuple):
        return tuple(_exact(x) for x in c)
    return _exact(c)


def _shown(x):
    """A float for display in an expression: 3.0 -> 3, 0.25 -> 0.25."""
    if isinstance(x, float) and x.is_integer():
        return sp.Integer(int(x))
    if isinstance(x, float) and math.isfinite(x):
        return sp.Float(repr(x))
    return _exact(x)


def _as_symbol(s) -> sp.Symbol:
    if isinstance(s, sp.Symbol):
        return s
    return sp.Symbol(str(s), real=True)


def _name_symbols(leaves, symbols) -> dict:
    """A real SymPy symbol for each leaf: named by ``symbols`` where given, else x0, x1..."""
    syms = {}
    taken = set()
    for leaf, s in (symbols or {}).items():
        syms[leaf] = _as_symbol(s)
        taken.add(syms[leaf].name)
    i = 0
    for leaf in leaves:
        if leaf in syms:
            continue
        while f"x{i}" in taken:
            i += 1
        syms[leaf] = sp.Symbol(f"x{i}", real=True)
        taken.add(f"x{i}")
    return syms


def _expressions(graph: _Graph, syms: dict) -> dict:
    """SymPy expression of every node, built in creation order (no recursion over the graph).

    SymPy simplifies as it builds, recursively: past ``_EVALUATED_MAX`` nodes (or when its
    recursion runs out) the expression is built unevaluated, as written."""
    if len(graph.order) <= _EVALUATED_MAX:
        try:
            return _build(graph, syms)
        except RecursionError:
            pass
    with sp.evaluate(False):
        return _build(graph, syms)


def _build(graph: _Graph, syms: dict) -> dict:
    expr: dict = {}
    for v in graph.order:
        if v in syms:
            continue
        args = []
        for u in graph.ins[v]:
            e = syms.get(u)
            if e is None:
                e = expr.get(u)
            if e is None:
                e = _exact(u._val)
            args.append(e)
        op = _live(v._op)
        name = _opaque(op)
        if name == "Pick":  # output i of a custom Function with several outputs
            hidden = args[0]
            if isinstance(hidden, _Outputs):
                expr[v] = hidden.exprs[v._c]
                continue
            f, fargs = hidden
            expr[v] = sp.Function(f"{f}_{v._c}")(*fargs)
            continue
        if name is not None:
            if _declared(v) is not None:
                outs = _form(v, args)
                expr[v] = _Outputs(outs) if v._val is None else outs[0]
                continue
            # the hidden node of a multi-output Function has no value of its own: its Picks do
            expr[v] = (name, tuple(args)) if v._val is None else sp.Function(name)(*args)
            continue
        if v._c is not None:
            args.append(_exact_operand(v._c))
        try:
            expr[v] = op.sympy(sp, *args)
        except NotImplementedError:
            expr[v] = sp.Function(op.name)(*args)
    return expr


def to_sympy(value: Value, symbols: Mapping | None = None):
    """The SymPy expression of ``value`` in terms of its leaves.

    Leaves that require grad become real symbols, named from ``symbols`` ({Value: name or
    Symbol}) where given, otherwise x0, x1... in order of first use; other leaves and
    constants become the exact numbers their floats hold. Each op contributes its own
    ``sympy`` form, and so does a custom ``autograd.Function`` that declares one; any other
    custom Function becomes an undefined SymPy function (``MyFn(x0)``), whose derivative
    SymPy cannot evaluate.
    """
    if value._op is None or not value._rg:
        if value._rg:
            return _name_symbols([value], symbols)[value]
        return _exact(value._val)
    stop = frozenset(s for s in (symbols or {}) if s._op is not None)
    graph = _Graph([value], stop)
    syms = _name_symbols(graph.leaves, symbols)
    e = _expressions(graph, syms)[value]
    if isinstance(e, tuple):  # the hidden node of a multi-output Function
        return sp.Function(e[0])(*e[1])
    return e


# ---------------------------------------------------------------- evaluating SymPy numbers


def _evaluate(e):
    """``(kind, float)`` of an evaluated SymPy expression: kind is 'real', 'inf' (the float is
    the infinity, nan when unsigned), 'nan', 'complex' or 'unknown' (no value: an undefined
    function, or a comparison with nan)."""
    if e is sp.nan:
        return "nan", math.nan
    if e is sp.zoo:
        return "inf", math.nan
    if e is sp.oo or e is sp.S.Infinity:
        return "inf", _INF
    if e is sp.S.NegativeInfinity:
        return "inf", -_INF
    try:
        if not e.is_number or e.has(sp.Derivative) or e.atoms(sp.core.function.AppliedUndef):
            return "unknown", None
        n = e.evalf(30)
        if n is sp.nan:
            return "nan", math.nan
        if n.has(sp.zoo):
            return "inf", math.nan
        re_, im_ = n.as_real_imag()
        if im_ != 0:
            return "complex", None
        x = float(re_)
    except (TypeError, ValueError, ArithmeticError):
        return "unknown", None
    if x in (_INF, -_INF):
        return "real", x  # finite, beyond the double range: the float overflows to inf
    return "real", x


def _at(e, subs: dict):
    """``e`` with symbols replaced by exact Floats of the given values."""
    try:
        return e.xreplace({s: sp.Float(x, 40) if math.isfinite(x) else _exact(x) for s, x in subs.items()})
    except (TypeError, ValueError):  # a Piecewise comparing with nan
        return sp.nan


# ---------------------------------------------------------------- per-op rules (local strategy)


class _Rule:
    """An op's SymPy form and partial derivatives on fresh symbols, compiled to floats."""

    __slots__ = ("op", "forward", "partials", "fast")

    def __init__(self, op, n: int, c) -> None:
        a = [sp.Symbol(f"a{i}", real=True) for i in range(n)]
        cs: list = []
        if isinstance(c, tuple):
            c_arg = tuple(None if x is None else sp.Symbol(f"c{i}", real=True) for i, x in enumerate(c))
            cs = [s for s in c_arg if s is not None]
        elif c is not None:
            c_arg = sp.Symbol("c", real=True)
            cs = [c_arg]
        self.op = op
        form = op.sympy(sp, *a, c_arg) if c is not None else op.sympy(sp, *a)
        self.partials = [sp.diff(form, s) for s in a]
        self.forward = form
        # partial derivatives then the forward value, as one compiled function of floats
        self.fast = sp.lambdify(a + cs, self.partials + [form], modules="math")


_rules: dict = {}


def _c_shape(c):
    if isinstance(c, tuple):
        return tuple(x is None for x in c)
    return c is not None


def _rule(op, n: int, c) -> _Rule:
    key = op if c is None else (op, _c_shape(c))
    r = _rules.get(key)
    if r is None:
        r = _rules[key] = _Rule(op, n, c)
    return r


class _FnRule:
    """A custom Function's declared form on fresh symbols a0, a1... (one per tensor input),
    its partial derivatives ``partials[output][input]``, and both compiled to floats."""

    __slots__ = ("symbols", "forms", "partials", "fast")

    def __init__(self, v: Value) -> None:
        a = [sp.Symbol(f"a{i}", real=True) for i in range(len(v._in))]
        self.symbols = a
        self.forms = _form(v, a)
        self.partials = [[sp.diff(f, s) for s in a] for f in self.forms]
        flat = [p for row in self.partials for p in row]
        try:
            self.fast = sp.lambdify(a, flat + list(self.forms), modules="math")
        except Exception:  # a form lambdify cannot print: SymPy evaluates it instead
            self.fast = None


_fn_rules: dict = {}
_FN_RULES_MAX = 256  # rules kept for distinct (Function, constant arguments)


def _fn_rule(v: Value) -> _FnRule:
    """The rule of custom Function node ``v``, cached by its class, its number of tensor
    inputs and its other arguments."""
    plain, kwargs = v._c._sympy_args
    key = (_declared(v), len(v._in), tuple((type(x), x) for x in plain),
           tuple(sorted((k, type(x), x) for k, x in kwargs.items())))
    try:
        rule = _fn_rules.get(key)
    except TypeError:  # an unhashable argument: build it afresh
        return _FnRule(v)
    if rule is None:
        rule = _FnRule(v)
        if len(_fn_rules) < _FN_RULES_MAX:
            _fn_rules[key] = rule
    return rule


def _operand_floats(c) -> list:
    if c is None:
        return []
    if isinstance(c, tuple):
        return [float(x) for x in c if x is not None]
    return [float(c)]


def _exact_partial(op, vals: list, c, i: int):
    """Partial ``i`` of ``op`` at ``vals``, with the other arguments fixed first (so ``a**2``
    differentiates to ``2*a``, whose value at 0 is 0, not ``2*a**2/a``)."""
    s = sp.Symbol("a", real=True)
    args = [s if j == i else _exact(x) for j, x in enumerate(vals)]
    if c is not None:
        args.append(_exact_operand(c))
    try:
        d = sp.diff(op.sympy(sp, *args), s)
    except (TypeError, ValueError):
        return "unknown", None
    return _evaluate(_at(d, {s: vals[i]}))


def _exact_forward(op, vals: list, c):
    args = [_exact(x) for x in vals]
    if c is not None:
        args.append(_exact_operand(c))
    try:
        return _evaluate(op.sympy(sp, *args))
    except (TypeError, ValueError):
        return "unknown", None


def _ulp(x: float, dt: str) -> float:
    if not math.isfinite(x):
        return 0.0
    return max(math.ulp(x) * _ULP_SHIFT[dt], _TINY[dt] * _EPS[dt])


class _Probe:
    """A stand-in node for running an op's backward at a nudged saved output."""

    __slots__ = ("_val", "_in", "_a", "_b", "_c")

    def __init__(self, v: Value, y: float) -> None:
        self._val = y
        self._in = v._in
        # the kernels read a node's inputs from its two input slots where Values have them
        self._a = getattr(v, "_a", None)
        self._b = getattr(v, "_b", None)
        self._c = v._c


def _within_rounding(rule: _Rule, v: Value, vals: list, cvals, i: int, e: float, dt: str) -> bool:
    """Is the engine's partial ``e`` what the exact rule gives with the node's inputs a few
    ulps away, give or take how much the engine's own formula moves when the saved output
    does? (The engine computes from rounded values: sigmoid's ``(1 - y) * y`` with y rounded
    to 1 is 0, where the exact derivative is 2e-9.)"""
    lo = hi = None
    n = len(vals)
    for idx in range(3**n):
        moved = list(vals)
        k = idx
        for j in range(n):
            moved[j] = vals[j] + (k % 3 - 1) * _PROBE_ULPS * _ulp(vals[j], dt)
            k //= 3
        try:
            s = rule.fast(*moved, *cvals)[i]
        except (ArithmeticError, ValueError, TypeError):
            continue
        if isinstance(s, complex) or s != s:
            continue
        lo = s if lo is None or s < lo else lo
        hi = s if hi is None or s > hi else hi
    if lo is None:
        return False
    sens = 0.0
    try:
        here = rule.op.backward(FloatKernel, 1.0, _Probe(v, v._val))[i]
        for step in (-_PROBE_ULPS, _PROBE_ULPS):
            there = rule.op.backward(FloatKernel, 1.0, _Probe(v, v._val + step * _ulp(v._val, dt)))[i]
            if there is not None and here is not None and math.isfinite(there - here):
                sens = max(sens, abs(there - here))
    except (ArithmeticError, ValueError, TypeError):
        pass
    slack = _NODE_RTOL * _EPS[dt] * max(abs(lo), abs(hi)) + _TINY[dt] + sens
    return lo - slack <= e <= hi + slack


def _same(a: float, b: float, dt: str, tol: float) -> bool:
    """Equal within ``tol``; infinities equal when the dtype holds them as the same inf."""
    if a != a or b != b:
        return a != a and b != b
    if math.isinf(a) or math.isinf(b):
        rb = dtypes.round_f32(b) if dt == "float32" else b
        return a == rb
    return abs(a - b) <= tol


# ---------------------------------------------------------------- the local pass


class _Tags:
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


_NO_TAGS: frozenset = frozenset()


def _union(a: frozenset, b: frozenset) -> frozenset:
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


def _hook_tag(v: Value, tags: _Tags, graph: _Graph):
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


_MAX_FAILURES = 20  # rule failures listed in a report; more are counted


class _FnNode:
    """The local pass's view of one custom Function node with a declared form: its partials
    at its input values (``parts[output][input]``), forward values, and tags per output."""

    __slots__ = ("node", "ins", "vals", "name", "where", "rule", "tag", "parts", "values", "tags")

    def __init__(self, node: Value, ins, vals: list, name: str, where: str) -> None:
        self.node = node
        self.ins = ins
        self.vals = vals
        self.name = name
        self.where = where
        self.rule = None
        self.tag = -1  # the tag id marking the inputs below this node
        self.parts: list = []
        self.values = None
        self.tags: list = []

    def departure(self, j: int, got: float | None, want: float, g_in: list) -> str:
        """The note for input ``j``: what the custom backward returned, what calculus gives."""
        pos = self.node._c._tensor_positions[j]
        rows = self.rule.partials
        if len(rows) == 1:
            calc = (f"d/d(argument {pos}) = {sp.sstr(rows[0][j])} = {self.parts[0][j]!r} at {self.vals}, times "
                    f"the incoming gradient {g_in[0]!r}")
        else:
            ds = ", ".join(sp.sstr(r[j]) for r in rows)
            vs = ", ".join(repr(r[j]) for r in self.parts)
            gs = ", ".join(repr(g) for g in g_in)
            calc = (f"d/d(argument {pos}) of its outputs = ({ds}) = ({vs}) at {self.vals}, dotted with the "
                    f"incoming gradients ({gs})")
        return (f"custom backward of {self.name}, at {self.where}, returned {got!r} for argument {pos}; "
                f"the calculus of its declared form gives {want!r} ({calc})")


class _Local:
    """The local pass: verify every node's rule, then redo the chain rule in float64.

    For each target: ``G`` the reference gradient, ``A`` the sum of the absolute values of its
    contributions (the scale of the result), ``B`` a bound on the rounding autograd may do
    along the way, ``T`` the notes met on the paths above it, ``D`` its depth.
    """

    def __init__(self, graph: _Graph, roots, weights, targets) -> None:
        self.failures: list = []
        self.failure_count = 0
        self.tags = _Tags()
        self.graph = graph
        self.dtype = "float64"
        self.G, self.A, self.B, self.T, self.D = {}, {}, {}, {}, {}
        self.functions: dict = {}  # custom Function node with a declared form -> _FnNode
        tags = self.tags
        state: dict = {}  # node -> [gradient, scale, rounding bound, tags, depth]
        for r, w in zip(roots, weights):
            st = state.get(r)
            if st is None:
                state[r] = [w, abs(w), 0.0, _NO_TAGS, 0]
            else:
                st[0] += w
                st[1] += abs(w)
            if r._t.dtype is dtypes.float32:
                self.dtype = "float32"
        wanted = set(targets)
        ins_of = graph.ins
        f32 = dtypes.float32
        eps32, eps64 = _EPS["float32"], _EPS["float64"]
        k_edge = _EDGE_ROUNDINGS
        for v in reversed(graph.order):
            st = state.pop(v, None)
            if st is None:
                continue
            g, a_v, b_v, t_v, d_v = st
            if v._t.dtype is f32:
                self.dtype = "float32"
                eps = eps32
            else:
                eps = eps64
            if v._ext is not None:
                h = _hook_tag(v, tags, graph)
                if h is not None:
                    t_v = _union(t_v, frozenset((h,)))
            if v in wanted:
                self._keep(v, g, a_v, b_v, t_v, d_v)
            ins = ins_of[v]
            op = _live(v._op)
            name = _opaque(op)
            node = None
            if name is not None:
                node = v._in[0] if name == "Pick" else v
                if _declared(node) is None:
                    node = None
            if node is not None:
                # a declared form: an output of a multi-output Function goes straight to the
                # Function's inputs, through its row of partials (the hidden node stays idle)
                ins, parts, t_v = self._function(v, node, eps, t_v)
                errs = [0.0] * len(ins)
            elif name is not None:
                if name != "Pick":
                    t_v = _union(t_v, frozenset((tags.id("custom", f"custom autograd.Function {name} "
                                                          "(no symbolic form)"),)))
                parts = [math.nan] * len(ins)
                errs = [0.0] * len(ins)
            else:
                parts, errs, t_v = self._node(v, op, ins, eps, t_v)
            ag = abs(g)
            d_u = d_v + 1
            for u, s, err in zip(ins, parts, errs):
                if not u._rg:
                    continue
                contrib = g * s
                abs_s = abs(s)
                bound = b_v * abs_s + ag * (err + k_edge * eps * abs_s)
                ueps = eps32 if u._t.dtype is f32 else eps64
                su = state.get(u)
                if su is None:
                    state[u] = [contrib, a_v * abs_s, bound + ueps * abs(contrib), t_v, d_u]
                else:
                    total = su[0] + contrib
                    su[0] = total
                    su[1] += a_v * abs_s
                    su[2] += bound + ueps * abs(total)
                    if su[3] is not t_v:
                        su[3] = _union(su[3], t_v)
                    if d_u > su[4]:
                        su[4] = d_u
        for u, (g, a, b, t, d) in state.items():  # leaves (and targets) left in the buffers
            if u in wanted and u not in self.G:
                if u._ext is not None:
                    h = _hook_tag(u, tags, graph)
                    if h is not None:
                        t = _union(t, frozenset((h,)))
                self._keep(u, g, a, b, t, d)

    def _keep(self, v, g, a, b, t, d) -> None:
        self.G[v] = g
        self.A[v] = a
        self.B[v] = b
        self.T[v] = t
        self.D[v] = d

    def _fail(self, text: str) -> None:
        self.failure_count += 1
        if len(self.failures) < _MAX_FAILURES:
            self.failures.append(text)

    def _node(self, v: Value, op, ins, eps: float, t_v: frozenset):
        """Verify one node: its forward value and local partials against its SymPy form.

        Returns the partials for the chain rule (SymPy's, or PyTorch's convention), each
        one's distance from autograd's, and the node's tags."""
        n = len(ins)
        c = v._c
        vals = [u._val for u in ins]
        cvals = () if c is None else _operand_floats(c)
        engine_parts = op.backward(v._t.dtype.kernel, 1.0, v)
        rule = _rules.get(op if c is None else (op, _c_shape(c)))
        if rule is None:
            rule = _rule(op, n, c)
        try:
            fast = rule.fast(*vals, *cvals)
        except (ArithmeticError, ValueError, TypeError):
            fast = None
        tiny = _TINY["float32"] if eps == _EPS["float32"] else _TINY["float64"]
        y = v._val
        if fast is not None:
            f = fast[n]
            try:
                fwd_ok = -(_NODE_RTOL * eps * abs(f) + tiny) <= y - f <= _NODE_RTOL * eps * abs(f) + tiny
            except TypeError:  # complex
                fwd_ok = False
        else:
            fwd_ok = False
        if not fwd_ok:
            self._check_forward(v, op, rule, vals, cvals, eps, tiny)
        conv = op.convention(*vals, *cvals) if op.convention is not None else None
        parts = []
        errs = []
        for i in range(n):
            e = engine_parts[i]
            if not ins[i]._rg:
                parts.append(0.0)
                errs.append(0.0)
                continue
            if e is None:
                e = 0.0
            if conv is None and fast is not None:
                s = fast[i]
                try:
                    d = e - s
                    if -(_NODE_RTOL * eps * abs(s) + tiny) <= d <= _NODE_RTOL * eps * abs(s) + tiny:
                        parts.append(s)
                        errs.append(abs(d))
                        continue
                except TypeError:  # complex
                    pass
            s, err, t_v = self._slow_partial(v, op, rule, vals, cvals, i, e, eps, tiny, conv, fast, t_v)
            parts.append(s)
            errs.append(err)
        return parts, errs, t_v

    def _function(self, v: Value, node: Value, eps: float, t_v: frozenset):
        """A custom Function with a declared form: ``v`` is its node, or one output of a
        multi-output one (``node`` the hidden node). Checks ``v``'s forward value; returns the
        Function's inputs, the partials of ``v``'s form by them, and the tags to carry down.
        Its backward is compared after the engine ran it (``deviations``)."""
        info = self.functions.get(node)
        if info is None:
            info = self.functions[node] = self._prepare(node)
        slot = 0 if v is node else v._c
        if v is not node and node._ext is not None:  # hooks on the shared grad_fn node
            h = _hook_tag(node, self.tags, self.graph)
            if h is not None:
                t_v = _union(t_v, frozenset((h,)))
        t_v = _union(t_v, info.tags[slot])
        if info.rule is not None:
            self._check_declared_forward(v, info, slot, eps)
        return info.ins, info.parts[slot], t_v

    def _prepare(self, node: Value) -> _FnNode:
        """The declared form of ``node`` and its partials at the node's input values."""
        tags = self.tags
        ins = self.graph.ins[node]
        vals = [u._val for u in ins]
        fn = _declared(node)
        info = _FnNode(node, ins, vals, fn.__name__, self.graph.describe(node))
        n_out = len(node._c.outputs_types)
        try:
            rule = _fn_rule(node)
        except Exception as exc:  # the user's form is broken: say so, and prove nothing through it
            self._fail(f"{info.where}: its declared SymPy form failed: {exc!r}")
            bad = tags.id("custom", f"custom autograd.Function {info.name} (its declared SymPy form failed)")
            info.parts = [[math.nan] * len(ins) for _ in range(n_out)]
            info.tags = [frozenset((bad,))] * n_out
            return info
        info.rule = rule
        own = info.tag = tags.id("function", info.where)
        fast = None
        if rule.fast is not None:
            try:
                fast = rule.fast(*vals)
            except (ArithmeticError, ValueError, TypeError):
                fast = None
        subs = dict(zip(rule.symbols, vals))
        nan_in = any(x != x for x in vals)
        n_in = len(ins)
        info.parts = []
        info.tags = []
        for i in range(n_out):
            row = []
            slot_tags = {own}
            for j, u in enumerate(ins):
                if not u._rg:
                    row.append(0.0)
                    continue
                p = fast[i * n_in + j] if fast is not None else None
                if isinstance(p, int):  # a constant partial: lambdify gives a Python int
                    p = float(p)
                if not (isinstance(p, float) and math.isfinite(p)):
                    kind, p = _evaluate(_at(rule.partials[i][j], subs))
                    if kind != "real" and not nan_in:
                        slot_tags.add(tags.id("custom", f"custom autograd.Function {info.name}: the derivative "
                                                        f"of its declared form by argument "
                                                        f"{node._c._tensor_positions[j]} is not a real number "
                                                        f"at {vals} (SymPy: {kind})"))
                        p = math.nan
                row.append(math.nan if p is None else p)
            info.parts.append(row)
            info.tags.append(frozenset(slot_tags))
        info.values = [fast[n_out * n_in + i] for i in range(n_out)] if fast is not None else None
        return info

    def _check_declared_forward(self, v: Value, info: _FnNode, slot: int, eps: float) -> None:
        """Does the Function's forward give what its declared form does?"""
        y = v._val
        if y is None or any(x != x for x in info.vals):
            return
        tiny = _TINY["float32"] if eps == _EPS["float32"] else _TINY["float64"]
        f = info.values[slot] if info.values is not None else None
        if isinstance(f, int):
            f = float(f)
        if isinstance(f, float) and -(_NODE_RTOL * eps * abs(f) + tiny) <= y - f <= _NODE_RTOL * eps * abs(f) + tiny:
            return
        form = info.rule.forms[slot]
        kind, r = _evaluate(_at(form, dict(zip(info.rule.symbols, info.vals))))
        dt = v._t.dtype.name
        ok = (kind == "real" and _same(y, r, dt, _NODE_RTOL * eps * abs(r) + tiny)) or \
             (kind in ("nan", "complex") and y != y) or (kind == "inf" and math.isinf(y)) or kind == "unknown"
        if not ok:
            out = "" if len(info.rule.forms) == 1 else f" (output {slot})"
            self._fail(f"{info.where}{out}: forward value {y!r}, but its declared SymPy form "
                       f"{sp.sstr(form)} gives {r!r} at {info.vals}")

    def deviations(self) -> dict:
        """For each custom Function node with a declared form whose backward, as the engine
        ran it, differs from its form's partials times the gradients it received: its tag id
        -> the notes saying so."""
        found = {}
        for info in self.functions.values():
            seen = getattr(info.node._c, "_backward_seen", None)
            if info.rule is None or seen is None:
                continue
            g_in, g_out = seen
            g_in = [0.0 if g is None else g for g in g_in]
            notes = []
            for j, u in enumerate(info.ins):
                if not u._rg or j >= len(g_out):
                    continue
                col = [row[j] for row in info.parts]
                if any(p != p for p in col):
                    continue  # no derivative to compare with: reported unverifiable
                terms = [g * p for g, p in zip(g_in, col)]
                want = sum(terms)
                got = g_out[j]
                dt = u._t.dtype.name
                tol = _NODE_RTOL * _EPS[dt] * sum(abs(t) for t in terms if t == t) + _TINY[dt]
                if not _same(0.0 if got is None else got, want, dt, tol):
                    notes.append(info.departure(j, got, want, g_in))
            if notes:
                found[info.tag] = notes
        return found

    def _check_forward(self, v, op, rule, vals, cvals, eps, tiny) -> None:
        y = v._val
        if any(x != x for x in vals) or any(x != x for x in cvals):
            return
        kind, r = _exact_forward(op, vals, v._c)
        dt = v._t.dtype.name
        scale = abs(r) if kind == "real" else 0.0
        if kind == "real" and len(vals) > 2:
            # an n-ary op (sum, mean, addmm, dot: sums of products) rounds relative to its terms,
            # not to its result: with cancellation, float32's error is eps times sum |term|
            k2, m = _exact_forward(op, [abs(x) for x in vals], v._c)
            if k2 == "real":
                scale = max(scale, abs(m))
        ok = (kind == "real" and _same(y, r, dt, _NODE_RTOL * eps * scale + tiny)) or \
             (kind in ("nan", "complex") and y != y) or (kind == "inf" and math.isinf(y)) or kind == "unknown"
        if not ok:
            self._fail(f"{self.graph.describe(v)}: forward value {y!r}, but its SymPy form "
                       f"{sp.sstr(rule.forward)} gives {r!r} at {vals + list(cvals)}")

    def _slow_partial(self, v, op, rule, vals, cvals, i, e, eps, tiny, conv, fast, t_v):
        """Partial ``i`` where the quick float comparison did not settle it."""
        tags = self.tags
        dt = v._t.dtype.name
        at = vals + list(cvals)
        title = _title(op)
        if conv is not None and conv[1][i] is not None:
            ref = conv[1][i]
            t_v = _union(t_v, frozenset((tags.id("convention", conv[0]),)))
            if not _same(e, ref, dt, tiny):
                self._fail(f"{self.graph.describe(v)}: d/d(input {i}) is {e!r}, but PyTorch's convention "
                           f"there is {ref!r}")
            return ref, 0.0, t_v
        if any(x != x for x in at):
            # nan in, nan out: calculus has nothing to say; take the engine's partial
            return e, 0.0, t_v
        s = fast[i] if fast is not None else None
        if s is not None and not isinstance(s, complex) and math.isfinite(s) and math.isfinite(e) and \
                _within_rounding(rule, v, vals, cvals, i, e, dt):
            return s, abs(e - s), t_v
        kind, r = _exact_partial(op, vals, v._c, i)
        if kind == "real":
            if math.isinf(e) and math.isfinite(r) and _same(e, r, dt, 0.0):
                note = (f"{title}: the derivative {r:.6g} at {at} is beyond the range of {dt}; "
                        f"PyTorch returns {e!r}")
                return e, 0.0, _union(t_v, frozenset((tags.id("convention", note),)))
            if _same(e, r, dt, _NODE_RTOL * eps * abs(r) + tiny) or \
                    (math.isfinite(e) and math.isfinite(r) and _within_rounding(rule, v, vals, cvals, i, e, dt)):
                return r, (abs(e - r) if math.isfinite(e - r) else 0.0), t_v
            if v._val != v._val and e != e:
                # the op itself is undefined here (0/0, inf - inf...): so is its derivative,
                # whatever SymPy's substitution makes of the formula (-a0/a1**2 at (0, 0) gives 0)
                note = f"{title}: the op is undefined at {at} (its value is nan); PyTorch returns nan"
                return e, 0.0, _union(t_v, frozenset((tags.id("convention", note),)))
            self._fail(f"{self.graph.describe(v)}: d/d(input {i}) is {e!r} in autograd, {r!r} by SymPy "
                       f"({sp.sstr(rule.partials[i])} at {at})")
            return r, 0.0, t_v
        if kind == "inf" and math.isinf(e) and (r != r or r == e):
            note = f"{title}: the derivative is unbounded at {at}; PyTorch returns {e!r}"
        elif kind in ("nan", "unknown"):
            note = f"{title}: calculus gives no derivative at {at} (SymPy: nan); PyTorch returns {e!r}"
        elif kind == "complex" and e != e:
            note = f"{title}: the derivative is not real at {at}; PyTorch returns nan"
        else:
            self._fail(f"{self.graph.describe(v)}: d/d(input {i}) is {e!r} in autograd, but SymPy gives "
                       f"{'an unbounded value' if kind == 'inf' else 'a complex value'} "
                       f"({sp.sstr(rule.partials[i])} at {at})")
            return e, 0.0, t_v
        return e, 0.0, _union(t_v, frozenset((tags.id("convention", note),)))


def _title(op) -> str:
    """'Pow' for PowBackward1: the op as a user wrote it."""
    name = op.name
    i = name.find("Backward")
    return name[:i] if i > 0 else name


# ---------------------------------------------------------------- reports


@dataclass
class InputCheck:
    """The verdict on one input's gradient.

    ``status``: 'ok'; 'convention' (agrees, through a PyTorch convention at a point where
    calculus gives no derivative: see ``notes``); 'hook' (a hook changed it on purpose);
    'custom backward' (a custom autograd.Function's backward departs from the derivative
    of the form it declares: ``notes`` give both values); 'unverifiable' (a custom
    autograd.Function without a declared form is on its path); 'mismatch'.
    """

    name: str
    autograd: float | None
    symbolic: float | None
    expression: str | None = None  # d(output)/d(input), e.g. 'q/x' (whole strategy)
    at_point: str | None = None  # the same with the other inputs at their values, e.g. '3/x'
    status: str = "ok"
    tolerance: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.status in ("ok", "convention")


@dataclass
class SymbolicReport:
    """What ``sympy_check`` found: one ``InputCheck`` per input, and failed op rules."""

    inputs: list
    strategy: str
    nodes: int
    dtype: str
    expression: str | None = None
    failures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    label: str = "sympy_check"

    @property
    def ok(self) -> bool:
        """No gradient and no op rule contradicts SymPy (hooks and custom Functions aside)."""
        return not self.failures and all(c.status != "mismatch" for c in self.inputs)

    @property
    def verified(self) -> bool:
        """Every gradient was proved (nothing altered by a hook, nothing unverifiable)."""
        return self.ok and all(c.agree for c in self.inputs)

    def __getitem__(self, name: str) -> InputCheck:
        for c in self.inputs:
            if c.name == name:
                return c
        raise KeyError(name)

    def __str__(self) -> str:
        head = (f"{self.label}: {'OK' if self.ok else 'MISMATCH'} ({self.strategy} strategy, "
                f"{self.nodes} nodes, {self.dtype})")
        lines = [head]
        if self.expression is not None:
            lines.append(f"  output = {_shorten(self.expression)}")
        rows = [("input", "autograd", "SymPy", "d/d(input)", "at the point", "status")]
        for c in self.inputs:
            rows.append((c.name, _num(c.autograd), _num(c.symbolic), _shorten(c.expression or "-", 40),
                         _shorten(c.at_point or "-", 40), c.status))
        widths = [max(len(r[i]) for r in rows) for i in range(6)]
        for r in rows:
            lines.append("  " + "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
        notes = []
        for c in self.inputs:
            for n in c.notes:
                notes.append(f"{c.name}: {n}")
        for n in self.notes:
            notes.append(n)
        for f in self.failures:
            notes.append(f"rule failure: {f}")
        if notes:
            lines.append("  notes:")
            lines.extend(f"    - {n}" for n in notes)
        return "\n".join(lines)


def _num(x) -> str:
    if x is None:
        return "None"
    return f"{x:.8g}"


def _shorten(s: str, n: int = 200) -> str:
    return s if len(s) <= n else s[:n - 3] + "..."


# ---------------------------------------------------------------- the check


def _whole_ok(graph: _Graph) -> bool:
    """Small enough to differentiate whole: few nodes, a small expression tree, and no kink
    (relu, clamp, minimum, maximum) of an expression that has a kink itself, on which SymPy
    tries to solve inequalities (slow, and SymPy 1.14 may fail)."""
    if len(graph.order) > WHOLE_MAX_NODES:
        return False
    size: dict = {}
    kinked: set = set()
    for v in graph.order:
        total = 1
        below = False
        for u in graph.ins[v]:
            total += size.get(u, 1)
            below = below or u in kinked
        if total > WHOLE_MAX_TREE:
            return False
        size[v] = total
        op = _live(v._op)
        if _opaque(op) is None:
            kink = isinstance(_rule(op, len(graph.ins[v]), v._c).forward, sp.Piecewise)
        else:
            kink = _declared(v) is not None and _declared_kink(v)
        if kink:
            if below:
                return False
            kinked.add(v)
        elif below:
            kinked.add(v)
    return True


def _declared_kink(v: Value) -> bool:
    try:
        return any(f.has(sp.Piecewise) for f in _fn_rule(v).forms)
    except Exception:  # a broken form: the local pass reports it
        return False


class _Plan:
    """Everything the check needs, taken before the engine runs (and frees saved values)."""

    def __init__(self, graph: _Graph, roots, weights, targets, names, strategy: str, rtol, atol) -> None:
        self.targets = targets
        self.graph = graph
        self.local = _Local(self.graph, roots, weights, targets)
        self.names = names
        dt = self.local.dtype
        self.dtype = dt
        self.rtol = 16 * _EPS[dt] if rtol is None else rtol
        self.atol = 16 * _TINY[dt] if atol is None else atol
        self.whole: dict = {}
        self.expression = None
        self.notes: list = []
        if strategy == "auto":
            strategy = "whole" if _whole_ok(self.graph) else "local"
        self.strategy = strategy
        if strategy == "whole":
            try:
                self._whole(roots, weights)
            except Exception as exc:  # SymPy gave up: the local pass still answers
                self.strategy = "local"
                self.whole = {}
                self.expression = None
                self.notes.append(f"SymPy could not differentiate the whole expression ({type(exc).__name__}); "
                                  "checked locally")

    def _whole(self, roots, weights) -> None:
        graph = self.graph
        symbols = {t: n for t, n in zip(self.targets, self.names) if t._op is None}
        syms = _name_symbols(graph.leaves, symbols)
        expr = _expressions(graph, syms)
        out = 0
        for r, w in zip(roots, weights):
            e = syms.get(r) if r._op is None else expr[r]
            if e is None:
                e = _exact(r._val)
            if isinstance(e, tuple):
                e = sp.Function(e[0])(*e[1])
            out = out + (e if w == 1.0 else _exact(w) * e)
        self.expression = sp.sstr(out)
        values = {s: leaf._val for leaf, s in syms.items()}
        for t in self.targets:
            if t._op is not None:
                continue  # a non-leaf input: the local strategy answers for it
            s = syms[t]
            d = sp.diff(out, s)
            others = {o: _shown(values[o]) for o in values if o is not s}
            at_point = d.xreplace(others)
            self.whole[t] = (sp.sstr(d), sp.sstr(at_point), _evaluate(_at(d, values)))

    def report(self, got: list, extra_tol=None, label: str = "sympy_check", notes=()) -> SymbolicReport:
        """Compare autograd's values (float or None per target) with the references."""
        local = self.local
        texts = local.tags.texts
        departures = local.deviations()
        checks = []
        for k, (t, name, a) in enumerate(zip(self.targets, self.names, got)):
            ref = local.G.get(t, 0.0)
            scale = local.A.get(t, 0.0)
            bound = local.B.get(t, 0.0)
            depth = local.D.get(t, 0)
            tag_ids = local.T.get(t, _NO_TAGS)
            kinds = {texts[i][0] for i in tag_ids}
            tnotes = sorted(texts[i][1] for i in tag_ids if texts[i][0] != "function")
            departed = sorted(n for i in tag_ids for n in departures.get(i, ()))
            tol = self.atol + self.rtol * scale + 2 * bound
            if extra_tol is not None:
                tol += extra_tol[k]
            expression = at_point = None
            value = ref
            status = "ok"
            whole = self.whole.get(t)
            a_val = 0.0 if a is None else a
            if whole is not None:
                expression, at_point, (kind, w) = whole
                if kind == "real" and "convention" not in kinds:
                    wtol = tol + self.rtol * (1 + depth) * max(scale, abs(w))
                    if _same(a_val, w, self.dtype, wtol):
                        value, tol = w, wtol
                    elif _same(a_val, ref, self.dtype, tol) and "hook" not in kinds:
                        tnotes.append(f"the exact derivative {w!r} differs from the derivative of the float "
                                      f"computation {ref!r} (rounding of the forward values, e.g. near a kink); "
                                      "every op rule and the chain rule check out")
                    else:
                        value, tol = w, wtol
            if "custom" in kinds:
                status = "unverifiable"
                value = None
            elif not _same(a_val, value, self.dtype, tol):
                status = "custom backward" if departed else "hook" if "hook" in kinds else "mismatch"
            elif "convention" in kinds:
                status = "convention"
            if "hook" in kinds and status in ("ok", "convention"):
                tnotes.append("a hook on its path left this gradient as calculus gives it")
            tnotes.extend(departed)
            checks.append(InputCheck(name, a, value, expression, at_point, status, tol, tnotes))
        if local.failure_count > len(local.failures):
            notes = [*notes, f"{local.failure_count - len(local.failures)} more rule failures not listed"]
        return SymbolicReport(checks, self.strategy, len(self.graph.order), self.dtype, self.expression,
                              list(local.failures), self.notes + list(notes), label)


def _targets_and_names(graph: _Graph, inputs, symbols) -> tuple:
    if inputs is None:
        targets = graph.leaves
        names = None
    elif isinstance(inputs, Mapping):
        targets = list(inputs)
        names = [str(inputs[t]) for t in targets]
    else:
        targets = [inputs] if isinstance(inputs, Value) else list(inputs)
        names = None
    if names is None:
        given = symbols or {}
        named = _name_symbols([t for t in targets if t not in given], None)
        names = [str(given[t]) if t in given else named[t].name for t in targets]
    return targets, names


@contextmanager
def _unobserved() -> Iterator[None]:
    saved = engine.observers[:]
    engine.observers.clear()
    try:
        yield
    finally:
        engine.observers[:] = saved


def sympy_check(output: Value, inputs=None, rtol: float | None = None, atol: float | None = None,
                raise_on_mismatch: bool = False, symbols: Mapping | None = None,
                strategy: str = "auto") -> SymbolicReport:
    """Check autograd's gradients of ``output`` against SymPy's derivative.

    ``inputs``: the Values to differentiate by (default: every leaf requiring grad, in order
    of first use), or a mapping {Value: name}. autograd's values come from
    ``autograd.grad(output, inputs, retain_graph=True)``, so ``.grad`` is untouched (hooks on
    the path do run); if an earlier ``backward()`` freed the graph, the inputs' ``.grad`` are
    compared instead. ``rtol``/``atol`` default to 16 epsilons / 16 smallest normals of the
    coarsest dtype on the graph; the rounding autograd may do along the graph is added.
    ``strategy``: 'auto', 'whole' or 'local' (see the module docstring). Returns a
    ``SymbolicReport``; with ``raise_on_mismatch`` a disagreement raises ``SymbolicMismatch``.
    """
    if strategy not in ("auto", "whole", "local"):
        raise ValueError(f"strategy must be 'auto', 'whole' or 'local', not {strategy!r}")
    if not isinstance(output, Value):
        raise TypeError(f"sympy_check expects a scalargrad Tensor, got {type(output).__name__}")
    if not output._rg:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    graph = _Graph([output])
    targets, names = _targets_and_names(graph, inputs, symbols)
    plan = _Plan(graph, [output], [1.0], targets, names, strategy, rtol, atol)
    notes = []
    from .autograd import grad

    try:
        with _unobserved():
            got = grad(output, targets, retain_graph=True, allow_unused=True) if targets else ()
        values = [None if g is None else g._val for g in got]
    except RuntimeError as exc:
        if "backward through the graph a second time" not in str(exc):
            raise
        values = [None if t._grad is None else t._grad._val for t in targets]
        notes.append("the graph was freed by an earlier backward(): compared with the inputs' .grad")
    report = plan.report(values, notes=notes)
    if raise_on_mismatch and not report.ok:
        raise SymbolicMismatch(str(report))
    return report


# ---------------------------------------------------------------- checking every backward


class BackwardChecks(list):
    """The reports of the backward calls made inside ``check_every_backward``, in order."""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self)

    def __str__(self) -> str:
        if not self:
            return "check_every_backward: no backward call"
        return "\n".join(str(r) for r in self)


def _float(g) -> float:
    return g._val if isinstance(g, Value) else float(g)


class _Observer:
    """Plans a check on entry to each backward call, compares once it has finished."""

    def __init__(self, log: BackwardChecks, rtol, atol, strategy, raise_on_mismatch) -> None:
        self.log = log
        self.rtol = rtol
        self.atol = atol
        self.strategy = strategy
        self.raise_on_mismatch = raise_on_mismatch

    limit = None

    def __call__(self, roots, grads, keep_graph, create_graph, inputs, accumulate):
        if self.limit is not None and len(self.log) >= self.limit:
            return None
        label = f"backward #{len(self.log) + 1}" if accumulate else f"autograd.grad #{len(self.log) + 1}"
        try:
            graph = _Graph(list(roots))
            targets, names = _targets_and_names(graph, None if inputs is None else list(inputs), None)
            plan = _Plan(graph, list(roots), [_float(g) for g in grads], targets, names, self.strategy,
                         self.rtol, self.atol)
        except Exception as exc:  # a checker failure must not break the user's program
            self.log.append(SymbolicReport([], "none", 0, "-", None, [f"the check itself failed: {exc!r}"],
                                           [], label))
            return None
        before = [None if t._grad is None else t._grad._val for t in targets]

        def finish(result) -> None:
            extra = None
            if accumulate:
                values = []
                extra = []
                for t, old in zip(targets, before):
                    new = None if t._grad is None else t._grad._val
                    if new is None:
                        values.append(None)
                        extra.append(0.0)
                    else:
                        values.append(new - (old or 0.0))
                        extra.append(_EPS[t._t.dtype.name] * (abs(new) + abs(old or 0.0)))
            else:
                values = [None if g is None else _float(g) for g in result]
            try:
                report = plan.report(values, extra, label)
            except Exception as exc:  # as above: report, do not break the program
                report = SymbolicReport([], plan.strategy, len(plan.graph.order), plan.dtype, None,
                                        [f"the check itself failed: {exc!r}"], [], label)
            self.log.append(report)
            if self.raise_on_mismatch and not report.ok:
                raise SymbolicMismatch(str(report))

        return finish


@contextmanager
def check_every_backward(rtol: float | None = None, atol: float | None = None, strategy: str = "auto",
                         raise_on_mismatch: bool = False, limit: int | None = None) -> Iterator[BackwardChecks]:
    """Cross-check every backward call (``backward()``, ``autograd.grad``) made inside.

    ``limit`` caps the number of calls checked (the first ones); later calls run unchecked.

    Yields a ``BackwardChecks`` list that receives one ``SymbolicReport`` per call, for the
    gradient w.r.t. every leaf that requires grad (or the call's ``inputs``). The check is
    planned on entry to the call, before any saved value is freed, so ``retain_graph=False``
    is fine; nothing is run twice (hooks fire once), and ``.grad`` is compared by difference.
    """
    log = BackwardChecks()
    obs = _Observer(log, rtol, atol, strategy, raise_on_mismatch)
    obs.limit = limit
    engine.observers.append(obs)
    try:
        yield log
    finally:
        engine.observers.remove(obs)
