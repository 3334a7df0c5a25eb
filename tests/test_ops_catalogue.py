"""Every op of ``_ops.SCALAR_DERIVATIVES``, in every operand order, against an independent table of
hand-derived derivatives, central differences and PyTorch.

FORMS is the table: each entry is one way a user writes an op (``x * y``, ``x * c``,
``c * x``, ``c / x``...), with its derivative written out by hand (``d/dx tanh = 1 - tanh^2``)
and, where it is not zero, its second derivative. ``test_every_catalogue_op_has_a_form`` keeps
the table in step with the catalogue: an op added to ``SCALAR_DERIVATIVES`` without a form fails.

The grad_fn names in the table, and the edge-point figures in EDGES, were printed by PyTorch
2.13.0 (CPU); the ``torch_ref`` tests re-check both against PyTorch itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scalargrad
from scalargrad._ops import SCALAR_DERIVATIVES

from faithfulness import POW, TRANSCENDENTAL, hull, inside, rounded

F64 = scalargrad.float64


@dataclass(frozen=True)
class Form:
    """One spelling of an op. ``fn(L, a, b)`` builds it with library ``L``; ``kind`` says which
    operands are tensors: "tt" both, "tn" a only (b is a Python number), "nt" b only, "t" a only
    (unary, b unused). ``grad(x, y)`` and ``hess(x, y)`` give the first and second derivatives
    with respect to each tensor operand, in order, by hand."""

    text: str
    kind: str
    fn: Callable
    grad: Callable
    x: tuple  # (low, high) of the first operand
    y: tuple = (0.0, 0.0)  # (low, high) of the second operand (tensor or number)
    name: str = ""  # PyTorch's grad_fn name
    hess: Callable | None = None
    avoid: Callable = lambda x, y: False  # kinks and poles, where a derivative is not defined


def _sig(x):
    return 1.0 / (1.0 + math.exp(-x))


def _sgn(x):
    return 1.0 if x > 0 else -1.0


FORMS = [
    # ---- tensor (op) tensor
    Form("x + y", "tt", lambda L, a, b: a + b, lambda x, y: (1.0, 1.0), (-5, 5), (-5, 5), "AddBackward0",
         lambda x, y: (0.0, 0.0)),
    Form("x - y", "tt", lambda L, a, b: a - b, lambda x, y: (1.0, -1.0), (-5, 5), (-5, 5), "SubBackward0",
         lambda x, y: (0.0, 0.0)),
    Form("x * y", "tt", lambda L, a, b: a * b, lambda x, y: (y, x), (-5, 5), (-5, 5), "MulBackward0",
         lambda x, y: (0.0, 0.0)),
    Form("x / y", "tt", lambda L, a, b: a / b, lambda x, y: (1 / y, -x / y**2), (-5, 5), (-5, 5), "DivBackward0",
         lambda x, y: (0.0, 2 * x / y**3), lambda x, y: abs(y) < 0.1),
    Form("x ** y", "tt", lambda L, a, b: a**b, lambda x, y: (y * x ** (y - 1), x**y * math.log(x)), (0.1, 4),
         (-3, 3), "PowBackward1", lambda x, y: (y * (y - 1) * x ** (y - 2), x**y * math.log(x) ** 2)),
    Form("torch.pow(x, y)", "tt", lambda L, a, b: L.pow(a, b), lambda x, y: (y * x ** (y - 1), x**y * math.log(x)),
         (0.1, 4), (-3, 3), "PowBackward1"),
    Form("x.minimum(y)", "tt", lambda L, a, b: a.minimum(b), lambda x, y: (1.0, 0.0) if x < y else (0.0, 1.0),
         (-5, 5), (-5, 5), "MinimumBackward0", lambda x, y: (0.0, 0.0), lambda x, y: abs(x - y) < 1e-3),
    Form("x.maximum(y)", "tt", lambda L, a, b: a.maximum(b), lambda x, y: (1.0, 0.0) if x > y else (0.0, 1.0),
         (-5, 5), (-5, 5), "MaximumBackward0", lambda x, y: (0.0, 0.0), lambda x, y: abs(x - y) < 1e-3),
    Form("x.fmin(y)", "tt", lambda L, a, b: a.fmin(b), lambda x, y: (1.0, 0.0) if x < y else (0.0, 1.0),
         (-5, 5), (-5, 5), "FminBackward0", lambda x, y: (0.0, 0.0), lambda x, y: abs(x - y) < 1e-3),
    Form("torch.fmax(x, y)", "tt", lambda L, a, b: L.fmax(a, b), lambda x, y: (1.0, 0.0) if x > y else (0.0, 1.0),
         (-5, 5), (-5, 5), "FmaxBackward0", lambda x, y: (0.0, 0.0), lambda x, y: abs(x - y) < 1e-3),
    Form("torch.ldexp(x, y)", "tt", lambda L, a, b: L.ldexp(a, b), lambda x, y: (2**y, x * 2**y * math.log(2)),
         (-5, 5), (-3, 3), "LdexpBackward0"),
    # ---- tensor (op) Python number
    Form("x + c", "tn", lambda L, a, c: a + c, lambda x, c: (1.0,), (-5, 5), (-5, 5), "AddBackward0"),
    Form("x - c", "tn", lambda L, a, c: a - c, lambda x, c: (1.0,), (-5, 5), (-5, 5), "SubBackward0"),
    Form("x * c", "tn", lambda L, a, c: a * c, lambda x, c: (c,), (-5, 5), (-5, 5), "MulBackward0"),
    Form("x / c", "tn", lambda L, a, c: a / c, lambda x, c: (1 / c,), (-5, 5), (-5, 5), "DivBackward0",
         avoid=lambda x, c: abs(c) < 0.1),
    Form("x ** c", "tn", lambda L, a, c: a**c, lambda x, c: (c * x ** (c - 1),), (0.1, 4), (-3, 3), "PowBackward0",
         lambda x, c: (c * (c - 1) * x ** (c - 2),)),
    Form("x.pow(c)", "tn", lambda L, a, c: a.pow(c), lambda x, c: (c * x ** (c - 1),), (0.1, 4), (-3, 3),
         "PowBackward0"),
    Form("x ** 2", "t", lambda L, a, _: a**2, lambda x, _: (2 * x,), (-5, 5), name="PowBackward0",
         hess=lambda x, _: (2.0,)),
    Form("x.square()", "t", lambda L, a, _: a.square(), lambda x, _: (2 * x,), (-5, 5), name="PowBackward0"),
    Form("x ** 3", "t", lambda L, a, _: a**3, lambda x, _: (3 * x**2,), (-5, 5), name="PowBackward0",
         hess=lambda x, _: (6 * x,)),
    Form("x ** 0.5", "t", lambda L, a, _: a**0.5, lambda x, _: (0.5 / math.sqrt(x),), (0.01, 50), name="PowBackward0",
         hess=lambda x, _: (-0.25 * x**-1.5,)),
    Form("x ** -0.5", "t", lambda L, a, _: a**-0.5, lambda x, _: (-0.5 * x**-1.5,), (0.01, 50), name="PowBackward0",
         hess=lambda x, _: (0.75 * x**-2.5,)),
    Form("x ** -1", "t", lambda L, a, _: a**-1, lambda x, _: (-1 / x**2,), (-5, 5), name="PowBackward0",
         hess=lambda x, _: (2 / x**3,), avoid=lambda x, _: abs(x) < 0.1),
    Form("x ** -2", "t", lambda L, a, _: a**-2, lambda x, _: (-2 / x**3,), (-5, 5), name="PowBackward0",
         hess=lambda x, _: (6 / x**4,), avoid=lambda x, _: abs(x) < 0.1),
    Form("x ** 0", "t", lambda L, a, _: a**0, lambda x, _: (0.0,), (-5, 5), name="PowBackward0"),
    Form("x ** 4 (integer, negative base)", "t", lambda L, a, _: a**4, lambda x, _: (4 * x**3,), (-5, 5),
         name="PowBackward0", hess=lambda x, _: (12 * x**2,)),
    # ---- Python number (op) tensor; the tensor is the second operand
    Form("c + x", "nt", lambda L, c, b: c + b, lambda c, x: (1.0,), (-5, 5), (-5, 5), "AddBackward0"),
    Form("c - x", "nt", lambda L, c, b: c - b, lambda c, x: (-1.0,), (-5, 5), (-5, 5), "RsubBackward1"),
    Form("torch.rsub(x, c)", "nt", lambda L, c, b: L.rsub(b, c), lambda c, x: (-1.0,), (-5, 5), (-5, 5),
         "RsubBackward1"),
    Form("c * x", "nt", lambda L, c, b: c * b, lambda c, x: (c,), (-5, 5), (-5, 5), "MulBackward0"),
    Form("c / x", "nt", lambda L, c, b: c / b, lambda c, x: (-c / x**2,), (-5, 5), (-5, 5), "MulBackward0",
         lambda c, x: (2 * c / x**3,), lambda c, x: abs(x) < 0.1),
    Form("c ** x", "nt", lambda L, c, b: c**b, lambda c, x: (c**x * math.log(c),), (0.1, 4), (-3, 3), "PowBackward2",
         lambda c, x: (c**x * math.log(c) ** 2,), lambda c, x: abs(c - 1) < 1e-6),
    Form("torch.pow(c, x)", "nt", lambda L, c, b: L.pow(c, b), lambda c, x: (c**x * math.log(c),), (0.1, 4), (-3, 3),
         "PowBackward2"),
    # ---- unary
    Form("x.reciprocal()", "t", lambda L, a, _: a.reciprocal(), lambda x, _: (-1 / x**2,), (-5, 5),
         name="ReciprocalBackward0", hess=lambda x, _: (2 / x**3,), avoid=lambda x, _: abs(x) < 0.1),
    Form("x.clamp(-1.0, 2.0)", "t", lambda L, a, _: a.clamp(-1.0, 2.0), lambda x, _: (1.0 if -1 <= x <= 2 else 0.0,),
         (-4, 4), name="ClampBackward1", hess=lambda x, _: (0.0,),
         avoid=lambda x, _: min(abs(x + 1), abs(x - 2)) < 1e-3),
    Form("x.clamp(min=c)", "tn", lambda L, a, c: a.clamp(min=c), lambda x, c: (1.0 if x >= c else 0.0,), (-4, 4),
         (-4, 4), "ClampBackward1", avoid=lambda x, c: abs(x - c) < 1e-3),
    Form("torch.clamp(x, max=c)", "tn", lambda L, a, c: L.clamp(a, max=c), lambda x, c: (1.0 if x <= c else 0.0,),
         (-4, 4), (-4, 4), "ClampBackward1", avoid=lambda x, c: abs(x - c) < 1e-3),
    Form("x.clamp_min(c)", "tn", lambda L, a, c: a.clamp_min(c), lambda x, c: (1.0 if x >= c else 0.0,), (-4, 4),
         (-4, 4), "ClampMinBackward0", avoid=lambda x, c: abs(x - c) < 1e-3),
    Form("torch.clamp_max(x, c)", "tn", lambda L, a, c: L.clamp_max(a, c), lambda x, c: (1.0 if x <= c else 0.0,),
         (-4, 4), (-4, 4), "ClampMaxBackward0", avoid=lambda x, c: abs(x - c) < 1e-3),
    Form("-x", "t", lambda L, a, _: -a, lambda x, _: (-1.0,), (-5, 5), name="NegBackward0"),
    Form("x.log()", "t", lambda L, a, _: a.log(), lambda x, _: (1 / x,), (0.01, 100), name="LogBackward0",
         hess=lambda x, _: (-1 / x**2,)),
    Form("x.exp()", "t", lambda L, a, _: a.exp(), lambda x, _: (math.exp(x),), (-10, 10), name="ExpBackward0",
         hess=lambda x, _: (math.exp(x),)),
    Form("x.log1p()", "t", lambda L, a, _: a.log1p(), lambda x, _: (1 / (1 + x),), (-0.9, 100), name="Log1PBackward0",
         hess=lambda x, _: (-1 / (1 + x) ** 2,)),
    Form("x.expm1()", "t", lambda L, a, _: a.expm1(), lambda x, _: (math.exp(x),), (-10, 10), name="Expm1Backward0",
         hess=lambda x, _: (math.exp(x),)),
    Form("x.sqrt()", "t", lambda L, a, _: a.sqrt(), lambda x, _: (0.5 / math.sqrt(x),), (0.01, 100),
         name="SqrtBackward0", hess=lambda x, _: (-0.25 * x**-1.5,)),
    Form("x.rsqrt()", "t", lambda L, a, _: a.rsqrt(), lambda x, _: (-0.5 * x**-1.5,), (0.01, 100),
         name="RsqrtBackward0", hess=lambda x, _: (0.75 * x**-2.5,)),
    Form("torch.rsqrt(x)", "t", lambda L, a, _: L.rsqrt(a), lambda x, _: (-0.5 * x**-1.5,), (0.01, 100),
         name="RsqrtBackward0"),
    Form("x.tanh()", "t", lambda L, a, _: a.tanh(), lambda x, _: (1 - math.tanh(x) ** 2,), (-5, 5),
         name="TanhBackward0", hess=lambda x, _: (-2 * math.tanh(x) * (1 - math.tanh(x) ** 2),)),
    Form("x.sigmoid()", "t", lambda L, a, _: a.sigmoid(), lambda x, _: (_sig(x) * (1 - _sig(x)),), (-10, 10),
         name="SigmoidBackward0", hess=lambda x, _: (_sig(x) * (1 - _sig(x)) * (1 - 2 * _sig(x)),)),
    Form("x.relu()", "t", lambda L, a, _: a.relu(), lambda x, _: (1.0 if x > 0 else 0.0,), (-5, 5),
         name="ReluBackward0", hess=lambda x, _: (0.0,), avoid=lambda x, _: abs(x) < 1e-3),
    Form("x.abs()", "t", lambda L, a, _: a.abs(), lambda x, _: (_sgn(x),), (-5, 5), name="AbsBackward0",
         hess=lambda x, _: (0.0,), avoid=lambda x, _: abs(x) < 1e-3),
    Form("abs(x)", "t", lambda L, a, _: abs(a), lambda x, _: (_sgn(x),), (-5, 5), name="AbsBackward0",
         avoid=lambda x, _: abs(x) < 1e-3),
    Form("x.sin()", "t", lambda L, a, _: a.sin(), lambda x, _: (math.cos(x),), (-10, 10), name="SinBackward0",
         hess=lambda x, _: (-math.sin(x),)),
    Form("x.cos()", "t", lambda L, a, _: a.cos(), lambda x, _: (-math.sin(x),), (-10, 10), name="CosBackward0",
         hess=lambda x, _: (-math.cos(x),)),
]
BY_TEXT = {f.text: f for f in FORMS}
TEXTS = [f.text for f in FORMS]


def _operands(L, form: Form, x: float, y: float, dtype, requires_grad: bool = True):
    """The operands ``(a, b)`` of ``form.fn`` and the tensors among them."""

    def t(v):
        return L.tensor(v, dtype=dtype, requires_grad=requires_grad)

    if form.kind == "tt":
        a, b = t(x), t(y)
        return a, b, [a, b]
    if form.kind == "tn":
        a = t(x)
        return a, y, [a]
    if form.kind == "nt":
        b = t(y)
        return x, b, [b]
    a = t(x)
    return a, None, [a]


def _graph_ops(root) -> set:
    """The op classes of every node of a graph (before backward, which swaps in freed variants)."""
    seen, stack, found = set(), [root], set()
    while stack:
        v = stack.pop()
        if id(v) in seen or v._op is None:
            continue
        seen.add(id(v))
        found.add(v._op)
        stack.extend(v._in)
    return found


def test_every_catalogue_op_has_a_form():
    covered = set()
    for form in FORMS:
        x, y = _midpoint(form)
        a, b, _ = _operands(scalargrad, form, x, y, F64)
        covered |= _graph_ops(form.fn(scalargrad, a, b))
    missing = [op.__name__ for op in SCALAR_DERIVATIVES if op not in covered]
    assert not missing, f"catalogue ops without a form in FORMS: {missing}"


def _midpoint(form: Form):
    # a point inside the domain, away from the kinks, for the structural tests
    for x in (1.25, 0.75, 1.6, 2.5, -1.5):
        y = 0.5 if form.kind == "tn" and "clamp" in form.text else 1.75
        if form.x[0] <= x <= form.x[1] and not form.avoid(x, y):
            return x, y
    raise AssertionError(form.text)


@pytest.mark.parametrize("text", TEXTS)
def test_grad_fn_name(text):
    form = BY_TEXT[text]
    x, y = _midpoint(form)
    a, b, _ = _operands(scalargrad, form, x, y, F64)
    assert form.fn(scalargrad, a, b).grad_fn.name() == form.name


def _node_names(L, form):
    x, y = _midpoint(form)
    a, b, _ = _operands(L, form, x, y, L.float64)
    fn = form.fn(L, a, b).grad_fn
    return fn.name(), [(None if n is None else n.name(), i) for n, i in fn.next_functions]


@pytest.mark.parametrize("text", TEXTS)
def test_grad_fn_and_next_functions_match_torch(torch_ref, text):
    form = BY_TEXT[text]
    assert _node_names(scalargrad, form) == _node_names(torch_ref, form)
    assert _node_names(torch_ref, form)[0] == form.name


def test_number_divided_by_tensor_is_a_product_with_a_reciprocal():
    x = scalargrad.tensor(4.0, requires_grad=True)
    y = 2 / x
    assert y.grad_fn.name() == "MulBackward0"
    assert [(None if n is None else n.name(), i) for n, i in y.grad_fn.next_functions] == [
        ("ReciprocalBackward0", 0), (None, 0)]
    y.backward()
    assert x.grad.item() == -0.125  # -2 / x^2


# ---------------------------------------------------------------- derivatives by hand and numerically


def _values(form: Form, x: float, y: float):
    """Forward value and autograd gradients (float64)."""
    a, b, tensors = _operands(scalargrad, form, x, y, F64)
    out = form.fn(scalargrad, a, b)
    out.backward()
    return out.item(), tuple(t.grad.item() for t in tensors)


def _forward(form: Form, x: float, y: float) -> float:
    a, b, _ = _operands(scalargrad, form, x, y, F64, requires_grad=False)
    return form.fn(scalargrad, a, b).item()


def _central_difference(form: Form, x: float, y: float) -> tuple:
    diffs = []
    positions = {"tt": (0, 1), "tn": (0,), "nt": (1,), "t": (0,)}[form.kind]
    for p in positions:
        v = (x, y)[p]
        h = 1e-6 * max(1.0, abs(v))
        up = (x + h, y) if p == 0 else (x, y + h)
        down = (x - h, y) if p == 0 else (x, y - h)
        diffs.append((_forward(form, *up) - _forward(form, *down)) / (2 * h))
    return tuple(diffs)


def _draw(data, form: Form):
    x = data.draw(st.floats(*form.x), label="x")
    y = data.draw(st.floats(*form.y), label="y") if form.kind != "t" else 0.0
    assume(not form.avoid(x, y))
    return x, y


@pytest.mark.parametrize("text", TEXTS)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_gradient_equals_hand_derivative_and_central_difference(text, data):
    form = BY_TEXT[text]
    x, y = _draw(data, form)
    value, grads = _values(form, x, y)
    hand = form.grad(x, y)
    assert len(grads) == len(hand)
    for g, want in zip(grads, hand):
        assert math.isclose(g, want, rel_tol=1e-12, abs_tol=1e-12), (g, want)
    for g, numeric in zip(grads, _central_difference(form, x, y)):
        scale = max(1.0, abs(value), abs(g))
        assert math.isclose(g, numeric, rel_tol=1e-6, abs_tol=1e-6 * scale), (g, numeric)


HESS_TEXTS = [f.text for f in FORMS if f.hess is not None]


@pytest.mark.parametrize("text", HESS_TEXTS)
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_second_derivative_with_create_graph_equals_hand_derivative(text, data):
    form = BY_TEXT[text]
    x, y = _draw(data, form)
    a, b, tensors = _operands(scalargrad, form, x, y, F64)
    out = form.fn(scalargrad, a, b)
    firsts = scalargrad.autograd.grad(out, tensors, create_graph=True)
    for t, g, want in zip(tensors, firsts, form.hess(x, y)):
        if g.requires_grad:
            (second,) = scalargrad.autograd.grad(g, t, retain_graph=True, allow_unused=True)
            second = 0.0 if second is None else second.item()
        else:  # a derivative that does not depend on any input: the second derivative is 0
            second = 0.0
        assert math.isclose(second, want, rel_tol=1e-10, abs_tol=1e-12), (second, want)


# ---------------------------------------------------------------- edge points, compared with PyTorch

INF, NAN = math.inf, math.nan

# (form, a, b, dtype) -> (forward, gradients), printed by PyTorch 2.13.0
EDGES = [
    ("x.relu()", 0.0, None, "float32", (0.0, (0.0,))),
    ("x.relu()", -0.0, None, "float32", (-0.0, (0.0,))),
    ("x.relu()", NAN, None, "float32", (NAN, (1.0,))),
    ("x.abs()", 0.0, None, "float32", (0.0, (0.0,))),
    ("x.abs()", NAN, None, "float64", (NAN, (0.0,))),
    ("x.log()", 0.0, None, "float32", (-INF, (INF,))),
    ("x.log()", -1.0, None, "float64", (NAN, (-1.0,))),
    ("x ** c", 0.0, 0.0, "float32", (1.0, (0.0,))),
    ("x ** c", 0.0, 0, "float64", (1.0, (0.0,))),
    ("x ** y", 0.0, 0.0, "float32", (1.0, (0.0, 0.0))),
    ("x ** y", 0.0, 2.0, "float32", (0.0, (0.0, 0.0))),
    ("c ** x", 0.0, 0.0, "float32", (1.0, (0.0,))),
    ("c ** x", 0.0, 2.0, "float64", (0.0, (0.0,))),
    ("x / y", 0.0, 0.0, "float32", (NAN, (INF, NAN))),
    ("x / c", 0.0, 0.0, "float64", (NAN, (INF,))),
    ("c / x", 0.0, 0.0, "float32", (NAN, (NAN,))),
    ("x / y", 1.0, 0.0, "float32", (INF, (INF, -INF))),
    ("x / c", -1.0, 0.0, "float64", (-INF, (INF,))),
    ("c / x", 1.0, 0.0, "float32", (INF, (-INF,))),
    ("c / x", 1.0, -0.0, "float32", (-INF, (-INF,))),
    ("x.sqrt()", -1.0, None, "float32", (NAN, (NAN,))),
    ("x.sqrt()", 0.0, None, "float64", (0.0, (INF,))),
    ("x ** 0.5", 0.0, None, "float32", (0.0, (INF,))),
    ("x.rsqrt()", 0.0, None, "float64", (INF, (-INF,))),
    ("x.rsqrt()", -0.0, None, "float32", (-INF, (INF,))),
    ("x.rsqrt()", -1.0, None, "float32", (NAN, (NAN,))),
    ("x.exp()", 1000.0, None, "float64", (INF, (INF,))),
    ("x.exp()", 100.0, None, "float32", (INF, (INF,))),
    ("x.exp()", -INF, None, "float32", (0.0, (0.0,))),
    ("x ** c", -8.0, 1 / 3, "float32", (NAN, (NAN,))),
    ("x ** c", -8.0, 1 / 3, "float64", (NAN, (NAN,))),
    ("x ** c", 0.0, -1.0, "float32", (INF, (-INF,))),
    ("x ** c", 0.0, -1, "float64", (INF, (-INF,))),
    ("x ** -1", -0.0, None, "float32", (-INF, (-INF,))),
    ("x ** -2", 0.0, None, "float32", (INF, (-INF,))),
    ("x ** y", 0.0, -1.0, "float32", (INF, (-INF, -INF))),
    ("x ** 2", -2.0, None, "float32", (4.0, (-4.0,))),
    ("x ** c", -2.0, 2.5, "float32", (NAN, (NAN,))),
    ("x ** 0", NAN, None, "float32", (1.0, (0.0,))),
    ("x.clamp(-1.0, 2.0)", -1.0, None, "float32", (-1.0, (1.0,))),
    ("x.clamp(-1.0, 2.0)", 2.0, None, "float32", (2.0, (1.0,))),
    ("x.clamp(-1.0, 2.0)", 3.0, None, "float32", (2.0, (0.0,))),
    ("x.clamp(-1.0, 2.0)", NAN, None, "float32", (NAN, (0.0,))),
    ("x.clamp(min=c)", 0.5, 0.5, "float32", (0.5, (1.0,))),
    ("x.clamp_min(c)", 0.5, 0.5, "float32", (0.5, (1.0,))),
    ("torch.clamp_max(x, c)", 0.5, 0.5, "float32", (0.5, (1.0,))),
    ("x.minimum(y)", 1.5, 1.5, "float32", (1.5, (0.5, 0.5))),
    ("x.maximum(y)", -2.0, -2.0, "float64", (-2.0, (0.5, 0.5))),
    ("x.minimum(y)", NAN, 1.0, "float32", (NAN, (1.0, 1.0))),
    ("x.maximum(y)", 1.0, NAN, "float64", (NAN, (1.0, 1.0))),
    ("x.tanh()", INF, None, "float32", (1.0, (0.0,))),
    ("x.sigmoid()", -100.0, None, "float32", (0.0, (0.0,))),
    ("x.sigmoid()", -800.0, None, "float64", (0.0, (0.0,))),
    ("x.sigmoid()", INF, None, "float32", (1.0, (0.0,))),
    ("x.sin()", INF, None, "float32", (NAN, (NAN,))),
    ("x.reciprocal()", 0.0, None, "float64", (INF, (-INF,))),
    ("x * c", INF, 0.0, "float32", (NAN, (0.0,))),
    ("x * y", INF, 0.0, "float32", (NAN, (0.0, INF))),
    ("x - y", INF, INF, "float32", (NAN, (1.0, -1.0))),
    ("c - x", INF, INF, "float32", (NAN, (-1.0,))),
]


def _same(a: float, b: float) -> bool:
    """Bit-level equality of two floats (nan equals nan; 0.0 and -0.0 differ)."""
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _edge(L, text, x, y, dtype_name):
    form = BY_TEXT[text]
    a, b, tensors = _operands(L, form, x, y, getattr(L, dtype_name))
    out = form.fn(L, a, b)
    out.backward()
    return out.item(), tuple(t.grad.item() for t in tensors)


def _edge_id(edge):
    return f"{edge[0]} at {edge[1]!r}, {edge[2]!r} ({edge[3]})"


@pytest.mark.parametrize("edge", EDGES, ids=[_edge_id(e) for e in EDGES])
def test_edge_point(edge):
    text, x, y, dtype_name, (value, grads) = edge
    got_value, got_grads = _edge(scalargrad, text, x, y, dtype_name)
    assert _same(got_value, value) and all(map(_same, got_grads, grads)), (got_value, got_grads)


@pytest.mark.parametrize("edge", EDGES, ids=[_edge_id(e) for e in EDGES])
def test_edge_point_is_torchs(torch_ref, edge):
    text, x, y, dtype_name, (value, grads) = edge
    got_value, got_grads = _edge(torch_ref, text, x, y, dtype_name)
    assert _same(got_value, value) and all(map(_same, got_grads, grads)), (got_value, got_grads)


# ---------------------------------------------------------------- special values: IEEE, never a Python error

SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1e300, -1e300, 1e-300, 3e38, 1e-45, -2.5, 1.0]
NUMBERS = [0.0, -0.0, INF, -INF, NAN, 1e300, 1e-300, -2.5, 2, -1, 0.5, 1 / 3]


def _grid(form: Form):
    if form.kind == "tt":
        return [(x, y) for x in SPECIAL for y in SPECIAL]
    if form.kind == "tn":
        return [(x, c) for x in SPECIAL for c in NUMBERS]
    if form.kind == "nt":
        return [(c, x) for c in NUMBERS for x in SPECIAL]
    return [(x, 0.0) for x in SPECIAL]


CLAMP_OVERFLOW = "value cannot be converted to type float without overflow"  # PyTorch's, for clamp(min=1e300)


def _run_special(L, form, x, y, dtype_name, create_graph):
    """Forward value and gradients, or PyTorch's one refusal: a clamp bound beyond float32."""
    a, b, tensors = _operands(L, form, x, y, getattr(L, dtype_name))
    try:
        out = form.fn(L, a, b)
    except RuntimeError as e:
        assert "clamp" in form.text and str(e) == CLAMP_OVERFLOW
        return "refused", ()
    grads = L.autograd.grad(out, tensors, create_graph=create_graph)
    return out.item(), tuple(g.item() for g in grads)


