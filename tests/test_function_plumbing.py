"""Custom autograd.Function plumbing as PyTorch 2.13 has it: new-style forward + setup_context,
mark_non_differentiable, set_materialize_grads, mark_dirty, save_for_backward's version check,
saved_tensors after backward, needs_input_grad, once_differentiable, non-tensor outputs, the
same tensor returned twice, trailing None gradients, an input returned as is, plain numbers,
output_nr, Parameter() without data."""

from __future__ import annotations

import warnings

import pytest

import scalargrad as torch

VERSION = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
           "[torch.FloatTensor [2]], which is output 0 of Mul, is at version 1; expected version 0 instead. Hint: "
           "enable anomaly detection to find the operation that failed to compute its gradient, with "
           "torch.autograd.set_detect_anomaly(True, check_nan=False).")


class Scale(torch.autograd.Function):
    """New style: forward without ctx, setup_context saves."""

    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_new_style_and_ctx_attributes_on_grad_fn():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    assert y.grad_fn.k == 3.0 and y.grad_fn.name() == "ScaleBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert Scale.apply(2.0, 4.0) == 8.0  # plain numbers: forward's result as is


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


@pytest.mark.no_sympy_check  # forward changes the clone's result in place, as mark_dirty Functions do
def test_mark_dirty_returns_the_input_itself():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in an in-place"):
        Double.apply(x)
    assert x.tolist() == [2.0, 4.0]  # forward ran before the refusal, as in PyTorch
    h = x.clone()
    r = Double.apply(h)
    assert r is h and h.tolist() == [4.0, 8.0] and h._version == 2  # mul_, then mark_dirty
    assert h.grad_fn.name() == "DoubleBackward"
    r.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]  # d(2 * clone(x))/dx; the clone passes it on


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


@pytest.mark.no_sympy_check  # the saved input changes on purpose
def test_saved_tensors_version_check_and_second_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = Square.apply(h)
    with torch.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError) as err:
        y.sum().backward()
    assert str(err.value) == VERSION
    y = Square.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        _ = y.grad_fn.saved_tensors


class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        assert not torch.is_grad_enabled()
        return g * 3


def test_once_differentiable():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = torch.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
    assert gx.tolist() == [3.0, 3.0] and not gx.requires_grad  # ones that do not require grad
    go = torch.tensor(1.0, requires_grad=True)
    (gx,) = torch.autograd.grad(Once.apply(x).sum(), x, go, create_graph=True)
    assert repr(gx) == "tensor([3., 3.], grad_fn=<Error>)"
    assert gx.grad_fn.name() == "torch::autograd::Error"
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was marked with "
                                           "@once_differentiable$"):
        gx.sum().backward()


def test_outputs_and_gradient_slots():
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return y, y, "label"

        @staticmethod
        def backward(ctx, g1, g2, g3):
            assert g3 is None  # a non-tensor output has no gradient slot
            return g1 * 2 + g2 * 2, None, None  # trailing Nones are accepted

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    p, q, label = Twice.apply(x)
    assert p is q and p.output_nr == 1 and label == "label"
    (p.sum() + 10 * q.sum()).backward()  # both gradients reach the last place: 11 * 2
    assert x.grad.tolist() == [22.0, 22.0]


def test_input_returned_as_is_is_a_view():
    class Identity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and y._base is x and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_empty_parameter():
    p = torch.nn.Parameter()
    assert repr(p) == "Parameter containing:\ntensor([], requires_grad=True)" and p.shape == (0,)


