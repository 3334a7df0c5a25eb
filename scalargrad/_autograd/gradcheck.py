"""``torch.autograd.gradcheck`` and ``gradgradcheck`` on scalars.

Each input that requires grad is nudged by ``eps`` both ways (in its own dtype, as PyTorch
writes ``orig - eps`` into the tensor) and the central difference ``(f(x+eps) - f(x-eps)) /
(2 eps)``, computed in the output's dtype, is compared with what ``autograd.grad`` returns,
with ``allclose``: ``|analytical - numerical| <= atol + rtol * |numerical|``. The defaults and
messages are PyTorch 2.13's; like PyTorch, the check warns about inputs that are not float64,
for which the defaults are too tight. Every Jacobian is 1 x 1 here, so fast mode (which
projects on random unit vectors) computes the same numbers as slow mode and only words its
failure differently. There is no forward-mode AD and no vmap: ``check_forward_ad`` and
``check_batched_grad`` are refused.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable

from .._base.dtypes import TensorType, float64
from .._base.formatting import tensor_repr
from .._tensor.tensor import Tensor as Value
from .._tensor.tensor import get_default_dtype, leaf

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient check failed (PyTorch's ``torch.autograd.gradcheck.GradcheckError``)."""


_NOT_DOUBLE = ("Input #{idx} requires gradient and is not a double precision floating point or complex. "
               "This check will likely fail if all the inputs are not of double precision floating point "
               "or complex. ")
_NO_INPUT = ("gradcheck expects at least one input tensor to require gradient, but none of them have "
             "requires_grad=True.")
_FAST_MODE = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
    "Numerical:\n {numerical}\nAnalytical:\n{analytical}\n\n"
    "The max per-element difference (slow mode) is: {diff}.\n"
)
_FAST_FAIL_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()
_UNDEFINED_BC = ("Backwards compatibility: New undefined gradient support checking feature is enabled by "
                 "default, but it may break existing callers of this function. If this is true for you, you "
                 'can call this function with "check_undefined_grad=False" to disable the feature')
_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
    "gives different values, although analytical gradient matches numerical gradient."
    "The tolerance for nondeterminism was {tol}.\n\n"
    "NOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n"
)


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable(outputs: tuple) -> tuple:
    return tuple(o for o in outputs if isinstance(o, Value) and o._rg)


def _jacobian(x: float, dtype) -> str:
    """A 1 x 1 Jacobian as PyTorch prints it: ``tensor([[0.7648]], dtype=torch.float64)``."""
    return tensor_repr([x], (1, 1), dtype, default_dtype=get_default_dtype())


def _allclose(a: float, n: float, rtol: float, atol: float) -> bool:
    if a == n:  # equal infinities too
        return True
    if math.isnan(a) or math.isnan(n) or math.isinf(a) or math.isinf(n):
        return False
    return abs(a - n) <= atol + rtol * abs(n)


def _check_inputs(inputs: tuple) -> None:
    found = False
    for idx, x in enumerate(inputs):
        if isinstance(x, Value) and x._rg:
            if x._t.dtype is not float64:
                warnings.warn(_NOT_DOUBLE.format(idx=idx), UserWarning, stacklevel=4)
            found = True
    if not found:
        raise ValueError(_NO_INPUT)


def _numerical(func, inputs: tuple, eps: float) -> list:
    """``[input][output]`` central differences (every output, as PyTorch computes them)."""
    columns = []
    for x in inputs:
        if not (isinstance(x, Value) and x._rg):
            continue
        orig = x._val
        rnd = x._t.dtype.round
        x._val = rnd(orig - eps)
        outa = _as_tuple(func(*inputs))
        x._val = rnd(orig + eps)
        outb = _as_tuple(func(*inputs))
        x._val = orig
        col = []
        for a, b in zip(outa, outb):
            if not isinstance(a, Value):
                col.append(None)
                continue
            r = a._t.dtype.round
            col.append(r(_div(r(b._val - a._val), 2 * eps)))
        columns.append(col)
    return columns


def _div(a: float, b: float) -> float:
    from .._base.ieee import div

    return div(a, b)


def _analytical(output: Value, diff_inputs: list) -> list:
    from .api import grad

    one = leaf(1.0, output._t)
    got = grad(output, diff_inputs, one, retain_graph=True, allow_unused=True)
    return [0.0 if g is None else g._val for g in got]


