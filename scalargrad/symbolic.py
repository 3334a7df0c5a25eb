"""SymPy proofs of the gradients scalargrad computes.

The engine keeps one node per tensor op; the proof is made element by element, on the graph
``symbolic_elements`` expands it into: each node of a tensor with dimensions is seen as one
element per output element (a 0-dim node of 0-dim tensors is its own element, so a scalar
program is checked as cheaply as ever). ``to_sympy(v)`` writes a tensor as SymPy expressions
of its leaves' elements, built from each op's own ``sympy`` form (``_ops``): the symbolic
check tests the very rule the engine runs. ``sympy_check(out)`` compares the gradients
``autograd.grad`` returns, element by element, with the derivative SymPy proves, by one of two
strategies:

* **whole** (small graphs): differentiate the whole expression w.r.t. each input element and
  evaluate it exactly at the leaves' values; the report shows each derivative (``q/x``).
* **local** (any size, linear time): for each op kind, differentiate its SymPy form once
  (cached) and, at every element, compare those partial derivatives, evaluated at the
  element's input values, with the local gradient the op's own ``backward`` formula gives on
  the element's numbers (the float kernel, as a 0-dim node runs it) for a unit incoming
  gradient; then redo the chain rule in float64 from the verified partials, element by element
  in reverse creation order, and compare with autograd. The check also proves each element's
  forward value against its SymPy form. Structural elements (sums, means, dot products, maxima,
  copies, picks) have partials declared beside their forms (``symbolic_elements.ElementOp``),
  proved against the form by SymPy once. Each node of a tensor with dimensions is then run as
  the engine runs it, its bulk ``backward`` on a probe gradient, and the result (a vector-
  Jacobian product) compared with the one the verified element partials give: a wrong bulk
  formula is found at its node.

The local pass always runs: it verifies the op rules, finds PyTorch's conventions at
non-differentiable points (``Op.convention``: the report says where calculus and PyTorch
part), hooks that change gradients on purpose, and custom ``autograd.Function`` nodes, and it
bounds the float rounding of autograd's result, which sets the comparison's tolerance.

A custom Function is proved like an op when its class declares its form with a static
``sympy(sp, *args)`` (see ``Function``); on tensors with dimensions the form is applied
element by element when the class says it holds so (``sympy_elementwise = True``: ``nn``'s
``BackwardHookFunction`` declares identity, so gradients through modules with full backward
hooks are proved). Without a usable form its inputs are reported unverifiable. The chain rule
goes through the derivative of the declared form; the user's backward is never called by the
check (it may print or record: a second call would change the program, and a custom backward
is often not linear in its gradient, e.g. clipping, so a unit-gradient probe would miss what
it does). Instead the engine's own call is compared, after it ran: what the Function's
backward returned against the declared form's partials times the gradient it received. Where
they part the inputs below get the status ``custom backward`` (a custom backward may deviate
on purpose), with both values.

``check_every_backward()`` cross-checks every backward call made inside it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import sympy as sp

from ._autograd import engine
from ._autograd.function import Pick as FunctionPick
from ._autograd.gradients import adapt
from ._base import dtypes, grad_mode
from ._base.dtypes import TensorType
from ._ops.elementwise import Elementwise
from ._ops.float_kernel import FloatKernel
from ._ops.joins import Unbind
from ._ops.table import Op
from ._tensor.tensor import Tensor, leaf
from .symbolic_elements import NO_ELEMENT, Elem, ElementGraph, ElementOp, Opaque, element_index, shape_pick

__all__ = ["to_sympy", "sympy_check", "SymbolicReport", "InputCheck", "SymbolicMismatch",
           "check_every_backward", "BackwardChecks", "WHOLE_MAX_NODES", "WHOLE_MAX_TREE"]

WHOLE_MAX_NODES = 60
"""Graphs with more elements are checked by the local strategy only."""
WHOLE_MAX_TREE = 600
"""... and so are graphs whose expression, written out as a tree (shared nodes repeated), is
bigger than this: differentiating it would blow up."""

_EVALUATED_MAX = 400  # to_sympy lets SymPy simplify graphs up to this size
_INF = math.inf
_EPS = {"float32": 2.0**-23, "float64": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7}
_TINY = {"float32": 2.0**-126, "float64": 2.0**-1022, "float16": 2.0**-14, "bfloat16": 2.0**-126}
_TINY_OF_EPS = {_EPS[k]: _TINY[k] for k in _EPS}
# a float32 ulp is 2**29 double ulps
_ULP_SHIFT = {"float32": 2.0**29, "float64": 1.0, "float16": 2.0**42, "bfloat16": 2.0**45}
_NODE_RTOL = 8  # a local partial may differ from the exact one by this many epsilons, relatively
_PROBE_ULPS = 4  # ... or by what moving the node's inputs or output this many ulps gives
_EDGE_ROUNDINGS = 4  # roundings one backward edge may add (the rule's own ops and the product)
# the probe gradient a bulk backward is run on: powers of two, so that scaling by them is exact
_PROBE = (1.0, -0.5, 2.0, -1.0, 0.5, -2.0, 0.25)


class SymbolicMismatch(AssertionError):
    """autograd's gradient differs from the one SymPy proves (the message is the report)."""


def _dt_name(t) -> str:
    """The dtype name whose epsilon applies to an element ("float64" for non-float dtypes)."""
    name = t.dtype.name
    return name if name in _EPS else "float64"


# ---------------------------------------------------------------- ops as the check sees them

_ROW, _STRUCT, _FUNCTION, _OPAQUE = 0, 1, 2, 3
_op_info: dict = {}


def _info(op) -> tuple:
    """``(live op, kind, how _c reaches the form)`` of an element's op.

    The live op is the declared op whose rules a node runs (a node whose saved values were
    freed has a ``freed`` variant, an n-d node the ``bulk`` one: their rules are the declared
    op's). Kinds: a row of partials from the op's own SymPy form and backward (``_ROW``), a
    structural element op (``_STRUCT``), a custom Function's output (``_FUNCTION``), or an
    op without a form (``_OPAQUE``)."""
    got = _op_info.get(op)
    if got is not None:
        return got
    if isinstance(op, type) and issubclass(op, ElementOp):
        got = (op, _OPAQUE if issubclass(op, Opaque) else _STRUCT, op.c_kind)
    elif getattr(op, "function", None) is not None or op is FunctionPick:
        got = (op, _FUNCTION, None)
    else:
        live = getattr(op, "base", None) or op
        if live.sympy is Op.sympy:
            got = (live, _OPAQUE, None)
        else:
            # the node's number reaches the form: a number operand, or add/sub's alpha
            kind = "number" if issubclass(live, Elementwise) and (live.uses_c or live.takes_alpha) else None
            got = (live, _ROW, kind)
    _op_info[op] = got
    return got


