"""``grid_sampler_3d`` on tensors (``F.grid_sample`` on 5-D inputs: trilinear or nearest).

ATen's 3-D CPU kernel is scalar code (``GridSampler.cpp``, the helpers of ``GridSampler.h``):
the source coordinates follow its float steps here (``((g + 1) / 2) * (size - 1)`` or
``((g + 1) * size - 1) / 2``, clipping, reflection by ``fmod``), so the corners read and the
weights' factors are ATen's; each output, input gradient and grid gradient is the exact sum of
its terms rounded once (ATen rounds each product and partial sum: within a few units in the last
place, measured in tests/test_grid_sample.py)."""

from __future__ import annotations

import math

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._ops import grid_sampling as GS
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["grid_sampler_3d"]


def _clip(x: float, size: int) -> tuple:
    """``clip_coordinates_set_grad``: (clipped, 1 strictly inside else 0)."""
    if x <= 0.0:
        return 0.0, 0.0
    if x >= size - 1:
        return float(size - 1), 0.0
    if x != x:  # NaN: std::min(limit, std::max(NaN, 0)) is the limit
        return float(size - 1), 0.0
    return x, 1.0


def _reflect(x: float, twice_low: int, twice_high: int, r) -> tuple:
    """``reflect_coordinates_set_grad``: (reflected, sign of its derivative)."""
    if twice_low == twice_high:
        return 0.0, 0.0
    low = r(twice_low / 2)
    span = r((twice_high - twice_low) / 2)
    x = r(x - low)
    sign = 1.0
    if x < 0:
        sign, x = -1.0, -x
    if not math.isfinite(x):
        return math.nan, sign
    extra = math.fmod(x, span)  # exact
    flips = math.floor(r(x / span))
    if flips % 2 == 0:
        return r(extra + low), sign
    return r(r(span - extra) + low), -sign


def _source(g: float, size: int, padding: int, align: bool, r) -> tuple:
    """``grid_sampler_compute_source_index_set_grad``: (coordinate, d coordinate / d g)."""
    if align:
        mult = r((size - 1) / 2)
        x = r(r(r(g + 1.0) / 2) * (size - 1))
    else:
        mult = r(size / 2)
        x = r(r(r(r(g + 1.0) * size) - 1.0) / 2)
    if padding == 1:
        x, gc = _clip(x, size)
        mult = r(mult * gc)
    elif padding == 2:
        x, gr = _reflect(x, 0, 2 * (size - 1), r) if align else _reflect(x, -1, 2 * size - 1, r)
        x, gc = _clip(x, size)
        mult = r(r(mult * gr) * gc)
    if not math.isfinite(x) or abs(x) > 2.0 ** 31:  # ATen's safe_downgrade_to_int_range
        x = -100.0
    return x, mult


def _geometry(input: Tensor, grid: Tensor, c) -> tuple:
    dt = input._t.dtype
    r = dt.round
    spatial = tuple(input._t.shape[2:])  # D, H, W
    gv = grid._val
    pos = []
    for i in range(0, len(gv), 3):
        # grid's (x, y, z) index W, H, D
        pos.append([_source(gv[i + a], spatial[2 - a], c.padding, c.align_corners, r) for a in range(3)])
    return spatial, pos


def _corners(coords: list, spatial: tuple, r) -> list:
    """[(flat spatial index or -1, weight, d weight / d x, d y, d z)] for the 8 corners, z outer,
    then y, then x (ATen's tnw, tne, tsw, tse, bnw, bne, bsw, bse)."""
    lows = [math.floor(x) for x, _ in coords]  # x, y, z
    fr = [(r(lo + 1 - x), r(x - lo)) for (x, _), lo in zip(coords, lows)]  # (to the far side, from the near)
    out = []
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                d = (dx, dy, dz)
                idx = [lows[a] + d[a] for a in range(3)]
                wts = [fr[a][d[a]] for a in range(3)]
                inside = all(0 <= idx[a] < spatial[2 - a] for a in range(3))
                flat = (idx[2] * spatial[1] + idx[1]) * spatial[2] + idx[0] if inside else -1
                sl = [1.0 if d[a] else -1.0 for a in range(3)]
                out.append((flat, wts[0] * wts[1] * wts[2], sl[0] * wts[1] * wts[2], sl[1] * wts[0] * wts[2],
                            sl[2] * wts[0] * wts[1]))
    return out


