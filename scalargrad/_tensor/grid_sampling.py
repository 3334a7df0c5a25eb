"""``affine_grid_generator`` and ``grid_sampler_2d`` on tensors (``_ops/grid_sampling.py``).

affine_grid: ATen's base grid (``linspace(-1, 1, n)``, times ``(n - 1) / n`` without
align_corners, as scalargrad's linspace and arithmetic give it) times theta's transpose; the
gradient is the base grid's transpose times grad. grid_sample (bilinear, nearest, bicubic; zeros,
border, reflection padding): the source coordinates step by step in the dtype's arithmetic as
ATen's vectorised CPU kernel computes them (unnormalize, clip, reflect, floor/round; bicubic: its
4 x 4 taps, each tap's padding, the cubic convolution coefficients), so the elements read and
the interpolation weights are ATen's. The sums (the output's weighted taps, the bmm, the
gradients' scatter-adds and channel sums) are exact, rounded once: ATen adds them in an order and
with fused multiply-adds that depend on the processor (vector width, FMA contraction), so those
values are within a few units in the last place of PyTorch's (tests/test_grid_sample.py
measures them against live PyTorch)."""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import no_grad
from .._ops import grid_sampling as GS
from .grid_sampling_3d import grid_sampler_3d
from .ranges import linspace
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["affine_grid_generator", "grid_sampler", "MODES", "PADDINGS"]

MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t._t.shape) + "]"


# ------------------------------------------------------------------ affine_grid


def _steps(n: int, align_corners: bool, dt) -> list:
    """ATen's ``linspace_from_neg_one``: 0 for one step, else linspace(-1, 1, n), scaled by
    (n - 1) / n (a tensor times and divided by ints) without align_corners."""
    if n <= 1:
        return [0.0]
    with no_grad():
        rng = linspace(-1, 1, n, dtype=dt)
        if not align_corners:
            rng = rng * (n - 1) / n
    return list(rng._val)


def _base_grid(theta: Tensor, spatial: tuple, align_corners: bool) -> list:
    """The base grid's rows (x, y[, z], 1), spatial positions in row-major order."""
    dt = theta._t.dtype
    axes = [_steps(s, align_corners, dt) for s in spatial]  # (D,) H, W
    rows = [[]]
    for values in axes:
        rows = [row + [v] for row in rows for v in values]
    return [list(reversed(row)) + [1.0] for row in rows]  # x first: the last spatial dim


def affine_grid_generator(theta: Tensor, size: tuple, align_corners: bool) -> Tensor:
    """``torch.affine_grid_generator``: (N, *spatial, k) sampling positions, each the affine
    map theta[n] (k x (k + 1)) of a base-grid position; ``F.affine_grid`` checks the shapes."""
    dt = theta._t.dtype
    n, spatial = size[0], tuple(size[2:])
    k = len(spatial)
    if tuple(theta._t.shape[:2]) != (n, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k + 1}] but got: "
                           f"[{theta._t.shape[0]}, {theta._t.shape[2]}].")
    base = _base_grid(theta, spatial, align_corners)
    tv = theta._val
    out = []
    for b in range(n):
        mats = [tv[(b * k + i) * (k + 1):(b * k + i + 1) * (k + 1)] for i in range(k)]
        for row in base:
            for m in mats:
                out.append(dt.round(math.fsum(a * c for a, c in zip(row, m))))
    info = GS.GridInfo(tuple(size), align_corners)
    return make(GS.AffineGridGenerator, TensorType(dt, (n,) + spatial + (k,)), out, (theta,), info)


@helper
def affine_grid_backward(g, v: Tensor) -> Tensor:
    """grad_theta[n, i, j] = sum over positions of grad[n, p, i] * base[p, j], exact, rounded once."""
    c = v._c
    dt = v._t.dtype
    n, spatial = c.size[0], tuple(c.size[2:])
    k = len(spatial)
    base = _base_grid(v, spatial, c.align_corners)
    gv = g._val if isinstance(g, Tensor) and g._t.ndim else [float(g._val if isinstance(g, Tensor) else g)]
    out = []
    for b in range(n):
        for i in range(k):
            for j in range(k + 1):
                terms = (gv[(b * len(base) + p) * k + i] * row[j] for p, row in enumerate(base))
                out.append(dt.round(math.fsum(terms)))
    return leaf(out, TensorType(dt, (n, k, k + 1)))


def _no_affine_double_backward(g, v):
    raise Unsupported("the double backward of torch.nn.functional.affine_grid (create_graph=True through "
                      "AffineGridGeneratorBackward0)")


graph_helper("affine_grid_backward", _no_affine_double_backward)


# ------------------------------------------------------------------ grid_sample