def _opaque_name(op) -> str:
    fn = getattr(op, "function", None)
    if fn is not None:
        return fn.__name__
    return op.name



def _overwritten(v, ins) -> bool:
    """The node (or the tensor of an element), or one of its inputs, was changed in place after
    the node was made, through an alias PyTorch allows to change it (``c.detach().zero_()`` where
    no node saved ``c``'s values): the numbers there now are not the ones its forward computed
    with, so there is no forward value to compare (its gradient is still checked)."""
    seq = v._seq
    for x in (v, *ins):
        t = x.node if x.__class__ is Elem else x
        if t._op is None:
            if t is not v and t._seq > seq:  # a leaf's _seq is its last change
                return True
            continue
        e = t._ext
        if e is not None and e.modified > seq:
            return True
    return False


def _fn_of(e) -> tuple:
    """(the Function node, output slot) of a custom Function's output element."""
    if e.__class__ is Elem:
        return e.fn, e.slot
    if e._op is FunctionPick:
        return e._a, e._c
    return e, 0


def _declared(graph: ElementGraph, fnode):
    """The custom Function class of ``fnode`` if its declared form is used, else None."""
    if graph.fn_mode.get(fnode) != "declared":
        return None
    return fnode._op.function


class _Outputs:
    """The SymPy expressions of a multi-output custom Function's outputs."""

    __slots__ = ("exprs",)

    def __init__(self, exprs: tuple) -> None:
        self.exprs = exprs


def _form(fnode, args) -> tuple:
    """The declared form of custom Function node ``fnode``: one SymPy expression per tensor
    output, ``args`` standing for its tensor inputs (or their elements), its other arguments
    as they were given."""
    fn = fnode._op.function
    ctx = fnode._c
    plain, kwargs = ctx._sympy_args
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


def _seq(v) -> int:
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


def _element_name(base: str, t, e) -> str:
    """``x`` for a 0-dim tensor, ``x[0, 1]`` for an element of one with dimensions."""
    if not t._t.ndim:
        return base
    idx = ", ".join(str(i) for i in element_index(t._t.shape, e.index if e.__class__ is Elem else 0))
    return f"{base}[{idx}]"


def _base_names(graph: ElementGraph, tensors, symbols) -> dict:
    """A name for each tensor: from ``symbols`` where given, else x0, x1... in order."""
    names: dict = {}
    taken = set()
    for t, s in (symbols or {}).items():
        names[t] = s
        taken.add(s.name if isinstance(s, sp.Symbol) else str(s))
    i = 0
    for t in tensors:
        if t in names:
            continue
        while f"x{i}" in taken:
            i += 1
        names[t] = f"x{i}"
        taken.add(f"x{i}")
    return names


def _name_symbols(graph: ElementGraph, leaves, symbols) -> dict:
    """A real SymPy symbol for each leaf element (and each element of a tensor named in
    ``symbols``): a tensor's name, indexed for a tensor with dimensions (``w[0, 1]``)."""
    tensors = []
    seen = set()
    for e in leaves:
        t = graph.node_of(e)
        if t not in seen:
            seen.add(t)
            tensors.append(t)
    names = _base_names(graph, tensors, symbols)
    syms = {}
    for t in list(symbols or {}) + tensors:
        base = names[t]
        for e in graph.elements(t):
            if isinstance(base, sp.Symbol) and not t._t.ndim:
                syms[e] = base
            else:
                name = base.name if isinstance(base, sp.Symbol) else str(base)
                syms[e] = sp.Symbol(_element_name(name, t, e), real=True)
    return syms


def _expressions(graph: ElementGraph, syms: dict) -> dict:
    """SymPy expression of every element, built in creation order (no recursion over the
    graph). SymPy simplifies as it builds, recursively: past ``_EVALUATED_MAX`` elements (or
    when its recursion runs out) the expression is built unevaluated, as written."""
    if len(graph.order) <= _EVALUATED_MAX:
        try:
            return _build(graph, syms)
        except RecursionError:
            pass
    with sp.evaluate(False):
        return _build(graph, syms)


def _build(graph: ElementGraph, syms: dict) -> dict:
    expr: dict = {}
    forms: dict = {}  # Function node -> its declared form at the arguments of one output element
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
        op, kind, c_kind = _info(v._op)
        if kind == _ROW:
            if c_kind is not None and v._c is not None:
                args.append(_exact_operand(v._c))
            try:
                expr[v] = op.sympy(sp, *args)
            except NotImplementedError:
                expr[v] = sp.Function(op.name)(*args)
        elif kind == _STRUCT:
            c = v._c
            if c_kind == "number":
                c = _exact(c)
            expr[v] = op.sympy(sp, args, c)
        elif kind == _FUNCTION:
            fnode, slot = _fn_of(v)
            name = fnode._op.function.__name__
            if _declared(graph, fnode) is not None:
                key = (fnode, tuple(args))
                outs = forms.get(key)
                if outs is None:
                    outs = forms[key] = _form(fnode, args)
                expr[v] = outs[slot]
            elif fnode._val is None:  # an output of a Function with several: name_i(args)
                expr[v] = sp.Function(f"{name}_{slot}")(*args)
            else:
                expr[v] = sp.Function(name)(*args)
        else:
            expr[v] = sp.Function(_opaque_name(op))(*args)
    return expr


def to_sympy(value: Tensor, symbols: Mapping | None = None):
    """The SymPy expression of ``value`` in terms of its leaves (for a tensor with dimensions,
    a SymPy Array of its elements' expressions).

    Leaves that require grad become real symbols, named from ``symbols`` ({Tensor: name or
    Symbol}) where given, otherwise x0, x1... in order of first use, and indexed element by
    element for tensors with dimensions (``x0[0, 1]``); other leaves and constants become the
    exact numbers their floats hold. Each op contributes its own ``sympy`` form, and so does a
    custom ``autograd.Function`` that declares one; any other custom Function becomes an
    undefined SymPy function (``MyFn(x0)``), whose derivative SymPy cannot evaluate.
    """
    stop = frozenset(s for s in (symbols or {}) if s._op is not None)
    graph = ElementGraph([value], stop)
    syms = _name_symbols(graph, graph.leaves, symbols)
    if value._op is None or not value._rg or value in stop:
        out = [syms.get(e) if value._rg else _exact(e._val) for e in graph.elements(value)]
    else:
        exprs = _expressions(graph, syms)
        out = [syms.get(e) if e in syms else exprs[e] for e in graph.elements(value)]
    if not value._t.ndim:
        return out[0]
    return sp.ImmutableDenseNDimArray(out, tuple(value._t.shape))


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


def _dirac_delta(x, *order):
    return 0.0 if x != 0 else math.inf


_LAMBDIFY_EXTRA = {"DiracDelta": _dirac_delta}


