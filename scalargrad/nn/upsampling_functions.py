"""``nn.functional.interpolate`` (re-exported by ``nn.functional``): nearest, linear, bilinear,
nearest-exact, trilinear and bicubic upsampling (``_tensor/upsampling``) and area (adaptive
average pooling); antialias and lanczos are refused by name."""

from __future__ import annotations

from .._base.errors import Unsupported
from .._tensor import upsampling as UPS
from .._tensor.tensor import Tensor
from .pooling_functions import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _sizes(input: Tensor, size, scale_factor, dim: int) -> tuple:
    """(output_size, scale_factors) as PyTorch's interpolate works them out (one of them None)."""
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {spatial} and output size of {size}. Please provide "
                                 "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 "format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            return list(size), None
        return [size] * dim, None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            return None, list(scale_factor)
        return None, [scale_factor] * dim
    raise ValueError("either size or scale_factor should be defined")


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resizes ``input`` (N, C, *spatial) to ``size`` or by ``scale_factor``: modes nearest (an
    UpsampleNearest{1,2,3}DBackward0 node) and area (adaptive average pooling)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scale_factors = _sizes(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if input.dim() in (3, 4, 5) and mode in ("nearest", "nearest-exact"):
        return UPS.upsample_nearest(input, output_size, scale_factors, mode == "nearest-exact")
    if input.dim() in (3, 4, 5) and mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[input.dim() - 3](input, output_size)
    if (input.dim(), mode) in ((3, "linear"), (4, "bilinear"), (5, "trilinear"), (4, "bicubic")):
        if antialias:
            raise Unsupported(f"interpolate(mode='{mode}', antialias=True)")
        return UPS.upsample_interp(input, output_size, scale_factors, align_corners, mode)
    if input.dim() == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        raise Unsupported("interpolate(mode='lanczos')")
    wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if input.dim() in (3, 4, 5) and mode in wanted:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: {_MODES} (got {mode})")
