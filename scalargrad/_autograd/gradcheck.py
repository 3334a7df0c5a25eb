"""``torch.autograd.gradcheck`` and ``gradgradcheck``: PyTorch 2.13's algorithm.

Slow mode (the default) builds whole Jacobians: each element of each input that requires grad
is nudged by ``eps`` both ways (in the input's dtype, written without a version bump as PyTorch
writes through ``.data``) and the central difference ``(f(x+eps) - f(x-eps)) / (2 eps)`` is
taken in each output's dtype; the analytical Jacobian comes from one ``autograd.grad`` call per
output element (twice, to check that backward is reentrant). They are compared with
``allclose``: ``|analytical - numerical| <= atol + rtol * |numerical|``, and a mismatch prints
both matrices (rows: input elements, columns: output elements). Fast mode compares ``v^T J u``
for random unit vectors drawn from a fresh generator (PyTorch's, bit for bit), and recomputes
the failing pair in slow mode for its message. Like PyTorch, the check warns about inputs that
are not float64, for which the defaults are too tight. ``check_forward_ad`` builds the Jacobians
again by forward-mode AD (slow mode only; ``forward_ad.py``); there is no vmap:
``check_batched_grad`` and ``check_batched_forward_grad`` are refused.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from itertools import chain, repeat
from operator import add, le, mul, sub, truediv

from .._base import rng
from .._base.dtypes import TensorType, float64, promote_types
from .._base.errors import Unsupported
from .._base.ieee import div
from .._tensor.tensor import Tensor, leaf
from . import forward_ad
from .api import grad
from .undefined_grad import UndefinedGrad

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
    return tuple(o for o in outputs if isinstance(o, Tensor) and o._rg)


def _diff_inputs(inputs: tuple) -> list:
    return [x for x in inputs if isinstance(x, Tensor) and x._rg]


def _flat(t: Tensor) -> list:
    return list(t._val) if t._t.ndim else [t._val]


def _matrix(vals: list, rows: int, cols: int, dtype) -> Tensor:
    """A Jacobian (rows = input elements, columns = output elements) as a tensor, for messages."""
    return leaf(vals, TensorType(dtype, (rows, cols)))


def _scalar(x: float, dtype) -> Tensor:
    return leaf(x, TensorType(dtype, ()))


def _allclose(a: list, b: list, rtol: float, atol: float, dtype) -> bool:
    """``torch.allclose(a, b)`` computed in ``dtype``: ``|a - b| <= atol + rtol * |b|`` element
    by element (ATen's isclose: equal values, infinities included, are close; NaN never is)."""
    r = dtype.round
    at, rt = r(atol), r(rtol)
    if r is float and math.isfinite(at) and math.isfinite(rt) and not any(map(math.isinf, b)) \
            and all(map(le, map(abs, map(sub, a, b)), map(add, repeat(at), map(mul, repeat(rt), map(abs, b))))):
        return True  # doubles, every |a - b| within a finite tolerance: what the loop below finds too
    for x, y in zip(a, b):
        if x == y:
            continue
        err = abs(r(x - y))
        if not math.isfinite(err) or not err <= r(at + r(rt * abs(y))):
            return False
    return True


def _check_inputs(inputs: tuple) -> None:
    found = False
    for idx, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._rg:
            if x._t.dtype is not float64:
                warnings.warn(_NOT_DOUBLE.format(idx=idx), UserWarning, stacklevel=4)
            if any(st == 0 and sz > 1 for st, sz in zip(x._t.strides, x._t.shape)):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                                   "inputs that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck.")
            found = True
    if not found:
        raise ValueError(_NO_INPUT)


def _set(x: Tensor, i: int, value: float) -> None:
    """Write element ``i`` of ``x`` without a version bump (PyTorch writes through ``x.data``);
    aliases sharing ``x``'s list see it, as they share its memory in PyTorch."""
    if x._t.ndim:
        x._val[i] = value
    else:
        x._val = value


