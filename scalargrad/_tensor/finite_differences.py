"""``torch.gradient``: finite-difference estimates of a sampled function's partial derivatives,
composed of tensor ops exactly as ATen's ``gradient_helper`` / ``gradient_helper_float``
(``ReduceOps.cpp``) compose them, so values, dtypes and the graph are PyTorch's.

Along each requested dimension the interior points take the central difference, the two edges a
one-sided difference of first (``edge_order=1``) or second order (``edge_order=2``), and the three
parts are concatenated (CatBackward0). With numbers for spacing the differences are divided by the
spacing as a C++ Scalar (DivBackward1, MulBackward1 for the second-order edge weights); with
coordinate tensors the weights are tensors made from the coordinates' differences (``diff``), so
gradients flow to the coordinates too.
"""

from __future__ import annotations

from numbers import Number

from .._base import dtypes
from .._ops import arithmetic as AR
from .arguments import check_input
from .elementwise import with_number
from .joins import cat
from .tensor import Tensor
from .views import norm_dim

__all__ = ["gradient", "install"]


def _slice(x: Tensor, dim: int, start: int | None, stop: int | None = None) -> Tensor:
    """``at::slice(x, dim, start, stop)``: SliceBackward0."""
    return x[(slice(None),) * dim + (slice(start, stop),)]


def _scalar_mul(c, x: Tensor) -> Tensor:
    return with_number(AR.MulScalar, x, c)


def _scalar_div(x: Tensor, c) -> Tensor:
    return with_number(AR.DivScalar, x, c)


def _along_numbers(x: Tensor, d: int, dx, edge_order: int) -> Tensor:
    center = _scalar_div(_slice(x, d, 2) - _slice(x, d, 0, -2), dx)
    if edge_order == 1:
        first = _scalar_div(_slice(x, d, 1, 2) - _slice(x, d, 0, 1), dx)
        last = _scalar_div(_slice(x, d, -1) - _slice(x, d, -2, -1), dx)
    else:
        first = _scalar_div(_scalar_mul(-1.5, _slice(x, d, 0, 1)) + _scalar_mul(2, _slice(x, d, 1, 2))
                            - _scalar_mul(0.5, _slice(x, d, 2, 3)), dx)
        last = _scalar_div(_scalar_mul(0.5, _slice(x, d, -3, -2)) - _scalar_mul(2, _slice(x, d, -2, -1))
                           + _scalar_mul(1.5, _slice(x, d, -1)), dx)
    return cat([first, _scalar_div(center, 2), last], d)


def _along_coordinates(x: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:
    if coords._t.ndim != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an element "
                           f"with {coords._t.ndim} dimensions!")
    shape = [1] * x._t.ndim
    shape[d] = -1
    ax = coords.diff(1, 0)
    dx1, dx2 = _slice(ax, 0, 0, -1), _slice(ax, 0, 1)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _slice(x, d, 0, -2) + b * _slice(x, d, 1, -1) + c * _slice(x, d, 2)
    if edge_order == 1:
        first = (_slice(x, d, 1, 2) - _slice(x, d, 0, 1)) / ax[0]
        last = (_slice(x, d, -1) - _slice(x, d, -2, -1)) / ax[-1]
    else:
        h0, h1 = ax[0], ax[1]
        a = -(_scalar_mul(2.0, h0) + h1) / (h0 * (h0 + h1))
        b = (h0 + h1) / (h0 * h1)
        c = (-h0) / (h1 * (h0 + h1))
        first = a * _slice(x, d, 0, 1) + b * _slice(x, d, 1, 2) + c * _slice(x, d, 2, 3)
        hl, hp = ax[-1], ax[-2]
        a = hl / (hp * (hl + hp))
        b = -(hl + hp) / (hl * hp)
        c = (_scalar_mul(2, hl) + hp) / (hl * (hl + hp))
        last = a * _slice(x, d, -3, -2) + b * _slice(x, d, -2, -1) + c * _slice(x, d, -1)
    return cat([first, center, last], d)


def _check(x: Tensor, spacing_size: int | None, dims: list | None, edge_order: int) -> None:
    """ATen's ``pre_check_gradient``, in its order and words."""
    if x._t.dtype is dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None and spacing_size != x._t.ndim:
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                           f"'self.dim() = {x._t.ndim}', since dim argument was not given, but got a list of length "
                           f"{spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {spacing_size} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [norm_dim(d, x._t.ndim) for d in dims] if dims is not None else list(range(x._t.ndim))
    if dims is not None and len(set(wrapped)) != len(wrapped):
        repeated = next(d for i, d in enumerate(wrapped) if d in wrapped[:i])
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    for d in wrapped:
        if x._t.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """``torch.gradient(input, *, spacing=1, dim=None, edge_order=1)``: one tensor per dimension
    (``dim``: an int or a list of ints; all dimensions by default). ``spacing``: a number (the
    same step everywhere), a list of numbers (one step per dimension) or a list or tuple of 1-D
    coordinate tensors (one per dimension)."""
    check_input("gradient", input)
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    processed = dims if dims is not None else list(range(input._t.ndim))
    if isinstance(spacing, Tensor) and spacing._t.ndim == 0:
        spacing = spacing.item()
    if isinstance(spacing, Number) and not isinstance(spacing, bool):
        steps = [spacing] * len(processed)  # a number: one step per dimension, so the length check passes
        _check(input, len(steps), dims, edge_order)
        return tuple(_along_numbers(input, norm_dim(d, input._t.ndim), s, edge_order) for d, s in zip(processed, steps))
    spacing = list(spacing)
    _check(input, len(spacing), dims, edge_order)
    if all(isinstance(s, Tensor) for s in spacing):
        return tuple(_along_coordinates(input, norm_dim(d, input._t.ndim), c, edge_order)
                     for d, c in zip(processed, spacing))
    if all(isinstance(s, Number) and not isinstance(s, bool) for s in spacing):
        return tuple(_along_numbers(input, norm_dim(d, input._t.ndim), s, edge_order)
                     for d, s in zip(processed, spacing))
    raise TypeError("gradient(): spacing must be a number, a list of numbers or a list of 1-D tensors")


def install(method, function) -> None:
    """torch.gradient (PyTorch has no Tensor method)."""
    function("gradient", gradient)