@pytest.mark.parametrize("text", TEXTS)
def test_no_python_error_escapes_at_special_values(text):
    # ZeroDivisionError, OverflowError or "math domain error" must never reach a user
    form = BY_TEXT[text]
    for dtype_name in ("float32", "float64"):
        for x, y in _grid(form):
            for create_graph in (False, True):
                value, grads = _run_special(scalargrad, form, x, y, dtype_name, create_graph)
                assert value == "refused" or isinstance(value, float)
                assert all(isinstance(g, float) for g in grads)


# Forms whose PyTorch kernel is machine-dependent (faithfulness.py): the op, and its arguments
# (tensor value or pair, Python number) from a grid point (x, y). ``x ** -0.5`` is not among
# them: PyTorch computes it as 1 / sqrt(x) with the processor's square root, IEEE everywhere.
MACHINE_DEPENDENT = {
    "x.sin()": (TRANSCENDENTAL["sin"], lambda x, y: (x, None)),
    "x.cos()": (TRANSCENDENTAL["cos"], lambda x, y: (x, None)),
    "x.tanh()": (TRANSCENDENTAL["tanh"], lambda x, y: (x, None)),
    "x.exp()": (TRANSCENDENTAL["exp"], lambda x, y: (x, None)),
    "x.log()": (TRANSCENDENTAL["log"], lambda x, y: (x, None)),
    "x.log1p()": (TRANSCENDENTAL["log1p"], lambda x, y: (x, None)),
    "x.expm1()": (TRANSCENDENTAL["expm1"], lambda x, y: (x, None)),
    "x.sigmoid()": (TRANSCENDENTAL["sigmoid"], lambda x, y: (x, None)),
    "x.sqrt()": (TRANSCENDENTAL["sqrt"], lambda x, y: (x, None)),
    "x ** 0.5": (TRANSCENDENTAL["x ** c"], lambda x, y: (x, 0.5)),
    "x ** c": (TRANSCENDENTAL["x ** c"], lambda x, y: (x, y)),
    "x.pow(c)": (TRANSCENDENTAL["x ** c"], lambda x, y: (x, y)),
    "x ** y": (POW, lambda x, y: ((x, y), None)),
    "torch.pow(x, y)": (POW, lambda x, y: ((x, y), None)),
    "c ** x": (TRANSCENDENTAL["c ** x"], lambda c, x: (x, c)),
    "torch.pow(c, x)": (TRANSCENDENTAL["c ** x"], lambda c, x: (x, c)),
}