def _check(input: Tensor, grid: Tensor, mode: int) -> None:
    """ATen's ``check_grid_sampler_common`` and ``check_grid_sampler_2d``, in its order."""
    ish, gsh = tuple(input._t.shape), tuple(grid._t.shape)
    if input._t.dtype != grid._t.dtype:
        raise RuntimeError(f"expected scalar type {input._t.dtype.short} but found {grid._t.dtype.short}")
    if not ish or not gsh or ish[0] != gsh[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    if gsh[-1] != len(ish) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(ish) - 2} in last dimension, but got "
                           f"grid with sizes {_sizes(grid)}")
    for i in range(2, len(ish)):
        if ish[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {_sizes(input)} with dimension {i} being empty")
    if len(ish) == 5 and mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    d = 5 if len(ish) == 5 else 4
    if len(ish) != d or len(gsh) != d:
        raise RuntimeError(f"grid_sampler(): expected {d}D input and grid with same number of dimensions, but got "
                           f"input with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    dt = input._t.dtype
    if not dt.is_floating_point or dt.is_complex:
        kernel = "grid_sampler3d_cpu" if d == 5 else "grid_sampler_2d_cpu_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.short}'")
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"torch.nn.functional.grid_sample on {dt.name} tensors (ATen's scalar fallback kernel)")


class _Axis:
    """One spatial dimension's coordinate computation (ATen's ``ComputeLocation``): the source
    coordinate of a grid value and d coordinate / d grid value, in the dtype's arithmetic."""

    __slots__ = ("size", "padding", "align", "r", "scale", "max_val", "twice_span")

    def __init__(self, size: int, padding: int, align: bool, r) -> None:
        self.size, self.padding, self.align, self.r = size, padding, align, r
        self.scale = r((size - 1) / 2) if align else r(size / 2)
        self.max_val = float(size - 1)
        self.twice_span = r((size - 1) * 2.0) if align else r(size * 2.0)

    def unnormalize(self, g: float) -> float:
        r = self.r
        x = r(r(g + 1.0) * self.scale)
        return x if self.align else r(x - 0.5)

    def clip(self, x: float) -> tuple:
        """(clipped, 1 inside the open range else 0); a NaN clips to 0 (ATen's operand order)."""
        lo = x if x > 0.0 else 0.0
        res = lo if lo < self.max_val else self.max_val
        return res, (1.0 if lo != 0.0 and res != self.max_val else 0.0)

    def reflect(self, x: float) -> tuple:
        """(reflected, its derivative's sign)."""
        r = self.r
        if self.align and self.size <= 1:
            return 0.0, 0.0
        shifted = x if self.align else r(x + 0.5)
        twice = self.twice_span
        a = abs(shifted)
        flips = math.trunc(r(a / twice)) if math.isfinite(a) else a
        extra = r(a - r(flips * twice))
        reflected = r(twice - extra)
        more = extra > reflected
        res = reflected if more else extra
        if not self.align:
            res = r(res - 0.5)
        return res, (-1.0 if more != (shifted < 0.0) else 1.0)

    def apply(self, g: float) -> tuple:
        """(source coordinate, d coordinate / d g)."""
        x = self.unnormalize(g)
        if self.padding == 0:
            return x, self.scale
        mult = self.scale
        if self.padding == 2:
            x, sign = self.reflect(x)
            mult = self.r(sign * mult)
        x, inside = self.clip(x)
        return x, mult * inside


def _corners(x: float, y: float, axes: tuple, padding: int, r) -> list:
    """Bilinear: [(flat spatial index or -1, weight)] for nw, ne, sw, se, and (n, s, w, e)."""
    ax_h, ax_w = axes
    h, w_size = ax_h.size, ax_w.size
    if not (math.isfinite(x) and math.isfinite(y)):
        return None, None
    x_w, y_n = math.floor(x), math.floor(y)
    w = r(x - x_w)
    e = r(1.0 - w)
    n = r(y - y_n)
    s = r(1.0 - n)
    out = []
    for yy, xx, wt in ((y_n, x_w, r(s * e)), (y_n, x_w + 1, r(s * w)), (y_n + 1, x_w, r(n * e)),
                       (y_n + 1, x_w + 1, r(n * w))):
        inside = 0 <= xx < w_size and 0 <= yy < h
        out.append(((int(yy) * w_size + int(xx)) if inside else -1, wt))
    return out, (n, s, w, e)


def _nearest(x: float, y: float, axes: tuple) -> int:
    ax_h, ax_w = axes
    if not (math.isfinite(x) and math.isfinite(y)):
        return -1
    xi, yi = round(x), round(y)  # half to even, as nearbyint
    return yi * ax_w.size + xi if 0 <= xi < ax_w.size and 0 <= yi < ax_h.size else -1


A = -0.75  # the cubic convolution's constant, as ATen's (and upsample_bicubic2d's)