class _Rule:
    """An op's SymPy form and partial derivatives on fresh symbols, compiled to floats."""

    __slots__ = ("op", "forward", "partials", "fast", "arity")

    def __init__(self, op, n: int, c) -> None:
        self.arity = n
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
        # sign's derivative is DiracDelta, which the math module lacks: 0 off the kink (at the
        # kink the partial is PyTorch's convention, settled by the slow path)
        self.fast = sp.lambdify(a + cs, self.partials + [form], modules=[_LAMBDIFY_EXTRA, "math"])


_rules: dict = {}


def _c_shape(c):
    if isinstance(c, tuple):
        return tuple(x is None for x in c)
    return c is not None


def _rule(op, n: int, c) -> _Rule:
    """The rule of ``op`` with ``n`` inputs (most ops have one arity: the key is the op)."""
    key = op if c is None else (op, _c_shape(c))
    r = _rules.get(key)
    if r is None:
        r = _rules[key] = _Rule(op, n, c)
    elif r.arity != n:
        key = (key, n)
        r = _rules.get(key)
        if r is None:
            r = _rules[key] = _Rule(op, n, c)
    return r


class _FnRule:
    """A custom Function's declared form on fresh symbols a0, a1... (one per tensor input),
    its partial derivatives ``partials[output][input]``, and both compiled to floats."""

    __slots__ = ("symbols", "forms", "partials", "fast", "uses")

    def __init__(self, fnode) -> None:
        a = [sp.Symbol(f"a{i}", real=True) for i in range(len(fnode._in))]
        self.symbols = a
        self.forms = _form(fnode, a)
        self.partials = [[sp.diff(f, s) for s in a] for f in self.forms]
        self.uses = [[s in f.free_symbols for s in a] for f in self.forms]
        flat = [p for row in self.partials for p in row]
        try:
            self.fast = sp.lambdify(a, flat + list(self.forms), modules="math")
        except Exception:  # a form lambdify cannot print: SymPy evaluates it instead
            self.fast = None


_fn_rules: dict = {}
_FN_RULES_MAX = 256  # rules kept for distinct (Function, constant arguments)


def _fn_rule(fnode) -> _FnRule:
    """The rule of custom Function node ``fnode``, cached by its class, its number of tensor
    inputs and its other arguments."""
    plain, kwargs = fnode._c._sympy_args
    key = (fnode._op.function, len(fnode._in), tuple((type(x), x) for x in plain),
           tuple(sorted((k, type(x), x) for k, x in kwargs.items())))
    try:
        rule = _fn_rules.get(key)
    except TypeError:  # an unhashable argument: build it afresh
        return _FnRule(fnode)
    if rule is None:
        rule = _FnRule(fnode)
        if len(_fn_rules) < _FN_RULES_MAX:
            _fn_rules[key] = rule
    return rule


_element_proofs: dict = {}


def _element_proof(op) -> str | None:
    """Prove a structural element op's declared partials and value against its SymPy form, on
    its small sample instance (once per op). Returns what failed, or None."""
    if op in _element_proofs:
        return _element_proofs[op]
    vals, c = op.sample()
    a = [sp.Symbol(f"a{i}", real=True) for i in range(len(vals))]
    form = op.sympy(sp, a, _exact(c) if op.c_kind == "number" else c)
    at = {s: _exact(x) for s, x in zip(a, vals)}
    problem = None
    declared = op.partials(vals, c)
    for i, s in enumerate(a):
        want = float(sp.diff(form, s).xreplace(at))
        if not math.isclose(declared[i], want, rel_tol=1e-12, abs_tol=1e-15):
            problem = (f"the {op.name} element's declared partial d/d(input {i}) is {declared[i]!r} at {vals}, but "
                       f"its SymPy form {sp.sstr(form)} gives {want!r}")
            break
    if problem is None:
        want = float(form.xreplace(at))
        got = op.value(vals, c)[0]
        if not math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15):
            problem = f"the {op.name} element's value is {got!r} at {vals}, but its SymPy form gives {want!r}"
    _element_proofs[op] = problem
    return problem


def _operand_floats(c) -> list:
    if c is None:
        return []
    if isinstance(c, tuple):
        return [float(x) for x in c if x is not None]
    return [c if getattr(c, "number", None).__class__ is bool else float(c)]  # pow's False stays False


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

    def __init__(self, v, y: float) -> None:
        self._val = y
        self._in = v._in
        # the float kernels read a node's inputs from its two input slots
        self._a = getattr(v, "_a", None)
        self._b = getattr(v, "_b", None)
        self._c = v._c


def _within_rounding(rule: _Rule, v, vals: list, cvals, i: int, e: float, dt: str) -> bool:
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


def _hook_tag(v, tags: _Tags, graph: ElementGraph):
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


_MAX_FAILURES = 20  # rule failures listed in a report; more are counted
_MAX_DEPARTURES = 5  # departures of one custom backward listed, element by element


class _FnInfo:
    """The local pass's view of one custom Function node: its declared rule, name, place,
    the tag marking the inputs below it, and its partials at each output element's inputs."""

    __slots__ = ("node", "name", "where", "rule", "tag", "bad", "rows")

    def __init__(self, node, name: str, where: str) -> None:
        self.node = node
        self.name = name
        self.where = where
        self.rule = None
        self.tag = -1
        self.bad = None  # the tag of a form that failed
        self.rows: dict = {}  # input elements -> (values, partials per output, forward values, tags per output)


