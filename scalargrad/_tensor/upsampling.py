"""Upsampling on tensors (``_ops/upsampling.py``): the output sizes; nearest: ATen's ``nearest_idx``
in float32 as ATen computes it, and the backward's scatter-add; linear, bilinear, trilinear,
bicubic: ATen's taps and weights (``area_pixel_compute_source_index``, ``guard_index_and_lambda``,
the cubic convolution coefficients with A = -0.75) computed in the dtype's arithmetic as ATen's
generic code does, and each output element the exact sum of its products rounded once, as the
convolutions (PyTorch's kernels add them in an order, and with fused multiply-adds, that depend on
the processor: within a small bound of it, measured in tests/test_interpolate.py). The backward
is the same: each input element the exact sum of gradient times weight over the outputs reading it."""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType, round_f32
from .._base.errors import Unsupported
from .._base.exact_sum import fixed_point, round_scaled_list
from .._ops import upsampling as UP
from .memory_formats import channels_last_input, in_format
from .tensor import Tensor, make
from .tensor_kernel import helper

__all__ = ["upsample_nearest", "upsample_interp"]


def _nearest_idx(o: int, size: int, out: int, factor) -> int:
    """ATen's ``nearest_idx``: the identity, a halving, or floor(o * scale) in float32 with scale
    1 / factor (or size / out), capped at the last index."""
    if out == size:
        return o
    if out == 2 * size:
        return o >> 1
    scale = round_f32(1.0 / factor) if factor is not None and factor > 0 else round_f32(size / out)
    return min(int(math.floor(round_f32(o * scale))), size - 1)


def _nearest_exact_idx(o: int, size: int, out: int, factor) -> int:
    """ATen's ``nearest_exact_idx``: floorf((o + 0.5) * scale), the product in double rounded to
    float32 by floorf's argument, scale as in ``_nearest_idx``, capped at the last index."""
    scale = round_f32(1.0 / factor) if factor is not None and factor > 0 else round_f32(size / out)
    return min(int(math.floor(round_f32((o + 0.5) * scale))), size - 1)


def _output_size(spatial: tuple, output_size, factors) -> tuple:
    """(output size, scale factors) of an upsampling of the spatial sizes ``spatial`` given one of
    them (the other None), as ATen computes them, with its check that no size is 0."""
    n = len(spatial)
    if output_size is None:
        factors = tuple(float(f) for f in factors)  # ATen's scales are doubles
        output_size = tuple(int(s * f) for s, f in zip(spatial, factors))
    else:
        factors = (None,) * n
    output_size = tuple(output_size)
    if any(s <= 0 for s in spatial) or any(o <= 0 for o in output_size):
        names = "DHW"[3 - n:]
        ins = ", ".join(f"{c}: {s}" for c, s in zip(names, spatial))
        outs = ", ".join(f"{c}: {s}" for c, s in zip(names, output_size))
        joint = " and" if n == 1 else ""  # ATen's 1-D check words it so
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){joint} output "
                           f"({outs})")
    return output_size, factors


def upsample_nearest(x: Tensor, output_size, factors, exact: bool = False) -> Tensor:
    """upsample_nearest{1,2,3}d(x, output_size, scale_factors), or with ``exact``
    _upsample_nearest_exact{1,2,3}d: ``output_size`` or ``factors`` (one per spatial dim) is None."""
    shape = tuple(x._t.shape)
    n, spatial = len(shape) - 2, shape[2:]
    output_size, factors = _output_size(spatial, output_size, factors)
    pick = _nearest_exact_idx if exact else _nearest_idx
    idx = [[pick(o, s, out, f) for o in range(out)] for s, out, f in zip(spatial, output_size, factors)]
    source = list(range(shape[0] * shape[1]))
    for d in range(n):
        size = spatial[d]
        source = [base * size + i for base in source for i in idx[d]]
    geo = UP.Upsample(output_size, factors, shape, source)
    return in_format(_gather(x, geo, UP.NEAREST_OPS[n, exact][0]), channels_last_input(x))  # laid out as ATen's


def _gather(x: Tensor, geo: UP.Upsample, op) -> Tensor:
    xv = x._val
    out_shape = geo.in_shape[:2] + geo.output_size
    return make(op, TensorType(x._t.dtype, out_shape), [xv[s] for s in geo.source], (x,), geo)


@helper
def upsample_nearest_backward(g: Tensor, geo: UP.Upsample, op) -> Tensor:
    """upsample_nearestNd_backward: each gradient element added into the input position its output
    copies, outputs in order, into zeros."""
    dt = g._t.dtype
    r = dt.round
    n = 1
    for s in geo.in_shape:
        n *= s
    out = [r(0.0)] * n
    for s, go in zip(geo.source, g._val):
        out[s] = r(out[s] + go)
    return make(UP.NEAREST_OPS[op.dims, op.exact][1], TensorType(dt, geo.in_shape), out, (g,), geo)


@helper
def upsample_nearest_again(g: Tensor, geo: UP.Upsample, op) -> Tensor:
    """The upsampling itself, on the gradient (the double backward of its backward)."""
    return _gather(g, geo, UP.NEAREST_OPS[op.dims, op.exact][0])


def _scale(size: int, out: int, align_corners: bool, factor, r) -> float:
    """ATen's ``area_pixel_compute_scale`` in the op's arithmetic (``r`` rounds to it)."""
    if align_corners:
        return r((size - 1) / (out - 1)) if out > 1 else 0.0
    return r(1.0 / factor) if factor is not None and factor > 0 else r(size / out)


