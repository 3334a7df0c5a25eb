"""Element ops whose value and partial derivatives are those of their op-table form.

A structural element op usually declares its partials beside its form (a sum's are ones, a dot
product's the other factors). Where the op table already declares the form of an element whose
derivative is not that obvious (softmax, log_softmax and their backward-data ops), restating the
derivative here would be a second copy of the op's calculus. A ``FormElementOp`` declares only
which op's form it is and how its inputs line up with the form's arguments (``op``,
``arrange``); its value and partials come from the form itself.

They are computed by reverse-mode differentiation over the form's expression graph, compiled once
per number of inputs into one Python function of floats (``FormTape``): each node's local
derivative is SymPy's derivative of that node (``sp.diff`` of the function, or the power, on a
fresh symbol), the sums and products compose by the chain rule. Alongside the value the function
carries the magnitude of the terms each node sums (``|a| + |b|`` for ``a + b``), and alongside each
partial the same magnitude along its paths: what rounding errors in a formula that computes the
element are relative to, where its terms cancel (``partial_scales``). Building the form and its
program takes time linear in its size, so a softmax over a slice of thousands of elements is
compiled as readily as one of three; a program stops at an overflowing ``exp`` or a division by
zero in floats, and is then run on mpmath numbers, whose exponents do not overflow.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import sympy as sp

from .element_op import ElementOp

__all__ = ["FormElementOp", "FormTape", "form_tape"]

_X = sp.Symbol("x", real=True)
# the functions the programs call (a function, or its derivative by one argument), by name: as
# floats, and as mpmath numbers
_names: dict = {}
_FLOAT: dict = {"prod": math.prod}
_EXACT: dict = {"abs": mpmath.fabs, "prod": math.prod}  # compiled on first need (rare: an overflow)
_EXPRESSIONS: dict = {}  # name -> (expression, symbols)


class _Node:
    """One node of the program: its value and magnitude as source code, and per input node the
    source of its local derivative (and of that derivative's magnitude)."""

    __slots__ = ("value", "magnitude", "locals")

    def __init__(self, value: str, magnitude: str, local: list) -> None:
        self.value = value
        self.magnitude = magnitude
        self.locals = local  # [(input node index, derivative source, magnitude source)]


class FormTape:
    """The form ``form(sp, *symbols)`` on ``n`` inputs compiled to ``run(vals)`` ->
    ``(value, magnitude, partials, partial magnitudes)``."""

    def __init__(self, form: Callable, n: int) -> None:
        xs = [sp.Symbol(f"a{i}", real=True) for i in range(n)]
        self.n = n
        self.form = form(sp, *xs)
        self._code = self._compile(self.form, xs)
        self._fast = _load(self._code, _FLOAT)
        self._exact = None

    def run(self, vals) -> tuple:
        try:
            got = self._fast(*vals)
        except (ArithmeticError, ValueError):  # exp overflowed, a division by zero
            pass
        else:
            if got[0].__class__ is not complex and not any(p.__class__ is complex for p in got[2]):
                return got
            return math.nan, 0.0, [math.nan] * self.n, [math.nan] * self.n  # a power of a negative number
        if self._exact is None:
            self._exact = _load(self._code, _exact_functions())
        try:
            value, magnitude, parts, scales = self._exact(*[mpmath.mpf(x) for x in vals])
        except (ArithmeticError, ValueError):  # undefined here (0/0): so is its derivative
            return math.nan, 0.0, [math.nan] * self.n, [math.nan] * self.n
        return _float(value), _float(magnitude), [_float(p) for p in parts], [_float(s) for s in scales]

    # ------------------------------------------------------------ the program

    def _compile(self, expr, xs: list):
        """The code of ``run``: the expression graph of ``expr`` in post-order (each shared
        subexpression once), then its reverse sweep."""
        index: dict = {}
        nodes: list = []
        for i, x in enumerate(xs):
            index[x] = i
            nodes.append(_Node(f"x{i}", f"abs(x{i})", []))
        stack = [(expr, False)]
        while stack:
            e, ready = stack.pop()
            if e in index:
                continue
            if not ready and not e.is_number:
                stack.append((e, True))
                stack.extend((a, False) for a in e.args if a not in index)
                continue
            nodes.append(self._node(e, [index.get(a) for a in e.args] if not e.is_number else []))
            index[e] = len(nodes) - 1
        return self._program(nodes, index[expr])

    def _node(self, e, args: list) -> _Node:
        if e.is_number:
            x = float(e)
            return _Node(repr(x), repr(abs(x)), [])
        v = [f"v{a}" for a in args]
        m = [f"m{a}" for a in args]
        # sums and products as calls on lists: a chain of thousands of + is too deep to compile
        if e.is_Add:
            return _Node(_call("sum", v), _call("sum", m), [(a, "1.0", "1.0") for a in args])
        if e.is_Mul:
            local = [(a, _call("prod", v[:k] + v[k + 1:]), _call("prod", m[:k] + m[k + 1:]))
                     for k, a in enumerate(args)]
            return _Node(_call("prod", v), _call("prod", m), local)
        if e.is_Pow and e.exp.is_number:
            k = float(e.exp)
            d = _power(e.exp)
            # a power of at least one grows with the magnitude of its base; others do not
            base_m = m[0] if k >= 1 else f"abs({v[0]})"
            mag = f"{base_m} ** {k!r}" if k >= 0 else "abs(v{i})"
            return _Node(f"{v[0]} ** {k!r}", mag, [(args[0], f"{d}({v[0]})", f"abs({d}({base_m}))")])
        # any other function of its arguments: its derivatives by each, from SymPy
        f, ds = _function(e.func, len(args))
        at = ", ".join(v)
        return _Node(f"{f}({at})", "abs(v{i})", [(a, f"{d}({at})", f"abs({d}({at}))") for a, d in zip(args, ds)])

    def _program(self, nodes: list, out: int):
        n = self.n
        lines = [f"def run({', '.join(f'x{i}' for i in range(n))}):"]
        lines += [f"    v{i} = x{i}\n    m{i} = abs(x{i})" for i in range(n)]
        for i in range(n, len(nodes)):
            node = nodes[i]
            lines.append(f"    v{i} = {node.value}")
            lines.append(f"    m{i} = {node.magnitude.format(i=i)}")
        # reverse mode: g the adjoint of each node, s its magnitude
        lines += [f"    g{i} = 0.0\n    s{i} = 0.0" for i in range(len(nodes))]
        lines.append(f"    g{out} = 1.0\n    s{out} = 1.0")
        for i in range(len(nodes) - 1, n - 1, -1):
            for a, d, dm in nodes[i].locals:
                lines.append(f"    g{a} += g{i} * {d}\n    s{a} += s{i} * {dm}")
        lines.append(f"    return v{out}, m{out}, [{', '.join(f'g{i}' for i in range(n))}], "
                     f"[{', '.join(f's{i}' for i in range(n))}]")
        return compile("\n".join(lines), f"<a program of {n} inputs>", "exec")


def _call(f: str, terms: list) -> str:
    if len(terms) <= 8:
        return (" + " if f == "sum" else " * ").join(terms) or ("0.0" if f == "sum" else "1.0")
    return f"{f}([{', '.join(terms)}])"


def _float(x) -> float:
    try:
        return float(x)
    except TypeError:  # complex: a power of a negative number
        return math.nan


def _load(code, functions: dict) -> Callable:
    """The program ``code`` calling ``functions``."""
    namespace = dict(functions)
    exec(code, namespace)  # the program is generated here, from the op table's form
    return namespace["run"]


def _exact_functions() -> dict:
    """The programs' functions on mpmath numbers (compiled on first need)."""
    for name, (expr, symbols) in _EXPRESSIONS.items():
        if name not in _EXACT:
            _EXACT[name] = sp.lambdify(symbols, expr, modules="mpmath")
    return _EXACT


def _compiled(key: tuple, expr, symbols: list) -> str:
    """The name in the programs of ``expr`` as a function of ``symbols`` (compiled once)."""
    name = _names.get(key)
    if name is None:
        name = _names[key] = f"f{len(_names)}"
        _FLOAT[name] = sp.lambdify(symbols, expr, modules="math")
        _EXPRESSIONS[name] = (expr, symbols)
    return name


def _power(exponent) -> str:
    """The derivative of ``x**exponent`` by ``x``, SymPy's."""
    key = ("d pow", exponent)
    return _names.get(key) or _compiled(key, sp.diff(_X**exponent, _X), [_X])


def _function(func, n: int) -> tuple:
    """``func`` of ``n`` arguments and its derivatives by each, SymPy's: their names."""
    key = (func, n)
    got = _functions.get(key)
    if got is None:
        ys = [sp.Dummy(f"y{k}", real=True) for k in range(n)]
        try:
            applied = func(*ys)
        except (TypeError, ValueError) as exc:
            raise NotImplementedError(f"{func.__name__} in a form derived element by element") from exc
        got = _functions[key] = (_compiled(key, applied, ys),
                                 [_compiled(("d", func, n, k), sp.diff(applied, y), ys) for k, y in enumerate(ys)])
    return got


_functions: dict = {}
_tapes: dict = {}


def form_tape(form: Callable, n: int) -> FormTape:
    """The program of ``form`` on ``n`` inputs (built once)."""
    key = (form, n)
    tape = _tapes.get(key)
    if tape is None:
        tape = _tapes[key] = FormTape(form, n)
    return tape


_last_key: tuple = ()
_last: tuple = ()


class FormElementOp(ElementOp, listed=False):
    """An element op that is the form of an op of the op table (``op.sympy(sp, *args)``), the
    element's inputs taken in the order ``arrange(n, c)`` gives (positions among its ``n``
    inputs); its value, partial derivatives and their scales come from that form (``FormTape``)."""

    c_kind = "object"
    op = None  # the op table's op

    @staticmethod
    def arrange(n: int, c) -> list:
        raise NotImplementedError

    @classmethod
    def sympy(cls, sp, args, c):
        return cls.op.sympy(sp, *[args[k] for k in cls.arrange(len(args), c)])

    @classmethod
    def _run(cls, vals, c) -> tuple:
        """(value, magnitude, partials, their magnitudes) in the order of the inputs (the last
        element's kept: the local pass asks for its partials and value, the bulk check for its
        partials and their scales, one after the other)."""
        global _last_key, _last
        key = (cls, c, *vals)
        if key == _last_key:
            return _last
        n = len(vals)
        order = cls.arrange(n, c)
        value, magnitude, parts, scales = form_tape(cls.op.sympy, n).run([vals[k] for k in order])
        out_parts = [0.0] * n
        out_scales = [0.0] * n
        for j, k in enumerate(order):
            out_parts[k] = parts[j]
            out_scales[k] = scales[j]
        _last_key, _last = key, (value, magnitude, out_parts, out_scales)
        return _last

    @classmethod
    def value(cls, vals, c) -> tuple:
        value, magnitude, _, _ = cls._run(vals, c)
        return value, magnitude

    @classmethod
    def partials(cls, vals, c) -> list:
        return cls._run(vals, c)[2]

    @classmethod
    def partial_scales(cls, vals, c) -> list:
        return cls._run(vals, c)[3]