def _slow_or_fast(func, func_out: tuple, inputs: tuple, eps: float, rtol: float, atol: float,
                  nondet_tol: float, fast_mode: bool) -> None:
    outputs = _differentiable(func_out)
    numerical = _numerical(func, inputs, eps)
    if not outputs:
        for col in numerical:
            if any(n is not None and n != 0 for n in col):
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    diff_inputs = [x for x in inputs if isinstance(x, Value) and x._rg]
    keep = [k for k, o in enumerate(func_out) if isinstance(o, Value) and o._rg]
    for i, o in enumerate(outputs):
        first = _analytical(o, diff_inputs)
        again = _analytical(o, diff_inputs)
        if any(not (abs(a - b) <= nondet_tol) and not (a == b) for a, b in zip(first, again)):
            raise GradcheckError(_NOT_REENTRANT.format(tol=nondet_tol))
        for j, (x, a) in enumerate(zip(diff_inputs, first)):
            n = numerical[j][keep[i]]
            if _allclose(a, n, rtol, atol):
                continue
            n_text, a_text = _jacobian(n, o._t.dtype), _jacobian(a, x._t.dtype)
            head = f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
            if not fast_mode:
                raise GradcheckError(head + f"numerical:{n_text}\nanalytical:{a_text}\n")
            msg = head + f"numerical:{n!r}\nanalytical:{a!r}\n" + _FAST_MODE.format(
                numerical=n_text, analytical=a_text, diff=repr(abs(n - a)))
            if _allclose(a, n, rtol, atol):
                msg += _FAST_FAIL_SLOW_OK
            raise GradcheckError(msg)


def _zeros_for(outputs: tuple) -> list:
    return [leaf(0.0, o._t) for o in outputs]


def _check_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    from .api import grad

    diff_inputs = [x for x in inputs if isinstance(x, Value) and x._rg]
    got = grad(list(outputs), diff_inputs, _zeros_for(outputs), allow_unused=True)
    for g, x in zip(got, diff_inputs):
        if g is None:
            continue
        if g._val != 0:
            raise GradcheckError("backward not multiplied by grad_output")
        if g._t.dtype is not x._t.dtype:
            raise GradcheckError("grad is incorrect type")


def _check_undefined_grad(func, inputs: tuple) -> None:
    # scalargrad has no undefined gradients: a custom Function sees zeros, which is what
    # PyTorch materializes for it by default
    from .api import grad

    diff_inputs = [x for x in inputs if isinstance(x, Value) and x._rg]
    outputs = _differentiable(_as_tuple(func(*inputs)))
    if not outputs:
        return
    try:
        got = grad(list(outputs), diff_inputs, _zeros_for(outputs), allow_unused=True)
    except RuntimeError as exc:
        warnings.warn(_UNDEFINED_BC, UserWarning, stacklevel=4)
        raise GradcheckError('Expected backward function to handle undefined output grads. Please look at '
                             '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"') from exc
    for g in got:
        if g is not None and g._val != 0:
            warnings.warn(_UNDEFINED_BC, UserWarning, stacklevel=4)
            raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                 'undefined or zero. Please look at "Notes about undefined output gradients" in '
                                 '"tools/autograd/derivatives.yaml"')


def _unsupported(check_forward_ad: bool, check_batched_grad: bool, check_batched_forward_grad: bool) -> None:
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("scalargrad has no forward-mode AD: gradcheck(check_forward_ad=True) "
                                  "is not supported")
    if check_batched_grad:
        raise NotImplementedError("scalargrad has no vmap: gradcheck(check_batched_grad=True) is not supported")


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Compare ``autograd.grad`` of ``func(*inputs)`` with central finite differences.

    Returns True; on a mismatch raises ``GradcheckError`` (PyTorch's message), or returns
    False when ``raise_exception=False``. Use float64 inputs: float32 ones draw PyTorch's
    warning and usually fail with the default tolerances.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    _unsupported(check_forward_ad, check_batched_grad, check_batched_forward_grad)
    try:
        tupled = _as_tuple(inputs)
        _check_inputs(tupled)
        func_out = _as_tuple(func(*tupled))
        _slow_or_fast(func, func_out, tupled, eps, rtol, atol, nondet_tol, fast_mode)
        outputs = _differentiable(func_out)
        if outputs:
            _check_mul_by_grad_output(outputs, tupled)
            if check_undefined_grad:
                _check_undefined_grad(func, tupled)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the gradient: checks ``autograd.grad(..., create_graph=True)`` of ``func``
    against finite differences, w.r.t. the inputs and the gradient outputs.

    ``grad_outputs`` default to random numbers in [-1, 1) of each output's dtype (Python's
    ``random``: PyTorch draws them from its own generator), requiring grad.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    from .api import grad

    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable(_as_tuple(func(*tupled)))
        grad_outs = tuple(_random_like(o._t) for o in outs)
    else:
        grad_outs = _as_tuple(grad_outputs)
    n_out = len(grad_outs)
    diff_args = {i for i, x in enumerate(tupled) if isinstance(x, Value) and x._rg}
    diff_grad_outs = {i for i, x in enumerate(grad_outs) if isinstance(x, Value) and x._rg}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_args else x for i, x in enumerate(args[:-n_out]))
        outputs = _differentiable(_as_tuple(func(*input_args)))
        gos = tuple(x.requires_grad_() if i in diff_grad_outs else x for i, x in enumerate(args[-n_out:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_args)
        grads = grad(list(outputs), list(diff_input_args), list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled + grad_outs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                     nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _random_like(t: TensorType) -> Value:
    x = t.dtype.round(random.uniform(-1.0, 1.0))
    return leaf(x, t, requires_grad=True)
