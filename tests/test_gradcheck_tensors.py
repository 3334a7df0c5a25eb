"""gradcheck / gradgradcheck on multi-element inputs: PyTorch's slow mode (whole Jacobians by
central differences, one backward call per output element), fast mode (random projections
drawn from a fresh generator) and their messages.

The hand-derived cases need no PyTorch; the torch_ref test runs the same calls side by side.
"""

from __future__ import annotations

import pytest

import scalargrad as torch
from scalargrad.autograd import GradcheckError, gradcheck, gradgradcheck


def make_scaled_square(lib):
    """x * x with a backward 5 % too big: the Jacobian is diag(2x), backward gives diag(2.1x)."""

    class ScaledSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a * 2.1

    return ScaledSquare


def test_whole_jacobian_is_compared_and_printed():
    w = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as err:
        gradcheck(make_scaled_square(torch).apply, (w,))
    # numerical: d(x_i^2)/dx_j = 2 x_i on the diagonal; analytical 2.1 x_i (the zeros off the
    # diagonal are g * a * 2.1 with g = 0 and a negative: -0.)
    assert str(err.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[ 1.0000,  0.0000,  0.0000],\n"
        "        [ 0.0000, -3.0000,  0.0000],\n"
        "        [ 0.0000,  0.0000,  4.0000]], dtype=torch.float64)\n"
        "analytical:tensor([[ 1.0500,  0.0000,  0.0000],\n"
        "        [-0.0000, -3.1500, -0.0000],\n"
        "        [ 0.0000,  0.0000,  4.2000]], dtype=torch.float64)\n")


def test_rows_are_input_elements_columns_output_elements():
    x = torch.tensor([[0.3, -0.7, 1.1], [0.2, 0.5, -0.4]], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as err:
        gradcheck(lambda a: make_scaled_square(torch).apply(a).sum(), (x,))
    # a 6 x 1 Jacobian: 2 x_i numerically, 2.1 x_i analytically
    assert str(err.value).splitlines()[1:3] == ["numerical:tensor([[ 0.6000],", "        [-1.4000],"]
    assert "analytical:tensor([[ 0.6300]," in str(err.value)


def test_correct_gradients_pass_with_several_inputs_and_outputs():
    x = torch.tensor([[0.3, -0.7, 1.1], [0.2, 0.5, -0.4]], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda a, b: ((a * b).tanh(), a.exp(), (a @ b).sin()), (x, w))
    assert gradcheck(lambda a, b: (a * b).sin().sum(1), (x, w), fast_mode=True)
    assert gradgradcheck(lambda a, b: (a * b).sin().sum(1), (x, w))
    assert gradgradcheck(lambda a, b: (a @ b).sin(), (x, w), fast_mode=True)


def test_inputs_are_restored_and_versions_untouched():
    x = torch.tensor([0.25, 0.5], dtype=torch.float64, requires_grad=True)
    v = x._version
    gradcheck(lambda a: a.exp(), (x,))
    assert x.tolist() == [0.25, 0.5] and x._version == v


def test_failure_returns_false_without_raise():
    w = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    assert gradcheck(make_scaled_square(torch).apply, (w,), raise_exception=False) is False


def test_expanded_input_is_refused():
    x = torch.tensor([0.5], dtype=torch.float64, requires_grad=True).expand(3)
    with pytest.raises(RuntimeError, match="^The 0th input has a dimension with stride 0"):
        gradcheck(lambda a: a * 2, (x,))


def _outcome(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except RuntimeError as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("case", ["two_inputs", "tuple_outputs", "bad_slow", "bad_sum", "bad_fast", "fast",
                                  "gradgrad", "gradgrad_fast", "gradgrad_random", "float32"])
def test_matches_pytorch(torch_ref, case):
    def run(lib):
        x = lib.tensor([[0.3, -0.7, 1.1], [0.2, 0.5, -0.4]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
        f32 = lib.tensor([0.5, 0.25], requires_grad=True)
        bad = make_scaled_square(lib).apply
        gc, ggc = lib.autograd.gradcheck, lib.autograd.gradgradcheck
        if case == "gradgrad_random":
            lib.manual_seed(0)  # the grad_outputs are drawn from the global generator
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {
                "two_inputs": lambda: _outcome(gc, lambda a, b: (a * b).sin().sum(1), (x, w)),
                "tuple_outputs": lambda: _outcome(gc, lambda a, b: ((a * b).tanh(), a.exp()), (x, w)),
                "bad_slow": lambda: _outcome(gc, bad, (w,)),
                "bad_sum": lambda: _outcome(gc, lambda a: bad(a).sum(), (x,)),
                "bad_fast": lambda: _outcome(gc, bad, (w,), fast_mode=True),
                "fast": lambda: _outcome(gc, lambda a, b: (a * b).sin().sum(1), (x, w), fast_mode=True),
                "gradgrad": lambda: _outcome(ggc, lambda a, b: (a * b).sin().sum(1), (x, w)),
                "gradgrad_fast": lambda: _outcome(ggc, lambda a, b: (a * b).sum(), (x, w), fast_mode=True),
                "gradgrad_random": lambda: _outcome(ggc, lambda a, b: (a * b) ** 3, (x, w)),
                "float32": lambda: _outcome(gc, lambda a: a * a * a, (f32,)),
            }[case]()

    ours, theirs = run(torch), run(torch_ref)
    if case == "bad_fast":
        # fast mode prints the projections in full: sums of products and a norm whose last bits
        # depend on the order PyTorch's kernels add in (the figures agree to 1e-12)
        from tests.test_gradcheck import same_message

        assert ours[0] == theirs[0] and same_message(ours[1], theirs[1], tol=1e-12)
    else:
        assert ours == theirs
