"""autograd.gradcheck / gradgradcheck: PyTorch 2.13's checks, defaults and messages.

The hard-coded messages were printed by PyTorch 2.13.0 running the same functions; the
torch_ref tests rerun them side by side.
"""

from __future__ import annotations

import re
import warnings

import pytest

import scalargrad as torch
from scalargrad.autograd import GradcheckError, gradcheck, gradgradcheck


def double(v, requires_grad=True):
    return torch.tensor(v, dtype=torch.float64, requires_grad=requires_grad)


def make_functions(lib):
    """The same custom Functions written against scalargrad or PyTorch."""

    class Bad(lib.autograd.Function):  # derivative 1 % too big
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * 1.01

    class Detached(lib.autograd.Function):  # right gradient, wrong double backward
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.detach().cos()

    class Ignores(lib.autograd.Function):  # right Jacobian, ignores grad_output
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return lib.ones_like(g) * 2

    return Bad, Detached, Ignores


Bad, Detached, Ignores = make_functions(torch)

BAD_MESSAGE = ("Jacobian mismatch for output 0 with respect to input 0,\n"
               "numerical:tensor([[0.7648]], dtype=torch.float64)\n"
               "analytical:tensor([[0.7725]], dtype=torch.float64)\n")


def test_passes_on_correct_gradients():
    x, y = double(0.7), double(0.2)
    assert gradcheck(lambda a, b: (a * b).sin() + a.exp() / b, (x, y)) is True
    assert gradcheck(lambda a: a * 2, x) is True  # a lone tensor is accepted
    assert gradcheck(lambda a, c: a * c, (x, 3.0)) is True  # non-tensor arguments pass through


def test_mismatch_message_is_pytorchs():
    with pytest.raises(GradcheckError) as err:
        gradcheck(Bad.apply, (double(0.7),))
    assert str(err.value) == BAD_MESSAGE
    assert isinstance(err.value, RuntimeError)
    assert gradcheck(Bad.apply, (double(0.7),), raise_exception=False) is False


def test_mismatch_names_the_output_and_input():
    def two(a, b):
        return a * b, a + b.exp() * Bad.apply(a)

    with pytest.raises(GradcheckError) as err:
        gradcheck(two, (double(0.7), double(0.2)))
    assert str(err.value) == ("Jacobian mismatch for output 1 with respect to input 0,\n"
                              "numerical:tensor([[1.9342]], dtype=torch.float64)\n"
                              "analytical:tensor([[1.9435]], dtype=torch.float64)\n")


def same_message(got: str, want: str, tol: float = 1e-9) -> bool:
    """The same text, and numbers within ``tol``. The fast-mode message prints float64 figures in
    full: the central difference (f(x + 1e-6) - f(x - 1e-6)) / 2e-6 turns 1 ulp of sin (the
    platform libm in scalargrad, MKL in PyTorch: both machine-dependent in the last bit) into
    1e-16 / 1e-6 = 1e-10."""
    number = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")
    if number.sub("#", got) != number.sub("#", want):
        return False
    return all(abs(float(a) - float(b)) <= tol for a, b in zip(number.findall(got), number.findall(want)))


def test_fast_mode_message():
    with pytest.raises(GradcheckError) as err:
        gradcheck(Bad.apply, (double(0.7),), fast_mode=True)
    assert same_message(str(err.value), (
        "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:0.7648421873063249\n"
        "analytical:0.7724906091573334\n\nThe above quantities relating the numerical and analytical "
        "jacobians are computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for "
        "more background \nabout fast mode. Below, we recompute numerical and analytical jacobians in slow "
        "mode:\n\nNumerical:\n tensor([[0.7648]], dtype=torch.float64)\nAnalytical:\ntensor([[0.7725]], "
        "dtype=torch.float64)\n\nThe max per-element difference (slow mode) is: 0.007648421851008447.\n"))


def test_float32_inputs_warn_and_use_float32_differences():
    x = torch.tensor(0.5, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(GradcheckError) as err:
            gradcheck(lambda t: t * t * t, (x,))
    # PyTorch 2.13: the central difference is taken in float32 (0.76, not 0.75)
    assert str(err.value) == ("Jacobian mismatch for output 0 with respect to input 0,\n"
                              "numerical:tensor([[0.7600]])\nanalytical:tensor([[0.7500]])\n")
    assert [str(w.message) for w in caught] == [
        "Input #0 requires gradient and is not a double precision floating point or complex. This check "
        "will likely fail if all the inputs are not of double precision floating point or complex. "]
    assert caught[0].category is UserWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda t: t * t * t, (x,), eps=1e-2, atol=1e-2)


