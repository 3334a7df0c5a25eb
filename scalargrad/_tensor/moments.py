"""``var`` and ``std`` on tensors, computed as PyTorch's CPU kernels do (``_ops/moments.py``)."""

from __future__ import annotations

import math
import warnings

from .._base import ieee
from .._base.dtypes import TensorType
from .._ops import arithmetic as AR
from .._ops import comparison as CM
from .._ops import moments as M
from .arguments import not_tensor
from .elementwise import binary
from .fill import masked_fill
from .reductions import _out_shape, group_index, mean, sum_values
from .tensor import Tensor, make
from .tensor_kernel import Scalar, as_tensor, helper, scalar_op
from .views import norm_dims, reshape

__all__ = ["var_std", "install"]

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
    mean = m2 = 0.0
    n = 0
    for v in vals:
        n += 1
        delta = v - mean
        mean = mean + delta / n
        m2 = m2 + delta * (v - mean)
    return _finish(m2, n - shift if n > shift else 0.0, take_sqrt)


def var_std(x: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None,
            take_sqrt: bool = False) -> Tensor:
    """``x.var(...)``/``x.std(...)`` with PyTorch's overloads: ``(unbiased)``, ``(dim, unbiased,
    keepdim)``, ``(dim, *, correction, keepdim)``. The correction PyTorch saves is None unless
    the call gave a correction, ``unbiased`` or ``dim``."""
    name = "std" if take_sqrt else "var"
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, 'input', 1)
    if dim.__class__ is bool:  # var(unbiased)
        dim, unbiased = None, dim
    if not x._t.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is not None and unbiased is not None:
        raise RuntimeError(f"{name}: can't specify both correction and unbiased arguments")
    if correction is not None:
        saved, shift = correction, float(correction)
    elif unbiased is not None or dim is not None:
        saved = 1 if unbiased is None or unbiased else 0
        shift = float(saved)
    else:
        saved, shift = None, 1.0
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
        warnings.warn(_DOF_WARNING.format(name=name), UserWarning, stacklevel=3)
    r = x._t.dtype.round
    if n_out <= 1:
        out = [r(_all_path(vals, x, shift, take_sqrt))]
    else:
        groups: list = [[] for _ in range(n_out)]
        for i, o in enumerate(group_index(shape, dims)):
            groups[o].append(vals[i])
        out = [r(_welford(g, shift, take_sqrt)) for g in groups]
    raw = {"dims": None if full and given is None else given}
    c = M.Moments(shape, dims if nd else (), bool(keepdim), full, saved, shift, raw=raw)
    op = M.Std if take_sqrt else M.Var
    return make(op, TensorType(x._t.dtype, out_shape), out if out_shape else out[0], (x,), c)


def _var_std(take_sqrt: bool):
    def apply(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return var_std(self, dim, unbiased, keepdim, correction=correction, take_sqrt=take_sqrt)

    return apply


def install(method, function) -> None:
    """var and std."""
    for name, root in (("var", False), ("std", True)):
        method(name, _var_std(root))
        function(name, _var_std(root))


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def var_backward(g, x, c):
    """var_backward (FunctionsManual.cpp): ``(2 / (n - correction)) * grad * (self -
    self.mean(dim, keepdim=True))``, the Scalar first rounded to the dtype as ATen casts it."""
    g = as_tensor(g, x)
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