def _hull_at(text: str, x: float, y: float, dtype_name: str):
    """The 1-ulp hull of a machine-dependent form at a grid point whose every value is finite,
    else None (special values, which C99's Annex F fixes, are compared bit for bit)."""
    op, args = MACHINE_DEPENDENT[text]
    form = BY_TEXT[text]
    # the tensor operands as the tensors hold them (a Python number stays a double)
    x = rounded(x, dtype_name) if form.kind != "nt" else x
    y = rounded(y, dtype_name) if form.kind in ("tt", "nt") else y
    value, c = args(x, y)
    inputs = value if isinstance(value, tuple) else (value,)
    if not all(math.isfinite(v) for v in inputs + ((c,) if c is not None else ())):
        return None
    bounds = hull(op.formula, value, c, dtype_name)
    return bounds if all(math.isfinite(b) for pair in bounds for b in pair) else None


@pytest.mark.parametrize("text", TEXTS)
def test_special_values_match_torch(torch_ref, text):
    # IEEE forms bit for bit; a machine-dependent form's finite values within its 1-ulp hull
    form = BY_TEXT[text]
    for dtype_name in ("float32", "float64"):
        for x, y in _grid(form):
            ours = _run_special(scalargrad, form, x, y, dtype_name, False)
            theirs = _run_special(torch_ref, form, x, y, dtype_name, False)
            if "refused" in (ours[0], theirs[0]):
                assert ours == theirs, (dtype_name, x, y, ours, theirs)
                continue
            bounds = _hull_at(text, x, y, dtype_name) if text in MACHINE_DEPENDENT else None
            if bounds is None:
                assert _same(ours[0], theirs[0]) and all(map(_same, ours[1], theirs[1])), (dtype_name, x, y, ours,
                                                                                             theirs)
            else:
                assert all(inside(v, b) for v, b in zip((theirs[0], *theirs[1]), bounds)), (dtype_name, x, y, theirs,
                                                                                            bounds)
