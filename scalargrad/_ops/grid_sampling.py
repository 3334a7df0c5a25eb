"""Spatial transformers: ``affine_grid_generator`` (``F.affine_grid``, AffineGridGeneratorBackward0)
and ``grid_sampler_2d``/``grid_sampler_3d`` (``F.grid_sample`` on 4-D and 5-D inputs,
GridSampler2DBackward0, GridSampler3DBackward0), one node per call. The node's ``_c`` is a
``GridInfo``: the settings PyTorch saves (``size`` and ``align_corners``; ``interpolation_mode``,
``padding_mode`` as ATen's enums). The tensor layer
computes values and gradients (``_tensor/grid_sampling.py``).

No SymPy form is declared: an output element of ``grid_sample`` is a piecewise function of the
grid (the corners it reads change with it) that the element graph does not express, so the
proof reports these nodes' inputs unverifiable; the tests compare with live PyTorch instead."""

from __future__ import annotations

from .table import Op, register

__all__ = ["GridInfo", "AffineGridGenerator", "GridSampler2D", "GridSampler3D", "GRID_SAMPLING_OPS"]


class GridInfo:
    """What a spatial-transformer node keeps (see the module docstring)."""

    __slots__ = ("size", "align_corners", "mode", "padding")

    def __init__(self, size=None, align_corners: bool = False, mode: int = 0, padding: int = 0) -> None:
        self.size, self.align_corners, self.mode, self.padding = size, align_corners, mode, padding


@register
class AffineGridGenerator(Op):
    """affine_grid_generator(theta, size, align_corners); theta: the base grid's transpose times
    grad (ATen's ``affine_grid_generator_backward``)."""

    name = "AffineGridGeneratorBackward0"
    saves_inputs = False
    saved = (("align_corners", "c.align_corners"), ("size", "c.size"))
    backward = staticmethod(lambda k, g, v: (k.affine_grid_backward(g, v),))


@register
class GridSampler2D(Op):
    """grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners); input, grid:
    grid_sampler_2d_backward(grad, input, grid, ...)."""

    name = "GridSampler2DBackward0"
    saved = (("align_corners", "c.align_corners"), ("grid", 1), ("input", 0),
             ("interpolation_mode", "c.mode"), ("padding_mode", "c.padding"))

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        return k.grid_sampler_2d_backward(g, ins[0], ins[1], v._c)


@register
class GridSampler3D(GridSampler2D):
    """grid_sampler_3d (5-D input and grid); input, grid: grid_sampler_3d_backward(grad, ...)."""

    name = "GridSampler3DBackward0"

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        return k.grid_sampler_3d_backward(g, ins[0], ins[1], v._c)


GRID_SAMPLING_OPS = [AffineGridGenerator, GridSampler2D, GridSampler3D]