def _difference(func, inputs: tuple, x: Tensor, index, delta, eps: float) -> list:
    """``(f(x + delta) - f(x - delta)) / (2 eps)`` for every float output, flat, in the
    output's dtype: ``delta`` perturbs element ``index`` (a number) or, with ``index`` None,
    every element (a list, fast mode)."""
    rnd = x._t.dtype.round
    if index is None:
        orig = _flat(x)
        lo = [rnd(o - d) for o, d in zip(orig, delta)]
        hi = [rnd(o + d) for o, d in zip(orig, delta)]
        put = _put_all
    else:
        orig = x._val[index] if x._t.ndim else x._val
        lo, hi = rnd(orig - rnd(delta)), rnd(orig + rnd(delta))
        put = _set
    place = index if index is not None else None
    try:
        put(x, place, lo)
        outa = _as_tuple(func(*inputs))
        metas = [(o.shape, o.dtype) if isinstance(o, Tensor) else None for o in outa]
        outa = [_flat(o) if isinstance(o, Tensor) else None for o in outa]
        put(x, place, hi)
        outb = _as_tuple(func(*inputs))
        for meta, o in zip(metas, outb):
            if meta is not None and isinstance(o, Tensor):
                _same_shape_and_dtype(meta, o, eps, None if index is None else _unravel(index, x.shape))
        outb = [(o._t.dtype, _flat(o)) if isinstance(o, Tensor) else None for o in outb]
    finally:
        put(x, place, orig)
    cols = []
    for a, b in zip(outa, outb):
        if b is None or not b[0].is_floating_point:
            cols.append(None)
            continue
        r = b[0].round
        two_eps = r(2 * eps)
        if r is float and two_eps:  # doubles: Python's - and / round as IEEE's (no division by zero here)
            cols.append(list(map(truediv, map(sub, b[1], a), repeat(two_eps))))
        else:
            cols.append([r(div(r(q - p), two_eps)) for p, q in zip(a, b[1])])
    return cols


def _unravel(i: int, shape) -> tuple:
    """Flat index ``i`` of a tensor of ``shape`` as the index tuple PyTorch's messages show."""
    out = []
    for n in reversed(tuple(shape)):
        i, r = divmod(i, n)
        out.append(r)
    return tuple(reversed(out))


def _same_shape_and_dtype(meta: tuple, out: Tensor, eps: float, idx) -> None:
    """PyTorch's check that ``func`` returns outputs of one shape and dtype on both sides of a
    perturbation (an AssertionError naming the perturbed index in slow mode)."""
    on_index = f"on index {idx} " if idx is not None else ""
    shape, dtype = meta
    if shape != out.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                             f"{on_index}by {eps}, but got: shapes {shape} and {out.shape}.")
    if dtype != out.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                             f"{on_index}by {eps}, but got: dtypes {dtype} and {out.dtype}.")


def _put_all(x: Tensor, _index, values) -> None:
    if x._t.ndim:
        x._val[:] = values
    else:
        x._val = values[0] if isinstance(values, list) else values


def _numerical(func, inputs: tuple, eps: float) -> list:
    """``[input][output]`` Jacobians (flat, row = input element) by central differences, for
    every float output, as ``_get_numerical_jacobian`` computes them (None: not a float
    output)."""
    result = []
    for x in _diff_inputs(inputs):
        n = x._t.numel
        columns = [_difference(func, inputs, x, i, eps, eps) for i in range(n)]
        per_output = []
        for k in range(len(columns[0]) if columns else 0):
            if columns[0][k] is None:
                per_output.append(None)
                continue
            per_output.append([e for col in columns for e in col[k]])  # row i = input element i
        result.append(per_output)
    return result


def _vjp(output: Tensor, diff_inputs: list, go: Tensor) -> list:
    return list(grad(output, diff_inputs, go, retain_graph=True, allow_unused=True))


def _unit(t: TensorType, j: int) -> Tensor:
    z = t.dtype.round(0)
    one = t.dtype.round(1.0)
    if not t.ndim:
        return leaf(one, TensorType(t.dtype, ()))
    vals = [z] * t.numel
    vals[j] = one
    return leaf(vals, TensorType(t.dtype, t.shape))


def _analytical_rows(output: Tensor, diff_inputs: list) -> list:
    """``[input]`` Jacobians (flat, row = input element, in the input's dtype) from one
    ``autograd.grad`` call per output element."""
    m = output._t.numel
    cols = [[None] * m for _ in diff_inputs]
    for j in range(m):
        got = _vjp(output, diff_inputs, _unit(output._t, j))
        for i, d in enumerate(got):
            cols[i][j] = d
    jac = []
    for x, col in zip(diff_inputs, cols):
        n = x._t.numel
        r = x._t.dtype.round
        zeros = [r(0)] * n
        flat = []  # column j: the gradient of output element j, flat
        for d in col:
            if d is None:
                flat.append(zeros)
                continue
            if tuple(d._t.shape) != tuple(x._t.shape):
                raise GradcheckError("Analytical gradient has incorrect size")
            flat.append(list(map(r, _flat(d))))
        # row-major, row i = input element i: the columns transposed
        jac.append(list(chain.from_iterable(zip(*flat))) if flat else [])
    return jac