class _Local:
    """The local pass: verify every element's rule, then redo the chain rule in float64.

    For each target element: ``G`` the reference gradient, ``A`` the sum of the absolute values
    of its contributions (the scale of the result), ``B`` a bound on the rounding autograd may
    do along the way, ``T`` the notes met on the paths above it, ``D`` its depth.
    """

    def __init__(self, graph: ElementGraph, roots, weights, targets) -> None:
        self.failures: list = []
        self.failure_count = 0
        self.tags = _Tags()
        self.graph = graph
        self.dtype = "float64"
        self.G, self.A, self.B, self.T, self.D = {}, {}, {}, {}, {}
        self.functions: dict = {}  # custom Function node with a declared form -> _FnInfo
        self._hooks: dict = {}  # tensor -> its hook tag id, or None
        self._proofs_failed: set = set()
        tags = self.tags
        state: dict = {}  # element -> [gradient, scale, rounding bound, tags, depth]
        for r, w in zip(roots, weights):
            st = state.get(r)
            if st is None:
                state[r] = [w, abs(w), 0.0, _NO_TAGS, 0]
            else:
                st[0] += w
                st[1] += abs(w)
            if r._t.dtype is not dtypes.float64:
                self._coarse(r._t.dtype)
        wanted = set(targets)
        ins_of = graph.ins
        f32, f64 = dtypes.float32, dtypes.float64
        eps32, eps64 = _EPS["float32"], _EPS["float64"]
        k_edge = _EDGE_ROUNDINGS
        info = _op_info
        for v in reversed(graph.order):
            st = state.pop(v, None)
            if st is None:
                continue
            g, a_v, b_v, t_v, d_v = st
            vdt = v._t.dtype
            if vdt is f32:
                eps = eps32
                if self.dtype == "float64":
                    self.dtype = "float32"
            elif vdt is f64:
                eps = eps64
            else:
                eps = self._coarse(vdt)
            nd = v.node if v.__class__ is Elem else v
            if nd._ext is not None:
                h = self._hook(nd)
                if h is not None:
                    t_v = _union(t_v, frozenset((h,)))
            if v in wanted:
                self._keep(v, g, a_v, b_v, t_v, d_v)
            ins = ins_of[v]
            op = v._op
            got = info.get(op)
            live, kind, c_kind = got if got is not None else _info(op)
            if kind == _ROW:
                parts, errs, t_v = self._node(v, live, c_kind, ins, eps, t_v)
            elif kind == _STRUCT:
                parts, errs, t_v = self._struct(v, live, ins, eps, t_v)
            elif kind == _FUNCTION:
                parts, t_v = self._function(v, nd, ins, eps, t_v)
                errs = [0.0] * len(ins)
            else:
                t_v = _union(t_v, frozenset((tags.id("custom", f"{_opaque_name(live)} at {graph.describe(nd)} "
                                                               "(no element-level symbolic form)"),)))
                parts = [math.nan] * len(ins)
                errs = [0.0] * len(ins)
            ag = abs(g)
            d_u = d_v + 1
            for u, s, err in zip(ins, parts, errs):
                if not u._rg:
                    continue
                contrib = g * s
                abs_s = abs(s)
                bound = b_v * abs_s + ag * (err + k_edge * eps * abs_s)
                udt = u._t.dtype
                ueps = eps32 if udt is f32 else eps64 if udt is f64 else _EPS.get(udt.name, eps64)
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
                nd = graph.node_of(u)
                if nd is not None and nd._ext is not None:
                    h = self._hook(nd)
                    if h is not None:
                        t = _union(t, frozenset((h,)))
                self._keep(u, g, a, b, t, d)
        self._check_bulk()

    def _coarse(self, dt) -> float:
        """Note a dtype met on the graph (the report's tolerance is the coarsest's); its epsilon."""
        name = dt.name if dt.name in _EPS else "float64"
        if _EPS[name] > _EPS[self.dtype]:
            self.dtype = name
        return _EPS[name]

    def _hook(self, nd):
        try:
            return self._hooks[nd]
        except KeyError:
            h = self._hooks[nd] = _hook_tag(nd, self.tags, self.graph)
            return h

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

    # ------------------------------------------------------------ an op's own rule

    def _node(self, v, op, c_kind, ins, eps: float, t_v: frozenset):
        """Verify one element: its forward value and local partials against its SymPy form.

        The local partials are what the op's own backward formula gives on the element's
        numbers (the float kernel, as the engine runs a 0-dim node). Returns the partials for
        the chain rule (SymPy's, or PyTorch's convention), each one's distance from
        autograd's, and the element's tags."""
        n = len(ins)
        c = v._c if c_kind is not None else None
        vals = [u._val for u in ins]
        cvals = () if c is None else _operand_floats(c)
        engine_parts = op.backward(v._t.kernel, 1.0, v)
        rule = _rules.get(op if c is None else (op, _c_shape(c)))
        if rule is None or rule.arity != n:
            rule = _rule(op, n, c)
        try:
            fast = rule.fast(*vals, *cvals)
        except (ArithmeticError, ValueError, TypeError):
            fast = None
        tiny = _TINY_OF_EPS[eps]
        y = v._val
        if fast is not None:
            f = fast[n]
            try:
                fwd_ok = -(_NODE_RTOL * eps * abs(f) + tiny) <= y - f <= _NODE_RTOL * eps * abs(f) + tiny
            except TypeError:  # complex
                fwd_ok = False
        else:
            fwd_ok = False
        if not fwd_ok and not _overwritten(v, ins):
            self._check_forward(v, op, rule, vals, c, cvals, eps, tiny)
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
            s, err, t_v = self._slow_partial(v, op, rule, vals, c, cvals, i, e, eps, tiny, conv, fast, t_v)
            parts.append(s)
            errs.append(err)
        return parts, errs, t_v

    def _check_forward(self, v, op, rule, vals, c, cvals, eps, tiny) -> None:
        y = v._val
        if any(x != x for x in vals) or any(x != x for x in cvals):
            return
        kind, r = _exact_forward(op, vals, c)
        dt = _dt_name(v._t)
        scale = abs(r) if kind == "real" else 0.0
        if kind == "real" and op.forward_scale is not None:
            try:
                scale = max(scale, abs(op.forward_scale(*vals, c) if c is not None else op.forward_scale(*vals)))
            except (ArithmeticError, ValueError, TypeError):
                pass
        if kind == "real" and len(vals) > 2:
            # an n-ary op (sum, mean, addmm, dot: sums of products) rounds relative to its terms,
            # not to its result: with cancellation, float32's error is eps times sum |term|
            k2, m = _exact_forward(op, [abs(x) for x in vals], c)
            if k2 == "real":
                scale = max(scale, abs(m))
        magnitude = getattr(op, "magnitude", None)
        if kind == "real" and magnitude is not None:
            # an op with intermediate roundings declares the size of the terms they touch
            scale = max(scale, magnitude(vals, c))
        ok = (kind == "real" and _same(y, r, dt, _NODE_RTOL * eps * scale + tiny)) or \
             (kind in ("nan", "complex") and y != y) or (kind == "inf" and math.isinf(y)) or kind == "unknown"
        if not ok:
            self._fail(f"{self.graph.describe(v)}: forward value {y!r}, but its SymPy form "
                       f"{sp.sstr(rule.forward)} gives {r!r} at {vals + list(cvals)}")

    def _slow_partial(self, v, op, rule, vals, c, cvals, i, e, eps, tiny, conv, fast, t_v):
        """Partial ``i`` where the quick float comparison did not settle it."""
        tags = self.tags
        dt = _dt_name(v._t)
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
        kind, r = _exact_partial(op, vals, c, i)
        if kind == "real":
            scale = abs(r)
            if op.backward_scale is not None:  # a formula whose terms cancel: errors relative to them
                try:
                    scale = max(scale, abs(op.backward_scale(i, *vals, c) if c is not None else
                                           op.backward_scale(i, *vals)))
                except (ArithmeticError, ValueError, TypeError):
                    pass
            if math.isinf(e) and math.isfinite(r) and _same(e, r, dt, 0.0):
                note = (f"{title}: the derivative {r:.6g} at {at} is beyond the range of {dt}; "
                        f"PyTorch returns {e!r}")
                return e, 0.0, _union(t_v, frozenset((tags.id("convention", note),)))
            if _same(e, r, dt, _NODE_RTOL * eps * scale + tiny) or \
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

    # ------------------------------------------------------------ structural elements

    def _struct(self, v, op, ins, eps: float, t_v: frozenset):
        """A structural element (a sum, a dot product, a copy...): its declared partials,
        proved against its SymPy form once per op, and its forward value."""
        if op not in self._proofs_failed:
            problem = _element_proof(op)
            if problem is not None:
                self._proofs_failed.add(op)
                self._fail(f"{self.graph.describe(v)}: {problem}")
        vals = [u._val for u in ins]
        c = v._c
        parts = op.partials(vals, c)
        conv = op.convention(vals, c)
        if conv is not None:
            t_v = _union(t_v, frozenset((self.tags.id("convention", conv[0]),)))
        if op.c_kind != "number" and not any(x != x for x in vals) and not _overwritten(v, ins):
            y = v._val
            value, scale = op.value(vals, c)
            dt = _dt_name(v._t)
            tol = (_NODE_RTOL + len(vals)) * eps * scale + _TINY[dt]
            if not (_same(y, value, dt, tol) or (math.isinf(value) and math.isinf(y))):
                self._fail(f"{self.graph.describe(v)}: forward value {y!r}, but its SymPy form "
                           f"{sp.sstr(op.sympy(sp, [sp.Symbol(f'a{i}') for i in range(min(len(vals), 4))], c))}"
                           f"{'...' if len(vals) > 4 else ''} gives {value!r} at its inputs")
        return parts, [0.0] * len(parts), t_v

    # ------------------------------------------------------------ custom Functions

    def _function(self, v, nd, ins, eps: float, t_v: frozenset):
        """An output element of a custom Function (its node's, or a Pick's of a multi-output
        one). With a declared form: checks the element's value and returns the partials of its
        output's form by the Function's input elements (its backward is compared after the
        engine ran it, ``deviations``). Without one: unverifiable."""
        fnode, slot = _fn_of(v)
        if fnode is not nd and fnode._ext is not None:  # hooks on the shared grad_fn node
            h = self._hook(fnode)
            if h is not None:
                t_v = _union(t_v, frozenset((h,)))
        mode = self.graph.fn_mode.get(fnode)
        if mode != "declared":
            name = fnode._op.function.__name__
            why = "(no symbolic form)" if mode == "opaque" else \
                "(on tensors with dimensions, and its form is not declared elementwise: sympy_elementwise)"
            t_v = _union(t_v, frozenset((self.tags.id("custom", f"custom autograd.Function {name} {why}"),)))
            return [math.nan] * len(ins), t_v
        info = self.functions.get(fnode)
        if info is None:
            info = self.functions[fnode] = self._prepare(fnode)
        if info.rule is None:
            return [math.nan] * len(ins), _union(t_v, frozenset((info.bad,)))
        vals, parts, values, slot_tags = self._row(info, ins)
        t_v = _union(t_v, slot_tags[slot])
        self._check_declared_forward(v, info, slot, vals, values, eps)
        return parts[slot], t_v

    def _prepare(self, fnode) -> _FnInfo:
        info = _FnInfo(fnode, fnode._op.function.__name__, self.graph.describe(fnode))
        try:
            info.rule = _fn_rule(fnode)
        except Exception as exc:  # the user's form is broken: say so, and prove nothing through it
            self._fail(f"{info.where}: its declared SymPy form failed: {exc!r}")
            info.bad = self.tags.id("custom", f"custom autograd.Function {info.name} (its declared SymPy form "
                                              "failed)")
            return info
        info.tag = self.tags.id("function", info.where)
        return info

    def _row(self, info: _FnInfo, ins) -> tuple:
        """(values, partials[output][input], forward values or None, tags per output) of the
        Function's declared form at the input elements ``ins``."""
        key = tuple(ins)
        got = info.rows.get(key)
        if got is not None:
            return got
        rule = info.rule
        tags = self.tags
        vals = [u._val for u in ins]
        fast = None
        if rule.fast is not None:
            try:
                fast = rule.fast(*vals)
            except (ArithmeticError, ValueError, TypeError):
                fast = None
        subs = dict(zip(rule.symbols, vals))
        nan_in = any(x != x for x in vals)
        n_in = len(ins)
        n_out = len(rule.forms)
        parts = []
        slot_tags = []
        pos = info.node._c._tensor_positions
        for i in range(n_out):
            row = []
            these = {info.tag}
            for j, u in enumerate(ins):
                if u is NO_ELEMENT:
                    if rule.uses[i][j]:
                        these.add(tags.id("custom", f"custom autograd.Function {info.name}: its output {i} uses "
                                                    f"argument {pos[j]}, whose shape does not broadcast to the "
                                                    "output's"))
                        row.append(math.nan)
                    else:
                        row.append(0.0)
                    continue
                if not u._rg:
                    row.append(0.0)
                    continue
                p = fast[i * n_in + j] if fast is not None else None
                if isinstance(p, int):  # a constant partial: lambdify gives a Python int
                    p = float(p)
                if not (isinstance(p, float) and math.isfinite(p)):
                    kind, p = _evaluate(_at(rule.partials[i][j], subs))
                    if kind != "real" and not nan_in:
                        these.add(tags.id("custom", f"custom autograd.Function {info.name}: the derivative of its "
                                                    f"declared form by argument {pos[j]} is not a real number at "
                                                    f"{vals} (SymPy: {kind})"))
                        p = math.nan
                row.append(math.nan if p is None else p)
            parts.append(row)
            slot_tags.append(frozenset(these))
        values = [fast[n_out * n_in + i] for i in range(n_out)] if fast is not None else None
        got = info.rows[key] = (vals, parts, values, slot_tags)
        return got

    def _check_declared_forward(self, v, info: _FnInfo, slot: int, vals, values, eps: float) -> None:
        """Does the Function's forward give what its declared form does?"""
        y = v._val
        if y is None or any(x != x for x in vals):
            return
        tiny = _TINY_OF_EPS[eps]
        f = values[slot] if values is not None else None
        if isinstance(f, int):
            f = float(f)
        if isinstance(f, float) and -(_NODE_RTOL * eps * abs(f) + tiny) <= y - f <= _NODE_RTOL * eps * abs(f) + tiny:
            return
        form = info.rule.forms[slot]
        kind, r = _evaluate(_at(form, dict(zip(info.rule.symbols, vals))))
        dt = _dt_name(v._t)
        ok = (kind == "real" and _same(y, r, dt, _NODE_RTOL * eps * abs(r) + tiny)) or \
             (kind in ("nan", "complex") and y != y) or (kind == "inf" and math.isinf(y)) or kind == "unknown"
        if not ok:
            out = "" if len(info.rule.forms) == 1 else f" (output {slot})"
            where = info.where if v.__class__ is not Elem else self.graph.describe(v)
            self._fail(f"{where}{out}: forward value {y!r}, but its declared SymPy form "
                       f"{sp.sstr(form)} gives {r!r} at {vals}")

    def deviations(self) -> dict:
        """For each custom Function node with a declared form whose backward, as the engine
        ran it, differs from its form's partials times the gradients it received: its tag id
        -> the notes saying so."""
        found = {}
        graph = self.graph
        for fnode, info in self.functions.items():
            seen = getattr(fnode._c, "_backward_seen", None)
            if info.rule is None or seen is None:
                continue
            g_in, g_out = seen
            g_in = [0.0 if g is None else g for g in g_in]
            want: dict = {}  # (argument, element) -> [sum, scale, values, partials]
            zero_d = all(not isinstance(g, list) for g in g_in) and all(not isinstance(g, list) for g in g_out)
            for e, slot, pos_in in graph.functions.get(fnode, ()):
                if pos_in is None:
                    continue
                ins = graph.ins[e]
                vals, parts, _, _ = self._row(info, ins)
                g = g_in[slot]
                gj = g[e.index] if isinstance(g, list) else g
                for i, q in enumerate(pos_in):
                    if q is None or not ins[i]._rg:
                        continue
                    p = parts[slot][i]
                    w = want.get((i, q))
                    if w is None:
                        w = want[(i, q)] = [0.0, 0.0, vals, False]
                    if p != p:
                        w[3] = True  # no derivative to compare with: reported unverifiable
                        continue
                    w[0] += gj * p
                    w[1] += abs(gj * p)
            notes = []
            more = 0
            for (i, q), (total, scale, vals, unknown) in sorted(want.items()):
                if unknown or i >= len(g_out):
                    continue
                got = g_out[i]
                if isinstance(got, list):
                    got = got[q]
                u = fnode._in[i]
                dt = _dt_name(u._t)
                tol = _NODE_RTOL * _EPS[dt] * scale + _TINY[dt]
                if _same(0.0 if got is None else got, total, dt, tol):
                    continue
                if len(notes) >= _MAX_DEPARTURES:
                    more += 1
                    continue
                if zero_d:
                    notes.append(self._departure(info, i, got, total, vals, g_in))
                else:
                    idx = ", ".join(str(k) for k in element_index(u._t.shape, q))
                    notes.append(f"custom backward of {info.name}, at {info.where}, returned {got!r} for argument "
                                 f"{fnode._c._tensor_positions[i]}, element [{idx}]; the calculus of its declared "
                                 f"form gives {total!r}")
            if more:
                notes.append(f"custom backward of {info.name}: {more} more elements depart likewise")
            if notes:
                found[info.tag] = notes
        return found

    def _departure(self, info: _FnInfo, j: int, got, want: float, vals, g_in: list) -> str:
        """The note for argument ``j`` of a Function of 0-dim tensors: what its custom
        backward returned, what calculus gives."""
        pos = info.node._c._tensor_positions[j]
        rows = info.rule.partials
        parts = self._row_at(info, vals)
        if len(rows) == 1:
            calc = (f"d/d(argument {pos}) = {sp.sstr(rows[0][j])} = {parts[0][j]!r} at {vals}, times "
                    f"the incoming gradient {g_in[0]!r}")
        else:
            ds = ", ".join(sp.sstr(r[j]) for r in rows)
            vs = ", ".join(repr(r[j]) for r in parts)
            gs = ", ".join(repr(g) for g in g_in)
            calc = (f"d/d(argument {pos}) of its outputs = ({ds}) = ({vs}) at {vals}, dotted with the "
                    f"incoming gradients ({gs})")
        return (f"custom backward of {info.name}, at {info.where}, returned {got!r} for argument {pos}; "
                f"the calculus of its declared form gives {want!r} ({calc})")

    def _row_at(self, info: _FnInfo, vals) -> list:
        for got_vals, parts, _, _ in info.rows.values():
            if got_vals == vals:
                return parts
        return [[math.nan] * len(vals) for _ in info.rule.forms]

    # ------------------------------------------------------------ the bulk formulas, as the engine runs them

    def _check_bulk(self) -> None:
        """Run each node of a tensor with dimensions as the engine runs it, its bulk backward
        on a probe gradient, and compare the result (a vector-Jacobian product) with the one
        its elements' verified partials give."""
        if not self.graph.expanded:
            return
        prev = grad_mode.state.enabled
        grad_mode.state.enabled = False  # the tensor kernel's ops must record nothing
        try:
            for v in self.graph.expanded:
                self._vjp(v)
        finally:
            grad_mode.state.enabled = prev

    def _vjp(self, v) -> None:
        op = v._op
        if op.runs_user_code or op is FunctionPick or shape_pick(v):
            return
        base = op.base
        if op is base.tensor or op is base:
            live = op
        elif op.is_freed:
            live = base.tensor if (v._t.ndim or any(u._t.ndim for u in v._in)) else base
        else:
            return  # its saved result was changed in place: the engine refuses to run it
        graph = self.graph
        vin = graph.node_ins[v]
        dt = v._t.dtype
        if issubclass(base, Unbind):
            layout = v._c
            probes = []
            gs = []
            k = 0
            for shape, _m in layout.outputs:
                n = 1
                for s in shape:
                    n *= s
                ps = [_PROBE[(k + j) % len(_PROBE)] for j in range(n)]
                k += n
                probes.append(ps)
                gs.append(leaf(ps if shape else ps[0], TensorType(dt, tuple(shape))))
            g = gs
        else:
            elems = graph.many.get(v) if v._t.ndim else [graph.single.get(v, v)]
            probes = [_PROBE[j % len(_PROBE)] for j in range(len(elems))]
            g = leaf(list(probes), TensorType(dt, tuple(v._t.shape))) if v._t.ndim else probes[0]
        try:
            grads = live.backward(v._t.kernel, g, v)
        except (RuntimeError, NotImplementedError, ArithmeticError, AttributeError, TypeError):
            return  # the engine raises it too (and reports it), running the same formula
        got: dict = {}
        for u, gi in zip(vin, grads):
            if gi is None or not u._rg:
                continue
            gi = adapt(gi, u, v, False)
            vals = gi._val if isinstance(gi, Tensor) else gi
            vals = list(vals) if isinstance(vals, list) else [vals]
            prev = got.get(u)
            got[u] = vals if prev is None else [x + y for x, y in zip(prev, vals)]
        ref: dict = {}
        node_of = graph.node_of
        if issubclass(base, Unbind):
            u = vin[0]
            for (_shape, m), ps in zip(v._c.outputs, probes):
                for j, p in enumerate(ps):
                    key = (u, j if m is None else m[j])
                    r = ref.get(key)
                    if r is None:
                        ref[key] = [p, abs(p), 1]
                    else:
                        r[0] += p
                        r[1] += abs(p)
                        r[2] += 1
        else:
            for e, p in zip(elems, probes):
                ins = graph.ins[e]
                live_e, kind, _ = _info(e._op)
                if kind == _ROW:
                    try:
                        parts = live_e.backward(e._t.kernel, 1.0, e)
                    except (RuntimeError, NotImplementedError, ArithmeticError):
                        return
                elif kind == _STRUCT:
                    parts = live_e.partials([u._val for u in ins], e._c)
                else:
                    return
                # an element op whose backward formula cancels says what its rounding errors are
                # relative to (``partial_scales``); otherwise the partials themselves
                scales = parts
                if kind == _STRUCT and getattr(live_e, "partial_scales", None) is not None:
                    scales = live_e.partial_scales([u._val for u in ins], e._c)
                for u, s, m in zip(ins, parts, scales):
                    if s is None or not u._rg:
                        continue
                    key = (node_of(u), u.index if u.__class__ is Elem else 0)
                    t = p * s
                    a = abs(p * m)
                    r = ref.get(key)
                    if r is None:
                        ref[key] = [t, a, 1]
                    else:
                        r[0] += t
                        r[1] += a
                        r[2] += 1
        for u in {key[0] for key in ref} | set(got):
            if not u._rg:
                continue
            have = got.get(u)
            dtu = _dt_name(u._t)
            eps, tiny = _EPS[dtu], _TINY[dtu]
            for q in range(u._t.numel):
                r = ref.get((u, q))
                want, scale, cnt = (0.0, 0.0, 0) if r is None else r
                x = 0.0 if have is None else have[q]
                if want != want and x != x:
                    continue
                if _same(x, want, dtu, (_NODE_RTOL + cnt) * eps * scale + tiny):
                    continue
                i = next(k for k, w in enumerate(vin) if w is u)
                where = ""
                if u._t.ndim:
                    where = " at [" + ", ".join(str(k) for k in element_index(u._t.shape, q)) + "]"
                self._fail(f"{graph.describe(v)}: its backward, run as the engine runs it on a probe gradient, gives "
                           f"{x!r} for input {i}{where}; the derivatives of its elements give {want!r}")
                return