def _cubic(t: float, r) -> list:
    """ATen's ``get_cubic_coefficients`` at fraction t, each step in the dtype's arithmetic."""
    def outer(x):
        return r(r(r(r(r(A * x) - r(5 * A)) * x) + r(8 * A)) * x) - r(4 * A)

    def inner(x):
        return r(r(r(r(r((A + 2) * x) - (A + 3)) * x) * x) + 1)

    return [r(outer(r(t + 1))), inner(t), inner(r(1 - t)), r(outer(r(2 - t)))]


def _cubic_grad(t: float, r) -> list:
    """ATen's ``get_cubic_coefficients_grad``: d coefficient / d t as its kernel writes it."""
    x0, x1, x2, x3 = r(-1 - t), -t, r(1 - t), r(2 - t)
    return [r(r(r(r(-3 * A * x0) - 10 * A) * x0) - 8 * A), r(r(r(-3 * (A + 2) * x1) - 2 * (A + 3)) * x1),
            r(r(r(3 * (A + 2) * x2) - 2 * (A + 3)) * x2), r(r(r(r(3 * A * x3) - 10 * A) * x3) + 8 * A)]


def _tap(axis: _Axis, v: float) -> int:
    """ATen's ``compute_coordinates`` of a bicubic tap (border: clipped; reflection: reflected
    and clipped), truncated to an index; -1 outside the input."""
    if axis.padding == 2:
        v = axis.clip(axis.reflect(v)[0])[0]
    elif axis.padding == 1:
        v = axis.clip(v)[0]
    if not math.isfinite(v):
        return -1
    i = math.trunc(v)
    return i if 0 <= i < axis.size else -1


def _bicubic_taps(g_x: float, g_y: float, axes: tuple, r) -> tuple:
    """[(flat spatial index or -1, cx[i], cy[j], cx'[i], cy'[j])] over the 4 x 4 taps, the
    coordinates unnormalized only (the padding acts on each tap), or None at a non-finite one."""
    ax_h, ax_w = axes
    x, y = ax_w.unnormalize(g_x), ax_h.unnormalize(g_y)
    if not (math.isfinite(x) and math.isfinite(y)):
        return None
    ix, iy = math.floor(x), math.floor(y)
    tx, ty = r(x - ix), r(y - iy)
    cx, cy, dx, dy = _cubic(tx, r), _cubic(ty, r), _cubic_grad(tx, r), _cubic_grad(ty, r)
    taps = []
    for i in range(4):
        col = _tap(ax_w, r(ix - 1.0 + i))
        for j in range(4):
            row = _tap(ax_h, r(iy - 1.0 + j))
            taps.append((row * ax_w.size + col if col >= 0 and row >= 0 else -1, cx[i], cy[j], dx[i], dy[j]))
    return taps


def _positions(input: Tensor, grid: Tensor, c: GS.GridInfo) -> tuple:
    """Per batch and output position: (x, gx multiplier, y, gy multiplier)."""
    dt = input._t.dtype
    r = dt.round
    _, _, h, w = input._t.shape
    axes = (_Axis(h, c.padding, c.align_corners, r), _Axis(w, c.padding, c.align_corners, r))
    gv = grid._val
    pos = []
    for i in range(0, len(gv), 2):
        x, mx = axes[1].apply(gv[i])
        y, my = axes[0].apply(gv[i + 1])
        pos.append((x, mx, y, my))
    return axes, pos


def grid_sampler(input: Tensor, grid: Tensor, mode: int, padding: int, align_corners: bool) -> Tensor:
    """``torch.grid_sampler`` on a 4-D input (N, C, H, W) and grid (N, Ho, Wo, 2): each output
    element the input sampled at the grid's (x, y), bilinear or nearest."""
    _check(input, grid, mode)
    if input._t.ndim == 5:
        return grid_sampler_3d(input, grid, mode, padding, align_corners)
    dt = input._t.dtype
    nb, ch, h, w = input._t.shape
    _, ho, wo, _ = grid._t.shape
    c = GS.GridInfo(None, align_corners, mode, padding)
    axes, pos = _positions(input, grid, c)
    xv = input._val
    plane, per_b = h * w, ho * wo
    out = [0.0] * (nb * ch * per_b)
    gv = grid._val
    for b in range(nb):
        for p in range(per_b):
            x, _, y, _ = pos[b * per_b + p]
            if mode == 2:
                taps = _bicubic_taps(gv[(b * per_b + p) * 2], gv[(b * per_b + p) * 2 + 1], axes, dt.round)
                for k in range(ch):
                    base = (b * ch + k) * plane
                    out[(b * ch + k) * per_b + p] = math.nan if taps is None else dt.round(
                        math.fsum(xv[base + s] * wx * wy for s, wx, wy, _, _ in taps if s >= 0))
                continue
            if mode == 1:
                s = _nearest(x, y, axes)
                for k in range(ch):
                    out[(b * ch + k) * per_b + p] = xv[(b * ch + k) * plane + s] if s >= 0 else 0.0
                continue
            taps, _ = _corners(x, y, axes, padding, dt.round)
            for k in range(ch):
                base = (b * ch + k) * plane
                if taps is None:
                    val = math.nan
                else:
                    val = dt.round(math.fsum(xv[base + s] * wt for s, wt in taps if s >= 0))
                out[(b * ch + k) * per_b + p] = val
    return make(GS.GridSampler2D, TensorType(dt, (nb, ch, ho, wo)), out, (input, grid), c)


