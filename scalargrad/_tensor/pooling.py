"""max_pool2d and avg_pool2d on tensors, as ATen's CPU kernels (``MaxPoolKernel.cpp``,
``AvgPoolKernel.cpp``) compute them for contiguous inputs, plane by plane:

* max_pool2d: the window's maximum, scanned row by row from ``-inf``, a later element winning
  only if greater (or nan); the index is the position within the plane (h * W + w). A
  selection: the same bits on every machine.
* avg_pool2d: the window's sum, added in order in the dtype, then one division by the divisor;
  its backward adds ``grad / divisor`` into each position of the window, windows in order.
  IEEE arithmetic in a fixed order: the same bits on every machine.

max_pool1d / avg_pool1d are ``unsqueeze(-2)``, the 2-D pool, ``squeeze(-2)``, as PyTorch
composes them (their grad_fn is ``SqueezeBackward1``).
"""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._ops import pooling as P
from .._ops import views as S
from .._ops.views import Layout
from .arguments import not_tensor
from .indexing import scatter_into
from .memory_formats import channels_last, channels_last_input, in_format
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper
from .views import squeeze, unsqueeze

__all__ = ["install", "max_pool2d", "avg_pool2d", "avg_pool2d_backward", "avg_pool2d_of", "max_pool1d", "avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool", "avg_pool", "adaptive_avg_pool",
           "adaptive_max_pool", "max_unpool"]


_WORDS = {2: "two", 3: "three"}
_PHRASES = {"kernel_size": "must either be a single int", "stride": "must either be omitted, a single int",
            "padding": "must either be a single int", "dilation": "must be either a single int"}


def _ntuple(x, n: int, fn: str, what: str) -> tuple:
    """An int or a tuple of 1 or ``n`` ints, as ``n`` ints (PyTorch's error otherwise)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return (x,) * n
    xs = tuple(x)
    if len(xs) == 1:
        return xs * n
    if len(xs) != n:
        phrase = "must be a single int" if (fn, what) == ("avg_pool3d", "kernel_size") else _PHRASES[what]
        raise RuntimeError(f"{fn}: {what} {phrase}, or a tuple of {_WORDS[n]} ints")
    return xs


def _letters(n: int) -> tuple:
    return ("T", "H", "W")[3 - n:]


def _geometry(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool, fn: str, count_include_pad=True,
              divisor_override=None) -> P.PoolGeometry:
    if not isinstance(x, Tensor):
        raise not_tensor(x, fn, 'input', 1)
    n = int(fn[-2])
    k = _ntuple(kernel_size, n, fn, "kernel_size")
    given = () if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else stride
    st = k if given == () else _ntuple(given, n, fn, "stride")
    saved = () if given == () else (tuple(given) if not isinstance(given, int) else (given,) * n)
    if fn.startswith("max_pool") and saved:
        saved = st  # max_pool saves the stride as expanded
    pad = _ntuple(padding, n, fn, "padding")
    dil = _ntuple(dilation, n, fn, "dilation")
    if any(s == 0 for s in st):
        raise RuntimeError("stride should not be zero")
    if any(kk <= 0 for kk in k):
        got = " ".join(f"k{c}: {kk}" for c, kk in zip(_letters(n), k))
        raise RuntimeError(f"kernel size should be greater than zero, but got {got}")
    if any(d <= 0 for d in dil):
        got = " ".join(f"dilation{c}: {d}" for c, d in zip(_letters(n), dil))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    nd = x._t.ndim
    if fn != "avg_pool2d" and nd not in (n + 1, n + 2):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")
    if n == 3:
        _check_planes(x, fn)
    for p, kk, d in zip(pad, k, dil):
        if p > (d * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={kk} and dilation={d}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if n == 2:
        _check_2d(x, fn)
    sizes = tuple(x._t.shape[-n:])
    if fn == "avg_pool3d" and any(s < kk for s, kk in zip(sizes, k)):
        raise RuntimeError(f"input image ({' '.join(f'{c}: {s}' for c, s in zip(_letters(n), sizes))}) smaller than "
                           f"kernel size ({' '.join(f'k{c}: {kk}' for c, kk in zip(_letters(n), k))})")
    geo = P.PoolGeometry(tuple(x._t.shape), k, st, saved, pad, dil, ceil_mode, count_include_pad, divisor_override)
    outs = geo.out_shape[-n:]
    if any(o < 1 for o in outs):
        lead = x._t.shape[-n - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(str(v) for v in (lead,) + sizes)}). Calculated output size: "
                           f"({'x'.join(str(v) for v in (lead,) + tuple(outs))}). Output size is too small")
    dt = x._t.dtype
    if not dt.is_floating_point:
        raise Unsupported(f"{fn} on {dt.name} tensors")
    return geo


def _check_2d(x: Tensor, fn: str) -> None:
    """ATen's ``pool2d_shape_check``: a (C, H, W) or (N, C, H, W) input, only N may be 0;
    avg_pool2d reads ``input.size(-3)`` first (an input of fewer dimensions: IndexError)."""
    shape = tuple(x._t.shape)
    nd = len(shape)
    if fn == "avg_pool2d" and nd == 0:
        raise IndexError("Dimension specified as -3 but tensor has no dimensions")
    if fn == "avg_pool2d" and nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")
    if not ((nd == 3 and all(shape)) or (nd == 4 and all(shape[1:]))):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(shape)}")


def _check_planes(x: Tensor, fn: str) -> None:
    """ATen's ``pool3d_shape_check``: every dimension but a 5-d input's batch is nonzero (its
    message names the dimension's length, 0, where it means its index)."""
    shape = tuple(x._t.shape)
    if not all(shape[len(shape) == 5:]):
        name = "max_pool3d_with_indices_out_cpu_template()" if fn == "max_pool3d" else f"{fn}()"
        raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive length, but input has a "
                           f"shape of {list(shape)} and non-batch dimension 0 has length zero!")