def _nearest(coords: list, spatial: tuple) -> int:
    idx = [round(x) for x, _ in coords]
    if all(0 <= idx[a] < spatial[2 - a] for a in range(3)):
        return (idx[2] * spatial[1] + idx[1]) * spatial[2] + idx[0]
    return -1


def grid_sampler_3d(input: Tensor, grid: Tensor, mode: int, padding: int, align_corners: bool) -> Tensor:
    """``torch.grid_sampler`` on a 5-D input (N, C, D, H, W) and grid (N, Do, Ho, Wo, 3), checked
    by the caller (``grid_sampling.grid_sampler``)."""
    dt = input._t.dtype
    nb, ch = input._t.shape[:2]
    out_sp = tuple(grid._t.shape[1:4])
    c = GS.GridInfo(None, align_corners, mode, padding)
    spatial, pos = _geometry(input, grid, c)
    plane = spatial[0] * spatial[1] * spatial[2]
    per_b = out_sp[0] * out_sp[1] * out_sp[2]
    xv = input._val
    out = [0.0] * (nb * ch * per_b)
    for b in range(nb):
        for p in range(per_b):
            coords = pos[b * per_b + p]
            if mode == 1:
                s = _nearest(coords, spatial)
                taps = [(s, 1.0)] if s >= 0 else []
            else:
                taps = [(t[0], t[1]) for t in _corners(coords, spatial, dt.round) if t[0] >= 0]
            for k in range(ch):
                base = (b * ch + k) * plane
                out[(b * ch + k) * per_b + p] = dt.round(math.fsum(xv[base + s] * w for s, w in taps))
    return make(GS.GridSampler3D, TensorType(dt, (nb, ch) + out_sp), out, (input, grid), c)


@helper
def grid_sampler_3d_backward(g, input: Tensor, grid: Tensor, c) -> tuple:
    """(grad input, grad grid), exact sums rounded once; the grid's gradient 0 for nearest."""
    dt = input._t.dtype
    nb, ch = input._t.shape[:2]
    out_sp = tuple(grid._t.shape[1:4])
    gv = g._val if isinstance(g, Tensor) and g._t.ndim else [float(g._val if isinstance(g, Tensor) else g)]
    spatial, pos = _geometry(input, grid, c)
    plane = spatial[0] * spatial[1] * spatial[2]
    per_b = out_sp[0] * out_sp[1] * out_sp[2]
    xv = input._val
    acc = [[] for _ in range(nb * ch * plane)]
    gg = [0.0] * (nb * per_b * 3)
    for b in range(nb):
        for p in range(per_b):
            coords = pos[b * per_b + p]
            if c.mode == 1:
                s = _nearest(coords, spatial)
                if s >= 0:
                    for k in range(ch):
                        acc[(b * ch + k) * plane + s].append(gv[(b * ch + k) * per_b + p])
                continue
            taps = [t for t in _corners(coords, spatial, dt.round) if t[0] >= 0]
            terms = ([], [], [])
            for k in range(ch):
                base = (b * ch + k) * plane
                go = gv[(b * ch + k) * per_b + p]
                for s, w, dx, dy, dz in taps:
                    acc[base + s].append(w * go)
                    val = xv[base + s]
                    for a, dw in enumerate((dx, dy, dz)):
                        terms[a].append(val * dw * go)
            for a in range(3):
                gg[(b * per_b + p) * 3 + a] = dt.round(coords[a][1] * math.fsum(terms[a]))
    g_in = leaf([dt.round(math.fsum(a)) for a in acc], TensorType(dt, tuple(input._t.shape)))
    return g_in, leaf(gg, TensorType(dt, tuple(grid._t.shape)))


def _no_double_backward(g, input, grid, c):
    raise Unsupported("the double backward of torch.nn.functional.grid_sample (create_graph=True through "
                      "GridSampler3DBackward0)")


graph_helper("grid_sampler_3d_backward", _no_double_backward)