def _title(op) -> str:
    """'Pow' for PowBackward1: the op as a user wrote it."""
    name = op.name
    i = name.find("Backward")
    return name[:i] if i > 0 else name


# ---------------------------------------------------------------- reports


@dataclass
class InputCheck:
    """The verdict on one input element's gradient.

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
    """What ``sympy_check`` found: one ``InputCheck`` per input element (named ``x`` for a
    0-dim tensor, ``x[0, 1]`` for an element of one with dimensions), and failed op rules."""

    inputs: list
    strategy: str
    nodes: int
    dtype: str
    expression: str | None = None
    failures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    label: str = "sympy_check"
    elements: int = 0  # the elements the nodes were expanded into (0: none had dimensions)

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
        size = f"{self.nodes} node{'s' * (self.nodes != 1)}"
        if self.elements:
            size += f", {self.elements} element{'s' * (self.elements != 1)}"
        head = f"{self.label}: {'OK' if self.ok else 'MISMATCH'} ({self.strategy} strategy, {size}, {self.dtype})"
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


def _whole_ok(graph: ElementGraph) -> bool:
    """Small enough to differentiate whole: few elements, a small expression tree, and no kink
    (relu, clamp, minimum, maximum, max) of an expression that has a kink itself, on which
    SymPy tries to solve inequalities (slow, and SymPy 1.14 may fail)."""
    if len(graph.order) > WHOLE_MAX_NODES:
        return False
    size: dict = {}
    kinked: set = set()
    for v in graph.order:
        ins = graph.ins[v]
        total = 1
        below = False
        for u in ins:
            total += size.get(u, 1)
            below = below or u in kinked
        if total > WHOLE_MAX_TREE:
            return False
        size[v] = total
        op, kind, c_kind = _info(v._op)
        if kind == _ROW:
            kink = isinstance(_rule(op, len(ins), v._c if c_kind else None).forward, sp.Piecewise)
        elif kind == _STRUCT:
            kink = op.name in ("max", "min")
        elif kind == _FUNCTION:
            fnode, _ = _fn_of(v)
            kink = _declared(graph, fnode) is not None and _declared_kink(fnode)
        else:
            kink = False
        if kink:
            if below:
                return False
            kinked.add(v)
        elif below:
            kinked.add(v)
    return True


def _declared_kink(fnode) -> bool:
    try:
        return any(f.has(sp.Piecewise) for f in _fn_rule(fnode).forms)
    except Exception:  # a broken form: the local pass reports it
        return False


def _flat(g) -> list | None:
    """A gradient as the engine or autograd hands it (a float, a Tensor, None) as a list of
    element values (None: no gradient)."""
    if g is None:
        return None
    if isinstance(g, Tensor):
        g = g._val
    return list(g) if isinstance(g, list) else [g]


class _Plan:
    """Everything the check needs, taken before the engine runs (and frees saved values).

    ``tensors``/``names``: the tensors to differentiate by and their names; ``targets`` and
    ``element_names`` the same, element by element."""

    def __init__(self, graph: ElementGraph, roots, weights, tensors, names, strategy: str, rtol, atol) -> None:
        self.tensors = tensors
        self.base_names = names
        self.targets = []
        self.names = []
        for t, base in zip(tensors, names):
            for e in graph.elements(t):
                self.targets.append(e)
                self.names.append(_element_name(base, t, e))
        self.graph = graph
        root_elems = []
        root_weights = []
        for r, w in zip(roots, weights):
            es = graph.elements(r)
            if w is None or len(w) != len(es):
                raise RuntimeError(f"the gradient of a root of {len(es)} elements has {len(w or ())}")
            root_elems.extend(es)
            root_weights.extend(float(x) for x in w)
        self.local = _Local(graph, root_elems, root_weights, self.targets)
        dt = self.local.dtype
        self.dtype = dt
        self.rtol = 16 * _EPS[dt] if rtol is None else rtol
        self.atol = 16 * _TINY[dt] if atol is None else atol
        self.whole: dict = {}
        self.expression = None
        self.notes: list = []
        if strategy == "auto":
            strategy = "whole" if _whole_ok(graph) else "local"
        self.strategy = strategy
        if strategy == "whole":
            try:
                self._whole(root_elems, root_weights)
            except Exception as exc:  # SymPy gave up: the local pass still answers
                self.strategy = "local"
                self.whole = {}
                self.expression = None
                self.notes.append(f"SymPy could not differentiate the whole expression ({type(exc).__name__}); "
                                  "checked locally")

    def _whole(self, roots, weights) -> None:
        graph = self.graph
        symbols = {t: n for t, n in zip(self.tensors, self.base_names) if t._op is None}
        syms = _name_symbols(graph, graph.leaves, symbols)
        expr = _expressions(graph, syms)
        out = 0
        for r, w in zip(roots, weights):
            e = syms.get(r)
            if e is None:
                e = expr.get(r)
            if e is None:
                e = _exact(r._val)
            out = out + (e if w == 1.0 else _exact(w) * e)
        self.expression = sp.sstr(out)
        values = {s: leaf_e._val for leaf_e, s in syms.items()}
        for t in self.targets:
            if t._op is not None or t not in syms:
                continue  # a non-leaf input: the local strategy answers for it
            s = syms[t]
            d = sp.diff(out, s)
            others = {o: _shown(values[o]) for o in values if o is not s}
            at_point = d.xreplace(others)
            self.whole[t] = (sp.sstr(d), sp.sstr(at_point), _evaluate(_at(d, values)))

    def flatten(self, per_tensor: list) -> list:
        """Values given per tensor (None, or a list of element values) as one per element."""
        out = []
        for t, vals in zip(self.tensors, per_tensor):
            n = len(self.graph.elements(t))
            out.extend([None] * n if vals is None else vals)
        return out

    def report(self, got: list, extra_tol=None, label: str = "sympy_check", notes=()) -> SymbolicReport:
        """Compare autograd's values (per tensor: None, or the list of its element values)
        with the references."""
        got = self.flatten(got)
        extra_tol = None if extra_tol is None else self.flatten(extra_tol)
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
                tol += extra_tol[k] or 0.0
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
        graph = self.graph
        elements = len(graph.order) if graph.expanded else 0
        return SymbolicReport(checks, self.strategy, len(graph.nodes), self.dtype, self.expression,
                              list(local.failures), self.notes + list(notes), label, elements)


def _targets_and_names(graph: ElementGraph, inputs, symbols) -> tuple:
    """The tensors to differentiate by (default: every leaf tensor requiring grad, in order
    of first use) and their names."""
    if inputs is None:
        tensors = []
        seen = set()
        for e in graph.leaves:
            t = graph.node_of(e)
            if t not in seen:
                seen.add(t)
                tensors.append(t)
        names = None
    elif isinstance(inputs, Mapping):
        tensors = list(inputs)
        names = [str(inputs[t]) for t in tensors]
    else:
        tensors = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        names = None
    if names is None:
        given = symbols or {}
        named = _base_names(graph, [t for t in tensors if t not in given], None)
        names = [str(given[t]) if t in given else named[t] for t in tensors]
    return tensors, names


@contextmanager
def _unobserved() -> Iterator[None]:
    saved = engine.observers[:]
    engine.observers.clear()
    try:
        yield
    finally:
        engine.observers[:] = saved


_IMPLICIT = "grad can be implicitly created only for scalar outputs"


def sympy_check(output: Tensor, inputs=None, rtol: float | None = None, atol: float | None = None,
                raise_on_mismatch: bool = False, symbols: Mapping | None = None,
                strategy: str = "auto", gradient=None) -> SymbolicReport:
    """Check autograd's gradients of ``output`` against SymPy's derivative, element by element.

    ``inputs``: the tensors to differentiate by (default: every leaf requiring grad, in order
    of first use), or a mapping {Tensor: name}; a tensor with dimensions gets one check per
    element (``x[0, 1]``). ``gradient``: the weights of ``output``'s elements (as
    ``backward(gradient)``; needed when it has more than one). autograd's values come from
    ``autograd.grad(output, inputs, gradient, retain_graph=True)``, so ``.grad`` is untouched
    (hooks on the path do run); if an earlier ``backward()`` freed the graph, the inputs'
    ``.grad`` are compared instead. ``rtol``/``atol`` default to 16 epsilons / 16 smallest
    normals of the coarsest dtype on the graph; the rounding autograd may do along the graph
    is added. ``strategy``: 'auto', 'whole' or 'local' (see the module docstring). Returns a
    ``SymbolicReport``; with ``raise_on_mismatch`` a disagreement raises ``SymbolicMismatch``.
    """
    if strategy not in ("auto", "whole", "local"):
        raise ValueError(f"strategy must be 'auto', 'whole' or 'local', not {strategy!r}")
    if not isinstance(output, Tensor):
        raise TypeError(f"sympy_check expects a scalargrad Tensor, got {type(output).__name__}")
    if not output._rg:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if output._t.numel != 1:
            raise RuntimeError(_IMPLICIT)
        weights = [1.0]
    else:
        weights = _flat(gradient)
    graph = ElementGraph([output])
    tensors, names = _targets_and_names(graph, inputs, symbols)
    plan = _Plan(graph, [output], [weights], tensors, names, strategy, rtol, atol)
    notes = []
    from ._autograd.api import grad

    try:
        with _unobserved():
            got = grad(output, tensors, grad_outputs=gradient, retain_graph=True, allow_unused=True) \
                if tensors else ()
        values = [_flat(g) for g in got]
    except RuntimeError as exc:
        if "backward through the graph a second time" not in str(exc):
            raise
        values = [_flat(t._grad) for t in tensors]
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
            graph = ElementGraph(list(roots))
            tensors, names = _targets_and_names(graph, None if inputs is None else list(inputs), None)
            plan = _Plan(graph, list(roots), [_flat(g) for g in grads], tensors, names, self.strategy,
                         self.rtol, self.atol)
        except Exception as exc:  # a checker failure must not break the user's program
            self.log.append(SymbolicReport([], "none", 0, "-", None, [f"the check itself failed: {exc!r}"],
                                           [], label))
            return None
        before = [_flat(t._grad) for t in tensors]

        def finish(result) -> None:
            extra = None
            if accumulate:
                values = []
                extra = []
                for t, old in zip(tensors, before):
                    new = _flat(t._grad)
                    if new is None:
                        values.append(None)
                        extra.append(None)
                        continue
                    old = old or [0.0] * len(new)
                    values.append([x - y for x, y in zip(new, old)])
                    eps = _EPS[_dt_name(t._t)]
                    extra.append([eps * (abs(x) + abs(y)) for x, y in zip(new, old)])
            else:
                values = [_flat(g) for g in result]
            try:
                report = plan.report(values, extra, label)
            except Exception as exc:  # as above: report, do not break the program
                report = SymbolicReport([], plan.strategy, len(plan.graph.nodes), plan.dtype, None,
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
    gradient w.r.t. every leaf element that requires grad (or the call's ``inputs``). The
    check is planned on entry to the call, before any saved value is freed, so
    ``retain_graph=False`` is fine; nothing is run twice (hooks fire once), and ``.grad`` is
    compared by difference.
    """
    log = BackwardChecks()
    obs = _Observer(log, rtol, atol, strategy, raise_on_mismatch)
    obs.limit = limit
    engine.observers.append(obs)
    try:
        yield log
    finally:
        engine.observers.remove(obs)
