"""batch_norm and layer_norm on tensors, and their backward.

batch_norm follows ATen's CPU kernels (``batch_norm_kernel.cpp``, ``Normalization.cpp``) for
contiguous inputs, step by step in the dtype:

* statistics (training): per channel, the sum of its elements in order, accumulated in double
  (``acc_type<float>`` is double), ``mean = (float)(sum / count)``; ``var_sum`` the double sum
  of the float squares ``(x - mean) * (x - mean)``, stored as a float; ``invstd = 1 /
  sqrt(var_sum / count + eps)`` (the division in float, the rest in double, stored as a
  float). The running statistics become ``momentum * stat + (1 - momentum) * running``, each
  step in the dtype, with the unbiased variance ``var_sum / (count - 1)``;
* evaluation: ``invstd = 1 / sqrt(running_var + eps)`` in float;
* the output: ``alpha = invstd * weight``, ``beta = bias - mean * alpha`` and ``x * alpha +
  beta``, the last two fused multiply-adds (ATen's AVX2/AVX512 builds contract them);
* the backward (training): per channel, ``sum`` of the gradient and ``dotp`` of ``(x - mean) *
  grad``, plane by plane in float, added in double; ``k = dotp * invstd * invstd / count``,
  ``grad_mean = sum / count``, and ``(grad - grad_mean - (x - mean) * k) * invstd * weight``
  (the subtraction of the product one fused multiply-add).

The backward's plane sums are ATen's ``vec::reduce_all``: in order below 8 elements, else in 8
float lanes added pairwise at the end (``_reduce_all``). All of this is IEEE arithmetic in a
fixed order, bit for bit with PyTorch 2.13 in float32 (tests/test_normalization.py), except where
PyTorch's own result depends on the machine: an input with one element per channel and plane
(``BatchNorm1d`` on (N, C)) is added in per-thread float partial sums (the number of threads),
and float64's backward sums, whose vector order was not modelled (within a measured bound).

layer_norm's row moments are computed by ATen with a vectorised Welford cascade whose order
depends on the vector width; scalargrad computes the mean and the population variance of each
row exactly (rounded once), ``rstd = 1 / sqrt(var + eps)``, and the output as ATen's
``(x * rstd + (-mean * rstd)) * weight + bias``; its backward is the exact value of
``rstd * (dy*w - mean(dy*w) - xhat * mean(dy*w*xhat))`` rounded once.

group_norm's moments are ATen's vectorised ``RowwiseMoments`` as well (the order depends on the
vector width): scalargrad takes each (sample, group)'s exact mean and population variance
rounded once, ``rstd = 1 / sqrt(max(var, 0) + eps)``, and ATen's ``scale = rstd * weight[c]``,
``shift = -scale * mean + bias[c]``, ``y = scale * x + shift``; its backward is layer_norm's
exact formula over the group, each channel with its own weight.
"""

from __future__ import annotations

import math

from .._base import dtypes, ieee
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.exact_sum import rounded_sum
from .._base.kernel_order import fma
from .._ops import normalization as NO
from .memory_formats import channels_last, channels_last_3d, channels_last_input, in_format, is_contiguous_as
from .storage import write
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["batch_norm", "batch_norm_backward", "layer_norm", "layer_norm_backward", "group_norm",
           "group_norm_backward", "install"]


def _vals(t: Tensor) -> list:
    return t._val if t._t.ndim else [t._val]


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _affine_op(base, weight, bias):
    if weight is None and bias is not None and bias._rg:
        raise Unsupported("batch_norm/layer_norm with a bias but no weight")
    if weight is None:
        return base[0], ()
    if bias is None:
        return base[1], (weight,)
    return base[2], (weight, bias)