@pytest.mark.no_sympy_check  # the program changes saved tensors in place on purpose
def test_matches_pytorch(torch_ref):
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location("function_cases", pathlib.Path(__file__).parent / "function_cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    ours, theirs = cases.run(torch), cases.run(torch_ref)
    assert [str(o) for o in ours] == [str(o) for o in theirs]


def _inplace_add(L):
    """PyTorch's old InplaceFunction base: marks its first input dirty and adds the second into it."""

    class Inplace(L.autograd.function.InplaceFunction):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            return a.add_(b), b + 2

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return grad_a, grad_a + grad_b

    x = L.tensor([1.0, 2.0])
    y = L.tensor([0.5, -1.0], requires_grad=True)
    q, p = Inplace.apply(x, y)
    facts = [q is x, q.grad_fn.__class__ is Inplace._backward_cls, Inplace._backward_cls.__name__,
             Inplace._backward_cls.__module__, q.requires_grad, q.tolist(), p.tolist(),
             _made(Inplace)]
    (q.sum() * 3).backward()
    return facts + [y.grad.tolist()]


def _made(cls) -> tuple:
    """An instance's ``inplace`` flag and the deprecation warning that making one gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        flag = cls(inplace=True).inplace
    return flag, [(w.category.__name__, str(w.message).split("'>", 1)[1]) for w in caught]


def test_inplace_function_and_the_backward_class_by_hand():
    # q = x + y, written into x; d(3 * sum(q))/dy = 3 through grad_a (grad_b is zero-filled)
    made = (True, [("DeprecationWarning", " should not be instantiated. Methods on autograd functions are all "
                    "static, so you should invoke them on the class itself. Instantiating an autograd function "
                    "will raise an error in a future version of PyTorch.")])
    assert _inplace_add(torch) == [True, True, "InplaceBackward", "torch.autograd.function", True, [1.5, 1.0],
                                   [2.5, 1.0], made, [3.0, 3.0]]


def test_inplace_function_and_the_backward_class_match_pytorch(torch_ref):
    assert _inplace_add(torch) == _inplace_add(torch_ref)


def _non_diff_grads(L, materialize_non_diff, materialize=True):
    """What backward receives for a non-differentiable output's gradient."""
    seen = []

    class Func(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out0, out1 = x.clone(), x.clone()
            ctx.mark_non_differentiable(out1)
            ctx.set_materialize_grads(materialize)
            if materialize_non_diff is not None:
                ctx._materialize_non_diff_grads = materialize_non_diff
            return out0, out1

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(None if g1 is None else g1.tolist())
            return g0 * 3

    a = L.tensor([1.0, 2.0], requires_grad=True)
    Func.apply(a)[0].sum().backward()
    return seen + [a.grad.tolist()]


MATERIALIZE = [(None, True), (False, True), (True, True), (True, False)]


@pytest.mark.parametrize("materialize_non_diff,materialize", MATERIALIZE)
def test_materialize_non_diff_grads_by_hand(materialize_non_diff, materialize):
    # zeros for the non-differentiable output unless either switch is off; d(3 sum a)/da = 3
    expected = [[0.0, 0.0] if materialize and materialize_non_diff is not False else None, [3.0, 3.0]]
    assert _non_diff_grads(torch, materialize_non_diff, materialize) == expected


@pytest.mark.parametrize("materialize_non_diff,materialize", MATERIALIZE)
def test_materialize_non_diff_grads_match_pytorch(torch_ref, materialize_non_diff, materialize):
    assert _non_diff_grads(torch, materialize_non_diff, materialize) == \
        _non_diff_grads(torch_ref, materialize_non_diff, materialize)


def _undefined_grads(L, materialize: bool) -> list:
    """A custom Function behind a node that sends it an undefined gradient (UndefinedGrad, or
    another Function whose backward returns None): PyTorch still runs its backward, on zeros
    unless it set_materialize_grads(False); a tensor hook on the way sees None."""
    seen = []

    class Mine(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            seen.append(None if grad is None else grad.tolist())
            return grad

    class Drop(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return None

    x = L.ones(2, requires_grad=True)
    out = L._C._functions.UndefinedGrad()(Mine.apply(x))
    seen += [out.tolist(), out.grad_fn.name(), type(out.grad_fn).__name__]
    out.sum().backward()
    seen.append(None if x.grad is None else x.grad.tolist())
    y = Mine.apply(x) * 2
    y.register_hook(lambda g: seen.append(("hook", g)))
    Drop.apply(y).sum().backward()
    seen.append(x.grad.tolist() if x.grad is not None else None)
    seen.append(L._C._functions.UndefinedGrad()(L.ones(2)).grad_fn)
    return seen


@pytest.mark.parametrize("materialize", [True, False])
def test_undefined_gradient_still_runs_custom_backward_by_hand(materialize):
    # Mine's backward runs twice, given zeros (or None); its zeros reach x.grad, its None does not
    got = [0.0, 0.0] if materialize else None
    expected = [[1.0, 1.0], "torch::autograd::UndefinedGradBackward", "UndefinedGradBackward", got, got,
                ("hook", None), got, got, None]
    assert _undefined_grads(torch, materialize) == expected


def test_undefined_gradient_matches_pytorch(torch_ref):
    for materialize in (True, False):
        assert _undefined_grads(torch, materialize) == _undefined_grads(torch_ref, materialize)


def test_undefined_grad_takes_one_tensor():
    with pytest.raises(TypeError, match="^expected 1 arguments, got 2 instead$"):
        torch._C._functions.UndefinedGrad()(torch.ones(1), torch.ones(1))


def _prehook_with_a_number_output(L) -> list:
    """A Function returning (tensor, number, tensor): its node's pre-hooks see three gradients,
    None for the number, and may replace the tensors' (PyTorch's test_grad_fn_prehooks_multiple_outputs)."""
    seen = []

    class Scale3(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.k = k
            return x * k, k, y * k

        @staticmethod
        def backward(ctx, g1, gk, g2):
            return g1 * ctx.k, None, g2 * ctx.k

    def prehook(grads):
        seen.append([None if g is None else g.tolist() for g in grads])
        return (grads[0] * 2, None, grads[2] * 10)

    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0], requires_grad=True)
    c, _, d = Scale3.apply(a, 3, b)
    c.grad_fn.register_prehook(prehook)
    (c + d).sum().backward()
    return seen + [a.grad.tolist(), b.grad.tolist()]


def test_prehook_sees_a_number_outputs_slot_by_hand():
    # c's gradient is ones, d's (broadcast over c's two elements) is [2]; the hook doubles the
    # first and multiplies the other by 10, then backward multiplies by k = 3
    assert _prehook_with_a_number_output(torch) == [[[1.0, 1.0], None, [2.0]], [6.0, 6.0], [60.0]]


def test_prehook_sees_a_number_outputs_slot_as_pytorch(torch_ref):
    assert _prehook_with_a_number_output(torch) == _prehook_with_a_number_output(torch_ref)


def _graph_desc(fn) -> str:
    if fn is None:
        return "None"
    return type(fn).__name__ + "(" + ", ".join(_graph_desc(f) for f, _ in fn.next_functions) + ")"


def _once_differentiable_three_grads(L) -> list:
    """A once_differentiable backward returning (tensor, None, tensor) under create_graph: one
    Error node takes all three (None listed as such), each gradient an output of it; a second
    differentiation raises."""

    class Affine(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b):
            ctx.k = k
            ctx.save_for_backward(a, b)
            return a + k * b + a * b

        @staticmethod
        @L.autograd.function.once_differentiable
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g + g * b, None, g * ctx.k + g * a

    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0, 4.0], requires_grad=True)
    seed = L.tensor(1.0, requires_grad=True)  # a gradient that requires grad: the Error node is made
    ga, gb = L.autograd.grad(Affine.apply(a, 2, b).sum(), (a, b), seed, create_graph=True)
    seen = [ga.tolist(), gb.tolist(), _graph_desc(ga.grad_fn), ga.grad_fn is gb.grad_fn, ga.requires_grad]
    try:
        (ga + gb).sum().backward()
    except RuntimeError as exc:
        seen.append(str(exc))
    return seen


def test_once_differentiable_error_node_takes_every_gradient_by_hand():
    # d/da (a + 2b + ab) = 1 + b = [4, 5]; d/db = 2 + a = [3, 4]
    assert _once_differentiable_three_grads(torch) == [
        [4.0, 5.0], [3.0, 4.0], "Error(AccumulateGrad(), None, AccumulateGrad())", True, True,
        "trying to differentiate twice a function that was marked with @once_differentiable"]


def test_once_differentiable_error_node_is_pytorchs(torch_ref):
    assert _once_differentiable_three_grads(torch) == _once_differentiable_three_grads(torch_ref)


def _hooks_across_an_inplace_change_of_an_output(L) -> list:
    """A hook on an output of a two-output node (a Function's, var_mean's), registered before
    the output is changed in place, stays with the version it was registered on: it runs with
    the gradient reaching the node (and may replace it), after a hook registered since."""
    seen = []

    class Twice(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    for fn in (Twice.apply, lambda b: L.var_mean(b, dim=0)):
        b = L.tensor([[1.0, 2.0], [4.0, 8.0]], requires_grad=True)
        out1, out2 = fn(b)
        out1.register_hook(lambda g: [seen.append(("old", g.tolist()))] and g * 10)
        out2.register_hook(lambda g: seen.append(("second", g.tolist())))
        out1.mul_(2)
        out1.register_hook(lambda g: seen.append(("new", g.tolist())))
        (out1 + out2 * 3).sum().backward()
        seen.append(b.grad.tolist())
    return seen


def test_hooks_across_an_inplace_change_of_an_output_by_hand():
    # out1's old version gets 2 (mul_(2)'s backward), replaced by 20: Twice gives 20 * 2 + 3 * 3 = 49;
    # var_mean over dim 0 (columns [1, 4] and [2, 8], n = 2): 20 * 2 (x - mean) + 3 / 2, with
    # x - mean = -1.5, 1.5 and -3, 3
    seen = _hooks_across_an_inplace_change_of_an_output(torch)
    order = [s[0] for s in seen if isinstance(s, tuple)]
    assert order == ["new", "old", "second"] * 2
    assert seen[3] == [[49.0, 49.0], [49.0, 49.0]]
    assert seen[7] == [[-58.5, -118.5], [61.5, 121.5]]


def test_hooks_across_an_inplace_change_of_an_output_are_pytorchs(torch_ref):
    assert _hooks_across_an_inplace_change_of_an_output(torch) == \
        _hooks_across_an_inplace_change_of_an_output(torch_ref)


def _gradient_for_an_input_without_grad(L) -> list:
    # a gradient returned for an input that does not require grad is dropped unchecked, whatever
    # its shape (validate_outputs skips an invalid edge; was "returned an invalid gradient":
    # fuzz functions:12041:340)
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return (g * 2).sum(), g.double()

    x = L.tensor([-1.25, 0.75, -1.75])
    y = L.tensor([2.5, -3.0, -0.25], requires_grad=True)
    F.apply(x * 1, y).sum().backward(create_graph=True)
    return [x.grad, y.grad.dtype, y.grad.tolist()]


def test_a_gradient_for_an_input_without_grad_is_dropped(torch_ref):
    got, want = _gradient_for_an_input_without_grad(torch), _gradient_for_an_input_without_grad(torch_ref)
    assert got[0] is None and want[0] is None and got[2] == want[2] and str(got[1]) == str(want[1])
