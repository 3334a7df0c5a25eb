"""``nn.functional.affine_grid`` and ``grid_sample`` (re-exported by ``nn.functional``): PyTorch's
Python checks and warnings, then ATen's ``affine_grid_generator`` and ``grid_sampler`` (one
AffineGridGeneratorBackward0 / GridSampler2DBackward0 node each, ``_tensor/grid_sampling.py``)."""

from __future__ import annotations

import warnings

from .._base.errors import Unsupported
from .._base.program_frame import program_stacklevel
from .._tensor import grid_sampling as GRID
from .._tensor.tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``input`` (N, C, H, W) sampled at ``grid`` (N, Ho, Wo, 2)'s normalised (x, y) positions:
    (N, C, Ho, Wo). Modes bilinear, nearest and bicubic; padding zeros, border, reflection."""
    if mode not in GRID.MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in GRID.PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=program_stacklevel())
        align_corners = False
    return GRID.grid_sampler(input, grid, GRID.MODES[mode], GRID.PADDINGS[padding_mode], bool(align_corners))


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4) over an output of ``size`` (N, C, H, W) or (N, C, D, H, W)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=program_stacklevel())
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shape = tuple(theta.shape)
    if len(size) == 4:
        if theta.dim() != 3 or shape[-2] != 2 or shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or shape[-2] != 3 or shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=program_stacklevel())
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.dtype.is_complex:
        raise Unsupported("torch.nn.functional.affine_grid on complex theta")
    return GRID.affine_grid_generator(theta, tuple(int(s) for s in size), bool(align_corners))