def _cubic_coefficients(t: float, r) -> list:
    """ATen's ``get_cubic_upsample_coefficients`` (A = -0.75), each step rounded by ``r``."""
    a = -0.75

    def near(x):  # cubic_convolution1: ((A + 2) * x - (A + 3)) * x * x + 1
        return r(r(r(r(r((a + 2) * x) - (a + 3)) * x) * x) + 1)

    def far(x):  # cubic_convolution2: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
        return r(r(r(r(r(r(a * x) - 5 * a) * x) + 8 * a) * x) - 4 * a)

    x2 = r(1.0 - t)
    return [far(r(t + 1.0)), near(t), near(x2), far(r(x2 + 1.0))]


def _taps(size: int, out: int, align_corners: bool, factor, cubic: bool, r) -> list:
    """Per output index, ATen's [(input index, weight)] along one dim."""
    scale = _scale(size, out, align_corners, factor, r)
    taps = []
    for i in range(out):
        if align_corners:
            src = r(scale * i)
        else:  # scale * (i + 0.5) - 0.5 in double, then the op's type
            src = r(scale * (i + 0.5) - 0.5)
            if src < 0 and not cubic:
                src = 0.0
        idx = min(math.floor(src), size - 1)
        lam = min(max(r(src - idx), 0.0), 1.0)
        if cubic:
            coeffs = _cubic_coefficients(lam, r)
            taps.append([(max(min(idx - 1 + j, size - 1), 0), coeffs[j]) for j in range(4)])
        else:
            taps.append([(idx, r(1.0 - lam)), (idx + (1 if idx < size - 1 else 0), lam)])
    return taps


def upsample_interp(x: Tensor, output_size, factors, align_corners: bool, mode: str) -> Tensor:
    """upsample_{linear1d,bilinear2d,trilinear3d,bicubic2d}(x, output_size, align_corners,
    scale_factors): ``output_size`` or ``factors`` (one per spatial dim) is None."""
    shape = tuple(x._t.shape)
    spatial = shape[2:]
    output_size, factors = _output_size(spatial, output_size, factors)
    dt = x._t.dtype
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"interpolate(mode='{mode}') on {dt.name} tensors")
    r = round_f32 if dt is dtypes.float32 else float
    geo = UP.Upsample(output_size, factors, shape, None)
    geo.align_corners = bool(align_corners)
    geo.taps = [_taps(s, o, geo.align_corners, f, mode == "bicubic", r)
                for s, o, f in zip(spatial, output_size, factors)]
    fwd = UP.INTERPOLATING_OPS[mode][0]
    out = make(fwd, TensorType(dt, shape[:2] + output_size), _weighted(x._val, geo, dt), (x,), geo)
    return in_format(out, channels_last_input(x))


def _weighted(xv: list, geo: UP.Upsample, dt) -> list:
    """Each output element: the exact sum of its taps' products, rounded once to ``dt``."""
    f32 = dt is dtypes.float32
    fixed = [fixed_point([w for taps in dim for _, w in taps]) for dim in geo.taps]
    fx = fixed_point(xv)
    if fx is None:  # an inf or nan: IEEE's sums in ATen's order (outer dim outermost)
        r = dt.round
        return [r(sum(v * w for v, w in zip(vals, ws))) for vals, ws in UP.products(xv, geo, None)]
    xi, shift = fx
    ints = []
    for (wi, ws) in fixed:
        ints.append(wi)
        shift += ws
    sums = [sum(v * w for v, w in zip(vals, weights)) for vals, weights in UP.products(xi, geo, ints)]
    return round_scaled_list(sums, shift, f32)


@helper
def upsample_interp_backward(g: Tensor, geo: UP.Upsample, op) -> Tensor:
    """upsample_*_backward: each input element the exact sum of grad * weight over the outputs
    reading it, rounded once (a node of its own: its backward is the upsampling again)."""
    dt = g._t.dtype
    gv = g._val
    n_in = 1
    for s in geo.in_shape:
        n_in *= s
    fixed = [fixed_point([w for taps in dim for _, w in taps]) for dim in geo.taps]
    fg = fixed_point(gv)
    if fg is None:
        index = UP.products(list(range(n_in)), geo, None)
        r = dt.round
        acc = [[] for _ in range(n_in)]
        for go, (idx, ws) in zip(gv, index):
            for i, w in zip(idx, ws):
                acc[i].append(go * w)
        out = [r(sum(t)) for t in acc]
    else:
        gi, shift = fg
        wprod = UP.products(list(range(n_in)), geo, [wi for wi, _ in fixed])
        shift += sum(ws for _, ws in fixed)
        acc = [0] * n_in
        for go, (idx, ws) in zip(gi, wprod):
            if go:
                for i, w in zip(idx, ws):
                    acc[i] += go * w
        out = round_scaled_list(acc, shift, dt is dtypes.float32)
    bwd = UP.INTERPOLATING_OPS[op.mode][1]
    return make(bwd, TensorType(dt, geo.in_shape), out, (g,), geo)


@helper
def upsample_interp_again(g: Tensor, geo: UP.Upsample, op) -> Tensor:
    """The upsampling itself, on the gradient (the double backward of its backward)."""
    dt = g._t.dtype
    fwd = UP.INTERPOLATING_OPS[op.mode][0]
    return make(fwd, TensorType(dt, geo.in_shape[:2] + geo.output_size), _weighted(g._val, geo, dt), (g,), geo)
