"""scalargrad.symbolic: to_sympy, sympy_check (whole and local strategies), check_every_backward.

Expected gradients come from PyTorch 2.13 (captured figures say so) or from SymPy / a hand
derivation; expressions are SymPy's own printing of the derivative.
"""

from __future__ import annotations

import math
import time

import pytest
import sympy as sp

import scalargrad as torch
from scalargrad._autograd import engine
from scalargrad._ops import unary as UN
from scalargrad.symbolic import (
    WHOLE_MAX_NODES,
    SymbolicMismatch,
    check_every_backward,
    sympy_check,
    to_sympy,
)


def leaf(v, dtype=None):
    return torch.tensor(v, dtype=dtype, requires_grad=True)


class PowModel(torch.nn.Module):
    def forward(self, x, q):
        return x**q


class LogModel(torch.nn.Module):
    def forward(self, x):
        return torch.log(x)


class PowLogModel(torch.nn.Module):
    """Document 003, Module Code 2."""

    def __init__(self):
        super().__init__()
        self.powModel = PowModel()
        self.logModel = LogModel()

    def forward(self, x, q):
        return self.logModel(self.powModel(x, q))


# ---------------------------------------------------------------- the document's example


def test_powlog_model_report_shows_the_derivatives():
    x, q = leaf(5.0), leaf(3.0)
    z = PowLogModel()(x, q)
    z.backward()
    report = sympy_check(z, {x: "x", q: "q"})
    assert report.ok and report.verified
    assert report.strategy == "whole"
    assert report.expression == "log(x**q)"
    rx, rq = report["x"], report["q"]
    # d/dx log(x**q) = q/x = 3/x at q = 3; d/dq = log(x)
    assert (rx.expression, rx.at_point) == ("q/x", "3/x")
    assert (rq.expression, rq.at_point) == ("log(x)", "log(5)")
    # autograd's figures are PyTorch's (float32, see test_documents_autograd)
    assert rx.autograd == 0.6000000238418579 and rq.autograd == 1.6094380617141724
    assert rx.symbolic == 0.6
    assert rq.symbolic == pytest.approx(math.log(5.0), rel=1e-15)
    assert "the graph was freed by an earlier backward()" in str(report)
    # .grad is what backward() left; sympy_check did not touch it
    assert x.grad.item() == 0.6000000238418579


def test_report_renders_a_table():
    x, q = leaf(5.0), leaf(3.0)
    text = str(sympy_check(torch.log(x**q), {x: "x", q: "q"}))
    assert text.splitlines()[:5] == [
        "sympy_check: OK (whole strategy, 2 nodes, float32)",
        "  output = log(x**q)",
        "  input  autograd    SymPy      d/d(input)  at the point  status",
        "  x      0.60000002  0.6        q/x         3/x           ok",
        "  q      1.6094381   1.6094379  log(x)      log(5)        ok",
    ]


def test_assert_grads_fixture_checks_figures_and_sympy(assert_grads):
    x, q = leaf(5.0), leaf(3.0)
    report = assert_grads(torch.log(x**q), {x: 0.6000000238418579, q: 1.6094380617141724})
    assert report.verified


# ---------------------------------------------------------------- to_sympy


def test_to_sympy_names_leaves_in_order_of_first_use():
    a, b = leaf(2.0), leaf(3.0)
    assert str(to_sympy(b * a + a)) == "x0*x1 + x1"  # b is first used, so it is x0
    assert str(to_sympy(b * a, {a: "a", b: sp.Symbol("beta", real=True)})) == "a*beta"


def test_to_sympy_constants_are_exact():
    a = leaf(2.0)
    c = torch.tensor(0.1)  # float32 0.1 = 13421773 / 2**27, not requiring grad
    e = to_sympy(a * c + a / 4 + 3 - a**0.5 + 2**a)
    x0 = sp.Symbol("x0", real=True)
    assert e == x0 * sp.Rational(13421773, 2**27) + x0 / 4 + 3 - sp.sqrt(x0) + 2**x0


def test_to_sympy_of_tensor_scalar_ops_and_clamp():
    a = leaf(0.5)
    x0 = sp.Symbol("x0", real=True)
    assert to_sympy(1 - a) == 1 - x0
    # min(max(x, 0), 1): the max bound is tested first, so that min > max gives max everywhere
    assert to_sympy(a.clamp(0.0, 1.0)) == sp.Piecewise((1, x0 > 1), (0, x0 < 0), (x0, True))
    assert to_sympy(a.clamp(1.0, 0.0)) == 0
    # a tensor with dimensions is an array of its elements' expressions
    assert to_sympy((a * 2).sum().view(1)) == sp.ImmutableDenseNDimArray([2 * x0], (1,))


