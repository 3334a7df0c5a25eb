"""The kernel rule's entries for PyTorch's interpolating upsampling (``kernels.py``):
``upsample_linear1d``, ``upsample_bilinear2d``, ``upsample_trilinear3d``, ``upsample_bicubic2d``
and their backward.

An interpolated element is a weighted sum of input elements. ATen's generic kernel sums the
products in its own order, and the AVX2/AVX512 builds fuse multiply-adds (in the weights too):
``interpolate(x, scale_factor=2.0, mode='linear', align_corners=True)`` gives 0.33333322 there and
0.33333325 under ``ATEN_CPU_CAPABILITY=default``. scalargrad gives the exact sum of its products
rounded once (README, tests/test_interpolate.py). The rule writes scalargrad's values into each
call; the check holds every replaced element within tests/test_interpolate.py's bound of a
reference computed here in float64 from the taps (ATen's ``area_pixel_compute_scale``, source
index and cubic coefficients): |value - reference| <= 32 u sum (|w_i| + 1) |x_i| (the backward:
the same over the gradient's terms), u the dtype's unit roundoff.
"""

from __future__ import annotations

import itertools
import math

from .kernels import Kernel, _flat, _grad, _to_sg, _values

__all__ = ["upsample_kernels"]

BOUND = 32  # tests/test_interpolate.py's BOUND (PyTorch measured within 1.8 and 3.6)
_U = {"float32": 2.0**-24, "float64": 2.0**-53}
_MODES = {"upsample_linear1d": ("linear", 1), "upsample_bilinear2d": ("bilinear", 2),
          "upsample_trilinear3d": ("trilinear", 3), "upsample_bicubic2d": ("bicubic", 2)}
_A = -0.75  # ATen's cubic convolution parameter


def _call(name: str, args, kwargs, backward: bool) -> tuple:
    """(input shape, output size, align_corners, scales) of a call of the op or its backward."""
    n = _MODES[name][1]
    if backward:
        out_size, in_size, align = list(args[1]), list(args[2]), bool(args[3])
        scales = list(args[4:4 + n]) + [None] * (n - len(args[4:4 + n]))
    else:
        out_size, in_size, align = list(args[1]), list(args[0].shape), bool(args[2])
        scales = list(args[3:3 + n]) + [None] * (n - len(args[3:3 + n]))
    names = ["scales"] if n == 1 else ["scales_d", "scales_h", "scales_w"][3 - n:]
    scales = [kwargs.get(k, s) for k, s in zip(names, scales)]
    return tuple(in_size), tuple(out_size), align, scales


def _taps(size: int, out: int, align: bool, scale, cubic: bool) -> list:
    """Per output index along one dim, its [(input index, weight)], in float64."""
    if align:
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale is not None and scale > 0 else size / out
    taps = []
    for i in range(out):
        src = ratio * i if align else ratio * (i + 0.5) - 0.5
        if src < 0 and not cubic:
            src = 0.0
        idx = min(math.floor(src), size - 1)
        t = min(max(src - idx, 0.0), 1.0)
        if cubic:
            def near(x):
                return ((_A + 2) * x - (_A + 3)) * x * x + 1

            def far(x):
                return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

            w = [far(t + 1), near(t), near(1 - t), far(2 - t)]
            taps.append([(max(min(idx - 1 + j, size - 1), 0), w[j]) for j in range(4)])
        else:
            taps.append([(idx, 1.0 - t), (idx + (1 if idx < size - 1 else 0), t)])
    return taps


def _terms(in_shape: tuple, out_size: tuple, align: bool, scales: list, cubic: bool) -> list:
    """Per output flat position, its (input flat position, weight) terms."""
    n = len(out_size)
    dims = [_taps(s, o, align, sc, cubic) for s, o, sc in zip(in_shape[2:], out_size, scales)]
    planes = in_shape[0] * in_shape[1]
    terms = []
    for plane in range(planes):
        for pos in itertools.product(*[range(o) for o in out_size]):
            row = []
            for combo in itertools.product(*[dims[d][p] for d, p in enumerate(pos)]):
                at, w = plane, 1.0
                for d, (i, wd) in enumerate(combo):
                    at = at * in_shape[2 + d] + i
                    w *= wd
                row.append((at, w))
            terms.append(row)
    assert len(terms) == planes * math.prod(out_size) and n == len(scales)
    return terms


_LAST: dict = {}  # the reference of the call being checked, by its operands


def _reference(name: str, args, kwargs, backward: bool) -> list:
    """[(reference, scale)] per element of the call's result."""
    import torch

    key = (name, backward, tuple(tuple(_flat(a)) if isinstance(a, torch.Tensor) else repr(a) for a in args),
           repr(sorted(kwargs.items())))
    if key not in _LAST:
        _LAST.clear()
        in_shape, out_size, align, scales = _call(name, args, kwargs, backward)
        terms = _terms(in_shape, out_size, align, scales, _MODES[name][0] == "bicubic")
        xs = _flat(args[0])
        if backward:
            ref, scale = [0.0] * math.prod(in_shape), [0.0] * math.prod(in_shape)
            for o, row in enumerate(terms):
                for i, w in row:
                    ref[i] += w * xs[o]
                    scale[i] += (abs(w) + 1) * abs(xs[o])
            _LAST[key] = list(zip(ref, scale))
        else:
            _LAST[key] = [(math.fsum(w * xs[i] for i, w in row), sum((abs(w) + 1) * abs(xs[i]) for i, w in row))
                          for row in terms]
    return _LAST[key]


def _kernel(name: str, backward: bool) -> Kernel:
    mode = _MODES[name][0]

    def sg_values(sg, args, kwargs):
        from scalargrad._tensor import upsampling as UPS

        in_shape, out_size, align, scales = _call(name, args, kwargs, backward)
        if any(s is None for s in scales) and not all(s is None for s in scales):
            return None  # some scales given, some not: not a call interpolate makes
        factors = None if scales[0] is None else scales

        def run(x):
            if factors is None:
                return UPS.upsample_interp(x, out_size, None, align, mode)
            y = UPS.upsample_interp(x, None, factors, align, mode)
            return y if tuple(y.shape[2:]) == out_size else None

        if not backward:
            y = run(_to_sg(sg, args[0]))
            return None if y is None else [_values(y)]
        dt = getattr(sg, str(args[0].dtype).replace("torch.", ""))
        x = sg.zeros(*in_shape, dtype=dt, requires_grad=True)
        with _grad(sg, True):
            y = run(x)
            if y is None:
                return None
            gx, = sg.autograd.grad(y, [x], _to_sg(sg, args[0]))
        return [_values(gx)]

    def check(args, kwargs, k, i, value, dt, shape):
        if dt not in _U or not math.isfinite(value):
            return False
        ref, scale = _reference(name, args, kwargs, backward)[i]
        if not (math.isfinite(ref) and math.isfinite(scale)):
            return False
        return abs(value - ref) <= BOUND * _U[dt] * scale

    return Kernel(name + ("_backward" if backward else ""), sg_values, check)


def upsample_kernels(torch) -> dict:
    """{ATen op overload: (Kernel, "out")} for the interpolating upsampling ops."""
    aten = torch.ops.aten
    table = {}
    for name in _MODES:
        table[getattr(aten, name).default] = (_kernel(name, False), "out")
        table[getattr(aten, name + "_backward").default] = (_kernel(name, True), "out")
    return table
