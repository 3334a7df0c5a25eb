"""Nearest upsampling on tensors (``_ops/upsampling.py``): the output sizes, ATen's
``nearest_idx`` in float32 as ATen computes it, and the backward's scatter-add."""

from __future__ import annotations

import math

from .._base.dtypes import TensorType, round_f32
from .._ops import upsampling as UP
from .tensor import Tensor, make
from .tensor_kernel import helper

__all__ = ["upsample_nearest"]


def _nearest_idx(o: int, size: int, out: int, factor) -> int:
    """ATen's ``nearest_idx``: the identity, a halving, or floor(o * scale) in float32 with scale
    1 / factor (or size / out), capped at the last index."""
    if out == size:
        return o
    if out == 2 * size:
        return o >> 1
    scale = round_f32(1.0 / factor) if factor is not None and factor > 0 else round_f32(size / out)
    return min(int(math.floor(round_f32(o * scale))), size - 1)


def upsample_nearest(x: Tensor, output_size, factors) -> Tensor:
    """upsample_nearest{1,2,3}d(x, output_size, scale_factors): ``output_size`` or ``factors``
    (one per spatial dim) is None."""
    shape = tuple(x._t.shape)
    n = len(shape) - 2
    spatial = shape[2:]
    if output_size is None:
        factors = tuple(float(f) for f in factors)  # ATen's scales are doubles
        output_size = tuple(int(s * f) for s, f in zip(spatial, factors))
    else:
        factors = (None,) * n
    output_size = tuple(output_size)
    if any(s <= 0 for s in spatial) or any(o <= 0 for o in output_size):
        names = "DHW"[3 - n:] if n > 1 else "L"
        ins = ", ".join(f"{c}: {s}" for c, s in zip(names, spatial))
        outs = ", ".join(f"{c}: {s}" for c, s in zip(names, output_size))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) output ({outs})")
    idx = [[_nearest_idx(o, s, out, f) for o in range(out)] for s, out, f in zip(spatial, output_size, factors)]
    source = list(range(shape[0] * shape[1]))
    for d in range(n):
        size = spatial[d]
        source = [base * size + i for base in source for i in idx[d]]
    geo = UP.Upsample(output_size, factors, shape, source)
    return _gather(x, geo, UP.NEAREST_OPS[n][0])


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
    return make(UP.NEAREST_OPS[op.dims][1], TensorType(dt, geo.in_shape), out, (g,), geo)


@helper
def upsample_nearest_again(g: Tensor, geo: UP.Upsample, op) -> Tensor:
    """The upsampling itself, on the gradient (the double backward of its backward)."""
    return _gather(g, geo, UP.NEAREST_OPS[op.dims][0])