def _reentrant(j1: list, j2: list, tol: float) -> bool:
    for a, b in zip(j1, j2):
        if a and (a != b or tol < 0) and max(abs(p - q) for p, q in zip(a, b)) > tol:
            return False
    return True


def _analytical(output: Tensor, diff_inputs: list, nondet_tol: float) -> list:
    first = _analytical_rows(output, diff_inputs)
    again = _analytical_rows(output, diff_inputs)
    if not _reentrant(first, again, nondet_tol):
        raise GradcheckError(_NOT_REENTRANT.format(tol=nondet_tol))
    return first


def _slow(func, func_out: tuple, inputs: tuple, eps: float, rtol: float, atol: float,
          nondet_tol: float) -> None:
    """PyTorch's slow mode: whole Jacobians, compared element by element."""
    outputs = _differentiable(func_out)
    numerical = _numerical(func, inputs, eps)
    if not outputs:
        _all_zero(numerical)
        return
    diff_inputs = _diff_inputs(inputs)
    float_outs = [o for o in func_out if isinstance(o, Tensor) and o._t.dtype.is_floating_point]
    keep = [k for k, o in enumerate(float_outs) if o._rg]
    for i, o in enumerate(outputs):
        analytical = _analytical(o, diff_inputs, nondet_tol)
        for j, (x, a) in enumerate(zip(diff_inputs, analytical)):
            n = numerical[j][keep[i]] if i < len(keep) else None
            if n is None:
                continue
            dtype = promote_types(x._t.dtype, o._t.dtype)
            if _allclose(a, n, rtol, atol, dtype):
                continue
            rows, cols = x._t.numel, o._t.numel
            raise GradcheckError(f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                                 f"numerical:{_matrix(n, rows, cols, o._t.dtype)}\n"
                                 f"analytical:{_matrix(a, rows, cols, x._t.dtype)}\n")


def _all_zero(numerical: list) -> None:
    for per_input in numerical:
        for col in per_input:
            if col is not None and any(e != 0 for e in col):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _random_unit(n: int, dtype, gen) -> list:
    """``torch.rand(n, generator=gen).to(dtype)`` divided by its norm (``_vec_from_tensor``)."""
    r = dtype.round
    vec = [r(v) for v in rng.uniform(n, "float32", generator=gen)]
    norm = r(math.sqrt(math.fsum(v * v for v in vec)))
    return [r(div(v, norm)) for v in vec]


def _dot(u: list, v: list, dtype) -> float:
    r = dtype.round
    s = r(0)
    for a, b in zip(u, v):
        s = r(s + r(a * b))
    return s


def _fast(func, func_out: tuple, inputs: tuple, eps: float, rtol: float, atol: float,
          nondet_tol: float) -> None:
    """PyTorch's fast mode: ``v^T J u`` for random unit vectors ``u`` (per input) and ``v``
    (per output) drawn from a fresh generator, by finite differences along ``u`` and by one
    backward call with ``v``. A mismatch recomputes that pair in slow mode for the message."""
    outputs = _differentiable(func_out)
    diff_inputs = _diff_inputs(inputs)
    gen = rng.Generator()
    all_u = [_random_unit(x._t.numel, x._t.dtype, gen) for x in diff_inputs]
    all_v = [_random_unit(o._t.numel, o._t.dtype, gen) for o in outputs]
    numerical = []
    for x, u in zip(diff_inputs, all_u):
        r = x._t.dtype.round
        ju = _difference(func, inputs, x, None, [r(e * eps) for e in u], eps)
        ju = [c for c, o in zip(ju, func_out) if isinstance(o, Tensor) and o._t.dtype.is_floating_point]
        if not outputs:
            if any(c and max(abs(e) for e in c) > nondet_tol for c in ju):
                raise GradcheckError("Numerical gradient for function expected to be zero")
            continue
        numerical.append([_dot(v, c, promote_types(o._t.dtype, o._t.dtype))
                          for v, c, o in zip(all_v, ju, outputs)])
    if not outputs:
        return
    analytical = []
    for o, v in zip(outputs, all_v):
        go = leaf(v if o._t.ndim else v[0], TensorType(o._t.dtype, o._t.shape))
        first = _vjp(o, diff_inputs, go)
        again = _vjp(o, diff_inputs, go)
        j1 = [None if d is None else _flat(d) for d in first]
        j2 = [None if d is None else _flat(d) for d in again]
        if not _reentrant([a or [] for a in j1], [b or [] for b in j2], nondet_tol):
            raise GradcheckError(_NOT_REENTRANT.format(tol=nondet_tol))
        analytical.append([_dot(vj or [0.0] * x._t.numel, u, x._t.dtype)
                           for vj, u, x in zip(j1, all_u, diff_inputs)])
    for i, (x, u) in enumerate(zip(diff_inputs, all_u)):
        for j, (o, v) in enumerate(zip(outputs, all_v)):
            a, n = analytical[j][i], numerical[i][j]
            dtype = promote_types(x._t.dtype, o._t.dtype)
            adjusted = atol * math.fsum(u) * math.fsum(v)
            if _allclose([a], [n], rtol, adjusted, dtype):
                continue
            msg = (f"Jacobian mismatch for output {j:d} with respect to input {i:d},\n"
                   f"numerical:{_scalar(n, o._t.dtype)}\nanalytical:{_scalar(a, x._t.dtype)}\n")
            raise GradcheckError(msg + _slow_mode_error(func, inputs, outputs, i, j, eps, rtol, atol))