def batch_norm(x: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None,
               bias: Tensor | None, training: bool, momentum: float, eps: float) -> Tensor:
    """``torch.batch_norm``: normalise each channel (dimension 1) of ``x``; in training, by the
    batch's statistics (updating the running ones in place), else by the running ones."""
    shape = tuple(x._t.shape)
    if x._t.ndim < 2:
        raise ValueError(f"Expected 2D or 3D input (got {x._t.ndim}D input)")
    if x._t.numel == 0:
        # ATen's batch_norm: an empty input is cloned, times weight[0], plus bias[0], before any
        # check of the statistics' sizes ("don't return empty tensor: it would break the graph")
        out = x.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    n, c = shape[0], shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t._t.numel != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._t.numel}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    dt = x._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"batch_norm on {dt.name} tensors")
    size = x._t.numel // (n * c) if n * c else 0
    count = n * size
    if training and count <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"torch.Size({list(shape)})")
    f32 = dt is dtypes.float32
    r = dt.round
    xv = _vals(x)
    groups = [[(b * c + ch) * size + i for b in range(n) for i in range(size)] for ch in range(c)]
    param_of = [(k // size) % c for k in range(len(xv))]
    op, params = _affine_op((NO.BatchNormAffine0, NO.BatchNormAffine1, NO.BatchNorm), weight, bias)
    norm = NO.Norm(groups, param_of, eps, bool(training), len(params), False)
    # ATen's channels-last kernels: batch_norm_use_channels_last_kernels
    norm.channels_last = size == 1 or (not x._t.contiguous and any(
        is_contiguous_as(shape, x._t.strides, f) for f in (channels_last, channels_last_3d)))
    norm.shape = shape
    means, invstds = [], []
    if training:
        new_mean, new_var = [], []
        for ch, idx in enumerate(groups):
            s = 0.0
            for i in idx:
                s += xv[i]
            m = r(s / count)
            vs = 0.0
            for i in idx:
                d = r(xv[i] - m)
                vs += r(d * d)
            var_sum = r(vs)
            var = r(var_sum / count)
            invstd = r(1.0 / math.sqrt(var + eps)) if (var != 0.0 or eps != 0.0) else 0.0
            means.append(m)
            invstds.append(invstd)
            # the running statistics in the dtype (measured: momentum and 1 - momentum rounded to it)
            mom = r(momentum)
            rest = r(1 - mom)
            if running_mean is not None:
                new_mean.append(r(r(mom * m) + r(rest * _vals(running_mean)[ch])))
            if running_var is not None:
                unbiased = r(var_sum / (count - 1)) if count > 1 else math.inf
                # float32 (ATen's accscalar_t is double): as if contracted, momentum * unbiased +
                # (rounded product), measured; float64: Normalization.cpp's plain double expression
                # (fuzz nn:11027:177)
                rv_old = _vals(running_var)[ch]
                new_var.append(fma(mom, unbiased, r(rest * rv_old), f32) if f32 else mom * unbiased + rest * rv_old)
        if running_mean is not None:
            write(running_mean, new_mean)
        if running_var is not None:
            write(running_var, new_var)
        norm.result1 = leaf(list(means), TensorType(dt, (c,)))
        norm.result2 = leaf(list(invstds), TensorType(dt, (c,)))
    else:
        rm, rv = _vals(running_mean), _vals(running_var)
        for ch in range(c):
            means.append(rm[ch])
            invstds.append(r(1.0 / r(math.sqrt(r(rv[ch] + r(eps))))))
        norm.result1 = leaf([], TensorType(dt, (0,)))
        norm.result2 = leaf([], TensorType(dt, (0,)))
    norm.mean, norm.invstd = means, invstds
    norm.running_mean, norm.running_var = running_mean, running_var
    norm.weight, norm.bias = weight, bias
    wv = _vals(weight) if weight is not None else None
    bv = _vals(bias) if bias is not None else None
    out = [0.0] * len(xv)
    for ch, idx in enumerate(groups):
        alpha = r(invstds[ch] * (wv[ch] if wv is not None else 1.0))
        beta = fma(-means[ch], alpha, bv[ch] if bv is not None else 0.0, f32)
        for i in idx:
            out[i] = fma(xv[i], alpha, beta, f32)
    # laid out as ATen's: empty_like(x, x.suggest_memory_format())
    return in_format(make(op, TensorType(dt, shape), out, (x,) + params, norm), channels_last_input(x))


def batch_norm_backward(g: Tensor, v: Tensor) -> tuple:
    """native_batch_norm_backward: the gradients of input, weight and bias (None where not needed)."""
    norm = v._c
    ins = v._in
    x = ins[0]
    dt = x._t.dtype
    r = dt.round
    xv = _vals(x)
    gv = _vals(g) if g._t.ndim else [g._val] * len(xv)
    shape = norm.shape
    n, c = shape[0], shape[1]
    size = len(xv) // (n * c)
    count = n * size
    wv = _vals(norm.weight) if norm.weight is not None else None
    need_x = x._rg
    need_w = len(ins) > 1 and ins[1]._rg
    need_b = len(ins) > 2 and ins[2]._rg
    gx = [0.0] * len(xv)
    gw, gb = [], []
    for ch in range(c):
        w = wv[ch] if wv is not None else 1.0
        mean, invstd = norm.mean[ch], norm.invstd[ch]
        if not norm.training:  # the backward kernel adds eps in double: 1 / std::sqrt(running_var + eps)
            invstd = r(1.0 / math.sqrt(_vals(norm.running_var)[ch] + norm.eps))
        total = 0.0
        dotp = 0.0
        for b in range(n):
            base = (b * c + ch) * size
            total += _reduce_all(gv[base:base + size], r)
            dotp += _centered_dot(xv[base:base + size], gv[base:base + size], mean, r, dt is dtypes.float32)
        if need_x:
            if norm.training:
                if norm.channels_last:
                    dotp_s, total_s = r(dotp), r(total)
                    kk = r(r(r(dotp_s * invstd) * invstd) / count)
                    grad_mean = r(total_s / count)
                else:
                    kk = r(r(r(r(dotp) * invstd) * invstd) / count)
                    grad_mean = r(total / count)
                f32 = dt is dtypes.float32
                for b in range(n):
                    base = (b * c + ch) * size
                    for i in range(base, base + size):
                        # dy - grad_mean - (x - mean) * k: one fused multiply-add in ATen's vector build
                        if norm.channels_last:  # measured: not contracted in the channels-last kernel
                            d = r(r(gv[i] - grad_mean) - r(r(xv[i] - mean) * kk))
                        else:
                            d = fma(-r(xv[i] - mean), kk, r(gv[i] - grad_mean), f32)
                        gx[i] = r(r(d * invstd) * w)
            else:
                for b in range(n):
                    base = (b * c + ch) * size
                    for i in range(base, base + size):
                        gx[i] = r(r(gv[i] * invstd) * w)
        gw.append(r(r(dotp) * invstd) if norm.channels_last else r(dotp * invstd))
        gb.append(r(total))
    t = TensorType(dt, shape)
    pt = TensorType(dt, (c,))
    out = [leaf(gx, t) if need_x else None]
    if len(ins) > 1:
        out.append(leaf(gw, pt) if need_w else None)
    if len(ins) > 2:
        out.append(leaf(gb, pt) if need_b else None)
    return tuple(out)


_LANES = 8
"""The float lanes of ATen's ``vec::reduce_all`` as PyTorch 2.13's batch-norm kernel runs it
(measured: 8 on an AVX512 machine, as on AVX2 ones)."""


def _reduce_all(vals: list, r) -> float:
    """``vec::reduce_all(+)`` over a plane: in order below the vector width; otherwise lane by
    lane, then the lanes added pairwise (halves: lane i + lane i + 4, then + 2, then + 1)."""
    n = len(vals)
    if n < _LANES:
        acc = vals[0]
        for a in vals[1:]:
            acc = r(acc + a)
        return acc
    lanes = list(vals[:_LANES])
    for d in range(_LANES, n):
        lanes[d % _LANES] = r(lanes[d % _LANES] + vals[d])
    return _pairwise(lanes, r)


def _pairwise(lanes: list, r) -> float:
    while len(lanes) > 1:
        h = len(lanes) // 2
        lanes = [r(lanes[i] + lanes[i + h]) for i in range(h)]
    return lanes[0]


def _centered_dot(xs: list, dys: list, mean: float, r, f32: bool) -> float:
    """``vec::map2_reduce_all`` of ``(x - mean) * dy`` with ``+``: as ``_reduce_all``, each term
    rounded, except that the partial last vector is added with fused multiply-adds (measured)."""
    n = len(xs)
    terms = [r(r(x - mean) * dy) for x, dy in zip(xs, dys)]
    if n < _LANES or not f32:
        acc = terms[0]
        for t in terms[1:]:
            acc = r(acc + t)
        return acc
    lanes = terms[:_LANES]
    full = n - n % _LANES
    for d in range(_LANES, full):
        lanes[d % _LANES] = r(lanes[d % _LANES] + terms[d])
    for d in range(max(full, _LANES), n):
        lanes[d % _LANES] = fma(r(xs[d] - mean), dys[d], lanes[d % _LANES], True)
    return _pairwise(lanes, r)


def layer_norm(x: Tensor, normalized_shape, weight: Tensor | None, bias: Tensor | None, eps: float) -> Tensor:
    """``F.layer_norm``: normalise each row of the last ``len(normalized_shape)`` dimensions."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    shape = tuple(x._t.shape)
    k = len(ns)
    if k == 0 or shape[len(shape) - k:] != ns or len(shape) < k:
        raise RuntimeError(f"Given normalized_shape={_shape_str(ns)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in ns)}], but got input of size{_shape_str(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_shape_str(t._t.shape)} and normalized_shape = {_shape_str(ns)}")
    dt = x._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"layer_norm on {dt.name} tensors")
    f32 = dt is dtypes.float32
    r = dt.round
    row = 1
    for s in ns:
        row *= s
    xv = _vals(x)
    rows = len(xv) // row if row else 0
    groups = [list(range(q * row, (q + 1) * row)) for q in range(rows)]
    param_of = [i % row for i in range(len(xv))]
    op, params = _affine_op((NO.LayerNormAffine0, NO.LayerNormAffine1, NO.LayerNorm), weight, bias)
    norm = NO.Norm(groups, param_of, eps, True, len(params), True)
    norm.shape = shape
    norm.normalized_shape = ns
    wv = _vals(weight) if weight is not None else None
    bv = _vals(bias) if bias is not None else None
    means, rstds = [], []
    out = [0.0] * len(xv)
    for idx in groups:
        vals = [xv[i] for i in idx]
        m_exact = math.fsum(vals) / row
        mean = r(m_exact)
        var = r(math.fsum([(a - m_exact) ** 2 for a in vals]) / row)
        rstd = r(ieee.div(1.0, ieee.sqrt(max(var, 0.0) + eps)))
        means.append(mean)
        rstds.append(rstd)
        shift = r(-rstd * mean)
        for j, i in enumerate(idx):
            y = fma(xv[i], rstd, shift, f32)
            if wv is not None:
                y = fma(y, wv[j], bv[j] if bv is not None else 0.0, f32)
            elif bv is not None:
                y = r(y + bv[j])
            out[i] = y
    stat_shape = shape[:len(shape) - k] + (1,) * k
    norm.mean, norm.invstd = means, rstds
    norm.result1 = leaf(list(means), TensorType(dt, stat_shape))
    norm.result2 = leaf(list(rstds), TensorType(dt, stat_shape))
    norm.weight, norm.bias = weight, bias
    return make(op, TensorType(dt, shape), out, (x,) + params, norm)


def layer_norm_backward(g: Tensor, v: Tensor) -> tuple:
    """native_layer_norm_backward: each gradient element the exact value of its formula rounded once."""
    norm = v._c
    ins = v._in
    x = ins[0]
    dt = x._t.dtype
    f32 = dt is dtypes.float32
    r = dt.round
    xv = _vals(x)
    gv = _vals(g) if g._t.ndim else [g._val] * len(xv)
    wv = _vals(norm.weight) if norm.weight is not None else None
    row = len(norm.groups[0]) if norm.groups else 0
    gx = [0.0] * len(xv)
    gw_terms = [[] for _ in range(row)]
    gb_terms = [[] for _ in range(row)]
    for q, idx in enumerate(norm.groups):
        mean, rstd = norm.mean[q], norm.invstd[q]
        xhat = [(xv[i] - mean) * rstd for i in idx]
        dyw = [gv[i] * (wv[j] if wv is not None else 1.0) for j, i in enumerate(idx)]
        a = math.fsum(dyw) / row
        b = math.fsum([d * h for d, h in zip(dyw, xhat)]) / row
        for j, i in enumerate(idx):
            gx[i] = r(rstd * (dyw[j] - a - xhat[j] * b))
            gw_terms[j].append(gv[i] * xhat[j])
            gb_terms[j].append(gv[i])
    shape = norm.shape
    pshape = norm.normalized_shape
    out = [leaf(gx, TensorType(dt, shape)) if x._rg else None]
    if len(ins) > 1:
        out.append(leaf([rounded_sum(t, f32) for t in gw_terms], TensorType(dt, pshape)) if ins[1]._rg else None)
    if len(ins) > 2:
        out.append(leaf([rounded_sum(t, f32) for t in gb_terms], TensorType(dt, pshape)) if ins[2]._rg else None)
    return tuple(out)


def group_norm(x: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None, eps: float) -> Tensor:
    """``torch.group_norm``: normalise each sample's ``num_groups`` groups of channels (the
    channels and every position of the group together), then scale and shift per channel."""
    shape = tuple(x._t.shape)
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    n, c = shape[0], shape[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {_shape_str(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._t.ndim != 1 or t._t.numel != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_shape_str(t._t.shape)} and input of shape "
                               f"{_shape_str(shape)}")
        if t is not None and t._t.dtype is not x._t.dtype:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    dt = x._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"group_norm on {dt.name} tensors")
    f32 = dt is dtypes.float32
    r = dt.round
    hxw = x._t.numel // (n * c) if n * c else 0
    row = (c // num_groups) * hxw
    xv = _vals(x)
    groups = [list(range(q * row, (q + 1) * row)) for q in range(n * num_groups)]
    param_of = [(i // hxw) % c if hxw else 0 for i in range(len(xv))]
    op, params = _affine_op((NO.GroupNormAffine0, NO.GroupNormAffine1, NO.GroupNorm), weight, bias)
    norm = NO.Norm(groups, param_of, eps, True, len(params), True)
    norm.shape = shape
    norm.num_groups, norm.batch, norm.channels, norm.hxw = num_groups, n, c, hxw
    wv = _vals(weight) if weight is not None else None
    bv = _vals(bias) if bias is not None else None
    means, rstds = [], []
    out = [0.0] * len(xv)
    for idx in groups:
        vals = [xv[i] for i in idx]
        m_exact = math.fsum(vals) / row if row else math.nan
        mean = r(m_exact)
        var = r(math.fsum([(a - m_exact) ** 2 for a in vals]) / row) if row else math.nan
        rstd = r(ieee.div(1.0, ieee.sqrt(max(var, 0.0) + eps))) if row else math.nan
        means.append(mean)
        rstds.append(rstd)
        for i in idx:
            ch = param_of[i]
            scale = r(rstd * wv[ch]) if wv is not None else rstd
            shift = fma(-scale, mean, bv[ch] if bv is not None else 0.0, f32)
            out[i] = fma(scale, xv[i], shift, f32)
    norm.mean, norm.invstd = means, rstds
    norm.result1 = leaf(list(means), TensorType(dt, (n, num_groups)))
    norm.result2 = leaf(list(rstds), TensorType(dt, (n, num_groups)))
    norm.weight, norm.bias = weight, bias
    return make(op, TensorType(dt, shape), out, (x,) + params, norm)


def group_norm_backward(g: Tensor, v: Tensor) -> tuple:
    """native_group_norm_backward: each gradient element the exact value of its formula rounded
    once (layer_norm's, over a group, with each channel's weight)."""
    norm = v._c
    ins = v._in
    x = ins[0]
    dt = x._t.dtype
    f32 = dt is dtypes.float32
    r = dt.round
    xv = _vals(x)
    gv = _vals(g) if g._t.ndim else [g._val] * len(xv)
    wv = _vals(norm.weight) if norm.weight is not None else None
    c = norm.channels
    gx = [0.0] * len(xv)
    gw_terms = [[] for _ in range(c)]
    gb_terms = [[] for _ in range(c)]
    for q, idx in enumerate(norm.groups):
        row = len(idx)
        if not row:  # an empty group (no positions): nothing to normalise; ATen's weight gradient
            # (ds - db * mean) * rstd is 0 * nan there (mean and rstd of no values are nan)
            for ch in range(c):
                gw_terms[ch].append(math.nan)
            continue
        mean, rstd = norm.mean[q], norm.invstd[q]
        xhat = [(xv[i] - mean) * rstd for i in idx]
        dyw = [gv[i] * (wv[norm.param_of[i]] if wv is not None else 1.0) for i in idx]
        a = math.fsum(dyw) / row
        b = math.fsum([d * h for d, h in zip(dyw, xhat)]) / row
        for j, i in enumerate(idx):
            gx[i] = r(rstd * (dyw[j] - a - xhat[j] * b))
            gw_terms[norm.param_of[i]].append(gv[i] * xhat[j])
            gb_terms[norm.param_of[i]].append(gv[i])
    pt = TensorType(dt, (c,))
    out = [leaf(gx, TensorType(dt, norm.shape)) if x._rg else None]
    if len(ins) > 1:
        out.append(leaf([rounded_sum(t, f32) for t in gw_terms], pt) if ins[1]._rg else None)
    if len(ins) > 2:
        out.append(leaf([rounded_sum(t, f32) for t in gb_terms], pt) if ins[2]._rg else None)
    return tuple(out)


def install(method, function) -> None:
    """torch.batch_norm, torch.layer_norm, torch.group_norm and torch.instance_norm."""
    function("batch_norm", lambda input, weight, bias, running_mean, running_var, training, momentum, eps,
             cudnn_enabled=False: batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps))
    function("layer_norm", lambda input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True:
             layer_norm(input, normalized_shape, weight, bias, eps))
    function("group_norm", lambda input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True:
             group_norm(input, num_groups, weight, bias, eps))


def _no_double_backward(what: str):
    def refuse(g, v):
        raise Unsupported(f"the double backward of {what} (Native{what.title().replace('_', '')}BackwardBackward0, "
                          "create_graph=True)")

    return refuse


helper(batch_norm_backward)
helper(layer_norm_backward)
helper(group_norm_backward)
graph_helper("batch_norm_backward", _no_double_backward("batch_norm"))
graph_helper("layer_norm_backward", _no_double_backward("layer_norm"))
graph_helper("group_norm_backward", _no_double_backward("group_norm"))