@helper
def grid_sampler_2d_backward(g, input: Tensor, grid: Tensor, c) -> tuple:
    """(grad input, grad grid): each input element the exact sum of weight times gradient over
    the outputs reading it; each grid value the exact channel sum of the interpolation's slope
    times the gradient, times d coordinate / d grid value (0 for nearest), rounded once."""
    dt = input._t.dtype
    nb, ch, h, w = input._t.shape
    _, ho, wo, _ = grid._t.shape
    gv = g._val if isinstance(g, Tensor) and g._t.ndim else [float(g._val if isinstance(g, Tensor) else g)]
    axes, pos = _positions(input, grid, c)
    xv = input._val
    plane, per_b = h * w, ho * wo
    acc = [[] for _ in range(nb * ch * plane)]
    gg = [0.0] * (nb * per_b * 2)
    gridv = grid._val
    for b in range(nb):
        for p in range(per_b):
            x, mx, y, my = pos[b * per_b + p]
            if c.mode == 2:
                _bicubic_backward(gridv, gv, xv, acc, gg, (b, p, ch, plane, per_b), axes, dt.round)
                continue
            if c.mode == 1:
                s = _nearest(x, y, axes)
                if s >= 0:
                    for k in range(ch):
                        acc[(b * ch + k) * plane + s].append(gv[(b * ch + k) * per_b + p])
                continue
            taps, sides = _corners(x, y, axes, c.padding, dt.round)
            if taps is None:
                gg[(b * per_b + p) * 2] = gg[(b * per_b + p) * 2 + 1] = math.nan
                continue
            n, s_, w_, e = sides
            tx, ty = [], []
            for k in range(ch):
                base = (b * ch + k) * plane
                go = gv[(b * ch + k) * per_b + p]
                vals = [xv[base + s] if s >= 0 else 0.0 for s, _ in taps]
                for s, wt in taps:
                    if s >= 0:
                        acc[base + s].append(wt * go)
                nw, ne, sw, se = vals
                tx += [(ne - nw) * s_ * go, (se - sw) * n * go]
                ty += [(sw - nw) * e * go, (se - ne) * w_ * go]
            gg[(b * per_b + p) * 2] = dt.round(math.fsum(tx) * mx)
            gg[(b * per_b + p) * 2 + 1] = dt.round(math.fsum(ty) * my)
    g_in = leaf([dt.round(math.fsum(a)) for a in acc], TensorType(dt, (nb, ch, h, w)))
    return g_in, leaf(gg, TensorType(dt, (nb, ho, wo, 2)))


def _bicubic_backward(gridv, gv, xv, acc, gg, where, axes, r) -> None:
    """One output position's bicubic gradients: each tap's input element collects
    gOut * cx * cy; the grid's x and y minus the channel sums of value * gOut * cx' * cy (and
    cx * cy'), times the scaling factor (ATen's bicubic backward takes no padding slope)."""
    b, p, ch, plane, per_b = where
    q = b * per_b + p
    taps = _bicubic_taps(gridv[q * 2], gridv[q * 2 + 1], axes, r)
    if taps is None:
        gg[q * 2] = gg[q * 2 + 1] = math.nan
        return
    tx, ty = [], []
    for k in range(ch):
        base = (b * ch + k) * plane
        go = gv[(b * ch + k) * per_b + p]
        for s, wx, wy, dwx, dwy in taps:
            if s >= 0:
                acc[base + s].append(go * wx * wy)
                val = xv[base + s]
                tx.append(-val * go * dwx * wy)
                ty.append(-val * go * dwy * wx)
    gg[q * 2] = r(math.fsum(tx) * axes[1].scale)
    gg[q * 2 + 1] = r(math.fsum(ty) * axes[0].scale)


def _no_grid_double_backward(g, input, grid, c):
    raise Unsupported("the double backward of torch.nn.functional.grid_sample (create_graph=True through "
                      "GridSampler2DBackward0)")


graph_helper("grid_sampler_2d_backward", _no_grid_double_backward)