def _slow_mode_error(func, inputs: tuple, outputs: tuple, i: int, j: int, eps: float, rtol: float,
                     atol: float) -> str:
    diff_inputs = _diff_inputs(inputs)
    x, o = diff_inputs[i], outputs[j]
    n = _numerical(func, inputs, eps)[i][j]
    a = _analytical_rows(o, diff_inputs)[i]
    rows, cols = x._t.numel, o._t.numel
    diff = max(abs(o._t.dtype.round(p - q)) for p, q in zip(n, a)) if n else 0.0
    msg = _FAST_MODE.format(numerical=_matrix(n, rows, cols, o._t.dtype), analytical=_matrix(a, rows, cols, x._t.dtype),
                            diff=f"{_scalar(diff, o._t.dtype)}")
    if _allclose(a, n, rtol, atol, o._t.dtype):
        msg += _FAST_FAIL_SLOW_OK
    return msg


def _zeros_for(outputs: tuple) -> list:
    out = []
    for o in outputs:
        z = o._t.dtype.round(0)
        out.append(leaf([z] * o._t.numel if o._t.ndim else z, TensorType(o._t.dtype, o._t.shape)))
    return out


def _all_zero_grads(got) -> bool:
    return all(g is None or all(e == 0 for e in _flat(g)) for g in got)


def _check_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    diff_inputs = _diff_inputs(inputs)
    got = grad(list(outputs), diff_inputs, _zeros_for(outputs), allow_unused=True)
    for g, x in zip(got, diff_inputs):
        if g is None:
            continue
        if not all(e == 0 for e in _flat(g)):
            raise GradcheckError("backward not multiplied by grad_output")
        if g._t.dtype is not x._t.dtype:
            raise GradcheckError("grad is incorrect type")
        if tuple(g._t.shape) != tuple(x._t.shape):
            raise GradcheckError("grad is incorrect size")


def _undefined_grad_supported(outputs: list, diff_inputs: list) -> None:
    try:
        got = grad(outputs, diff_inputs, _zeros_for(outputs), allow_unused=True)
    except RuntimeError as exc:
        warnings.warn(_UNDEFINED_BC, UserWarning, stacklevel=5)
        raise GradcheckError('Expected backward function to handle undefined output grads. Please look at '
                             '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"') from exc
    if not _all_zero_grads(got):
        warnings.warn(_UNDEFINED_BC, UserWarning, stacklevel=5)
        raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                             'undefined or zero. Please look at "Notes about undefined output gradients" in '
                             '"tools/autograd/derivatives.yaml"')


def _check_undefined_grad(func, inputs: tuple) -> None:
    """PyTorch's _test_undefined_backward_mode: backward from every output through an
    UndefinedGrad node (so each node before it gets an undefined gradient), then, with several
    outputs, from each one so in turn, the others given zeros."""
    diff_inputs = _diff_inputs(inputs)
    outputs = _differentiable(_as_tuple(func(*inputs)))
    if not outputs:
        return
    checks = [[UndefinedGrad()(o) for o in outputs]]
    if len(outputs) > 1:
        for k in range(len(outputs)):
            fresh = _differentiable(_as_tuple(func(*inputs)))
            checks.append([UndefinedGrad()(o) if i == k else o for i, o in enumerate(fresh)])
    for outs in checks:
        _undefined_grad_supported(outs, diff_inputs)


