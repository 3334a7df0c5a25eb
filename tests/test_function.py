"""autograd.Function: apply, ctx, several outputs, node names, PyTorch's errors, and the
custom-Function examples of document 002.

Tests taking ``L`` run on scalargrad and, under ``torch_ref``, on PyTorch 2.13 with the same
assertions; their expected figures are hand derivations or PyTorch's printed output.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad

from faithfulness import correctly_rounded, ulps


@pytest.fixture(params=["scalargrad", "torch"])
def L(request):
    if request.param == "torch":
        return request.getfixturevalue("torch_ref")
    return scalargrad


def make_exp(L, log):
    class Exp(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            log.append(("forward records a graph", L.is_grad_enabled()))
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            log.append(("backward", g.item(), ctx.needs_input_grad))
            return g * y

    return Exp


def test_apply_save_for_backward_and_node_name(L):
    log = []
    Exp = make_exp(L, log)
    x = L.tensor(1.5, requires_grad=True)
    y = Exp.apply(x)
    assert str(y) == "tensor(4.4817, grad_fn=<ExpBackward>)"
    assert y.grad_fn.name() == "ExpBackward" and not y.is_leaf
    assert repr(y.grad_fn).startswith("<torch.autograd.function.ExpBackward object at 0x")
    assert [(n.name(), i) for n, i in y.grad_fn.next_functions] == [("torch::autograd::AccumulateGrad", 0)]
    y.backward()
    # float32 exp(1.5), printed by PyTorch 2.13 (Intel Xeon), the correctly rounded value; PyTorch's
    # exp (MKL) depends on the processor, within 1 ulp
    y_val = 4.481688976287842
    assert y_val == correctly_rounded("exp", 1.5)
    assert log == [("forward records a graph", False), ("backward", 1.0, (True,))]
    assert x.grad.item() == y_val if L is scalargrad else ulps(x.grad.item(), y_val) <= 1


def test_needs_input_grad_and_non_tensor_arguments(L):
    log = []

    class Scale(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            log.append(ctx.needs_input_grad)
            ctx.k = k  # any attribute may ride on ctx
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            log.append(ctx.needs_input_grad)
            return g * ctx.k, None, None

    a = L.tensor(1.0, requires_grad=True)
    b = L.tensor(2.0)
    z = Scale.apply(a * 2, b, 3.0)
    nexts = [(None if n is None else n.name(), i) for n, i in z.grad_fn.next_functions]
    assert nexts == [("MulBackward0", 0), (None, 0)]
    z.backward()
    assert log == [(True, False, False), (True, False, False)]
    assert a.grad.item() == 6.0 and b.grad is None


def test_input_not_requiring_grad_gives_a_plain_tensor(L):
    Exp = make_exp(L, [])
    y = Exp.apply(L.tensor(0.0))
    assert (str(y), y.requires_grad, y.grad_fn) == ("tensor(1.)", False, None)
    with L.no_grad():
        y = Exp.apply(L.tensor(0.0, requires_grad=True))
    assert (y.requires_grad, y.grad_fn) == (False, None)


def test_several_outputs_share_one_node(L):
    log = []

    class Split(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            (x,) = ctx.saved_tensors
            log.append((ga.item(), gb.item()))
            return ga * 2 + gb * 3 * x

    x = L.tensor(1.5, requires_grad=True)
    a, b = Split.apply(x)
    assert a.grad_fn is b.grad_fn and a.grad_fn.name() == "SplitBackward"
    assert (str(a), str(b)) == ("tensor(3., grad_fn=<SplitBackward>)", "tensor(4.5000, grad_fn=<SplitBackward>)")
    (a * b).backward()
    # d(a*b)/da = b = 4.5, d(a*b)/db = a = 3; the backward then gives 4.5*2 + 3*3*1.5
    assert log == [(4.5, 3.0)]
    assert x.grad.item() == 22.5


@pytest.mark.no_sympy_check  # forward changes its input in place
def test_a_dirty_input_among_several_outputs(L):
    class Twice(L.autograd.Function):  # returns the dirty input at both places
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2 * 3

    class Beside(L.autograd.Function):  # the dirty input and a new tensor
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2 * 3

    a = L.tensor(1.0, requires_grad=True)
    x = a.clone()
    y1, y2 = Twice.apply(x)
    assert y1 is x and y2 is x and x._version == 1
    # the same tensor at both places is output 1 (the last wrapping wins): y1 + y2 = 2x sends
    # 2 there and zeros to output 0, so backward gives 0 + 2 * 3; clone passes it to a
    (y1 + y2).backward()
    assert a.grad.item() == 6.0
    a = L.tensor([1.0, 2.0], requires_grad=True)
    y1, y2 = Beside.apply(a.clone())
    (y1 * L.tensor([1.0, 2.0]) + y2).sum().backward()  # g1 = [1, 2], g2 = [1, 1]
    assert a.grad.tolist() == [4.0, 5.0]


def test_setup_context_receives_forwards_defaults(L):
    seen = []

    class Scale(L.autograd.Function):
        @staticmethod
        def forward(x, k=3.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append(inputs[1:])
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    a = L.tensor(1.0, requires_grad=True)
    y = Scale.apply(a)
    y.backward()
    assert (seen, y.item(), a.grad.item()) == ([(3.0,)], 3.0, 3.0)
    y = Scale.apply(a, 2.0)
    assert (seen[-1], y.grad_fn.needs_input_grad) == ((2.0,), (True, False))
    with pytest.raises(TypeError, match="too many positional arguments"):
        Scale.apply(a, 1.0, 2.0)


def test_integer_outputs_take_no_gradient(L):
    seen = []

    class Count(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, (x > 0).sum()

        @staticmethod
        def backward(ctx, g, h):
            seen.append(h.tolist())
            return g * 2

    class Only(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x > 0).sum()

        @staticmethod
        def backward(ctx, g):
            return g

    x = L.tensor([1.0, -1.0], requires_grad=True)
    y, n = Count.apply(x)
    assert (n.requires_grad, n.grad_fn, y.grad_fn is not None) == (False, None, True)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and seen == [0]  # the integer output's gradient: zeros
    m = Only.apply(x)
    assert (m.requires_grad, m.grad_fn, m.item()) == (False, None, 1)


@pytest.mark.no_sympy_check  # forward changes its input in place
def test_a_dirty_view(L):
    class Double(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = L.tensor([-2.25, 1.75], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an "):
        Double.apply(a[0])
    assert a.tolist() == [-4.5, 1.75] and a._version == 2  # forward ran, under no_grad
    with L.no_grad():
        w = a[1]
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in an in-place"):
        Double.apply(w)
    # a view of a non-leaf: its base becomes CopySlices over the Function's node, so c[1]'s
    # gradient is doubled and c[0]'s passes through
    b = L.tensor([1.0, 2.0], requires_grad=True)
    c = b * 1
    r = Double.apply(c[1])
    assert (r.item(), c.tolist(), c.grad_fn.name()) == (4.0, [1.0, 4.0], "torch::autograd::CopySlices")
    c.sum().backward()
    assert b.grad.tolist() == [1.0, 2.0]


def test_unused_output_gets_zeros_or_none(L):
    seen = []

    def split(materialize):
        class Split(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append((None if ga is None else ga.item(), gb.item()))
                return gb * 3 if ga is None else ga * 2 + gb * 3

        return Split

    for materialize in (True, False):
        x = L.tensor(1.5, requires_grad=True)
        _, b = split(materialize).apply(x)
        b.backward()
        assert x.grad.item() == 3.0
    assert seen == [(0.0, 1.0), (None, 1.0)]


def test_mark_non_differentiable(L):
    seen = []

    class WithIndex(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x * 0 + 7
            ctx.mark_non_differentiable(i)
            return x * 2, i

        @staticmethod
        def backward(ctx, ga, gi):
            seen.append((ga.item(), gi.item()))
            return ga * 2

    x = L.tensor(1.5, requires_grad=True)
    a, i = WithIndex.apply(x)
    assert (a.requires_grad, i.requires_grad, i.grad_fn, str(i)) == (True, False, None, "tensor(7.)")
    a.backward()
    assert seen == [(1.0, 0.0)] and x.grad.item() == 2.0


def test_returning_an_input_makes_a_new_node(L):
    class Identity(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = L.tensor(1.0, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and not y.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.backward()
    assert x.grad.item() == 5.0


def test_trailing_nones_beyond_the_inputs_are_accepted(L):
    class Extra(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, None

    a = L.tensor(1.0, requires_grad=True)
    Extra.apply(a).backward()
    assert a.grad.item() == 1.0


def make_square(L):
    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


def test_second_backward_through_saved_tensors(L):
    Square = make_square(L)
    x = L.tensor(1.5, requires_grad=True)
    y = Square.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 6.0  # 2 * (2 * 1.5)
    with pytest.raises(RuntimeError) as info:
        y.backward()
    assert str(info.value).startswith("Trying to backward through the graph a second time")

    class Double(L.autograd.Function):  # saves nothing: a second backward is allowed
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    x = L.tensor(1.5, requires_grad=True)
    y = Double.apply(x)
    y.backward()
    y.backward()
    assert x.grad.item() == 4.0


def test_double_backward_through_a_function(L):
    class Cube(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    x = L.tensor(1.5, requires_grad=True)
    (g,) = L.autograd.grad(Cube.apply(x), x, create_graph=True)
    assert g.requires_grad and g.item() == 6.75  # 3 x^2
    (g2,) = L.autograd.grad(g, x)
    assert g2.item() == 9.0  # 6 x


# ---------------------------------------------------------------- errors, in PyTorch's words


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def test_wrong_number_of_gradients(L):
    class Bad(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    a = L.tensor(1.0, requires_grad=True)
    b = L.tensor(2.0, requires_grad=True)
    assert _error(lambda: Bad.apply(a, b).backward()) == (
        RuntimeError, "function BadBackward returned an incorrect number of gradients (expected 2, got 1)")

    class TooMany(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    assert _error(lambda: TooMany.apply(a).backward()) == (
        RuntimeError, "function TooManyBackward returned an incorrect number of gradients (expected 1, got 2)")


def test_gradient_for_a_non_tensor_input(L):
    class Scale(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = L.tensor(1.5, requires_grad=True)
    assert _error(lambda: Scale.apply(x, 3.0).backward()) == (
        RuntimeError, "function ScaleBackward returned a gradient different than None at position 2, but the "
        "corresponding forward input was not a Variable")


def test_gradient_that_is_not_a_tensor(L):
    class Number(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 2.0

    x = L.tensor(1.5, requires_grad=True)
    assert _error(lambda: Number.apply(x).backward()) == (RuntimeError, "expected Variable or None (got float)")


def test_missing_backward_and_missing_forward(L):
    class NoBackward(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

    class NoForward(L.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g

    a = L.tensor(1.0, requires_grad=True)
    y = NoBackward.apply(a)  # the error comes at backward time
    assert y.grad_fn.name() == "NoBackwardBackward"
    assert _error(y.backward) == (
        NotImplementedError, "You must implement either the backward or vjp method for your custom "
        "autograd.Function to use it with backward mode AD.")
    assert _error(lambda: NoForward.apply(a)) == (
        NotImplementedError, "You must implement the forward function for custom autograd.Function.")


def test_save_for_backward_refuses_non_tensors(L):
    class SavesNumber(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3.0)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    assert _error(lambda: SavesNumber.apply(L.tensor(1.0, requires_grad=True))) == (
        TypeError, "save_for_backward can only save variables, but argument 1 is of type float")
    # nothing is recorded (no input requires grad, or grad mode is off): nothing is checked
    assert repr(SavesNumber.apply(L.tensor(127.0))) == "tensor(127.)"
    with L.no_grad():
        assert repr(SavesNumber.apply(L.tensor(2.0, requires_grad=True))) == "tensor(2.)"


def test_calling_an_instance_legacy_style(L):
    class MyFunction(L.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        my_function = MyFunction()
    assert [w.category for w in caught] == [DeprecationWarning]
    assert str(caught[0].message) == (
        f"{MyFunction} should not be instantiated. Methods on autograd functions are all static, so you "
        "should invoke them on the class itself. Instantiating an autograd function will raise an error in "
        "a future version of PyTorch.")
    assert _error(lambda: my_function(L.tensor(2.0))) == (
        RuntimeError, "Legacy autograd function with non-static forward method is deprecated. Please use "
        "new-style autograd function with static forward method. (Example: "
        "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


# ---------------------------------------------------------------- document 002's examples


def make_my_function(L):
    # 002 "백워드 훅 예제", as the document writes it
    class MyFunction(L.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            output = input * 2
            ctx.save_for_backward(input)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input = ctx.saved_tensors[0]  # noqa: F841 - the document reads it and does not use it
            grad_input = grad_output * 2
            return grad_input

    return MyFunction


def test_document_myfunction_corrected(L):
    MyFunction = make_my_function(L)
    input = L.tensor(2.0, requires_grad=True)
    output = MyFunction.apply(input)
    loss = output.pow(2).mean()
    loss.backward()
    # the document says "# 4.0": d(mean((2x)^2))/dx = 8x = 16 at x = 2, and PyTorch prints 16
    assert str(input.grad) == "tensor(16.)"
    assert str(output) == "tensor(4., grad_fn=<MyFunctionBackward>)"
    assert str(loss) == "tensor(16., grad_fn=<MeanBackward0>)"


def test_document_myfunction_without_requires_grad(L):
    MyFunction = make_my_function(L)
    output = MyFunction.apply(L.tensor(2.0))
    assert (str(output), output.requires_grad) == ("tensor(4.)", False)
    assert _error(lambda: output.pow(2).mean().backward()) == (
        RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn")


def test_document_gradient_clipping_corrected(L):
    class GradientClippingHook(L.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            output = input
            return output

        @staticmethod
        def backward(ctx, grad_output):
            grad_output = grad_output.clamp(-1, 1)
            return grad_output

    input = L.tensor(2.0, requires_grad=True)
    output = GradientClippingHook.apply(input)
    assert str(output) == "tensor(2., grad_fn=<GradientClippingHookBackward>)"
    output.pow(2).mean().backward()
    assert str(input.grad) == "tensor(1.)"  # 2x = 4, clamped to 1


def test_document_l2_regularization_corrected(L):
    class L2RegularizationHook(L.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            output = input
            ctx.save_for_backward(input)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input = ctx.saved_tensors[0]
            lambda_ = 0.01
            grad_input = grad_output + lambda_ * input
            return grad_input

    input = L.tensor(2.0, requires_grad=True)
    L2RegularizationHook.apply(input).pow(2).mean().backward()
    # 4 + 0.01 * 2 in float32 (the document's comment "less than 0" is wrong)
    assert str(input.grad) == "tensor(4.0200)"
    assert input.grad.item() == 4.019999980926514


@pytest.mark.no_sympy_check  # 2,000 nested backward calls
def test_reentrant_backward_two_thousand_deep(L):
    """A Function whose backward calls backward, nested 2,000 deep (PyTorch's engine hands a
    too-deep reentrant call to another thread; a Python stack would overflow at ~200)."""
    seen = []

    class R(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(L.is_grad_enabled())
            if ctx.depth == 0:
                return g * 2, None
            with L.enable_grad():
                t = L.ones(1, requires_grad=True)
                if ctx.depth % 2:
                    R.apply(t, ctx.depth - 1).sum().backward()
                    assert t.grad.tolist() == [2.0]
                else:
                    (gt,) = L.autograd.grad(R.apply(t, ctx.depth - 1).sum(), t)
                    assert gt.tolist() == [2.0]
            return g * 2, None

    x = L.ones(2, requires_grad=True)
    R.apply(x, 2000).sum().backward()
    assert (x.grad.tolist(), len(seen), any(seen)) == ([2.0, 2.0], 2001, False)

    class Fails(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if ctx.depth == 0:
                raise ValueError("deepest")
            with L.enable_grad():
                Fails.apply(L.ones(1, requires_grad=True), ctx.depth - 1).sum().backward()
            return g * 2, None

    with pytest.raises(ValueError, match="deepest"):
        Fails.apply(x, 500).sum().backward()


def test_backward_and_vjp_both_defined_is_refused_vjp_alone_is_used(L):
    class Both(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vjp(ctx, g):
            return g

    class VjpOnly(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def vjp(ctx, g):
            return g * 5

    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = Both.apply(x)
    assert y.tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match=r"^Implementing both 'backward' and 'vjp' for a custom Function is not "
                                           r"allowed\. You should only implement one of them\.$"):
        y.sum().backward()
    assert x.grad is None
    with pytest.raises(RuntimeError, match="Implementing both"):
        L.autograd.grad(Both.apply(x).sum(), x)
    VjpOnly.apply(x).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


@pytest.mark.parametrize("once", [False, True])
def test_a_gradient_that_does_not_expand_to_the_input_is_refused(L, once):
    """A backward returning a 0-dim gradient for a [2, 2, 1] input (or [3] for [2, 1]): the
    input's shape does not expand to it, so PyTorch's validate_outputs refuses it (a [1, 1]
    input does expand to [2, 1, 1]: summed down)."""
    def make(shape_of):
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return shape_of(g)
        if once:
            F.backward = staticmethod(L.autograd.function.once_differentiable(F.backward))
        return F

    x = L.ones(2, 2, 1, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Function FBackward returned an invalid gradient at index 0 - got \[\] "
                                           r"but expected shape compatible with \[2, 2, 1\]$"):
        make(lambda g: (g * 2).sum()).apply(x).sum().backward()
    y = L.ones(2, 1, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"got \[3\] but expected shape compatible with \[2, 1\]$"):
        make(lambda g: L.ones(3)).apply(y).sum().backward()
    z = L.ones(1, 1, requires_grad=True)
    make(lambda g: L.ones(2, 1, 1)).apply(z).sum().backward()
    assert z.grad.tolist() == [[2.0]]


@pytest.mark.parametrize("make", ["x.view(-1)", "x[0]", "x.clone().view(-1)", "x.t()"])
def test_a_view_made_in_forward_is_not_modified_in_place(L, make):
    """PyTorch marks an output of forward that is a view (of an input or of a tensor forward
    made) IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE beside another differentiable output, and
    refuses an in-place op on it."""
    class One(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return eval(make)

        @staticmethod
        def backward(ctx, g):
            return g

    class Two(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return eval(make), x * 2

        @staticmethod
        def backward(ctx, g, h):
            return g

    a = L.ones(2, 2, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match=r"^Output 0 of One is a view and is being modified inplace\. "
                                           r"This view was created inside a custom Function \(or because an input "
                                           r"was returned as-is\)"):
        One.apply(a).add_(1)
    v, w = Two.apply(a)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Two is a view and is being modified inplace\. "
                                           r"This view is the output of a function that returns multiple views"):
        v.mul_(2)
    w.add_(1)  # not a view
    assert w.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    leaf = L.ones(2, 2, requires_grad=True)  # the creation meta is checked before the view of a leaf
    with pytest.raises(RuntimeError, match=r"^Output 0 of One is a view and is being modified inplace\. This view "
                                           r"was created inside a custom Function"):
        One.apply(leaf).add_(1)


@pytest.mark.parametrize("several", [False, True])
def test_a_saved_output_changed_in_place_names_the_function(L, several):
    """A Function that saves its own output, changed in place afterwards: PyTorch's version
    error names the Function's node and the output's slot (the saved output keeps its node),
    not the in-place op that now heads the tensor; a saved input names its present node."""
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return (x * 2, r) if several else r

        @staticmethod
        def backward(ctx, *gs):
            (r,) = ctx.saved_tensors
            return gs[-1] * r

    class G(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    a = L.tensor([0.5, 1.0], requires_grad=True)
    out = F.apply(a)
    r = out[1] if several else out
    r += 2
    with pytest.raises(RuntimeError, match=r"\[torch\.FloatTensor \[2\]\], which is output "
                                           + ("1" if several else "0") + r" of F, is at version 1; expected version 0"):
        r.sum().backward()
    b = a * 1
    y = G.apply(b)
    b.mul_(2)
    with pytest.raises(RuntimeError, match=r"which is output 0 of Mul, is at version 1; expected version 0"):
        y.sum().backward()


def test_mark_dirty_of_a_non_input_and_saved_variables_warn(L):
    """PyTorch warns when forward marks dirty a tensor that is not an input (only while it
    records a graph), and when backward reads the deprecated ``saved_variables``."""
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_variables
            return g * x

    def caught(fn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn()
        return [(type(x.message).__name__, str(x.message).split(" (Triggered internally")[0]) for x in w]

    a = L.tensor([1.0, 3.0], requires_grad=True)
    box = []
    assert caught(lambda: box.append(F.apply(a))) == [
        ("UserWarning", "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                        "mutated should be passed to ctx.mark_dirty().")]
    assert caught(lambda: box[0].sum().backward()) == [
        ("DeprecationWarning", "'saved_variables' is deprecated; use 'saved_tensors'")]
    assert a.grad.tolist() == [1.0, 3.0]
    assert caught(lambda: F.apply(L.tensor([1.0]))) == []  # nothing recorded: no warning
