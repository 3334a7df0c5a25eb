"""Per-op rules, as the local strategy checks them: an op's SymPy form and partial derivatives on
fresh symbols, compiled to floats once (``Rule``; a custom Function's declared form: ``FnRule``),
the exact partial or value where the quick float comparison does not settle it, and how close
is close (epsilons, ulps, and the engine's own rounding of what it computes from)."""

from __future__ import annotations

import math

import sympy as sp

from .._base import dtypes
from .._ops.bessel import bessel_double
from .._ops.float_kernel import FloatKernel
from .._ops.gamma import lgamma_double, polygamma_double
from .._ops.logarithms import erfinv_double
from .forms import at_values, declared_form, evaluate, exact, exact_operand

__all__ = ["Rule", "rule_of", "FnRule", "function_rule", "element_proof", "same"]

EPS = {"float32": 2.0**-23, "float64": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7}
TINY = {"float32": 2.0**-126, "float64": 2.0**-1022, "float16": 2.0**-14, "bfloat16": 2.0**-126}
TINY_OF_EPS = {EPS[k]: TINY[k] for k in EPS}
# a float32 ulp is 2**29 double ulps
_ULP_SHIFT = {"float32": 2.0**29, "float64": 1.0, "float16": 2.0**42, "bfloat16": 2.0**45}
NODE_RTOL = 8  # a local partial may differ from the exact one by this many epsilons, relatively
_PROBE_ULPS = 4  # ... or by what moving the node's inputs or output this many ulps gives


def dt_name(t) -> str:
    """The dtype name whose epsilon applies to an element ("float64" for non-float dtypes)."""
    name = t.dtype.name
    return name if name in EPS else "float64"


def _dirac_delta(x, *order):
    return 0.0 if x != 0 else math.inf


_LAMBDIFY_EXTRA = {"DiracDelta": _dirac_delta, "erfinv": erfinv_double, "loggamma": lgamma_double,
                   "polygamma": lambda n, x: polygamma_double(int(n), x),
                   "besseli": lambda n, x: bessel_double(int(n), False, x)}


class Rule:
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


RULES: dict = {}


def c_shape(c):
    if isinstance(c, tuple):
        return tuple(x is None for x in c)
    return c is not None


def rule_of(op, n: int, c) -> Rule:
    """The rule of ``op`` with ``n`` inputs (most ops have one arity: the key is the op)."""
    key = op if c is None else (op, c_shape(c))
    r = RULES.get(key)
    if r is None:
        r = RULES[key] = Rule(op, n, c)
    elif r.arity != n:
        key = (key, n)
        r = RULES.get(key)
        if r is None:
            r = RULES[key] = Rule(op, n, c)
    return r


class FnRule:
    """A custom Function's declared form on fresh symbols a0, a1... (one per tensor input),
    its partial derivatives ``partials[output][input]``, and both compiled to floats."""

    __slots__ = ("symbols", "forms", "partials", "fast", "uses")

    def __init__(self, fnode) -> None:
        a = [sp.Symbol(f"a{i}", real=True) for i in range(len(fnode._in))]
        self.symbols = a
        self.forms = declared_form(fnode, a)
        self.partials = [[sp.diff(f, s) for s in a] for f in self.forms]
        self.uses = [[s in f.free_symbols for s in a] for f in self.forms]
        flat = [p for row in self.partials for p in row]
        try:
            self.fast = sp.lambdify(a, flat + list(self.forms), modules="math")
        except Exception:  # a form lambdify cannot print: SymPy evaluates it instead
            self.fast = None


_fn_rules: dict = {}
_FN_RULES_MAX = 256  # rules kept for distinct (Function, constant arguments)


def function_rule(fnode) -> FnRule:
    """The rule of custom Function node ``fnode``, cached by its class, its number of tensor
    inputs and its other arguments."""
    plain, kwargs = fnode._c._sympy_args
    key = (fnode._op.function, len(fnode._in), tuple((type(x), x) for x in plain),
           tuple(sorted((k, type(x), x) for k, x in kwargs.items())))
    try:
        rule = _fn_rules.get(key)
    except TypeError:  # an unhashable argument: build it afresh
        return FnRule(fnode)
    if rule is None:
        rule = FnRule(fnode)
        if len(_fn_rules) < _FN_RULES_MAX:
            _fn_rules[key] = rule
    return rule


