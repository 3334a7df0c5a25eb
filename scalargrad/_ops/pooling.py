"""2-D pooling: ``max_pool2d`` (``MaxPool2DWithIndicesBackward0``), ``avg_pool2d``
(``AvgPool2DBackward0``), their adaptive forms (``AdaptiveAvgPool2DBackward0``,
``AdaptiveMaxPool2DBackward0``), and avg_pool2d's backward as a node of its own (double backward).

The node's ``_c`` is a ``PoolGeometry``: the arguments PyTorch saves and, per output element,
its *window* (the flat input positions it reads, in ATen's loop order) and, for avg_pool2d,
its divisor. max_pool2d's backward is a scatter-add of the gradient at the picked positions
(``_tensor/indexing.scatter_into``). The tensor layer computes the values (``_tensor/pooling.py``).
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["PoolGeometry", "pooled_size", "adaptive_geometry", "MaxPool2d", "AvgPool2d", "AvgPool2dBackward",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool2dBackward", "AdaptiveMaxPool2d", "POOLING_OPS"]


def pooled_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """ATen's ``pooling_output_shape``: floor (or ceil) division, and with ceil_mode the last
    window must start inside the input or its left padding."""
    num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


class PoolGeometry:
    """What a pooling node keeps. ``windows[o]``: the flat input positions output ``o`` reads
    (in bounds, in ATen's order); ``divisors[o]``: avg_pool2d's divisor of output ``o``;
    ``indices``: max_pool2d's index tensor (PyTorch's ``result1``), set by the tensor layer;
    ``picked[o]``: the flat input position of output ``o``'s maximum."""

    __slots__ = ("in_shape", "out_shape", "kernel_size", "stride", "stride_saved", "padding", "dilation",
                 "ceil_mode", "count_include_pad", "divisor_override", "windows", "divisors", "starts", "indices",
                 "picked", "sides")

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
        h, w = self.in_shape[-2:]
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.kernel_size, self.stride, self.padding, self.dilation
        oh = pooled_size(h, kh, ph, sh, dh, self.ceil_mode)
        ow = pooled_size(w, kw, pw, sw, dw, self.ceil_mode)
        self.out_shape = self.in_shape[:-2] + (oh, ow)
        planes = 1
        for s in self.in_shape[:-2]:
            planes *= s
        windows, divisors, starts = [], [], []
        for p in range(planes):
            base = p * h * w
            for y in range(oh):
                for x in range(ow):
                    y0, x0 = y * sh - ph, x * sw - pw
                    rows = [y0 + i * dh for i in range(kh) if 0 <= y0 + i * dh < h]
                    cols = [x0 + j * dw for j in range(kw) if 0 <= x0 + j * dw < w]
                    windows.append([base + r * w + c for r in rows for c in cols])
                    # max_pool2d's index when nothing beats -inf: the first position in bounds
                    fy = y0 + ((-y0 + dh - 1) // dh) * dh if y0 < 0 else y0
                    fx = x0 + ((-x0 + dw - 1) // dw) * dw if x0 < 0 else x0
                    starts.append(fy * w + fx)
                    # avg_pool2d's divisor (dilation 1): the window clipped to input + padding
                    y1, x1 = min(y0 + kh, h + ph), min(x0 + kw, w + pw)
                    pool_size = (y1 - y0) * (x1 - x0)
                    if divisor_override:
                        divisors.append(divisor_override)
                    elif count_include_pad:
                        divisors.append(pool_size)
                    else:
                        divisors.append((min(y1, h) - max(y0, 0)) * (min(x1, w) - max(x0, 0)))
        self.windows = windows
        self.divisors = divisors
        self.starts = starts


def adaptive_geometry(in_shape: tuple, out_size: tuple) -> PoolGeometry:
    """adaptive_avg_pool2d's windows: output (i, j) averages rows floor(i * H / OH) to
    ceil((i + 1) * H / OH) and the same for columns; ``sides[o]`` = (kh, kw), by which ATen
    divides the sum one after the other."""
    geo = PoolGeometry(in_shape, (1, 1), (1, 1), (), (0, 0), (1, 1), False)
    h, w = in_shape[-2:]
    oh, ow = out_size
    planes = 1
    for s in in_shape[:-2]:
        planes *= s
    windows, sides = [], []
    for p in range(planes):
        base = p * h * w
        for y in range(oh):
            y0, y1 = (y * h) // oh, -((-(y + 1) * h) // oh)
            for x in range(ow):
                x0, x1 = (x * w) // ow, -((-(x + 1) * w) // ow)
                windows.append([base + r * w + c for r in range(y0, y1) for c in range(x0, x1)])
                sides.append((y1 - y0, x1 - x0))
    geo.out_shape = tuple(in_shape[:-2]) + (oh, ow)
    geo.windows = windows
    geo.sides = sides
    geo.divisors = [a * b for a, b in sides]
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
    backward = staticmethod(lambda k, g, v: (k.max_pool2d_backward(g, v._c),))

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


@register
class AdaptiveAvgPool2d(_Pool):
    """_adaptive_avg_pool2d(self, output_size): each output element is its window's sum / kh / kw."""

    name = "AdaptiveAvgPool2DBackward0"
    saved = (("self", 0),)
    # self: _adaptive_avg_pool2d_backward(grad, self)
    backward = staticmethod(lambda k, g, v: (k.avg_pool2d_backward(g, v._c, k.ins(v)[0]),))
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
    backward = staticmethod(lambda k, g, v: (k.adaptive_max_pool2d_backward(g, v._c),))
    sympy = MaxPool2d.sympy


POOLING_OPS = [MaxPool2d, AvgPool2d, AvgPool2dBackward, AdaptiveAvgPool2d, AdaptiveAvgPool2dBackward,
               AdaptiveMaxPool2d]