def test_to_sympy_custom_function_is_an_undefined_function():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            return g

    a = leaf(0.5)
    assert str(to_sympy(Cube.apply(a) + 1)) == "Cube(x0) + 1"


def test_to_sympy_of_a_100000_node_chain_does_not_recurse():
    a = leaf(0.5, torch.float64)
    y = a
    for _ in range(100_000):
        y = y * 1.0000001
    e = to_sympy(y)
    # SymPy's own methods recurse over such a deep expression: walk it here without
    depth, node = 0, e
    while node.args:
        node = node.args[0]
        depth += 1
    assert depth == 100_000 and node == sp.Symbol("x0", real=True)


# ---------------------------------------------------------------- strategies


def _chain(n: int):
    x = leaf(0.5)
    y = x
    for i in range(n):
        k = i % 4
        y = y * 0.9999 if k == 0 else y.exp() if k == 1 else y.log() if k == 2 else y + 0.001
    return x, y


def _dag(n: int):
    # every node is used twice
    x = leaf(0.7)
    y = x
    for _ in range(n // 3):
        y = (y * y + y) * 0.25
    return x, y


@pytest.mark.parametrize("build", [_chain, _dag])
def test_local_strategy_checks_100000_nodes_in_seconds(build):
    x, y = build(100_000)
    t = time.perf_counter()
    report = sympy_check(y)
    elapsed = time.perf_counter() - t
    assert report.strategy == "local" and report.nodes >= 99_999
    assert report.ok and report.verified, str(report)
    assert elapsed < 20  # about 2-3 s on the development machine, autograd.grad included


def test_small_graphs_use_the_whole_expression_and_big_ones_the_local_pass():
    x, y = _chain(WHOLE_MAX_NODES)
    assert sympy_check(y).strategy == "whole"
    x, y = _chain(WHOLE_MAX_NODES + 1)
    assert sympy_check(y).strategy == "local"
    # a small DAG whose expression tree explodes is checked locally too
    x, y = _dag(60)
    assert sympy_check(y).strategy == "local"


@pytest.mark.parametrize("strategy", ["whole", "local"])
def test_both_strategies_agree_on_a_mixed_graph(strategy):
    a, b = leaf(0.3, torch.float64), leaf(1.7, torch.float64)
    h = (a * b).sin() + a.exp() / b - (b - a).tanh().sigmoid() ** 2
    z = h * h.cos() + torch.sqrt(b) * a.abs()
    report = sympy_check(z, strategy=strategy)
    assert report.ok and report.verified, str(report)
    assert report.dtype == "float64"
    assert all(c.tolerance < 1e-12 for c in report.inputs)  # float64: tight


def test_non_leaf_inputs_are_checked_locally():
    x = leaf(1.5)
    y = x.sin()
    z = y * y + x
    report = sympy_check(z, [x, y])
    assert report.ok
    assert report.inputs[1].symbolic == pytest.approx(2 * math.sin(1.5), rel=1e-6)


def test_in_place_rebased_values_are_followed():
    x = leaf(2.0)
    y = x * 3
    y.add_(1.0)  # y is rebased: y = (x*3) + 1
    z = y * x
    report = sympy_check(z)
    assert report.ok and report.inputs[0].symbolic == pytest.approx(6 * 2.0 + 1.0)


def test_unused_input_has_zero_gradient():
    x, u = leaf(2.0), leaf(3.0)
    report = sympy_check(x * x, [x, u])
    assert report.ok and report.inputs[1].autograd is None and report.inputs[1].symbolic == 0


# ---------------------------------------------------------------- finding wrong rules


def _wrong_sin(k, g, v):
    return (k.mul(g, k.mul(k.cos(k.ins(v)[0]), k.const(1.01))),)


@pytest.mark.parametrize("strategy", ["whole", "local"])
def test_a_wrong_derivative_rule_is_caught(monkeypatch, strategy):
    monkeypatch.setattr(UN.Sin, "backward", staticmethod(_wrong_sin))
    x = leaf(0.7)
    z = x.sin() * 2
    report = sympy_check(z, strategy=strategy)
    assert not report.ok
    assert report.inputs[0].status == "mismatch"
    assert any("SinBackward0 (node 1 of 2)" in f for f in report.failures)
    with pytest.raises(SymbolicMismatch, match="MISMATCH"):
        sympy_check(z, raise_on_mismatch=True)
    assert issubclass(SymbolicMismatch, AssertionError)


def test_a_wrong_forward_is_caught(monkeypatch):
    monkeypatch.setattr(UN.Tanh, "forward", staticmethod(lambda r, a: math.sin(a)))
    x = leaf(0.7)
    report = sympy_check(x.tanh() + x)
    assert any("forward value" in f and "tanh(a0)" in f for f in report.failures)



@pytest.mark.parametrize("shape", [(), (3,)])
def test_a_result_changed_through_a_detached_alias_has_no_forward_value_to_compare(shape, monkeypatch):
    # c = a * 2; c.detach().zero_(): PyTorch allows it (MulBackward0 saved a and 2, not c), and
    # the gradient stays 2; c's elements no longer hold its forward value (corpus 043)
    a = torch.full(shape, 1.5, requires_grad=True)
    c = a * 2
    c.detach().zero_()
    report = sympy_check(c.sum(), [a])
    assert report.ok and report.verified and not report.failures, str(report)
    # a node that read it before the change computed from the old values: nothing to compare there
    d = a * 3
    e = (d * 1).sum()
    d.detach().zero_()
    assert sympy_check(e, [a]).ok
    # but a forward that is really wrong is still caught, beside such nodes and after them
    monkeypatch.setattr(UN.Tanh, "forward", staticmethod(lambda r, x: math.sin(x)))
    monkeypatch.setattr(UN.Tanh, "fast", math.sin)
    for wrong in (a.tanh(), (d + a).tanh()):
        report = sympy_check(e + wrong.sum(), [a])
        assert not report.ok
        assert any(f.startswith("TanhBackward0") and "forward value" in f and "tanh(a0)" in f
                   for f in report.failures), str(report)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_a_leaf_changed_through_data_has_no_forward_value_to_compare(shape):
    # y = x * x; x.data *= 100; y.backward(): PyTorch allows it (.data has a version counter of
    # its own) and its gradient is 2 * 200 = 400, read from the changed x; y's forward value
    # 4 is not x * x any more, which is no disagreement (issue 21's false alarm)
    x = torch.full(shape, 2.0, requires_grad=True)
    y = (x * x).sum()
    x.data *= 100
    report = sympy_check(y, [x])
    assert report.ok and report.verified and not report.failures, str(report)
    y.backward()
    assert x.grad.tolist() == (400.0 if not shape else [400.0] * 3)


# ---------------------------------------------------------------- PyTorch's conventions


def test_relu_abs_clamp_at_their_kinks():
    # PyTorch 2.13: relu'(0) = 0, abs'(0) = 0, clamp'(bound) = 1 -> 1.0 in total
    x = leaf(0.0)
    report = sympy_check(torch.relu(x) + x.abs() + x.clamp(0.0, 1.0))
    assert report.inputs[0].status == "ok" and report.inputs[0].autograd == 1.0
    y = leaf(1.0)
    assert sympy_check(y.clamp(0.0, 1.0)).inputs[0].symbolic == 1.0


def test_minimum_maximum_ties_split_the_gradient():
    x, y = leaf(0.0), leaf(0.0)
    report = sympy_check(torch.minimum(x, y) * 3 + torch.maximum(x, y))
    # PyTorch 2.13 gives [2.0, 2.0]: 3/2 + 1/2 each
    assert [c.autograd for c in report.inputs] == [2.0, 2.0]
    assert [c.symbolic for c in report.inputs] == [2.0, 2.0]
    assert report.verified


@pytest.mark.parametrize("f, expected, words", [
    (lambda x: x**x, 0.0, "pow: PyTorch takes d(a**b)/db = 0"),  # PyTorch 2.13: 0.0
    (lambda x: x.sqrt(), math.inf, "sqrt: PyTorch's derivative at 0 is inf"),  # PyTorch: inf
    (lambda x: x**0.0, 0.0, "d(a**0)/da = 0 at a = 0"),  # PyTorch: 0.0
    (lambda x: x.log(), math.inf, "the derivative is unbounded"),  # PyTorch: inf
])
def test_calculus_and_pytorch_part_at_zero_with_a_note(f, expected, words):
    x = leaf(0.0)
    report = sympy_check(f(x))
    c = report.inputs[0]
    assert report.ok and c.status == "convention"
    assert c.autograd == expected and c.symbolic == expected
    assert any(words in n for n in c.notes), c.notes


def test_zero_to_the_power_x_has_gradient_zero():
    x = leaf(2.0)
    c = sympy_check(0.0**x).inputs[0]  # PyTorch 2.13: 0.0
    assert (c.autograd, c.status) == (0.0, "convention")
    assert "d(0**x)/dx = 0" in c.notes[0]


def test_not_real_derivative_is_nan_with_a_note():
    a, b = leaf(-8.0, torch.float64), leaf(1 / 3, torch.float64)
    report = sympy_check(a**b)
    assert all(c.status == "convention" and math.isnan(c.autograd) for c in report.inputs)
    assert "not real" in report.inputs[1].notes[0]


# ---------------------------------------------------------------- hooks and custom Functions


def test_a_tensor_hook_that_changes_the_gradient_is_reported():
    a = leaf(2.0)
    b = a * 3
    b.register_hook(lambda g: g * 2)
    report = sympy_check(b * b + a)
    c = report.inputs[0]
    # PyTorch 2.13: a.grad == 73 with the hook; calculus: 18a + 1 = 37
    assert (c.autograd, c.symbolic, c.status) == (73.0, 37.0, "hook")
    assert c.notes == ["tensor hook on MulBackward0 (node 1 of 3)"]
    assert report.ok and not report.verified


def test_node_and_leaf_hooks_are_reported_and_harmless_ones_noted():
    a = leaf(2.0)
    b = a.exp()
    b.grad_fn.register_prehook(lambda go: (go[0] + 100,))
    c = sympy_check(b * 1.0).inputs[0]
    assert c.status == "hook" and "node hook on ExpBackward0" in c.notes[0]
    x = leaf(1.0)
    seen = []
    x.register_hook(lambda g: seen.append(g.item()))
    c = sympy_check(x * 5).inputs[0]
    assert seen == [5.0] and c.status == "ok"
    assert "a hook on its path left this gradient as calculus gives it" in c.notes


class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class SplitFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 3


@pytest.mark.parametrize("strategy", ["whole", "local"])
def test_custom_functions_are_unverifiable_not_errors(strategy):
    c, d = leaf(1.5), leaf(0.5)
    report = sympy_check(Sq.apply(c) + d.exp(), strategy=strategy)
    assert [i.status for i in report.inputs] == ["unverifiable", "ok"]
    assert report.ok and not report.verified
    assert "custom autograd.Function Sq (no symbolic form)" in report.inputs[0].notes
    e = leaf(1.0)
    p, q = SplitFn.apply(e)
    assert sympy_check(p * q + e).inputs[0].status == "unverifiable"


# ---------------------------------------------------------------- every backward


@pytest.mark.no_sympy_check  # asserts on the observer list itself
def test_check_every_backward_checks_each_call_once():
    events = []
    with check_every_backward() as log:
        x = leaf(5.0)
        q = leaf(3.0)
        y = x**q
        y.register_hook(lambda g: events.append(("hook", g.item())))
        z = torch.log(y)
        z.backward()  # retain_graph=False: the check was planned before the values were freed
        (gx,) = torch.autograd.grad(x * x, [x])
    assert events == [("hook", 0.00800000037997961)]  # the hook fired once
    assert x.grad.item() == 0.6000000238418579 and gx.item() == 10.0
    assert len(log) == 2 and log.ok
    assert log[0].label == "backward #1" and log[1].label == "autograd.grad #2"
    assert [c.name for c in log[0].inputs] == ["x0", "x1"]
    assert log[0].inputs[1].symbolic == pytest.approx(math.log(5.0), rel=1e-12)
    assert engine.observers == []
    assert "backward #1: OK" in str(log)


def test_check_every_backward_compares_accumulated_grads_by_difference():
    with check_every_backward() as log:
        x = leaf(2.0)
        (x * x).backward()
        (x * x * x).backward()
    assert x.grad.item() == 16.0
    assert log.ok and [r.inputs[0].autograd for r in log] == [4.0, 12.0]


def test_check_every_backward_with_create_graph_and_big_graphs():
    with check_every_backward() as log:
        x = leaf(0.5)
        (g,) = torch.autograd.grad(x.sin() * x, [x], create_graph=True)
        g.backward()
        _, y = _chain(WHOLE_MAX_NODES * 10)
        y.backward()
    assert log.ok, str(log)
    assert [r.strategy for r in log] == ["whole", "whole", "local"]


@pytest.mark.no_sympy_check  # installs wrong derivative rules on purpose
def test_check_every_backward_reports_and_raises_on_wrong_rules(monkeypatch):
    monkeypatch.setattr(UN.Sin, "backward", staticmethod(_wrong_sin))
    with check_every_backward() as log:
        x = leaf(0.7)
        x.sin().backward()
    assert not log.ok and log[0].inputs[0].status == "mismatch"
    with pytest.raises(SymbolicMismatch), check_every_backward(raise_on_mismatch=True):
        leaf(0.7).sin().backward()


@pytest.mark.parametrize("make", [lambda x: torch.exp2(x), lambda x: torch.pow(2.0, x), lambda x: 3.0**x],
                         ids=["exp2", "pow_number_tensor", "rpow"])
def test_forward_check_of_a_power_at_a_huge_integral_input_ends(make):
    # SymPy computes a power with an exact Integer exponent exactly: 2**a at a = 3e38 held the proof
    # forever (the forward check now takes such an input as a 40-digit Float). exp2's derivative at
    # 3e38 is inf, at -3e38 zero, at 70000 inf in float32; all agree with the exact rule
    x = torch.tensor([3e38, -3e38, 7e4, 1.5], requires_grad=True)
    report = sympy_check(make(x).sum(), {x: "x"})
    assert report.ok, report.failures
