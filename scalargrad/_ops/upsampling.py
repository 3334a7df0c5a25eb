"""Nearest upsampling: ``upsample_nearest1d/2d/3d`` (``UpsampleNearest1DBackward0``...) and its
backward as a node of its own (``UpsampleNearest2DBackwardBackward0``, double backward).

Each output element copies the input element ATen's ``nearest_idx`` picks: the node's ``_c`` is an
``Upsample`` whose ``source[o]`` is that flat input position. The backward adds each gradient
element into its source, outputs in order, as ATen's CPU kernel (``UpSampleKernel.cpp``). The
tensor layer computes them (``_tensor/upsampling.py``).
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["Upsample", "NEAREST_OPS", "UPSAMPLING_OPS"]


class Upsample:
    """What an upsampling node keeps: the output size and scales PyTorch saves, the input's shape
    and ``source[o]``, the flat input position output ``o`` copies."""

    __slots__ = ("output_size", "factors", "in_shape", "source", "scales", "scales_d", "scales_h", "scales_w")

    def __init__(self, output_size: tuple, factors: tuple, in_shape: tuple, source: list) -> None:
        self.output_size = tuple(output_size)
        self.factors = tuple(factors)  # the scale factor of each spatial dim, or None
        self.in_shape = tuple(in_shape)
        self.source = source
        names = _SCALE_NAMES[len(self.factors)]
        for name in ("scales", "scales_d", "scales_h", "scales_w"):
            setattr(self, name, self.factors[names.index(name)] if name in names else None)


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
"""n -> (forward op, backward op) for n = 1, 2, 3 spatial dimensions."""

for _n in (1, 2, 3):
    _scales = _scale_entries(_n)
    _fwd = register(type(f"UpsampleNearest{_n}d", (Nearest,), {
        "name": f"UpsampleNearest{_n}DBackward0", "dims": _n,
        "saved": (("output_size", "c.output_size"),) + _scales + (("self_sym_sizes", "c.in_shape"),)}))
    _bwd = register(type(f"UpsampleNearest{_n}dBackward", (NearestBackward,), {
        "name": f"UpsampleNearest{_n}DBackwardBackward0", "dims": _n,
        "saved": (("output_size", "c.output_size"),) + _scales}))
    NEAREST_OPS[_n] = (_fwd, _bwd)

UPSAMPLING_OPS = [op for pair in NEAREST_OPS.values() for op in pair]
