"""nansum and nanmean: sum and mean that read nan as 0 (nanmean divides by the count of the
elements that are not nan, as ATen's composite ``nansum(...).div(count)`` does)."""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._base.grad_mode import no_grad
from .._ops import reductions as R
from .._ops.reductions import Reduced
from .arguments import check_input
from .reductions import _out_shape, _raw_dims, _reduced_dtype, sum_values
from .tensor import Tensor, make
from .views import norm_dims, to_dtype

__all__ = ["nansum", "nanmean", "install"]


def nansum(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Sum over all elements or over ``dim`` with nan read as 0, in PyTorch's CPU kernel order."""
    nd = x._t.ndim
    dims = norm_dims(dim, nd)
    src = x if dtype is None else to_dtype(x, dtype)
    dt = _reduced_dtype(src, None)
    with no_grad():  # the values added: nan replaced by 0, in the input's layout
        clean = src.masked_fill(src != src, 0) if src._t.dtype.is_floating_point else src
    sums = sum_values(clean, dims if nd else (), dt)
    out_shape = () if dim is None else _out_shape(tuple(x._t.shape), dims, keepdim)
    c = Reduced(x._t.shape, dims, bool(keepdim) and dim is not None, dim is None, raw=_raw_dims(dim))
    return make(R.Nansum, TensorType(dt, out_shape), sums if out_shape else sums[0], (src,), c)


def nanmean(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``nansum(x, dim, keepdim) / (number of elements that are not nan)``; floating tensors only."""
    if not (x._t.dtype if dtype is None else dtype).is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{(x._t.dtype if dtype is None else dtype).short}")
    count = (x == x).sum(dim, keepdim) if dim is not None else (x == x).sum()
    return nansum(x, dim, keepdim, dtype) / count


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    for name, fn in (("nansum", nansum), ("nanmean", nanmean)):
        method(name, lambda self, dim=None, keepdim=False, *, dtype=None, _f=fn: _f(self, dim, keepdim, dtype))

        def call(input, dim=None, keepdim=False, *, dtype=None, out=None, _f=fn, _n=name):  # PyTorch's names
            check_input(_n, input)
            return _f(input, dim, keepdim, dtype)

        function(name, call)
