"""``cov`` and ``corrcoef``: composed of tensor ops exactly as ATen's ``Correlation.cpp`` composes
them, so values, dtypes, warnings and the graph are PyTorch's.

``cov(input, correction=1, fweights=None, aweights=None)`` views a vector as one variable (a row),
takes the weighted mean of each row (``sum(1) / w_sum``; without weights ``w_sum`` is the number
of observations as an int64 0-dim tensor), subtracts it, multiplies the centred rows with their
transpose (``mm``) and divides by the normalisation factor (true division), then squeezes. The
factor is ``n - correction`` without weights, else ``w_sum - correction * sum(w * aweights) /
w_sum`` (``w_sum - correction`` with fweights alone, ``w_sum`` for correction 0); a factor <= 0
warns and becomes 0. ``corrcoef`` divides the covariance by the square roots of its diagonal as a
column and as a row and clips to [-1, 1]; a 0-dim covariance gives ``c / c``. Values are those of
the ops (``mm``'s MKL order: machine-dependent in the last bits for inexact float operands).
"""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.program_frame import program_stacklevel
from .arguments import check_input, not_tensor
from .factories import scalar_tensor
from .products import mm
from .tensor import Tensor

__all__ = ["cov", "corrcoef", "install"]

_DOF = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations. "
        "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Correlation.cpp:129.)")


def _check_weights(w: Tensor, name: str, n: int) -> None:
    """fweights' or aweights' checks, in ATen's order and words."""
    if w._t.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w._t.ndim} dimensions")
    if name == "fweights" and w._t.dtype.kind != "i":
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                           f"{w._t.dtype.short} dtype")
    if name == "aweights" and not w._t.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{w._t.dtype.short} dtype")
    if w._t.numel != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w._t.numel} != {n}")
    if n and not bool(w.min().ge(0)):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """``torch.cov``: the covariance matrix of the rows of ``input`` (variables) over its columns
    (observations), weighted by ``fweights`` (integer frequencies) and ``aweights`` (floating
    weights); a 0-dim result for one variable."""
    check_input("cov", input)
    if input._t.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._t.ndim} dimensions")
    if input._t.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    rows = input.view(1, -1) if input._t.ndim < 2 else input
    n = rows._t.shape[1]
    w = None
    if fweights is not None:
        if not isinstance(fweights, Tensor):
            raise not_tensor(fweights, "cov", "fweights", None)
        _check_weights(fweights, "fweights", n)
        w = fweights
    if aweights is not None:
        if not isinstance(aweights, Tensor):
            raise not_tensor(aweights, "cov", "aweights", None)
        _check_weights(aweights, "aweights", n)
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else scalar_tensor(n, dtype=dtypes.int64)
    if w is not None and not bool(w_sum.ne(0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (rows * w if w is not None else rows).sum(1) / w_sum
    if w is None:
        norm = scalar_tensor(n - correction, dtype=dtypes.int64)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    elif fweights is None and n == 1 and correction == 1:
        norm = scalar_tensor(0, dtype=dtypes.int64)  # ATen's corner case, as NumPy
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    if bool(norm.le(0)):
        warnings.warn(_DOF, UserWarning, stacklevel=program_stacklevel())
        norm.zero_()
    if n == 1 and (fweights is None) != (aweights is None):
        # ATen zeroes the input's one observation in place (the mean of one weighted value is itself)
        rows.zero_()
        if not rows._t.dtype.is_floating_point:
            rows = rows.to(dtypes.float32)
    else:
        rows = rows - avg.unsqueeze(1)
    c = mm(rows, (rows * w if w is not None else rows).t())
    return c.true_divide(norm).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """``torch.corrcoef``: Pearson's correlation coefficients of the rows of ``input`` (the
    covariance normalised by the standard deviations, clipped to [-1, 1])."""
    check_input("corrcoef", input)
    if input._t.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._t.ndim} dimensions")
    c = cov(input)
    if c._t.ndim == 0:
        return c / c  # one variable: nan for a covariance of 0, inf or nan, else 1
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


def install(method, function) -> None:
    """cov and corrcoef, on Tensor and in torch."""
    function("cov", cov)
    function("corrcoef", corrcoef)
    method("cov", lambda self, *, correction=1, fweights=None, aweights=None: cov(
        self, correction=correction, fweights=fweights, aweights=aweights))
    method("corrcoef", corrcoef)