def test_infinite_and_nan_jacobians_fail():
    with pytest.raises(GradcheckError) as err:
        gradcheck(lambda t: t.sqrt(), (double(0.0),))
    assert "numerical:tensor([[nan]], dtype=torch.float64)\nanalytical:tensor([[inf]], dtype=torch.float64)" \
        in str(err.value)


def test_bad_inputs_and_outputs():
    with pytest.raises(ValueError, match="^gradcheck expects at least one input tensor to require gradient, "
                                         "but none of them have requires_grad=True.$"):
        gradcheck(lambda t: t * 2, (double(0.3, requires_grad=False),))
    with pytest.raises(GradcheckError, match="^Numerical gradient for function expected to be zero$"):
        gradcheck(lambda t: t.detach() * 2, (double(0.7),))
    assert gradcheck(lambda t: t * t, (double(0.7),), check_forward_ad=True)  # forward mode: slow mode only
    with pytest.raises(NotImplementedError, match="fast_mode=True"):
        gradcheck(lambda t: t, (double(0.7),), check_forward_ad=True, fast_mode=True)


def test_backward_must_scale_with_grad_output():
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output$"):
        gradcheck(Ignores.apply, (double(0.5),))


def test_gradgradcheck():
    x, y = double(0.7), double(0.2)
    assert gradgradcheck(lambda a, b: (a * b).sin() + a.exp() * b.tanh(), (x, y)) is True
    with pytest.raises(GradcheckError) as err:
        gradgradcheck(Detached.apply, (x,), grad_outputs=(double(0.5),))
    assert str(err.value) == ("Jacobian mismatch for output 0 with respect to input 0,\n"
                              "numerical:tensor([[-0.3221]], dtype=torch.float64)\n"
                              "analytical:tensor([[0.]], dtype=torch.float64)\n")
    # the first-order check cannot see it
    assert gradcheck(Detached.apply, (x,))


def _outcome(lib, check, fn, args, **kw):
    try:
        return check(fn, args, **kw)
    except RuntimeError as exc:  # GradcheckError
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("case", ["bad", "bad_fast", "detached_gradgrad", "ignores", "good", "good_gradgrad"])
def test_outcomes_match_pytorch(torch_ref, case):
    def run(lib):
        bad, detached, ignores = make_functions(lib)
        x = lib.tensor(0.7, dtype=lib.float64, requires_grad=True)
        go = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        gc, ggc = lib.autograd.gradcheck, lib.autograd.gradgradcheck
        return {
            "bad": lambda: _outcome(lib, gc, bad.apply, (x,)),
            "bad_fast": lambda: _outcome(lib, gc, bad.apply, (x,), fast_mode=True),
            "detached_gradgrad": lambda: _outcome(lib, ggc, detached.apply, (x,), grad_outputs=(go,)),
            "ignores": lambda: _outcome(lib, gc, ignores.apply, (x,)),
            "good": lambda: _outcome(lib, gc, lambda a: (a * a).sin() * a.exp(), (x,)),
            "good_gradgrad": lambda: _outcome(lib, ggc, lambda a: (a * a).sin() * a.exp(), (x,)),
        }[case]()

    ours, theirs = run(torch), run(torch_ref)
    if case == "bad_fast":  # full-precision float64 figures of a central difference of sin
        assert ours[0] == theirs[0] and same_message(ours[1], theirs[1])
    else:
        assert ours == theirs


def test_the_jacobian_comparison_of_doubles_is_atens_isclose_element_by_element():
    """gradcheck's comparison of two float64 Jacobians (a C-level pass first, the element loop
    where that pass cannot decide) against ATen's isclose written out: equal values (infinities
    included) are close, nan never is, otherwise |a - b| <= atol + rtol |b| with a finite
    difference."""
    import math
    import random

    from scalargrad._autograd.gradcheck import _allclose

    def isclose(x, y, rtol, atol):
        if x == y:
            return True
        err = abs(x - y)
        return math.isfinite(err) and err <= atol + rtol * abs(y)

    rng = random.Random(5)
    edges = [0.0, -0.0, 1.0, 1.0 + 1e-9, math.inf, -math.inf, math.nan, 1e308, -1e308, 5e-324]
    for _ in range(3000):
        n = rng.randint(0, 4)
        a = [rng.choice(edges) if rng.random() < 0.3 else rng.gauss(0, 1) for _ in range(n)]
        b = [x if rng.random() < 0.4 else x + rng.choice([1e-7, 1e-3, 0.5, math.inf, -1e308]) for x in a]
        rtol, atol = rng.choice([(1e-3, 1e-5), (0.0, 0.0), (1e-3, math.inf), (-1.0, 0.0), (0.0, -1.0)])
        want = all(isclose(x, y, rtol, atol) for x, y in zip(a, b))
        assert _allclose(a, b, rtol, atol, torch.float64) is want, (a, b, rtol, atol)


