"""scalargrad.symbolic and custom autograd.Functions that declare their SymPy form.

A Function declares ``sympy(sp, *args)``; the check proves gradients through it from that
form, and reports where its backward departs from the form's derivative ('custom backward').
``nn``'s BackwardHookFunction declares identity, so gradients through a module with a full
backward hook are proved, and what the module's hooks change is reported as 'hook'.

Expected gradients are hand derivations (the exact derivative at the float32 inputs) or
PyTorch 2.13's figures, captured by running the same program on PyTorch (comments say which);
the PyTorch-dependent ones are also rerun through the ``torch_ref`` fixture.
"""

from __future__ import annotations

import pytest
import sympy as sp

import scalargrad as torch
from scalargrad import nn
from scalargrad.symbolic import check_every_backward, sympy_check, to_sympy

STRATEGIES = ["whole", "local"]


def leaf(v):
    return torch.tensor(v, requires_grad=True)


# ---------------------------------------------------------------- Functions with a declared form


class MyFunction(torch.autograd.Function):
    """Document 002's MyFunction (output = input * 2, backward grad * 2), with its form."""

    events: list = []

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        MyFunction.events.append(("backward", grad_output.item()))
        return grad_output * 2

    @staticmethod
    def sympy(sp, x):
        return 2 * x


class GradientClippingHook(torch.autograd.Function):
    """Document 002's example 1: identity forward, clamped backward; with its form."""

    @staticmethod
    def forward(ctx, input):
        return input

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clamp(-1, 1)

    @staticmethod
    def sympy(sp, x):
        return x


class L2RegularizationHook(torch.autograd.Function):
    """Document 002's example 2: identity forward, backward grad + 0.01 * input; with its form."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output + 0.01 * input

    @staticmethod
    def sympy(sp, x):
        return x


class Split(torch.autograd.Function):
    """Two outputs (2x, 3x): one hidden node, two Picks."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 3

    @staticmethod
    def sympy(sp, x):
        return 2 * x, 3 * x


