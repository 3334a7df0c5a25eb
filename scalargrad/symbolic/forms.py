"""SymPy forms: the exact numbers floats hold, the names of the leaves' elements, what kind of
rule each element's op has, and the SymPy expression of every element of a graph (``to_sympy``),
built from each op's own ``sympy`` form (``_ops``) and from custom Functions' declared forms."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import sympy as sp

from .._autograd.function import Pick as FunctionPick
from .._ops.elementwise import Elementwise
from .._ops.table import Op
from .._tensor.tensor import Tensor
from .element_op import ElementOp, Opaque
from .graph import Elem, ElementGraph, element_index

__all__ = ["to_sympy"]

_EVALUATED_MAX = 400  # to_sympy lets SymPy simplify graphs up to this size
_INF = math.inf


# ---------------------------------------------------------------- ops as the check sees them


ROW, STRUCT, FUNCTION, OPAQUE = 0, 1, 2, 3
op_kinds: dict = {}


def op_kind(op) -> tuple:
    """``(live op, kind, how _c reaches the form)`` of an element's op.

    The live op is the declared op whose rules a node runs (a node whose saved values were
    freed has a ``freed`` variant, an n-d node the ``bulk`` one: their rules are the declared
    op's). Kinds: a row of partials from the op's own SymPy form and backward (``ROW``), a
    structural element op (``STRUCT``), a custom Function's output (``FUNCTION``), or an
    op without a form (``OPAQUE``)."""
    got = op_kinds.get(op)
    if got is not None:
        return got
    if isinstance(op, type) and issubclass(op, ElementOp):
        got = (op, OPAQUE if issubclass(op, Opaque) else STRUCT, op.c_kind)
    elif getattr(op, "function", None) is not None or op is FunctionPick:
        got = (op, FUNCTION, None)
    else:
        live = getattr(op, "base", None) or op
        if live.sympy is Op.sympy:
            got = (live, OPAQUE, None)
        else:
            # the node's number reaches the form: a number operand, or add/sub's alpha
            kind = "number" if issubclass(live, Elementwise) and (live.uses_c or live.takes_alpha) else None
            got = (live, ROW, kind)
    op_kinds[op] = got
    return got


def opaque_name(op) -> str:
    fn = getattr(op, "function", None)
    if fn is not None:
        return fn.__name__
    return op.name


def function_of(e) -> tuple:
    """(the Function node, output slot) of a custom Function's output element."""
    if e.__class__ is Elem:
        return e.fn, e.slot
    if e._op is FunctionPick:
        return e._a, e._c
    return e, 0


def declared_function(graph: ElementGraph, fnode):
    """The custom Function class of ``fnode`` if its declared form is used, else None."""
    if graph.fn_mode.get(fnode) != "declared":
        return None
    return fnode._op.function


def declared_form(fnode, args) -> tuple:
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


# ---------------------------------------------------------------- SymPy forms


def exact(x):
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


def exact_operand(c):
    if isinstance(c, tuple):
        return tuple(exact(x) for x in c)
    return exact(c)


def shown(x):
    """A float for display in an expression: 3.0 -> 3, 0.25 -> 0.25."""
    if isinstance(x, float) and x.is_integer():
        return sp.Integer(int(x))
    if isinstance(x, float) and math.isfinite(x):
        return sp.Float(repr(x))
    return exact(x)


def element_name(base: str, t, e) -> str:
    """``x`` for a 0-dim tensor, ``x[0, 1]`` for an element of one with dimensions."""
    if not t._t.ndim:
        return base
    idx = ", ".join(str(i) for i in element_index(t._t.shape, e.index if e.__class__ is Elem else 0))
    return f"{base}[{idx}]"


def element_names(base: str, t, elems) -> list:
    """``element_name`` of each of ``elems`` (elements of tensor ``t``), the indices spelled
    once per tensor."""
    if not t._t.ndim:
        return [base] * len(elems)
    spelled = [f"{base}[{', '.join(map(str, idx))}]" for idx in itertools.product(*map(range, t._t.shape))]
    return [spelled[e.index if e.__class__ is Elem else 0] for e in elems]


def base_names(graph: ElementGraph, tensors, symbols) -> dict:
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


def name_symbols(graph: ElementGraph, leaves, symbols) -> dict:
    """A real SymPy symbol for each leaf element (and each element of a tensor named in
    ``symbols``): a tensor's name, indexed for a tensor with dimensions (``w[0, 1]``)."""
    tensors = []
    seen = set()
    for e in leaves:
        t = graph.node_of(e)
        if t not in seen:
            seen.add(t)
            tensors.append(t)
    names = base_names(graph, tensors, symbols)
    syms = {}
    for t in list(symbols or {}) + tensors:
        base = names[t]
        for e in graph.elements(t):
            if isinstance(base, sp.Symbol) and not t._t.ndim:
                syms[e] = base
            else:
                name = base.name if isinstance(base, sp.Symbol) else str(base)
                syms[e] = sp.Symbol(element_name(name, t, e), real=True)
    return syms


def expressions(graph: ElementGraph, syms: dict) -> dict:
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
                e = exact(u._val)
            args.append(e)
        op, kind, c_kind = op_kind(v._op)
        if kind == ROW:
            if c_kind is not None and v._c is not None:
                args.append(exact_operand(v._c))
            try:
                expr[v] = op.sympy(sp, *args)
            except NotImplementedError:
                expr[v] = sp.Function(op.name)(*args)
        elif kind == STRUCT:
            c = v._c
            if c_kind == "number":
                c = exact(c)
            expr[v] = op.sympy(sp, args, c)
        elif kind == FUNCTION:
            fnode, slot = function_of(v)
            name = fnode._op.function.__name__
            if declared_function(graph, fnode) is not None:
                key = (fnode, tuple(args))
                outs = forms.get(key)
                if outs is None:
                    outs = forms[key] = declared_form(fnode, args)
                expr[v] = outs[slot]
            elif fnode._val is None:  # an output of a Function with several: name_i(args)
                expr[v] = sp.Function(f"{name}_{slot}")(*args)
            else:
                expr[v] = sp.Function(name)(*args)
        else:
            expr[v] = sp.Function(opaque_name(op))(*args)
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
    syms = name_symbols(graph, graph.leaves, symbols)
    if value._op is None or not value._rg or value in stop:
        out = [syms.get(e) if value._rg else exact(e._val) for e in graph.elements(value)]
    else:
        exprs = expressions(graph, syms)
        out = [syms.get(e) if e in syms else exprs[e] for e in graph.elements(value)]
    if not value._t.ndim:
        return out[0]
    return sp.ImmutableDenseNDimArray(out, tuple(value._t.shape))


# ---------------------------------------------------------------- evaluating SymPy numbers


def evaluate(e):
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


def at_values(e, subs: dict):
    """``e`` with symbols replaced by exact Floats of the given values."""
    try:
        return e.xreplace({s: sp.Float(x, 40) if math.isfinite(x) else exact(x) for s, x in subs.items()})
    except (TypeError, ValueError):  # a Piecewise comparing with nan
        return sp.nan


# ---------------------------------------------------------------- per-op rules (local strategy)
