"""Upsampling: nearest (``upsample_nearest1d/2d/3d``: ``UpsampleNearest1DBackward0``...), linear,
bilinear, trilinear and bicubic (``UpsampleLinear1DBackward0``, ``UpsampleBilinear2DBackward0``,
``UpsampleTrilinear3DBackward0``, ``UpsampleBicubic2DBackward0``), and their backwards as nodes of
their own (``UpsampleNearest2DBackwardBackward0``..., double backward).

An interpolated element is a weighted sum of input elements: the node's ``_c`` keeps, per spatial
dim and output index, ATen's taps (input index, weight), the weights computed as ATen computes
them; its value, the backward's and the SymPy form read them (``Interpolated``).

Each output element copies the input element ATen's ``nearest_idx`` picks: the node's ``_c`` is an
``Upsample`` whose ``source[o]`` is that flat input position. The backward adds each gradient
element into its source, outputs in order, as ATen's CPU kernel (``UpSampleKernel.cpp``). The
tensor layer computes them (``_tensor/upsampling.py``).
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["Upsample", "products", "NEAREST_OPS", "INTERPOLATING_OPS", "UPSAMPLING_OPS"]


class Upsample:
    """What an upsampling node keeps: the output size and scales PyTorch saves, the input's shape
    and ``source[o]``, the flat input position output ``o`` copies."""

    __slots__ = ("output_size", "factors", "in_shape", "source", "scales", "scales_d", "scales_h", "scales_w",
                 "align_corners", "taps")

    def __init__(self, output_size: tuple, factors: tuple, in_shape: tuple, source: list) -> None:
        self.output_size = tuple(output_size)
        self.factors = tuple(factors)  # the scale factor of each spatial dim, or None
        self.in_shape = tuple(in_shape)
        self.source = source
        self.align_corners = None
        self.taps = None  # interpolation: per spatial dim, per output index, [(input index, weight)]
        names = _SCALE_NAMES[len(self.factors)]
        for name in ("scales", "scales_d", "scales_h", "scales_w"):
            setattr(self, name, self.factors[names.index(name)] if name in names else None)


def products(xv: list, geo: Upsample, wints) -> list:
    """Per output element (row-major): (the input values its taps read, their weights: the product
    of each dim's weight; ``wints``: the dims' weights as integers, else the floats)."""
    n = len(geo.taps)
    spatial = geo.in_shape[2:]
    # per dim: per output index, [(input index, weight)] with the weights replaced by ``wints``
    dims = []
    for d in range(n):
        flat = iter(wints[d]) if wints is not None else None
        dims.append([[(i, next(flat) if flat is not None else w) for i, w in taps] for taps in geo.taps[d]])
    # one plane's combined taps: (offset, weight product), outer dim first
    plane_taps = [[(0, 1)]]
    for d in range(n):
        plane_taps = [[(off * spatial[d] + i, wp * w) for off, wp in combo for i, w in taps]
                      for combo in plane_taps for taps in dims[d]]
    plane = 1
    for s in spatial:
        plane *= s
    out = []
    for base in range(0, len(xv), plane):
        for combo in plane_taps:
            out.append(([xv[base + off] for off, _ in combo], [w for _, w in combo]))
    return out


_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}


def _scale_entries(n: int) -> tuple:
    return tuple((name, f"c.{name}") for name in _SCALE_NAMES[n])


class Nearest(Op):
    """upsample_nearestNd(self, output_size, scales): each element a copy of an input element."""

    saves_inputs = False
    # self: upsample_nearestNd_backward(grad, output_size, self.sym_sizes(), scales...)
    backward = staticmethod(lambda k, g, v: (k.upsample_nearest_backward(g, v._c, v._op),))

    @staticmethod
    def sympy(sp, a):
        return a


class NearestBackward(Op):
    """upsample_nearestNd_backward(grad_output): each input position sums the gradients of the
    outputs that copy it."""

    saves_inputs = False
    # grad_output: upsample_nearestNd(grad, output_size, scales...)
    backward = staticmethod(lambda k, g, v: (k.upsample_nearest_again(g, v._c, v._op),))

    @staticmethod
    def sympy(sp, *grads):
        return sp.Add(*grads)


NEAREST_OPS: dict = {}
"""(n, exact) -> (forward op, backward op) for n = 1, 2, 3 spatial dimensions: mode 'nearest'
(exact False) and 'nearest-exact' (``_upsample_nearest_exactNd``: UpsampleNearestExact1DBackward0...),
which differ only in the input position an output copies."""

for _n in (1, 2, 3):
    _scales = _scale_entries(_n)
    for _exact, _word in ((False, ""), (True, "Exact")):
        _fwd = register(type(f"UpsampleNearest{_word}{_n}d", (Nearest,), {
            "name": f"UpsampleNearest{_word}{_n}DBackward0", "dims": _n, "exact": _exact,
            "saved": (("output_size", "c.output_size"),) + _scales + (("self_sym_sizes", "c.in_shape"),)}))
        _bwd = register(type(f"UpsampleNearest{_word}{_n}dBackward", (NearestBackward,), {
            "name": f"UpsampleNearest{_word}{_n}DBackwardBackward0", "dims": _n, "exact": _exact,
            "saved": (("output_size", "c.output_size"),) + _scales}))
        NEAREST_OPS[_n, _exact] = (_fwd, _bwd)


class Interpolated(Op):
    """upsample_{linear1d,bilinear2d,trilinear3d,bicubic2d}(self, output_size, align_corners,
    scales): each element the weighted sum of the input elements its taps read."""

    saves_inputs = False
    # self: upsample_*_backward(grad, output_size, self.sym_sizes(), align_corners, scales...)
    backward = staticmethod(lambda k, g, v: (k.upsample_interp_backward(g, v._c, v._op),))

    @staticmethod
    def sympy(sp, weights, *args):
        """``weights``: the exact numbers multiplying ``args``, in order."""
        return sp.Add(*[w * a for w, a in zip(weights, args)])


class InterpolatedBackward(Op):
    """upsample_*_backward(grad_output): each input element the weighted sum of the gradients of
    the outputs that read it (the same weights)."""

    saves_inputs = False
    # grad_output: upsample_*(grad, output_size, align_corners, scales...)
    backward = staticmethod(lambda k, g, v: (k.upsample_interp_again(g, v._c, v._op),))
    sympy = Interpolated.sympy


INTERPOLATING_OPS: dict = {}
"""mode -> (forward op, backward op): linear, bilinear, trilinear, bicubic."""

for _mode, _title, _n in (("linear", "Linear1D", 1), ("bilinear", "Bilinear2D", 2), ("trilinear", "Trilinear3D", 3),
                          ("bicubic", "Bicubic2D", 2)):
    _scales = _scale_entries(_n)
    _fwd = register(type(f"Upsample{_title}", (Interpolated,), {
        "name": f"Upsample{_title}Backward0", "mode": _mode,
        "saved": (("align_corners", "c.align_corners"), ("output_size", "c.output_size")) + _scales
        + (("self_sym_sizes", "c.in_shape"),)}))
    _bwd = register(type(f"Upsample{_title}Backward", (InterpolatedBackward,), {
        "name": f"Upsample{_title}BackwardBackward0", "mode": _mode,
        "saved": (("align_corners", "c.align_corners"), ("output_size", "c.output_size")) + _scales}))
    INTERPOLATING_OPS[_mode] = (_fwd, _bwd)

UPSAMPLING_OPS = [op for pair in NEAREST_OPS.values() for op in pair] + [
    op for pair in INTERPOLATING_OPS.values() for op in pair]
