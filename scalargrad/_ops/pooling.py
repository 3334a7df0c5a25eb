"""2-D and 3-D pooling: ``max_pool2d`` (``MaxPool2DWithIndicesBackward0``), ``avg_pool2d``
(``AvgPool2DBackward0``), their adaptive forms (``AdaptiveAvgPool2DBackward0``,
``AdaptiveMaxPool2DBackward0``), and avg_pool2d's backward as a node of its own (double backward).

The node's ``_c`` is a ``PoolGeometry``: the arguments PyTorch saves and, per output element,
its *window* (the flat input positions it reads, in ATen's loop order) and, for avg_pool2d,
its divisor. max_pool2d's backward is a scatter-add of the gradient at the picked positions
(``_tensor/indexing.scatter_into``). The tensor layer computes the values (``_tensor/pooling.py``).
"""

from __future__ import annotations

from .indexing import Scatter
from .table import Op, register

__all__ = ["PoolGeometry", "pooled_size", "adaptive_geometry", "POOL_OPS", "MaxPool2d", "AvgPool2d",
           "AvgPool2dBackward", "AdaptiveAvgPool2d", "AdaptiveAvgPool2dBackward", "AdaptiveMaxPool2d", "POOLING_OPS",
           "MaxUnpool", "MAX_UNPOOL_OPS"]


def pooled_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """ATen's ``pooling_output_shape``: floor (or ceil) division, and with ceil_mode the last
    window must start inside the input or its left padding."""
    num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