class Scale(torch.autograd.Function):
    """A non-tensor argument: the form receives the Python number."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

    @staticmethod
    def sympy(sp, x, k):
        return k * x


class Opaque(torch.autograd.Function):
    """No declared form: its backward records every call."""

    events: list = []

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        Opaque.events.append(("backward", g.item()))
        return g * 2


def test_to_sympy_uses_the_declared_form():
    a = leaf(0.5)
    x0 = sp.Symbol("x0", real=True)
    assert to_sympy(MyFunction.apply(a) + 1) == 2 * x0 + 1
    p, q = Split.apply(a)
    assert to_sympy(p * q) == 6 * x0**2
    assert to_sympy(Scale.apply(a, 3.0)) == sp.Float(3.0) * x0  # the Python number, as given
    assert str(to_sympy(Opaque.apply(a))) == "Opaque(x0)"  # no form: an undefined function


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_function_whose_backward_matches_its_form_is_proved(strategy):
    # document 002's MyFunction: loss = (2x)^2, d/dx = 8x = 16 at x = 2 (PyTorch 2.13 prints tensor(16.))
    x = leaf(2.0)
    report = sympy_check(MyFunction.apply(x).pow(2).mean(), strategy=strategy)
    c = report.inputs[0]
    assert (c.autograd, c.symbolic, c.status, c.notes) == (16.0, 16.0, "ok", [])
    assert report.verified and report.strategy == strategy
    if strategy == "whole":
        assert (report.expression, c.expression) == ("4*x0**2", "8*x0")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_several_outputs_and_non_tensor_arguments(strategy):
    e = leaf(1.0)
    p, q = Split.apply(e)
    # p*q + e = 6e^2 + e: d/de = 12e + 1 = 13
    c = sympy_check(p * q + e, strategy=strategy).inputs[0]
    assert (c.autograd, c.symbolic, c.status) == (13.0, 13.0, "ok")
    x = leaf(1.5)
    # (3x)^2: d/dx = 18x = 27
    c = sympy_check(Scale.apply(x, 3.0) ** 2, strategy=strategy).inputs[0]
    assert (c.autograd, c.symbolic, c.status) == (27.0, 27.0, "ok")


def test_the_check_never_calls_a_user_backward_itself():
    # the engine's one call is observed: the program's output stays PyTorch's
    MyFunction.events.clear()
    Opaque.events.clear()
    with check_every_backward() as log:
        x = leaf(2.0)
        (MyFunction.apply(x) * 3).backward()
        y = leaf(1.0)
        (Opaque.apply(y) * 5).backward()
    assert MyFunction.events == [("backward", 3.0)]
    assert Opaque.events == [("backward", 5.0)]
    assert [r.inputs[0].status for r in log] == ["ok", "unverifiable"]
    assert log[1].inputs[0].notes == ["custom autograd.Function Opaque (no symbolic form)"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_function_without_a_form_stays_unverifiable(strategy):
    Opaque.events.clear()
    x = leaf(1.5)
    report = sympy_check(Opaque.apply(x) + x.exp(), strategy=strategy)
    assert report.inputs[0].status == "unverifiable" and report.inputs[0].symbolic is None
    assert report.ok and not report.verified
    assert Opaque.events == [("backward", 1.0)]  # autograd.grad's one call, nothing more


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gradient_clipping_is_reported_as_a_custom_backward(strategy):
    # document 002's example 1: loss = x^2, calculus says 2x = 4 at x = 2; the clamped
    # backward gives 1 (PyTorch 2.13 prints tensor(1.))
    with check_every_backward(strategy=strategy) as log:
        x = leaf(2.0)
        GradientClippingHook.apply(x).pow(2).mean().backward()
    assert x.grad.item() == 1.0
    (report,) = log
    c = report.inputs[0]
    assert (c.autograd, c.symbolic, c.status) == (1.0, 4.0, "custom backward")
    assert report.ok and not report.verified  # not a mismatch: a custom backward may deviate on purpose
    assert c.notes == [
        "custom backward of GradientClippingHook, at GradientClippingHookBackward (node 1 of 3), returned 1.0 "
        "for argument 0; the calculus of its declared form gives 4.0 (d/d(argument 0) = 1 = 1.0 at [2.0], "
        "times the incoming gradient 4.0)"]
    assert "custom backward" in str(report)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_l2_regularization_is_reported_as_a_custom_backward(torch_ref, strategy):
    # document 002's example 2: backward returns g + 0.01 * x = 4 + 0.02 where calculus gives 4
    x = leaf(2.0)
    c = sympy_check(L2RegularizationHook.apply(x).pow(2).mean(), strategy=strategy).inputs[0]
    assert (c.autograd, c.symbolic, c.status) == (4.019999980926514, 4.0, "custom backward")  # PyTorch 2.13
    assert "returned 4.019999980926514 for argument 0; the calculus of its declared form gives 4.0" in c.notes[0]

    class L2(torch_ref.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output + 0.01 * input

    t = torch_ref.tensor(2.0, requires_grad=True)
    L2.apply(t).pow(2).mean().backward()
    assert t.grad.item() == c.autograd


def test_a_custom_backward_that_departs_where_it_does_not_matter_is_noted():
    # clipping a gradient of 0.5 leaves it alone: calculus and the backward agree
    x = leaf(0.25)
    c = sympy_check(GradientClippingHook.apply(x) ** 2).inputs[0]
    assert (c.autograd, c.symbolic, c.status, c.notes) == (0.5, 0.5, "ok", [])


def test_a_form_that_contradicts_forward_is_a_rule_failure():
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

        @staticmethod
        def sympy(sp, x):
            return 2 * x

    report = sympy_check(Wrong.apply(leaf(1.0)), strategy="local")
    assert not report.ok
    assert report.failures == ["WrongBackward (node 1 of 1): forward value 3.0, but its declared SymPy form "
                               "2*a0 gives 2.0 at [1.0]"]


def test_a_broken_form_is_a_rule_failure_and_leaves_the_gradient_unverifiable():
    class TwoForOne(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def sympy(sp, x):
            return 2 * x, 3 * x

    report = sympy_check(TwoForOne.apply(leaf(1.0)))
    assert report.inputs[0].status == "unverifiable" and not report.ok
    assert report.failures == ["TwoForOneBackward (node 1 of 1): its declared SymPy form failed: "
                               "TypeError('TwoForOne.sympy returned 2 expression(s), but its forward has "
                               "1 tensor output(s)')"]


# ---------------------------------------------------------------- modules with full backward hooks


class Model(nn.Module):
    """Documents 000 and 004: output = x1 * x2 * W, W = 5."""

    def __init__(self):
        super().__init__()
        self.W = nn.Parameter(torch.Tensor([5]))

    def forward(self, x1, x2):
        output = x1 * x2
        return output * self.W


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_module_hook_that_only_observes_leaves_every_gradient_proved(strategy):
    # document 004's module_backward_hook: d/dx1 = x2*W = 2.5, d/dx2 = x1*W = 1.25, d/dW = x1*x2
    events = []
    model = Model()
    model.register_full_backward_hook(
        lambda m, gi, go: events.append(("hook", [g.item() for g in gi], [g.item() for g in go])))
    x1, x2 = torch.tensor([0.25], requires_grad=True), torch.tensor([0.5], requires_grad=True)
    with check_every_backward(strategy=strategy) as log:
        model(x1, x2).backward()
    assert events == [("hook", [2.5, 1.25], [1.0])]
    (report,) = log
    assert [(c.autograd, c.symbolic, c.status) for c in report.inputs] == [
        (2.5, 2.5, "ok"), (1.25, 1.25, "ok"), (0.125, 0.125, "ok")]
    assert report.verified and report.strategy == strategy
    hook = "full backward hook <lambda> of Model on BackwardHookFunctionBackward (node 1 of 7)"
    calm = "a hook on its path left this gradient as calculus gives it"
    assert [c.notes for c in report.inputs] == [[hook, calm], [hook, calm], []]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_module_hook_that_rescales_grad_input_is_reported_as_a_hook(torch_ref, strategy):
    # document 000's backward_hook_modify_grad: grad_input (1.5, 0.5) -> (0.75, 0.25)
    def module_hook(module, grad_input, grad_output):
        total = grad_input[0] + grad_input[1]
        return torch.divide(grad_input[0], total), torch.divide(grad_input[1], total)

    model = Model()
    model.register_full_backward_hook(module_hook)
    x1, x2 = torch.tensor([0.1], requires_grad=True), torch.tensor([0.3], requires_grad=True)
    with check_every_backward(strategy=strategy) as log:
        model(x1, x2).backward()
    (report,) = log
    got = [(c.autograd, c.status) for c in report.inputs]
    # PyTorch 2.13: x1.grad 0.75, x2.grad 0.25, W.grad 0.030000001192092896
    assert got == [(0.75, "hook"), (0.25, "hook"), (0.030000001192092896, "ok")]
    # the correct gradients: x2*W, x1*W at the float32 inputs, exactly; x1*x2 exactly (whole
    # strategy) or as the float32 product the graph holds (local strategy)
    assert [c.symbolic for c in report.inputs] == [
        pytest.approx(x2.item() * 5, rel=1e-15), pytest.approx(x1.item() * 5, rel=1e-15),
        pytest.approx(x1.item() * x2.item(), rel=2**-23)]
    hook = "full backward hook module_hook of Model on BackwardHookFunctionBackward (node 1 of 7)"
    assert [c.notes for c in report.inputs] == [[hook], [hook], []]
    assert report.ok and not report.verified

    class TorchModel(torch_ref.nn.Module):
        def __init__(self):
            super().__init__()
            self.W = torch_ref.nn.Parameter(torch_ref.Tensor([5]))

        def forward(self, x1, x2):
            return x1 * x2 * self.W

    def torch_hook(module, grad_input, grad_output):
        total = grad_input[0] + grad_input[1]
        return torch_ref.divide(grad_input[0], total), torch_ref.divide(grad_input[1], total)

    tm = TorchModel()
    tm.register_full_backward_hook(torch_hook)
    t1, t2 = torch_ref.tensor([0.1], requires_grad=True), torch_ref.tensor([0.3], requires_grad=True)
    tm(t1, t2).backward()
    assert [t1.grad.item(), t2.grad.item(), tm.W.grad.item()] == [g for g, _ in got]


def test_a_module_backward_pre_hook_changing_grad_output_is_reported_as_a_hook():
    # grad_output * 3 reaches x1, x2 and W alike (PyTorch 2.13: 7.5, 3.75, 0.375)
    model = Model()
    model.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    x1, x2 = torch.tensor([0.25], requires_grad=True), torch.tensor([0.5], requires_grad=True)
    report = sympy_check(model(x1, x2), [x1, x2, model.W])
    assert [(c.autograd, c.symbolic, c.status) for c in report.inputs] == [
        (7.5, 2.5, "hook"), (3.75, 1.25, "hook"), (0.375, 0.125, "hook")]
    assert report.inputs[2].notes == [
        "backward pre-hook <lambda> of Model on BackwardHookFunctionBackward (node 6 of 7)"]


def test_a_module_input_that_does_not_require_grad_passes_through():
    model = Model()
    model.register_full_backward_hook(lambda m, gi, go: None)
    x1 = torch.tensor([0.25], requires_grad=True)
    report = sympy_check(model(x1, torch.tensor([0.5])))
    assert [(c.autograd, c.symbolic, c.status) for c in report.inputs] == [(2.5, 2.5, "ok"), (0.125, 0.125, "ok")]


class SplitWrongly(torch.autograd.Function):
    """Two outputs (2x, 3x) whose backward treats the second as 2x too."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 2

    @staticmethod
    def sympy(sp, x):
        return 2 * x, 3 * x


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_multi_output_custom_backward_that_departs_is_reported(strategy):
    e = leaf(1.0)
    p, q = SplitWrongly.apply(e)
    # p + 10 q = 32 e by calculus; the backward gives 2 + 10 * 2 = 22
    c = sympy_check(p + q * 10, strategy=strategy).inputs[0]
    assert (c.autograd, c.symbolic, c.status) == (22.0, 32.0, "custom backward")
    assert c.notes == [
        "custom backward of SplitWrongly, at SplitWronglyBackward (node 1 of 5), returned 22.0 for argument 0; "
        "the calculus of its declared form gives 32.0 (d/d(argument 0) of its outputs = (2, 3) = (2.0, 3.0) "
        "at [1.0], dotted with the incoming gradients (1.0, 10.0))"]