def max_pool2d(x: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool2d``: the maxima (and, with ``return_indices``, their int64 positions)."""
    return max_pool(x, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool, return_indices: bool, n: int):
    """``F.max_pool{n}d`` (n = 2, 3): the maxima (and, with ``return_indices``, their int64
    positions within each plane)."""
    geo = _geometry(x, kernel_size, stride, padding, dilation, ceil_mode, f"max_pool{n}d")
    t, out = _maxima(x, geo)
    y = _laid_out(make(P.POOL_OPS[n]["max"], t, out, (x,), geo), x, geo)
    return (y, geo.indices) if return_indices else y


def _laid_out(y: Tensor, x: Tensor, geo: P.PoolGeometry, adaptive: bool = False) -> Tensor:
    """The result (and indices) laid out as ATen's pooling kernels do: channels-last for a
    channels-last input (adaptive max pooling: in 2-d only)."""
    fmt = _channels_last_2d(x) if adaptive else channels_last_input(x)
    if fmt is not None and getattr(geo, "indices", None) is not None:
        in_format(geo.indices, fmt)
    return in_format(y, fmt)


def _maxima(x: Tensor, geo: P.PoolGeometry) -> tuple:
    """Each window's maximum (scanned in order from -inf, a later element winning if greater or
    nan), its flat input position in ``geo.picked`` and its position within the plane in
    ``geo.indices``; returns the result's type and values."""
    xv = x._val
    plane = 1
    for s in x._t.shape[-geo.dims:]:
        plane *= s
    out, idx, picked = [], [], []
    starts = geo.starts or [None] * len(geo.windows)
    for window, start in zip(geo.windows, starts):
        best = -float("inf")
        at = None
        for i in window:
            a = xv[i]
            if a > best or a != a:
                best, at = a, i
                if a != a:
                    break
        if at is None:  # nothing beats -inf: ATen keeps its first position
            first = window[0] // plane if window else 0
            at = window[0] if start is None else first * plane + start
        out.append(best)
        picked.append(at)
        idx.append(at % plane)
    geo.picked = picked
    geo.indices = leaf(idx, TensorType(dtypes.int64, geo.out_shape))
    return TensorType(x._t.dtype, geo.out_shape), out


def adaptive_max_pool2d(x: Tensor, size: tuple, return_indices: bool = False):
    """``adaptive_max_pool2d``: the maximum of windows from floor(i * H / OH) to ceil((i + 1) * H / OH)
    (and, with ``return_indices``, their int64 positions within each plane)."""
    return adaptive_max_pool(x, size, return_indices)


def adaptive_max_pool(x: Tensor, size: tuple, return_indices: bool = False):
    """``adaptive_max_pool{n}d`` over the last ``n = len(size)`` dims (n = 2, 3)."""
    n = len(size)
    if x._t.ndim not in (n + 1, n + 2) or any(s == 0 for s in x._t.shape[-n:]):
        raise RuntimeError(f"adaptive_max_pool{n}d(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(x._t.shape)}")
    if not x._t.dtype.is_floating_point:
        raise Unsupported(f"adaptive_max_pool{n}d on {x._t.dtype.name} tensors")
    geo = P.adaptive_geometry(tuple(x._t.shape), tuple(size))
    geo.starts = None
    t, out = _maxima(x, geo)
    y = _laid_out(make(P.POOL_OPS[n]["adaptive_max"], t, out, (x,), geo), x, geo, adaptive=True)
    return (y, geo.indices) if return_indices else y


def avg_pool2d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """``F.avg_pool2d``: each window's sum over its divisor."""
    return avg_pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