def _unsupported(check_forward_ad: bool, fast_mode: bool, check_batched_grad: bool,
                 check_batched_forward_grad: bool) -> None:
    if check_batched_forward_grad:
        raise Unsupported("vmap (gradcheck(check_batched_forward_grad=True))")
    if check_forward_ad and fast_mode:
        raise Unsupported("gradcheck(check_forward_ad=True, fast_mode=True)", "use the default slow mode")
    if check_batched_grad:
        raise Unsupported("vmap (gradcheck(check_batched_grad=True))")


def _dual_inputs(inputs: tuple) -> tuple:
    """The inputs, each one that requires grad replaced by a detached dual with zero tangent;
    and those tangents (inside a dual level)."""
    duals, tangents = [], []
    for x in inputs:
        if isinstance(x, Tensor) and x._rg:
            t = TensorType(x._t.dtype, x._t.shape)
            x = forward_ad.make_dual(x.detach(), leaf([t.dtype.round(0)] * t.numel if t.ndim else 0.0, t))
            tangents.append(forward_ad.unpack_dual(x).tangent)
        duals.append(x)
    return tuple(duals), tangents


def _float_outputs(outs) -> list:
    return [o for o in _as_tuple(outs) if isinstance(o, Tensor) and o._t.dtype.is_floating_point]


def _forward_jacobians(func, inputs: tuple) -> list:
    """``[input][float output]`` Jacobians (flat, row = input element) by forward-mode AD: one
    call per input element, its tangent the unit vector (``_get_analytical_jacobian_forward_ad``)."""
    with forward_ad.dual_level():
        duals, tangents = _dual_inputs(inputs)
        jacobians = []
        for t in tangents:
            cols: list = []
            for i in range(t._t.numel):
                _set(t, i if t._t.ndim else None, t._t.dtype.round(1.0))
                for k, o in enumerate(_float_outputs(func(*duals))):
                    res = forward_ad.unpack_dual(o).tangent
                    if len(cols) <= k:
                        cols.append([])
                    cols[k].append([o._t.dtype.round(0)] * o._t.numel if res is None else _flat(res))
                _set(t, i if t._t.ndim else None, t._t.dtype.round(0))  # after: a tangent may be this one
            jacobians.append([list(chain.from_iterable(c)) for c in cols])
        return jacobians


def _slow_forward(func, func_out: tuple, inputs: tuple, eps: float, rtol: float, atol: float) -> None:
    """PyTorch's slow mode with ``use_forward_ad``: the forward-mode Jacobians against finite
    differences, paired as PyTorch pairs them (outputs that require grad with float outputs)."""
    outputs = _differentiable(func_out)
    numerical = _numerical(func, inputs, eps)
    if not outputs:
        _all_zero(numerical)
        return
    float_outs = [o for o in func_out if isinstance(o, Tensor) and o._t.dtype.is_floating_point]
    keep = [k for k, o in enumerate(float_outs) if o._rg]
    analytical = _forward_jacobians(func, inputs)
    for i, k in enumerate(keep):
        for j, x in enumerate(_diff_inputs(inputs)):
            n = numerical[j][k]
            a = analytical[j][i] if i < len(analytical[j]) else None
            o = float_outs[i]
            if n is None or a is None or _allclose(a, n, rtol, atol, o._t.dtype):
                continue
            rows, cols = x._t.numel, o._t.numel
            raise GradcheckError(f"Jacobian computed with forward mode mismatch for output {i:d} with respect to "
                                 f"input {j:d},\nnumerical:{_matrix(n, rows, cols, float_outs[k]._t.dtype)}\n"
                                 f"analytical:{_matrix(a, rows, cols, o._t.dtype)}\n")