class PoolGeometry:
    """What a pooling node keeps, for any number of spatial dims (the last ``len(kernel_size)``).
    ``windows[o]``: the flat input positions output ``o`` reads (in bounds, in ATen's order: the
    first spatial dim outermost); ``divisors[o]``: avg_pool's divisor of output ``o``;
    ``indices``: max_pool's index tensor (PyTorch's ``result1``), set by the tensor layer;
    ``picked[o]``: the flat input position of output ``o``'s maximum; ``dims``: the spatial dims."""

    __slots__ = ("in_shape", "out_shape", "kernel_size", "stride", "stride_saved", "padding", "dilation",
                 "ceil_mode", "count_include_pad", "divisor_override", "windows", "divisors", "starts", "indices",
                 "picked", "sides", "dims")

    def __init__(self, in_shape: tuple, kernel_size: tuple, stride: tuple, stride_saved: tuple, padding: tuple,
                 dilation: tuple, ceil_mode: bool, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        self.in_shape = tuple(in_shape)
        self.kernel_size = tuple(kernel_size)
        self.stride = tuple(stride)
        self.stride_saved = tuple(stride_saved)
        self.padding = tuple(padding)
        self.dilation = tuple(dilation)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override
        self.indices = None
        self.picked = None
        self.sides = None
        n = self.dims = len(self.kernel_size)
        sizes = self.in_shape[-n:]
        outs = tuple(pooled_size(*a, self.ceil_mode) for a in zip(sizes, self.kernel_size, self.padding, self.stride,
                                                                 self.dilation))
        self.out_shape = self.in_shape[:-n] + outs
        # per spatial dim and output index: the positions read, the first in bounds (max_pool's
        # index when nothing beats -inf), the window clipped to input + padding, and to the input
        # (avg_pool's divisor, dilation 1)
        per_dim = []
        for size, k, st, pad, dil, out in zip(sizes, self.kernel_size, self.stride, self.padding, self.dilation, outs):
            rows = []
            for o in range(out):
                a = o * st - pad
                b = min(a + k, size + pad)
                first = a + ((-a + dil - 1) // dil) * dil if a < 0 else a
                rows.append(([a + i * dil for i in range(k) if 0 <= a + i * dil < size], first, b - a,
                             min(b, size) - max(a, 0)))
            per_dim.append(rows)
        tw, ts, td = _plane_template(per_dim, sizes, divisor_override, count_include_pad)
        plane = _prod(sizes)
        self.windows = [[base + i for i in w] for base in range(0, _prod(self.in_shape), plane) for w in tw]
        self.starts = ts * (len(self.windows) // len(tw)) if tw else []
        self.divisors = td * (len(self.windows) // len(tw)) if tw else []


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _plane_template(per_dim: list, sizes: tuple, divisor_override, count_include_pad: bool) -> tuple:
    """One plane's windows, max_pool's fallback positions and avg_pool's divisors, outputs in
    row-major order (the dims' choices combined, the first dim outermost)."""
    windows, starts, divisors = [[0]], [0], [(1, 1)]
    for rows, size in zip(per_dim, sizes):
        windows = [[w * size + p for w in ws for p in pos] for ws in windows for pos, _, _, _ in rows]
        starts = [s * size + first for s in starts for _, first, _, _ in rows]
        divisors = [(full * f, inside * i) for f, i in divisors for _, _, full, inside in rows]
    if divisor_override:
        divisors = [divisor_override] * len(windows)
    else:
        divisors = [f if count_include_pad else i for f, i in divisors]
    return windows, starts, divisors


def adaptive_geometry(in_shape: tuple, out_size: tuple) -> PoolGeometry:
    """adaptive pooling's windows over the last ``len(out_size)`` dims: output ``i`` of a dim of
    size S reads floor(i * S / O) to ceil((i + 1) * S / O); ``sides[o]`` = the window's extent in
    each dim, by which ATen divides the sum one after the other."""
    n = len(out_size)
    geo = PoolGeometry(in_shape, (1,) * n, (1,) * n, (), (0,) * n, (1,) * n, False)
    sizes = tuple(in_shape[-n:])
    windows, sides = [[0]], [()]
    for size, out in zip(sizes, out_size):
        ranges = [range((o * size) // out, -((-(o + 1) * size) // out)) for o in range(out)]
        windows = [[w * size + p for w in ws for p in r] for ws in windows for r in ranges]
        sides = [sd + (len(r),) for sd in sides for r in ranges]
    plane = _prod(sizes)
    geo.out_shape = tuple(in_shape[:-n]) + tuple(out_size)
    geo.windows = [[base + i for i in w] for base in range(0, _prod(in_shape), plane) for w in windows]
    geo.sides = sides * (len(geo.windows) // len(windows)) if windows else []  # an output size of 0: none
    geo.divisors = [_prod(sd) for sd in geo.sides]
    return geo


class _Pool(Op):
    saves_inputs = True


@register
class MaxPool2d(_Pool):
    """max_pool2d_with_indices(self): each output element is its window's maximum (nan wins)."""

    name = "MaxPool2DWithIndicesBackward0"
    saved = (("ceil_mode", "c.ceil_mode"), ("dilation", "c.dilation"), ("kernel_size", "c.kernel_size"),
             ("padding", "c.padding"), ("result1", "c.indices"), ("self", 0), ("stride", "c.stride_saved"))
    # self: max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1)
    backward = staticmethod(lambda k, g, v: (k.max_pool2d_backward(g, v._c, k.ins(v)[0]),))

    @staticmethod
    def sympy(sp, a):
        return a  # the picked element


@register
class AvgPool2d(_Pool):
    """avg_pool2d(self): each output element is its window's sum over its divisor."""

    name = "AvgPool2DBackward0"
    saved = (("ceil_mode", "c.ceil_mode"), ("count_include_pad", "c.count_include_pad"),
             ("divisor_override", "c.divisor_override"), ("kernel_size", "c.kernel_size"), ("padding", "c.padding"),
             ("self", 0), ("stride", "c.stride_saved"))
    # self: avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
    #   divisor_override)
    backward = staticmethod(lambda k, g, v: (k.avg_pool2d_backward(g, v._c, k.ins(v)[0]),))

    @staticmethod
    def sympy(sp, divisor, *window):
        return sp.Add(*window) / divisor


@register
class AvgPool2dBackward(_Pool):
    """avg_pool2d_backward(grad_output, self): each input position gets, for every window that
    reads it, the gradient over the window's divisor (``self`` only gives the shape: its
    gradient is zeros)."""

    name = "AvgPool2DBackwardBackward0"
    saves_inputs = False
    saved = (("ceil_mode", "c.ceil_mode"), ("count_include_pad", "c.count_include_pad"),
             ("divisor_override", "c.divisor_override"), ("kernel_size", "c.kernel_size"), ("padding", "c.padding"),
             ("stride", "c.stride_saved"))
    # grad_output: avg_pool2d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    # self: zeros_like(self)
    backward = staticmethod(lambda k, g, v: (k.avg_pool2d(g, v._c), k.zero(k.ins(v)[1])))

    @staticmethod
    def sympy(sp, *grads_and_divisors):
        """Pairs (g, divisor) of the windows that read this position."""
        gs, ds = grads_and_divisors[0::2], grads_and_divisors[1::2]
        return sp.Add(*[g / d for g, d in zip(gs, ds)])


def _nonempty(g, v, kind: str):
    """``g``, after ATen's check in the adaptive pools' backward kernels: a gradient with an
    empty dimension beyond the first (an output size of 0) is refused there, not in the forward."""
    shape = tuple(g._t.shape) if hasattr(g, "_t") else ()
    for d in range(1, len(shape)):
        if shape[d] == 0:
            nd = "3d" if "3D" in v._op.name else "2d"
            raise RuntimeError(f"adaptive_{kind}_pool{nd}_backward(): Expected grad_output to have non-zero size for "
                               f"non-batch dimensions, but grad_output has sizes {list(shape)} with dimension {d} "
                               f"being empty")
    return g


@register
class AdaptiveAvgPool2d(_Pool):
    """_adaptive_avg_pool2d(self, output_size): each output element is its window's sum / kh / kw."""

    name = "AdaptiveAvgPool2DBackward0"
    saved = (("self", 0),)
    # self: _adaptive_avg_pool2d_backward(grad, self)
    backward = staticmethod(lambda k, g, v: (k.avg_pool2d_backward(_nonempty(g, v, "avg"), v._c, k.ins(v)[0]),))
    sympy = AvgPool2d.sympy


@register
class AdaptiveAvgPool2dBackward(_Pool):
    """_adaptive_avg_pool2d_backward(grad_output, self): each input position gets grad / kh / kw
    from every window that reads it."""

    name = "AdaptiveAvgPool2DBackwardBackward0"
    saves_inputs = False
    saved = ()
    # grad_output: _adaptive_avg_pool2d(grad, grad_output.sym_sizes().slice(-2)); self: zeros_like(self)
    backward = staticmethod(lambda k, g, v: (k.avg_pool2d(g, v._c), k.zero(k.ins(v)[1])))
    sympy = AvgPool2dBackward.sympy


@register
class AdaptiveMaxPool2d(_Pool):
    """adaptive_max_pool2d(self, output_size): each output element is its adaptive window's
    maximum (nan wins)."""

    name = "AdaptiveMaxPool2DBackward0"
    saved = (("result1", "c.indices"), ("self", 0))
    # self: adaptive_max_pool2d_backward(grad, self, result1)
    backward = staticmethod(lambda k, g, v: (k.adaptive_max_pool2d_backward(_nonempty(g, v, "max"), v._c,
                                                                            k.ins(v)[0]),))
    sympy = MaxPool2d.sympy


POOL_OPS: dict = {2: {"max": MaxPool2d, "avg": AvgPool2d, "avg_backward": AvgPool2dBackward,
                      "adaptive_avg": AdaptiveAvgPool2d, "adaptive_avg_backward": AdaptiveAvgPool2dBackward,
                      "adaptive_max": AdaptiveMaxPool2d}}
"""n -> the pooling ops over n spatial dims: the 3-D ones are the 2-D ones' rules under PyTorch's
3-D names (MaxPool3DWithIndicesBackward0...)."""
POOL_OPS[3] = {kind: register(type(op.__name__.replace("2d", "3d"), (op,), {"name": op.name.replace("2D", "3D")}))
               for kind, op in POOL_OPS[2].items()}

POOLING_OPS = [op for ops in POOL_OPS.values() for op in ops.values()]


class MaxUnpool(Scatter):
    """max_unpool{2,3}d(self, indices, output_size): zeros with each input element written at
    its index within its plane (``_c.map``: the flat output positions; a later write wins); the
    backward gathers the gradient at the indices (``max_pool_double_backward``)."""

    saved = (("indices", "c.tensors"),)


MAX_UNPOOL_OPS = {n: type(f"MaxUnpool{n}d", (MaxUnpool,), {"name": f"MaxUnpool{n}DBackward0"}) for n in (2, 3)}
"""n -> max_unpool over n spatial dims (max_unpool1d is the 2-D one over a width-1 view)."""