def avg_pool(x: Tensor, kernel_size, stride, padding, ceil_mode: bool, count_include_pad: bool,
             divisor_override: int | None, n: int) -> Tensor:
    """``F.avg_pool{n}d`` (n = 2, 3): each window's sum over its divisor."""
    geo = _geometry(x, kernel_size, stride, padding, 1, ceil_mode, f"avg_pool{n}d", count_include_pad,
                    divisor_override)
    return avg_pool2d_of(x, geo)


def avg_pool2d_of(x: Tensor, geo: P.PoolGeometry) -> Tensor:
    """avg_pool of ``x`` with the windows of ``geo`` (also the double backward of its backward)."""
    dt = x._t.dtype
    r = dt.round
    xv = x._val if x._t.ndim else [x._val]
    out = []
    ops = P.POOL_OPS[geo.dims]
    if geo.sides is not None:  # adaptive: sum / kd / kh / kw
        for window, sides in zip(geo.windows, _sides(geo, x)):
            s = r(0.0)
            for i in window:
                s = r(s + xv[i])
            for side in sides:
                s = r(s / side)
            out.append(s)
        return in_format(make(ops["adaptive_avg"], TensorType(dt, geo.out_shape), out, (x,), geo),
                         _channels_last_2d(x))
    for window, d in zip(geo.windows, geo.divisors):
        s = r(0.0)
        for i in window:
            s = r(s + xv[i])
        out.append(r(0.0 + r(s / d)))
    return in_format(make(ops["avg"], TensorType(dt, geo.out_shape), out, (x,), geo), _channels_last_2d(x))


def _channels_last_2d(x: Tensor):
    """channels_last for a channels-last 4-d input, else None: ATen's average pools have
    channels-last kernels in 2-d only (a channels_last_3d input is pooled contiguously)."""
    fmt = channels_last_input(x)
    return fmt if fmt is channels_last else None


def _sides(geo: P.PoolGeometry, x: Tensor) -> list:
    """What an adaptive window's sum is divided by, in turn: each side (sum / kh / kw), or, in
    ATen's channels-last kernel, their product at once (sum / (kh * kw))."""
    if _channels_last_2d(x) is None:
        return geo.sides
    return [(math.prod(sides),) for sides in geo.sides]


def avg_pool2d_backward(g: Tensor, geo: P.PoolGeometry, x: Tensor) -> Tensor:
    """The input's gradient: ``grad / divisor`` added into every position of each window, in
    order; a node over (grad, x) as PyTorch's (x's own gradient through it is zeros)."""
    dt = g._t.dtype
    r = dt.round
    gv = g._val if g._t.ndim else [g._val] * len(geo.windows)
    n = 1
    for s in geo.in_shape:
        n *= s
    out = [r(0.0)] * n
    adaptive = geo.sides is not None
    for o, (window, go) in enumerate(zip(geo.windows, gv)):
        if adaptive:
            delta = go
            for side in geo.sides[o]:
                delta = r(delta / side)
        else:
            delta = r(go / geo.divisors[o])
        for i in window:
            out[i] = r(out[i] + delta)
    op = P.POOL_OPS[geo.dims]["adaptive_avg_backward" if adaptive else "avg_backward"]
    return make(op, TensorType(dt, geo.in_shape), out, (g, x), geo)


def channels_last_mean(out: Tensor, x: Tensor) -> Tensor:
    """ATen's adaptive_avg_pool{2,3}d to size 1 is ``x.mean(spatial dims, keepdim=True)``
    (``out``); of a channels-last input it is then restrided in place to (C, 1, C, C[, C])
    (``as_strided_``): an AsStridedBackward1 node over MeanBackward1, the elements in place."""
    if channels_last_input(x) is None:
        return out
    c = x._t.shape[1]
    t = TensorType(out._t.dtype, out._t.shape, (c, 1) + (c,) * (x._t.ndim - 2))
    if not out._rg:
        out._t = t
        return out
    return make(S.AsStridedInplace, t, list(out._val), (out,), Layout(tuple(out._t.shape)))


def adaptive_avg_pool2d(x: Tensor, size: tuple) -> Tensor:
    """``_adaptive_avg_pool2d``: windows from floor(i * H / OH) to ceil((i + 1) * H / OH)."""
    return adaptive_avg_pool(x, size)


def adaptive_avg_pool(x: Tensor, size: tuple) -> Tensor:
    """``_adaptive_avg_pool{n}d`` over the last ``n = len(size)`` dims (n = 2, 3)."""
    n = len(size)
    if x._t.ndim not in (n + 1, n + 2) or any(s == 0 for s in x._t.shape[-n:]):
        raise RuntimeError(f"adaptive_avg_pool{n}d(): Expected {n + 1}D or {n + 2}D tensor, but got "
                           f"{list(x._t.shape)}")
    if x._t.dtype not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"adaptive_avg_pool{n}d on {x._t.dtype.name} tensors")
    return avg_pool2d_of(x, P.adaptive_geometry(tuple(x._t.shape), tuple(size)))


