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

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._ops import pooling as P
from .arguments import not_tensor
from .indexing import scatter_into
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper
from .views import squeeze, unsqueeze

__all__ = ["install", "max_pool2d", "avg_pool2d", "avg_pool2d_backward", "avg_pool2d_of", "max_pool1d", "avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool2d"]


def _pair(x, what: str) -> tuple:
    if isinstance(x, int) and not isinstance(x, bool):
        return (x, x)
    xs = tuple(x)
    if len(xs) == 1:
        return (xs[0], xs[0])
    if len(xs) != 2:
        raise RuntimeError(f"{what} must either be a single int, or a tuple of two ints")
    return xs


def _geometry(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool, fn: str, count_include_pad=True,
              divisor_override=None) -> P.PoolGeometry:
    if not isinstance(x, Tensor):
        raise not_tensor(x, fn, 'input', 1)
    k = _pair(kernel_size, f"{fn}: kernel_size")
    given = () if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else stride
    st = k if given == () else _pair(given, f"{fn}: stride")
    saved = () if given == () else (tuple(given) if not isinstance(given, int) else (given, given))
    if fn == "max_pool2d" and saved:
        saved = st  # max_pool2d saves the stride as expanded
    pad = _pair(padding, f"{fn}: padding")
    dil = _pair(dilation, f"{fn}: dilation")
    if any(s == 0 for s in st):
        raise RuntimeError("stride should not be zero")
    if any(kk <= 0 for kk in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    nd = x._t.ndim
    if nd not in (3, 4) or x._t.numel == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for p, kk, d in zip(pad, k, dil):
        if p > (d * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={kk} and dilation={d}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    geo = P.PoolGeometry(tuple(x._t.shape), k, st, saved, pad, dil, ceil_mode, count_include_pad, divisor_override)
    oh, ow = geo.out_shape[-2:]
    if oh < 1 or ow < 1:
        lead = x._t.shape[-3]
        h, w = x._t.shape[-2:]
        raise RuntimeError(f"Given input size: ({lead}x{h}x{w}). Calculated output size: ({lead}x{oh}x{ow}). "
                           "Output size is too small")
    dt = x._t.dtype
    if not dt.is_floating_point:
        raise Unsupported(f"{fn} on {dt.name} tensors")
    return geo


def max_pool2d(x: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool2d``: the maxima (and, with ``return_indices``, their int64 positions)."""
    geo = _geometry(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    t, out = _maxima(x, geo)
    y = make(P.MaxPool2d, t, out, (x,), geo)
    return (y, geo.indices) if return_indices else y


def _maxima(x: Tensor, geo: P.PoolGeometry) -> tuple:
    """Each window's maximum (scanned in order from -inf, a later element winning if greater or
    nan), its flat input position in ``geo.picked`` and its position within the plane in
    ``geo.indices``; returns the result's type and values."""
    xv = x._val
    w = x._t.shape[-1]
    h = x._t.shape[-2]
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
            plane = window[0] // (h * w) if window else 0
            at = window[0] if start is None else plane * h * w + start
        out.append(best)
        picked.append(at)
        idx.append(at % (h * w))
    geo.picked = picked
    geo.indices = leaf(idx, TensorType(dtypes.int64, geo.out_shape))
    return TensorType(x._t.dtype, geo.out_shape), out


def adaptive_max_pool2d(x: Tensor, size: tuple, return_indices: bool = False):
    """``adaptive_max_pool2d``: the maximum of windows from floor(i * H / OH) to ceil((i + 1) * H / OH)
    (and, with ``return_indices``, their int64 positions within each plane)."""
    if x._t.ndim not in (3, 4) or any(s == 0 for s in x._t.shape[-2:]):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(x._t.shape)}")
    if not x._t.dtype.is_floating_point:
        raise Unsupported(f"adaptive_max_pool2d on {x._t.dtype.name} tensors")
    geo = P.adaptive_geometry(tuple(x._t.shape), tuple(size))
    geo.starts = None
    t, out = _maxima(x, geo)
    y = make(P.AdaptiveMaxPool2d, t, out, (x,), geo)
    return (y, geo.indices) if return_indices else y


def avg_pool2d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """``F.avg_pool2d``: each window's sum over its divisor."""
    geo = _geometry(x, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d", count_include_pad, divisor_override)
    return avg_pool2d_of(x, geo)


def avg_pool2d_of(x: Tensor, geo: P.PoolGeometry) -> Tensor:
    """avg_pool2d of ``x`` with the windows of ``geo`` (also the double backward of its backward)."""
    dt = x._t.dtype
    r = dt.round
    xv = x._val if x._t.ndim else [x._val]
    out = []
    if geo.sides is not None:  # adaptive: sum / kh / kw
        for window, (kh, kw) in zip(geo.windows, geo.sides):
            s = r(0.0)
            for i in window:
                s = r(s + xv[i])
            out.append(r(r(s / kh) / kw))
        return make(P.AdaptiveAvgPool2d, TensorType(dt, geo.out_shape), out, (x,), geo)
    for window, d in zip(geo.windows, geo.divisors):
        s = r(0.0)
        for i in window:
            s = r(s + xv[i])
        out.append(r(0.0 + r(s / d)))
    return make(P.AvgPool2d, TensorType(dt, geo.out_shape), out, (x,), geo)


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
            kh, kw = geo.sides[o]
            delta = r(r(go / kh) / kw)
        else:
            delta = r(go / geo.divisors[o])
        for i in window:
            out[i] = r(out[i] + delta)
    op = P.AdaptiveAvgPool2dBackward if adaptive else P.AvgPool2dBackward
    return make(op, TensorType(dt, geo.in_shape), out, (g, x), geo)


def adaptive_avg_pool2d(x: Tensor, size: tuple) -> Tensor:
    """``_adaptive_avg_pool2d``: windows from floor(i * H / OH) to ceil((i + 1) * H / OH)."""
    if x._t.ndim not in (3, 4) or any(s == 0 for s in x._t.shape[-2:]):
        raise RuntimeError("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(x._t.shape)}")
    if x._t.dtype not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"adaptive_avg_pool2d on {x._t.dtype.name} tensors")
    return avg_pool2d_of(x, P.adaptive_geometry(tuple(x._t.shape), tuple(size)))


def _single(x) -> int:
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    xs = tuple(x)
    return xs[0]


def max_pool1d(x: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool1d``: max_pool2d over a height-1 view."""
    if x._t.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {list(x._t.shape)}")
    k = _single(kernel_size)
    st = k if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else _single(stride)
    res = max_pool2d(unsqueeze(x, -2), (1, k), (1, st), (0, _single(padding)), (1, _single(dilation)), ceil_mode,
                     True)
    y, idx = res
    y = squeeze(y, -2)
    if return_indices:
        return y, squeeze(idx, -2)
    return y


def avg_pool1d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """``F.avg_pool1d``: avg_pool2d over a height-1 view."""
    if x._t.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(x._t.shape)}")
    k = _single(kernel_size)
    st = k if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) else _single(stride)
    return squeeze(avg_pool2d(unsqueeze(x, -2), (1, k), (1, st), (0, _single(padding)), ceil_mode,
                              count_include_pad), -2)


def install(method, function) -> None:
    """torch.max_pool1d/2d and torch.avg_pool1d."""
    function("max_pool2d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:
             max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode))
    function("max_pool1d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:
             max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode))
    function("avg_pool1d", lambda input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True:
             avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad))


@helper
def max_pool2d_backward(g, geo):
    """max_pool2d_with_indices_backward: the gradient added at each window's picked position."""
    return scatter_into(g, geo.in_shape, geo.picked, "MaxPool2DWithIndicesBackwardBackward0", accumulate=True)


@helper
def adaptive_max_pool2d_backward(g, geo):
    """adaptive_max_pool2d_backward: the gradient added at each window's picked position."""
    return scatter_into(g, geo.in_shape, geo.picked, "AdaptiveMaxPool2DBackwardBackward0", accumulate=True)


helper(avg_pool2d_backward)
helper(avg_pool2d_of, name="avg_pool2d")
