"""``var``, ``std``, ``var_mean`` and ``std_mean`` on tensors, computed as PyTorch's CPU kernels
do (``_ops/moments.py``)."""

from __future__ import annotations

import math
import warnings

from .._base import ieee
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.layout import coalesce, contiguous_strides, is_contiguous, iteration_order
from .._base.program_frame import program_stacklevel
from .._ops import arithmetic as AR
from .._ops import comparison as CM
from .._ops import moments as M
from .._ops.reductions import Mean
from .arguments import not_tensor
from .elementwise import binary
from .fill import masked_fill
from .linalg_outputs import check_versions, remember_versions, several_outputs
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
    """std_var_all_cpu: the dtype's mean (PyTorch's sum order), then the squared deviations in
    double, in memory order (``vals``), summed per block of the iterator's two innermost
    (coalesced) dimensions and the blocks' sums added (its loop's ``local_sum``)."""
    dt = x._t.dtype
    n = len(vals)
    s = sum_values(x, tuple(range(x._t.ndim)), dt)[0] if x._t.ndim else x._val
    mean = dt.round(s / n) if n else math.nan
    block = _block(tuple(x._t.shape), tuple(x._t.strides)) or 1
    total = 0.0
    for b in range(0, n, block):
        local = 0.0
        for v in vals[b:b + block]:
            d = v - mean
            local += d * d
        total += local
    return _finish(total, max(0.0, n - shift), take_sqrt)


def _block(shape: tuple, strides: tuple) -> int:
    """The elements of one call of TensorIterator's 2-D loop over a tensor: its two innermost
    dimensions once sorted by stride and coalesced (all of a contiguous or permuted tensor)."""
    if len(shape) <= 1 or is_contiguous(shape, strides):
        return math.prod(shape)
    perm = iteration_order(shape, [(strides, False)])
    cshape, _ = coalesce([shape[d] for d in perm], [[strides[d] for d in perm]])
    return cshape[0] * (cshape[1] if len(cshape) > 1 else 1)


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
        return given, dims, full, out_shape, [_memory_order(vals, shape, tuple(x._t.strides))] if n_out else []
    groups: list = [[] for _ in range(n_out)]
    for i, o in enumerate(group_index(shape, dims)):
        groups[o].append(vals[i])
    return given, dims, full, out_shape, groups


def _memory_order(vals: list, shape: tuple, strides: tuple) -> list:
    """The elements of a reduction to one number in the order ATen's TensorIterator walks them:
    its dimensions sorted by stride (``iteration_order``), so a permuted tensor's in memory order
    (the sum of squared deviations, or Welford's updates, then round in that order)."""
    if len(shape) <= 1 or is_contiguous(shape, strides):
        return vals
    perm = iteration_order(shape, [(strides, False)])  # fastest-moving first
    cs = contiguous_strides(shape)
    idx = [0]
    for d in perm[::-1]:  # the slowest dimension outermost
        idx = [i + k * cs[d] for i in idx for k in range(shape[d])]
    return [vals[i] for i in idx]


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
    by machine. With grad, both outputs hand their gradients to one VarMeanBackward0
    (StdMeanBackward0) node, as PyTorch records it."""
    name = "std_mean" if take_sqrt else "var_mean"
    dim, saved, shift = _arguments(input, dim, unbiased, correction, name, name)
    dual = dual_memory()
    if dual is not None and dual[2](input) is not None:
        raise Unsupported(f"torch.{name} of a tensor that has a forward-mode tangent (its two-output "
                          f"{name.title().replace('_', '')}Backward0 node's forward derivative)",
                          f"use torch.{name[:3]}(...) and torch.mean(...)")
    given, dims, full, out_shape, groups = _groups(input, dim, keepdim, shift, name)
    dt = input._t.dtype
    r = dt.round
    pairs = [_welford_mean(g, shift, take_sqrt) for g in groups]
    t = TensorType(dt, out_shape)
    c = M.PairedMoments(tuple(input._t.shape), dims if input._t.ndim else (), bool(keepdim), full, saved, shift,
                        raw={"dims": None if full and given is None else given})
    outs = several_outputs(M.StdMean if take_sqrt else M.VarMean, input, [[r(p[k]) for p in pairs] for k in (0, 1)],
                           [t, t], c)
    c.result0 = outs[0] if take_sqrt else None
    remember_versions(c, [outs[0]] if take_sqrt else [])
    return tuple(outs)


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


@helper
def var_mean_backward(k, g, v):
    """var_mean_backward/std_mean_backward (FunctionsManual.cpp): the first output's gradient
    through var's (std's) formula, plus the second's through mean's; an output that got no
    gradient adds nothing. ``g``: the outputs' gradients (None for none), or the SymPy check's
    probe, one tensor holding both."""
    c = v._c
    check_versions(c, v._op.name.replace("Backward0", ""))
    t = c.outputs_types[0]
    if isinstance(g, list):
        gvar, gmean = (x if x is None or isinstance(x, Tensor) else leaf(x, t) for x in g)
    else:
        n = t.numel
        gvar, gmean = (leaf(part if t.ndim else part[0], t) for part in (g._val[:n], g._val[n:]))
    x = k.a(v)
    out = None
    if gvar is not None:
        out = k.var_backward(gvar, x, c) if c.result0 is None else k.std_backward(gvar, x, c.result0, c)
    if gmean is not None:
        aux = Mean.backward(k, gmean, v)[0]
        out = aux if out is None else k.add(out, aux)
    return out