def max_unpool(x: Tensor, indices: Tensor, output_size: tuple, n: int) -> Tensor:
    """``max_unpool{n}d`` (n = 2, 3): zeros of ``output_size`` per plane with each element of ``x``
    written at its ``indices`` (within its plane; a later write wins), as ATen's CPU kernel."""
    what = f"max_unpooling{n}d"
    if indices._t.dtype is not dtypes.int64:
        raise RuntimeError("elements in indices should be type int64" + (
            f" but got: {indices._t.dtype.short}" if n == 2 else ""))
    if x._t.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Input to {what} should be a {n + 1}d or {n + 2}d Tensor, but got a tensor with "
                           f"{x._t.ndim} dimensions.")
    if tuple(x._t.shape) != tuple(indices._t.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(x._t.shape)}) but got indices tensor with shape: {list(indices._t.shape)}")
    if not x._t.dtype.is_floating_point:
        raise Unsupported(f"max_unpool{n}d on {x._t.dtype.name} tensors")
    plane = 1
    for s in output_size:
        plane *= s
    out_shape = tuple(x._t.shape[:-n]) + tuple(output_size)
    flat = []
    iv = indices._val if indices._t.ndim else [indices._val]
    per = 1  # the input's elements per plane
    for s in x._t.shape[-n:]:
        per *= s
    bad = None
    for k, i in enumerate(iv):
        if not 0 <= i < plane:
            bad = i  # ATen's kernel reports the last invalid index it met
        flat.append((k // per) * plane + i)
    if bad is not None:
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(v) for v in output_size)})")
    dt = x._t.dtype
    out = [dt.round(0)] * (plane * _planes(x, n))
    for at, v in zip(flat, x._val if x._t.ndim else [x._val]):
        out[at] = v
    layout = Layout(out_shape, dt, map=flat, tensors=indices)
    layout.sizes = tuple(x._t.shape)
    return make(P.MAX_UNPOOL_OPS[n], TensorType(dt, out_shape), out, (x,), layout)


def _planes(x: Tensor, n: int) -> int:
    p = 1
    for s in x._t.shape[:-n]:
        p *= s
    return p


def _single(x) -> int:
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    xs = tuple(x)
    return xs[0]


def max_pool1d(x: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool1d``: max_pool2d over a height-1 view."""
    shape = tuple(x._t.shape)
    if return_indices:
        _check_1d(x, "max_pool1d")
    elif not ((len(shape) == 2 and all(shape)) or (len(shape) == 3 and all(shape[1:]))):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(shape)}")
    k = _single(kernel_size)
    st = k if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else _single(stride)
    res = max_pool2d(unsqueeze(x, -2), (1, k), (1, st), (0, _single(padding)), (1, _single(dilation)), ceil_mode,
                     True)
    y, idx = res
    y = squeeze(y, -2)
    if return_indices:
        return y, squeeze(idx, -2)
    return y


def _check_1d(x: Tensor, fn: str) -> None:
    """ATen's ``checkDimRange(fn, self, 2, 4)``; the 2-d pooling it calls checks the rest."""
    if x._t.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x._t.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {fn})")


def avg_pool1d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """``F.avg_pool1d``: avg_pool2d over a height-1 view."""
    _check_1d(x, "avg_pool1d")
    k = _single(kernel_size)
    st = k if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else _single(stride)
    return squeeze(avg_pool2d(unsqueeze(x, -2), (1, k), (1, st), (0, _single(padding)), ceil_mode,
                              count_include_pad), -2)


def install(method, function) -> None:
    """torch.max_pool1d/2d/3d and torch.avg_pool1d."""
    function("max_pool3d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:
             max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, False, 3))
    function("max_pool2d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:
             max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode))
    function("max_pool1d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:
             max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode))
    function("avg_pool1d", lambda input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True:
             avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad))


@helper
def max_pool2d_backward(g, geo, self=None):
    """max_pool2d_with_indices_backward(grad, self): the gradient added at each window's picked
    position; under create_graph a node over both (``self``'s gradient is zeros, as PyTorch's,
    so the result requires grad when the pooled input does)."""
    return scatter_into(g, geo.in_shape, geo.picked, f"MaxPool{geo.dims}DWithIndicesBackwardBackward0",
                        accumulate=True, self_input=self)


@helper
def adaptive_max_pool2d_backward(g, geo, self=None):
    """adaptive_max_pool2d_backward(grad, self): as ``max_pool2d_backward``."""
    return scatter_into(g, geo.in_shape, geo.picked, f"AdaptiveMaxPool{geo.dims}DBackwardBackward0",
                        accumulate=True, self_input=self)


helper(avg_pool2d_backward)
helper(avg_pool2d_of, name="avg_pool2d")