def _undefined_grad_outcome(L, fast_mode: bool) -> tuple:
    """gradcheck's undefined-gradient check: the function's output goes through UndefinedGrad, so
    the hook on it receives None, and here refuses it."""

    def fn(x):
        def hook(g):
            if g is None:
                raise RuntimeError("x is undefined")

        y = x.clone()
        y.register_hook(hook)
        return y

    x = L.ones(1, dtype=L.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            L.autograd.gradcheck(fn, (x,), fast_mode=fast_mode)
            message = None
        except RuntimeError as exc:
            message = (type(exc).__name__, str(exc))
        quiet = L.autograd.gradcheck(fn, (x,), raise_exception=False, fast_mode=fast_mode)
    return message, quiet, sorted({str(w.message)[:60] for w in caught})


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_runs_the_undefined_grad_check(fast_mode):
    message, quiet, warned = _undefined_grad_outcome(torch, fast_mode)
    assert message == ("GradcheckError", 'Expected backward function to handle undefined output grads. Please look '
                       'at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"')
    assert quiet is False
    assert warned == ["Backwards compatibility: New undefined gradient support chec"]


def test_gradcheck_undefined_grad_check_matches_pytorch(torch_ref):
    for fast_mode in (False, True):
        assert _undefined_grad_outcome(torch, fast_mode) == _undefined_grad_outcome(torch_ref, fast_mode)


def _perturbed_outcomes(lib) -> list:
    # PyTorch's own test_gradcheck_output_shape_or_dtype_depend_on_values: an output whose shape
    # or dtype changes across the perturbation is an AssertionError naming the shapes/dtypes
    def shape_flips(x):
        return lib.cat([x, x]) if lib.all(x >= 1) else x

    def dtype_flips(x):
        return x.to(lib.float32) if lib.all(x >= 1) else x

    a = lib.ones(1, dtype=lib.double, requires_grad=True)
    got = []
    for f in (shape_flips, dtype_flips):
        for fast_mode in (True, False):
            with pytest.raises(AssertionError) as e:
                lib.autograd.gradcheck(f, (a,), fast_mode=fast_mode)
            got.append(str(e.value))
    return got


def test_outputs_whose_shape_or_dtype_depend_on_the_perturbation_match_pytorch(torch_ref):
    assert _perturbed_outcomes(torch) == _perturbed_outcomes(torch_ref)


def _deprecated_jacobians(lib) -> list:
    # PyTorch's own test_gradcheck_get_numerical_jacobian / _get_analytical_jacobian, imported
    # from the module torch.autograd.gradcheck (the attribute stays the function)
    import importlib

    mod = importlib.import_module(lib.__name__ + ".autograd.gradcheck")
    gen = lib.Generator().manual_seed(0)
    a = lib.rand(2, 2, dtype=lib.float64, generator=gen).requires_grad_()
    b = lib.rand(2, 2, dtype=lib.float64, generator=gen).requires_grad_()
    got = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        num_a = mod.get_numerical_jacobian(lambda t: (2 * t[0] + t[1], t[0] + 2 * t[1]), (a, b), target=a, eps=1e-6)
        num = mod.get_numerical_jacobian(lambda t: (2 * t[0] + t[1], t[0] + 2 * t[1]), (a, b), eps=1e-6)
        jac, reentrant, sizes_ok, types_ok = mod.get_analytical_jacobian((a, b), 2 * a + b)
    got.append([(x.category.__name__, str(x.message)[:40]) for x in w])
    got.append([tuple(j.shape) for j in num_a + num + jac])
    got.append([[round(v, 6) for row in j.tolist() for v in row] for j in num_a + num])
    got.append(([j.tolist() for j in jac], reentrant, sizes_ok, types_ok, str(jac[0].dtype)))
    with warnings.catch_warnings(), pytest.raises(ValueError, match="Expected grad_out to be 1.0"):
        warnings.simplefilter("ignore", FutureWarning)
        mod.get_numerical_jacobian(lambda t: t[0], (a,), eps=1e-6, grad_out=2.0)
    got.append(callable(lib.autograd.gradcheck) and issubclass(mod.GradcheckError, RuntimeError))
    return got


def test_deprecated_jacobian_helpers_match_pytorch(torch_ref):
    assert _deprecated_jacobians(torch) == _deprecated_jacobians(torch_ref)
