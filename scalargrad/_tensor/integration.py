"""The trapezoidal rule: ``trapezoid`` (``trapz``) and ``cumulative_trapezoid``, as ATen's
composites (aten/src/ATen/native/Integration.cpp) on the tensor ops, so their nodes are
PyTorch's: with sample points ``x``, ``((left + right) * dx).sum(dim) / 2.`` (its cumsum for the
cumulative rule), ``dx`` the differences of ``x`` viewed along ``dim``; with a constant spacing
``dx``, ``(y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx`` and
``(dx / 2. * (left + right)).cumsum(dim)``. The numbers are C++ Scalars (MulBackward1,
DivBackward1)."""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._ops import arithmetic as AR
from .arguments import not_tensor
from .elementwise import with_number
from .reductions import sum as tsum
from .scans import cumsum
from .tensor import Tensor, leaf
from .views import narrow, norm_dim, select, view

__all__ = ["trapezoid", "cumulative_trapezoid", "install"]


def _check(y, x, name: str) -> None:
    if not isinstance(y, Tensor):
        raise not_tensor(y, name, "y")
    if y._t.dtype is dtypes.bool or (isinstance(x, Tensor) and x._t.dtype is dtypes.bool):
        which = "`x` or `y`" if isinstance(x, Tensor) else "`y`"
        raise RuntimeError(f"{name}: received a bool input for {which}, but bool is not supported")
    if not isinstance(x, Tensor) and (isinstance(x, bool) or not isinstance(x, (int, float))):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _spacing(y: Tensor, x: Tensor, d: int, name: str) -> Tensor:
    """``x_right - x_left`` of ``x`` viewed against ``y`` (a 1-d ``x`` along ``dim``, a shorter
    one padded with leading 1s)."""
    nd = y._t.ndim
    if x._t.ndim == 1:
        if x._t.shape[0] != y._t.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * nd
        sizes[d] = x._t.shape[0]
        x = view(x, sizes)
    elif x._t.ndim < nd:
        x = view(x, [1] * (nd - x._t.ndim) + list(x._t.shape))
    return _right(x, d) - _left(x, d)


def _left(t: Tensor, d: int) -> Tensor:
    """``t.slice(dim, 0, -1)``."""
    return narrow(t, d, 0, max(t._t.shape[d] - 1, 0))


def _right(t: Tensor, d: int) -> Tensor:
    """``t.slice(dim, 1)``."""
    n = t._t.shape[d]
    return narrow(t, d, min(1, n), max(n - 1, 0))


def _sides(y: Tensor, d: int) -> Tensor:
    return _left(y, d) + _right(y, d)


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: sample points ``x`` (a tensor) or a constant spacing
    ``dx`` (default 1); no samples give zeros, as NumPy."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got both x and dx")
    spacing = x if x is not None else (1 if dx is None else dx)
    _check(y, spacing, "trapezoid")
    d = norm_dim(dim, y._t.ndim)
    if y._t.shape[d] == 0:
        shape = tuple(s for i, s in enumerate(y._t.shape) if i != d)
        n = 1
        for s in shape:
            n *= s
        return leaf([y._t.dtype.round(0)] * n if shape else y._t.dtype.round(0), TensorType(y._t.dtype, shape))
    if isinstance(spacing, Tensor):
        return with_number(AR.DivScalar, tsum(_sides(y, d) * _spacing(y, spacing, d, "trapezoid"), d), 2.0)
    ends = with_number(AR.MulScalar, select(y, d, 0) + select(y, d, -1), 0.5)
    return with_number(AR.MulScalar, tsum(y, d) - ends, float(spacing))


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoidal rule along ``dim`` (one element fewer than ``y`` there)."""
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments - got both x and dx")
    spacing = x if x is not None else (1 if dx is None else dx)
    _check(y, spacing, "cumulative_trapezoid")
    d = norm_dim(dim, y._t.ndim)
    if isinstance(spacing, Tensor):
        step = _sides(y, d) * _spacing(y, spacing, d, "cumulative_trapezoid")
        return with_number(AR.DivScalar, cumsum(step, d), 2.0)
    return cumsum(with_number(AR.MulScalar, _sides(y, d), float(spacing) / 2.0), d)


def install(method, function) -> None:
    """torch.trapezoid, torch.trapz, torch.cumulative_trapezoid."""
    function("trapezoid", trapezoid)
    function("trapz", trapezoid)
    function("cumulative_trapezoid", cumulative_trapezoid)
