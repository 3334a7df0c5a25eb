"""``var``, ``std``, ``var_mean`` and ``std_mean`` on tensors, computed as PyTorch's CPU kernels
do (``_ops/moments.py``)."""

from __future__ import annotations

import math
import warnings

from .._base import ieee
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.program_frame import program_stacklevel
from .._ops import arithmetic as AR
from .._ops import comparison as CM
from .._ops import moments as M
from .arguments import not_tensor
from .elementwise import binary
from .fill import masked_fill
from .reductions import _out_shape, group_index, mean, sum_values
from .storage import dual_memory
from .tensor import Tensor, leaf, make
from .tensor_kernel import Scalar, as_tensor, helper, scalar_op
from .views import norm_dims, reshape

__all__ = ["var_std", "var_mean", "install"]

_DOF_WARNING = ("{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
                "(input numel divided by output numel). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")


def _finish(total: float, divisor: float, take_sqrt: bool) -> float:
    if divisor > 0:
        var = total / divisor
    else:
        var = math.nan if total == 0 or total != total else math.inf
    return math.sqrt(var) if take_sqrt and var == var and var >= 0 else var


def _all_path(vals: list, x: Tensor, shift: float, take_sqrt: bool) -> float:
    """std_var_all_cpu: the dtype's mean (PyTorch's sum order), then double arithmetic."""
    dt = x._t.dtype
    n = len(vals)
    s = sum_values(x, tuple(range(x._t.ndim)), dt)[0] if x._t.ndim else x._val
    mean = dt.round(s / n) if n else math.nan
    total = 0.0
    for v in vals:
        d = v - mean
        total += d * d
    return _finish(total, max(0.0, n - shift), take_sqrt)


def _welford(vals: list, shift: float, take_sqrt: bool) -> float:
    """WelfordOps in double, then the division and the root."""
    return _welford_mean(vals, shift, take_sqrt)[0]


def _arguments(x: Tensor, dim, unbiased, correction, name: str, kind: str) -> tuple:
    """PyTorch's overloads ``(unbiased)``, ``(dim, unbiased, keepdim)``, ``(dim, *, correction,
    keepdim)`` checked in its order: (dim, the correction saved, the divisor's shift). The
    correction PyTorch saves is None unless the call gave a correction, ``unbiased`` or ``dim``."""
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, 'input', 1)
    if dim.__class__ is bool:  # var(unbiased)
        dim, unbiased = None, dim
    if not x._t.dtype.is_floating_point:
        raise RuntimeError(f"{kind} only support floating point and complex dtypes")
    if correction is not None and unbiased is not None:
        raise RuntimeError(f"{name}: can't specify both correction and unbiased arguments")
    if correction is not None:
        return dim, correction, float(correction)
    if unbiased is not None or dim is not None:
        saved = 1 if unbiased is None or unbiased else 0
        return dim, saved, float(saved)
    return dim, None, 1.0


def _groups(x: Tensor, dim, keepdim: bool, shift: float, name: str) -> tuple:
    """(given dims, normalised dims, whether all are reduced, the result's shape, the elements of
    each result element; PyTorch's warning when the degrees of freedom are not positive)."""
    shape = tuple(x._t.shape)
    nd = len(shape)
    given = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    dims = norm_dims(given, nd) if nd else ()
    full = given is None or not given
    out_shape = (1,) * nd if full and keepdim else (() if full else _out_shape(shape, dims, keepdim))
    vals = x._val if nd else [x._val]
    n_out = 1
    for s in out_shape:
        n_out *= s
    count = len(vals) // n_out if n_out else 0
    if count - shift <= 0:
        warnings.warn(_DOF_WARNING.format(name=name), UserWarning, stacklevel=program_stacklevel())
    if n_out <= 1:  # an empty result (a dimension of size 0 kept) has no group at all
        return given, dims, full, out_shape, [vals] if n_out else []
    groups: list = [[] for _ in range(n_out)]
    for i, o in enumerate(group_index(shape, dims)):
        groups[o].append(vals[i])
    return given, dims, full, out_shape, groups


def var_std(x: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None,
            take_sqrt: bool = False) -> Tensor:
    """``x.var(...)``/``x.std(...)`` with PyTorch's overloads (``_arguments``)."""
    name = "std" if take_sqrt else "var"
    dim, saved, shift = _arguments(x, dim, unbiased, correction, name, "std and var")
    given, dims, full, out_shape, groups = _groups(x, dim, keepdim, shift, name)
    r = x._t.dtype.round
    if len(groups) == 1:
        out = [r(_all_path(groups[0], x, shift, take_sqrt))]
    else:
        out = [r(_welford(g, shift, take_sqrt)) for g in groups]
    raw = {"dims": None if full and given is None else given}
    c = M.Moments(tuple(x._t.shape), dims if x._t.ndim else (), bool(keepdim), full, saved, shift, raw=raw)
    op = M.Std if take_sqrt else M.Var
    return make(op, TensorType(x._t.dtype, out_shape), out if out_shape else out[0], (x,), c)


