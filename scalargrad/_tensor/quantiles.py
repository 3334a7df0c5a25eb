"""``quantile`` and ``nanquantile``: composed of tensor ops exactly as ATen's ``quantile_compute``
(``Sorting.cpp``) composes them, so values, dtypes and the graph are PyTorch's.

The reduced dimension is moved last and sorted; each q becomes a rank, ``q * (n - 1)`` in the
input's dtype (a nan in the slice pins it to the last rank, where the sort put the nan; for
``nanquantile`` n counts the elements that are not nan). The interpolation mode rounds the rank
(``lower``: floor, ``higher``: ceil, ``nearest``: round half to even); ``linear`` and
``midpoint`` gather the values at both neighbouring ranks and ``lerp_`` between them with the
rank's fraction or 0.5. The result is the gathered (and lerped) values squeezed, or with q's
dimension moved first. Gradients flow through sort, gather and lerp (SortBackward0,
GatherBackward0, LerpBackward1), as in PyTorch.
"""

from __future__ import annotations

from .._base import dtypes
from .arguments import arg_type
from .factories import full_like, scalar_tensor
from .operands import broadcast_shapes
from .tensor import Tensor
from .views import norm_dim

__all__ = ["quantile", "nanquantile", "install"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _checks(input: Tensor, q: Tensor) -> None:
    if input._t.numel == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q._t.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._t.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._t.dtype is not input._t.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _out_shape(input: Tensor, q: Tensor, dim, keepdim: bool, wrapped: int) -> list:
    shape = list(input._t.shape)
    if dim is not None and shape:
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    elif keepdim:
        shape = [1] * len(shape)
    else:
        shape = []
    return ([q._t.numel] if q._t.ndim else []) + shape


def _compute(input: Tensor, q: Tensor, dim, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    _checks(input, q)
    wrapped = norm_dim(dim if dim is not None else 0, input._t.ndim)
    out_shape = _out_shape(input, q, dim, bool(keepdim), wrapped)
    if interpolation not in _MODES:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    if not bool(q.ge(0).logical_and_(q.le(1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        ordered = input.flatten().sort()[0]
    elif wrapped == input._t.ndim - 1:
        ordered = input.sort()[0]
    else:
        ordered = input.unsqueeze(-1).transpose(wrapped, -1).sort()[0]
    if q._t.ndim == 0:
        out_shape.insert(0, q._t.numel)
    in_shape = out_shape[1:] + [ordered._t.shape[-1]]
    ordered = ordered.view(in_shape)
    if ignore_nan:
        ranks = q * (ordered.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        last = ordered._t.shape[-1] - 1
        scaled, has_nan = q * last, ordered.isnan().any(-1, True)
        shape = broadcast_shapes(scaled._t.shape, has_nan._t.shape)  # at::broadcast_tensors: expanded views
        ranks = scaled.expand(shape).masked_fill(has_nan.expand(shape), last)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    below = ranks.to(dtypes.int64)
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = ranks.ceil_().to(dtypes.int64)
        values.lerp_(ordered.gather(-1, above), weights)
    if q._t.ndim == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


def _q_tensor(name: str, input: Tensor, q) -> Tensor:
    """A number q as ATen's double overload takes it: range-checked, then a 0-dim tensor of the
    input's dtype (``at::scalar_tensor(q, self.options())``); arguments neither overload takes
    refused with the parser's listing of both."""
    if not isinstance(input, Tensor) or not (isinstance(q, (Tensor, int, float)) and not isinstance(q, bool)):
        tail = '*, str interpolation = "linear", Tensor out = None)'
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({arg_type(input)}, "
                        f"{arg_type(q)}), but expected one of:\n"
                        f" * (Tensor input, Tensor q, int dim = None, bool keepdim = False, {tail}\n"
                        f" * (Tensor input, float q, int dim = None, bool keepdim = False, {tail}\n")
    if isinstance(q, Tensor):
        return q
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    return scalar_tensor(float(q), dtype=input._t.dtype)


def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """``torch.quantile``: the q-th quantiles of ``input`` (flattened, or along ``dim``), q a
    number or a 0-/1-dim tensor of the input's dtype; a slice holding a nan gives nan."""
    return _compute(input, _q_tensor("quantile", input, q), dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``torch.nanquantile``: ``quantile`` of the elements that are not nan (nan where every
    element of a slice is)."""
    return _compute(input, _q_tensor("nanquantile", input, q), dim, keepdim, interpolation, True)


def install(method, function) -> None:
    """quantile and nanquantile, on Tensor and in torch."""
    for fn in (quantile, nanquantile):
        function(fn.__name__, fn)
        method(fn.__name__, lambda self, q, dim=None, keepdim=False, *, interpolation="linear", _f=fn: _f(
            self, q, dim, keepdim, interpolation=interpolation))