def _check_undefined_forward(func, inputs: tuple) -> None:
    """``_test_undefined_forward_mode``: each input's tangent materialised as zeros and absent
    (a plain tensor) must give the same output tangents."""
    with forward_ad.dual_level():
        duals, tangents = _dual_inputs(inputs)
        for t in tangents:
            for i in range(t._t.numel):
                _set(t, i if t._t.ndim else None, t._t.dtype.round(1.0 / (i + 2)))
        for idx, x in enumerate(inputs):
            if not (isinstance(x, Tensor) and x._rg):
                continue
            t = TensorType(x._t.dtype, x._t.shape)
            zero = forward_ad.make_dual(x.detach(), leaf([t.dtype.round(0)] * t.numel if t.ndim else 0.0, t))
            outs1 = _float_outputs(func(*duals[:idx], zero, *duals[idx + 1:]))
            outs2 = _float_outputs(func(*duals[:idx], x.detach(), *duals[idx + 1:]))
            for k, (o1, o2) in enumerate(zip(outs1, outs2)):
                r1, r2 = forward_ad.unpack_dual(o1).tangent, forward_ad.unpack_dual(o2).tangent
                if r1 is not None and r2 is not None and not _allclose(_flat(r1), _flat(r2), 1e-5, 1e-8,
                                                                        r1._t.dtype):
                    raise GradcheckError(f"Mismatch in tangent values for output with index: {k} when input: {x} "
                                         f"has an undefined tangent value.  Got: {r1} but expected: {r2}")


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
    _unsupported(check_forward_ad, fast_mode, check_batched_grad, check_batched_forward_grad)
    try:
        tupled = _as_tuple(inputs)
        _check_inputs(tupled)
        func_out = _as_tuple(func(*tupled))
        if check_backward_ad:
            (_fast if fast_mode else _slow)(func, func_out, tupled, eps, rtol, atol, nondet_tol)
        if check_forward_ad:
            _slow_forward(func, func_out, tupled, eps, rtol, atol)
            if check_undefined_grad:
                _check_undefined_forward(func, tupled)
        outputs = _differentiable(func_out)
        if outputs and check_backward_ad:
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
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable(_as_tuple(func(*tupled)))
        grad_outs = tuple(_random_like(o._t) for o in outs)
    else:
        grad_outs = _as_tuple(grad_outputs)
    n_out = len(grad_outs)
    diff_args = {i for i, x in enumerate(tupled) if isinstance(x, Tensor) and x._rg}
    diff_grad_outs = {i for i, x in enumerate(grad_outs) if isinstance(x, Tensor) and x._rg}

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


def _random_like(t: TensorType) -> Tensor:
    """``torch.testing.make_tensor(shape, low=-1, high=1, requires_grad=True)``: uniform on
    [-1, 1) from the global generator, as PyTorch draws gradgradcheck's grad_outputs."""
    vals = rng.uniform(t.numel, t.dtype.name, -1.0, 1.0)
    return leaf(vals if t.ndim else vals[0], TensorType(t.dtype, t.shape), requires_grad=True)


_DEPRECATED = ("`{name}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it and it "
               "will be removed in a future version of PyTorch. If you have a specific use for this or feature "
               "request for this to be a stable API, please file us an issue at "
               "https://github.com/pytorch/pytorch/issues/new")


def get_numerical_jacobian(fn: Callable, inputs, target=None, eps: float = 1e-3, grad_out: float = 1.0) -> tuple:
    """PyTorch's deprecated ``torch.autograd.gradcheck.get_numerical_jacobian``: for each tensor of
    ``target`` (default ``inputs``) that requires grad, the central-difference Jacobian of
    ``fn(inputs)``'s first output, shape ``(input numel, output numel)`` (``fn`` takes the
    inputs as one tuple; the targets are perturbed in place)."""
    warnings.warn(_DEPRECATED.format(name="get_numerical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    inputs = _as_tuple(inputs)
    targets = inputs if target is None else _as_tuple(target)
    first = _as_tuple(fn(inputs))[0]
    per_input = _numerical(lambda *_: fn(inputs), targets, eps)
    return tuple(_matrix(jac[0], x._t.numel, first._t.numel, first._t.dtype)
                 for jac, x in zip(per_input, _diff_inputs(targets)))


def get_analytical_jacobian(inputs, output: Tensor, nondet_tol: float = 0.0, grad_out: float = 1.0) -> tuple:
    """PyTorch's deprecated ``torch.autograd.gradcheck.get_analytical_jacobian``: ``(jacobians,
    reentrant, sizes_ok, types_ok)``, a Jacobian of ``output`` per input that requires grad,
    shape ``(input numel, output numel)``, computed twice to tell reentrancy. (The engine
    refuses gradients of the wrong size and casts their dtype before they reach here, so the
    last two are True, as they are in PyTorch for the gradients autograd.grad returns.)"""
    warnings.warn(_DEPRECATED.format(name="get_analytical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    diff = _diff_inputs(_as_tuple(inputs))
    first = _analytical_rows(output, diff)
    again = _analytical_rows(output, diff)
    jacobians = tuple(_matrix(j, x._t.numel, output._t.numel, x._t.dtype) for j, x in zip(first, diff))
    return jacobians, _reentrant(first, again, nondet_tol), True, True