def _welford_mean(vals: list, shift: float, take_sqrt: bool) -> tuple:
    """WelfordOps in double: (the variance or deviation, the running mean; nan when empty)."""
    mean = m2 = 0.0
    n = 0
    for v in vals:
        n += 1
        delta = v - mean
        mean = mean + delta / n
        m2 = m2 + delta * (v - mean)
    return _finish(m2, n - shift if n > shift else 0.0, take_sqrt), (mean if n else math.nan)


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None,
             take_sqrt: bool = False) -> tuple:
    """``torch.var_mean``/``std_mean``: (var or std, mean) from one Welford pass in double, as
    ATen's std_var_mean reduction computes them (its mean is Welford's running mean, which can
    differ in the last bit from ``mean()``). Elements are taken in order: PyTorch splits a
    reduction of all of more than 32,768 elements among its threads, which changes the last bits
    by machine. Its VarMeanBackward0, one node with two outputs, is not built: a tensor that
    requires grad is refused by name."""
    name = "std_mean" if take_sqrt else "var_mean"
    dim, _, shift = _arguments(input, dim, unbiased, correction, name, name)
    dual = dual_memory()
    if input._rg and is_grad_enabled() or dual is not None and dual[2](input) is not None:
        raise Unsupported(f"torch.{name} of a tensor that requires grad or has a forward-mode tangent (its two-output "
                          f"{name.title().replace('_', '')}Backward0 node)",
                          f"use torch.{name[:3]}(...) and torch.mean(...), or call it on .detach()")
    _, _, _, out_shape, groups = _groups(input, dim, keepdim, shift, name)
    dt = input._t.dtype
    r = dt.round
    pairs = [_welford_mean(g, shift, take_sqrt) for g in groups]
    t = TensorType(dt, out_shape)
    return tuple(leaf([r(p[k]) for p in pairs] if out_shape else r(pairs[0][k]), t) for k in (0, 1))


def _var_std(take_sqrt: bool):
    def apply(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return var_std(self, dim, unbiased, keepdim, correction=correction, take_sqrt=take_sqrt)

    return apply


def install(method, function) -> None:
    """var and std; var_mean and std_mean (functions only, as in PyTorch)."""
    for name, root in (("var", False), ("std", True)):
        method(name, _var_std(root))
        function(name, _var_std(root))
    function("var_mean", var_mean)
    function("std_mean", lambda input, dim=None, unbiased=None, keepdim=False, *, correction=None: var_mean(
        input, dim, unbiased, keepdim, correction=correction, take_sqrt=True))


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def var_backward(g, x, c):
    """var_backward (FunctionsManual.cpp): ``(2 / (n - correction)) * grad * (self -
    self.mean(dim, keepdim=True))``, the Scalar first rounded to the dtype as ATen casts it."""
    g = as_tensor(g, x)
    if (c.all or not x._t.ndim) and c.count() - c.divisor_shift <= 0:
        # no degree of freedom left: grad * where(self == self.mean(), nan, inf), which has no
        # edge to self (a second backward through it finds nothing that requires grad)
        n = x._t.numel
        infs = leaf([math.inf] * n if x._t.ndim else math.inf, TensorType(x._t.dtype, x._t.shape))
        return g * masked_fill(infs, binary(CM.Eq, x, mean(x) if x._t.ndim else x), math.nan, False)
    if not c.all and not c.keepdim and c.dims and c.in_shape:
        g = reshape(g, tuple(1 if d in c.dims else s for d, s in enumerate(c.in_shape)))
    scale = ieee.div(2.0, c.count() - c.divisor_shift)
    m = mean(x, c.dims if (c.dims and not c.all) else None, keepdim=True) if x._t.ndim else x
    if m._t.ndim != x._t.ndim and x._t.ndim:
        m = reshape(m, (1,) * x._t.ndim)
    return scalar_op(AR.MulScalar, g, Scalar(scale)) * (x - m)


@helper
def std_backward(g, x, y, c):
    """std_backward: ``(grad / (result * 2)).masked_fill_(result == 0, 0)``, then var_backward."""
    g = as_tensor(g, x)
    return var_backward(masked_fill(g / (y * 2), binary(CM.Eq, y, 0), 0, False), x, c)