_element_proofs: dict = {}


def element_proof(op) -> str | None:
    """Prove a structural element op's declared partials and value against its SymPy form, on
    its small sample instance (once per op). Returns what failed, or None."""
    if op in _element_proofs:
        return _element_proofs[op]
    vals, c = op.sample()
    a = [sp.Symbol(f"a{i}", real=True) for i in range(len(vals))]
    form = op.sympy(sp, a, exact(c) if op.c_kind == "number" else c)
    at = {s: exact(x) for s, x in zip(a, vals)}
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


def operand_floats(c) -> list:
    if c is None:
        return []
    if isinstance(c, tuple):
        return [float(x) for x in c if x is not None]
    return [c if getattr(c, "number", None).__class__ is bool else float(c)]  # pow's False stays False


def exact_partial(op, vals: list, c, i: int):
    """Partial ``i`` of ``op`` at ``vals``, with the other arguments fixed first (so ``a**2``
    differentiates to ``2*a``, whose value at 0 is 0, not ``2*a**2/a``)."""
    s = sp.Symbol("a", real=True)
    args = [s if j == i else exact(x) for j, x in enumerate(vals)]
    if c is not None:
        args.append(exact_operand(c))
    try:
        d = sp.diff(op.sympy(sp, *args), s)
    except (TypeError, ValueError):
        return "unknown", None
    return evaluate(at_values(d, {s: vals[i]}))


# Beyond this magnitude an input is taken as a 40-digit Float, not an exact Integer: SymPy
# computes a power with an exact integer exponent exactly, and 2**a at a = 3e38 never ends
_EXACT_LIMIT = 2.0**16


def _huge(x) -> bool:
    return isinstance(x, float) and math.isfinite(x) and abs(x) >= _EXACT_LIMIT


def _float_operand(c):
    if isinstance(c, tuple):
        return tuple(_float_operand(x) for x in c)
    return sp.Float(c, 40) if _huge(c) else exact(c)


def exact_forward(op, vals: list, c):
    cs = c if isinstance(c, tuple) else (c,)
    if any(_huge(x) for x in vals) or any(_huge(x) for x in cs):
        syms = [sp.Symbol(f"x{j}", real=True) for j in range(len(vals))]
        args = syms + ([_float_operand(c)] if c is not None else [])
        try:
            return evaluate(at_values(op.sympy(sp, *args), dict(zip(syms, vals))))
        except (TypeError, ValueError):
            return "unknown", None
    args = [exact(x) for x in vals]
    if c is not None:
        args.append(exact_operand(c))
    try:
        return evaluate(op.sympy(sp, *args))
    except (TypeError, ValueError):
        return "unknown", None


def _ulp(x: float, dt: str) -> float:
    if not math.isfinite(x):
        return 0.0
    return max(math.ulp(x) * _ULP_SHIFT[dt], TINY[dt] * EPS[dt])


class _Probe:
    """A stand-in node for running an op's backward at a nudged saved output."""

    __slots__ = ("_val", "_in", "_a", "_b", "_c", "_t")

    def __init__(self, v, y: float) -> None:
        self._val = y
        self._t = v._t  # its type: a backward may read the dtype
        self._in = v._in
        # the float kernels read a node's inputs from its two input slots
        self._a = getattr(v, "_a", None)
        self._b = getattr(v, "_b", None)
        self._c = v._c


def within_rounding(rule: Rule, v, vals: list, cvals, i: int, e: float, dt: str) -> bool:
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
    slack = NODE_RTOL * EPS[dt] * max(abs(lo), abs(hi)) + TINY[dt] + sens
    return lo - slack <= e <= hi + slack


def same(a: float, b: float, dt: str, tol: float) -> bool:
    """Equal within ``tol``; infinities equal when the dtype holds them as the same inf."""
    if a != a or b != b:
        return a != a and b != b
    if math.isinf(a) or math.isinf(b):
        rb = dtypes.round_f32(b) if dt == "float32" else b
        return a == rb
    return abs(a - b) <= tol


def op_title(op) -> str:
    """'Pow' for PowBackward1: the op as a user wrote it."""
    name = op.name
    i = name.find("Backward")
    return name[:i] if i > 0 else name
