"""The sign of a convolution output that is exactly zero, as PyTorch 2.13's CPU kernels give it.

scalargrad sums each output's products exactly and rounds once (``convolution``), which makes
an exact zero +0.0. IEEE arithmetic makes a sum -0.0 when every term is -0.0, and whether
PyTorch's kernels get there depends on where their accumulation starts (measured on PyTorch
2.13 under ATEN_CPU_CAPABILITY=default/avx2, MKL_CBWR=COMPATIBLE and none, the same each time):

- oneDNN (float32 batches, groups, kernels larger than 3x3 in both last dimensions, inputs
  of more than 20,480 elements in their first four dimensions: ATen's ``use_mkldnn`` on a
  machine with more than one thread) starts from +0.0: every exact zero is +0.0, as ours.
- im2col + GEMM (float64, and the other float32 calls) with a bias copies the bias into the
  output and adds the products to it: -0.0 where the bias element is -0.0 and every product,
  a padded tap's (+0.0 times its weight) too, is -0.0.
- without a bias, a GEMM whose sums have a single term (one input channel per group, a kernel
  of one element, no groups, no dilation) stores that product itself, its sign included;
  longer sums start from +0.0 (measured: -0.0 products give +0.0).

Transposed convolutions and the gradients keep +0.0 (not measured)."""

from __future__ import annotations

import math

from .._base import dtypes

__all__ = ["pytorch_zero_signs"]


def _negative_zero(v: float) -> bool:
    return v == 0.0 and math.copysign(1.0, v) < 0.0


def _onednn(geo) -> bool:
    """ATen's ``ConvParams::use_mkldnn`` for a strided CPU float32 input, on more than one thread:
    a 1-d convolution is viewed as a 2-d one of height 1 first (``view1d_as_2d``)."""
    shape, ks = geo.in_shape, geo.weight_shape[2:]
    if len(ks) == 1:
        shape, ks = shape[:2] + (1,) + shape[2:], (1,) + ks
    return (geo.groups > 1 or (ks[-1] > 3 and ks[-2] > 3) or shape[0] > 1
            or shape[0] * shape[1] * shape[2] * shape[3] > 20480)


def pytorch_zero_signs(geo, out: list, xv: list, wv: list, bv: list | None, dt) -> list:
    """``out`` (the exact sums rounded once, of dtype ``dt``) with the signs of its zeros PyTorch's
    kernel gives them (see the module): ``out`` itself when nothing changes, else a changed copy.
    Half-precision dtypes (other kernels, not measured) keep +0.0."""
    if dt is not dtypes.float64 and (dt is not dtypes.float32 or _onednn(geo)):
        return out
    span = geo.c_per_in * geo.k_plane
    if bv is None:
        if span != 1 or geo.groups != 1 or any(d != 1 for d in geo.dilation):
            return out
        wanted = range(geo.out_shape[1])
    else:
        wanted = {oc for oc, b in enumerate(bv) if _negative_zero(b)}
        if not wanted:
            return out
    changed = None
    chan = geo.channel
    for o, v in enumerate(out):
        if v != 0.0 or math.copysign(1.0, v) < 0.0:
            continue
        oc = chan[o]
        if oc not in wanted:
            continue
        taps = geo.row(o)
        if not all(_negative_zero(xv[i] * wv[j]) for i, j in taps):
            continue
        base = geo.w_base(oc, 0)
        inside = {j for _, j in taps}
        # a padded tap reads +0.0: its product is -0.0 exactly when its weight's sign bit is set
        if all(math.copysign(1.0, wv[j]) < 0.0 for j in range(base, base + span) if j not in inside):
            if changed is None:
                changed = list(out)
            changed[o] = -0.0
    return out if changed is None else changed
