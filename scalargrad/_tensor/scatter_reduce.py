"""``scatter_reduce`` (``Tensor.scatter_reduce(_)``, ``torch.scatter_reduce``) and ``index_reduce``
(``Tensor.index_reduce(_)``, ``torch.index_reduce``: whole slices of source along ``dim``, prod,
mean, amax or amin, with its beta warning): src's elements
reduced into a copy of self at ``index`` along ``dim`` with sum, prod, mean, amax or amin, self's
element included or not (``include_self``), as ATen's CPU kernel: with ``include_self=False``
each written place starts from the reduction's identity (0, 1, -inf, +inf), the writes are
folded in index order, each rounded to the dtype, and mean divides the sum by the count
(integers: floor division). NaN wins amax and amin.

The derivative is FunctionsManual's ``scatter_reduce_backward``, built here from the tensor ops it
names, so a double backward records PyTorch's nodes; its amax/amin branch counts self among the
tied maxima even with ``include_self=False`` (PyTorch's, kept). ``reduce='max'``/``'min'`` run
forward as amax/amin and the backward refuses them with PyTorch's error.
"""

from __future__ import annotations

import math
import warnings

from .._base import dtypes
from .._base.errors import Unsupported
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import scatter as W
from .._ops.views import Layout
from .arguments import not_tensor
from .inplace import inplace
from .scatter import index_func_checks, scatter_writes, slice_writes
from .storage import dual_memory
from .tensor import Tensor, make
from .tensor_kernel import helper
from .views import norm_dim

__all__ = ["scatter_reduce", "index_reduce", "install"]

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_ALIASES = {"max": "amax", "min": "amin"}  # ATen's kernel takes them; the derivative does not
_BETA = ("index_reduce() is in beta and the API may change at any time. (Triggered internally at "
         "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)")


def _identity(reduce: str, dt):
    if reduce in ("sum", "mean"):
        return dt.round(0)
    if reduce == "prod":
        return dt.round(1)
    if dt.is_floating_point:
        return -math.inf if reduce == "amax" else math.inf
    if dt is dtypes.bool:
        return reduce == "amin"
    bits = 8 * dt.itemsize
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt.is_signed else (0, (1 << bits) - 1)
    return lo if reduce == "amax" else hi


def _combine(reduce: str, r, old, w):
    if reduce in ("sum", "mean"):
        return r(old + w)
    if reduce == "prod":
        return r(old * w)
    if w != w:
        return w
    if reduce == "amax":
        return old if not old < w else w  # std::max: the first unless it is smaller (nan stays)
    return w if w < old else old  # std::min


def _values(x: Tensor, src: Tensor, writes: list, reduce: str, include_self: bool) -> list:
    dt = x._t.dtype
    r = dt.round
    out = list(x._val if x._t.ndim else [x._val])
    sv = src._val if src._t.ndim else [src._val]
    counts: dict = {}
    for dest, _ in writes:
        counts[dest] = counts.get(dest, 0) + 1
    if not include_self:
        for dest in counts:
            out[dest] = _identity(reduce, dt)
    for dest, s in writes:
        out[dest] = _combine(reduce, r, out[dest], sv[s])
    if reduce == "mean":
        if dt is dtypes.bool:
            raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
        for dest, n in counts.items():
            n += include_self
            out[dest] = out[dest] // n if not dt.is_floating_point else r(out[dest] / n)
    return out


def scatter_reduce(x: Tensor, dim, index, src, reduce: str, *, include_self: bool = True) -> Tensor:
    """``x.scatter_reduce(dim, index, src, reduce, include_self=True)`` (ScatterReduceBackward0)."""
    if not isinstance(index, Tensor):
        raise not_tensor(index, "scatter_reduce", "index", 2)
    if not isinstance(src, Tensor):
        raise not_tensor(src, "scatter_reduce", "src", 3)
    if reduce not in _REDUCTIONS and reduce not in _ALIASES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = norm_dim(dim, x._t.ndim)
    writes = scatter_writes("scatter", x, d, index, src)  # ATen's checks name scatter
    out = _values(x, src, writes, _ALIASES.get(reduce, reduce), bool(include_self))
    layout = Layout(x._t.shape, x._t.dtype, map=writes, tensors=index)
    layout.raw = {"reduce": reduce, "include_self": bool(include_self), "dim": dim + (1 << 64) if dim < 0 else dim}
    layout.dim = d
    op = W.ScatterReduceTwo if x._t.ndim or src._t.ndim else W.ScatterReduceTwo.tensor
    return make(op, x._t, out if x._t.ndim else out[0], (x, src), layout)


def index_reduce(x: Tensor, dim, index, source, reduce: str, *, include_self: bool = True) -> Tensor:
    """``x.index_reduce(dim, index, source, reduce, include_self=True)``: source's slice ``i``
    reduced into slice ``index[i]`` along ``dim`` (IndexReduceBackward0)."""
    if not isinstance(index, Tensor):
        raise not_tensor(index, "index_reduce", "index", 2)
    if not isinstance(source, Tensor):
        raise not_tensor(source, "index_reduce", "source", 3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = norm_dim(dim, x._t.ndim)
    index_func_checks("index_reduce", x, d, index, source)
    if first_time("index_reduce_beta"):  # TORCH_WARN_ONCE
        warnings.warn(_BETA, UserWarning, stacklevel=program_stacklevel())
    dual = dual_memory()
    if dual is not None and any(dual[2](t) is not None for t in (x, source)):
        raise NotImplementedError(
            "Trying to use forward AD with index_reduce that does not support it because it has not been implemented "
            "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-"
            "request.yml so that we can prioritize its implementation or submit a PR adding the implementation to "
            "derivatives.yaml")
    idx = index._val if index._t.ndim else [index._val]
    size = x._t.shape[d] if x._t.ndim else 1
    if any(not 0 <= i < size for i in idx):
        raise IndexError("index out of range in self")
    writes = slice_writes(x, d, idx, tuple(source._t.shape))
    out = _values(x, source, writes, reduce, bool(include_self))
    layout = Layout(x._t.shape, x._t.dtype, map=writes, tensors=index)
    layout.raw = {"reduce": reduce, "include_self": bool(include_self), "dim": dim + (1 << 64) if dim < 0 else dim,
                  "index_op": True}
    layout.dim = d
    op = W.IndexReduce if x._t.ndim or source._t.ndim else W.IndexReduce.tensor
    return make(op, x._t, out if x._t.ndim else out[0], (x, source), layout)


def _several_zeros(k, num_zeros: Tensor) -> None:
    """PyTorch wraps prod's src gradient in a DelayedError node when two zeros or more reach one
    place, so a double backward through it fails; scalargrad does not build that node."""
    if k.graph and bool((num_zeros > 1).any()):
        raise Unsupported("the double backward of scatter_reduce/index_reduce with reduce='prod' where two zeros "
                          "or more reach one place")


@helper
def scatter_reduce_backward(k, g: Tensor, v: Tensor) -> tuple:
    """FunctionsManual's scatter_reduce_backward: (grad_self, grad_src)."""
    c = v._c
    reduce, include_self, dim, index = c.raw["reduce"], c.raw["include_self"], c.dim, c.tensors
    self, src = k.ins(v)
    result = k.out(v)
    if c.raw.get("index_op"):  # index_reduce_backward: the same formulas on slices
        pick, add_at, again = (lambda t: t.index_select(dim, index)), (lambda t, s: t.index_add(dim, index, s)), (
            lambda t, s: t.index_reduce(dim, index, s, reduce, include_self=include_self))
    else:
        pick, add_at, again = (lambda t: t.gather(dim, index)), (lambda t, s: t.scatter_add(dim, index, s)), (
            lambda t, s: t.scatter_reduce(dim, index, s, reduce, include_self=include_self))
    if reduce == "sum":
        grad_self, grad_src = g, pick(g)
    elif reduce == "prod":
        # the products without each zero, computed apart: grad * result / x is nan or 0 there
        masked_self = self.masked_fill(self == 0, 1)
        grad_self = g * again(masked_self, src) / masked_self
        src_zero = src == 0
        src_num_zeros = pick(add_at(self.new_zeros(self.shape), src_zero.to(self.dtype)))
        _several_zeros(k, src_num_zeros)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src_result = again(self, src.masked_fill(src_single_zero, 1))
        grad_src = pick(g * masked_src_result).where(src_single_zero, pick(g * result) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = add_at(g.new_ones(g.shape) if include_self else g.new_zeros(g.shape), src.new_ones(src.shape))
        n = n.masked_fill(n == 0, 1)
        grad_self = g / n
        grad_src = pick(g) / pick(n)
    elif reduce in ("amax", "amin"):
        # the gradient shared evenly among the elements that reach the result
        value = pick(result)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        distributed = g / add_at(self_is_result, src_is_result)
        if c.raw.get("index_op"):
            grad_self, grad_src = self_is_result * distributed, src_is_result * pick(distributed)
        else:
            grad_self, grad_src = (self == result) * distributed, (src == value) * pick(distributed)
    else:
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")
    if not include_self:
        grad_self = grad_self.index_fill(dim, index, 0) if c.raw.get("index_op") else grad_self.scatter(dim, index, 0)
    return grad_self, grad_src


@helper
def scatter_reduce_jvp(k, tangents: list, v: Tensor):
    """Forward-mode AD of scatter_reduce: sum and mean are linear (the op on the tangents); amax and
    amin share the tangents of the elements reaching the result evenly; prod has none (PyTorch's
    tangent is undefined: None)."""
    c = v._c
    reduce, include_self, dim, index = c.raw["reduce"], c.raw["include_self"], c.dim, c.tensors
    self, src = k.ins(v)
    result = k.out(v)
    self_t, src_t = (t if t is not None else x.new_zeros(x.shape) for t, x in zip(tangents, (self, src)))
    if reduce in ("sum", "mean"):
        return self_t.scatter_reduce(dim, index, src_t, reduce, include_self=include_self)
    if reduce in ("amax", "amin"):
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        n = self_is_result.scatter_reduce(dim, index, src_is_result, "sum", include_self=include_self)
        return (self_t * self_is_result).scatter_reduce(dim, index, src_t * src_is_result, "sum",
                                                        include_self=include_self) / n
    return None


def install(method, function) -> None:
    """scatter_reduce, scatter_reduce_, index_reduce, index_reduce_ and their torch functions."""
    method("index_reduce", index_reduce)
    method("index_reduce_", lambda self, dim, index, source, reduce, *, include_self=True: inplace(
        self, lambda t: index_reduce(t, dim, index, source, reduce, include_self=include_self)))
    function("index_reduce", lambda input, dim, index, source, reduce, *, include_self=True, out=None: index_reduce(
        input, dim, index, source, reduce, include_self=include_self))
    method("scatter_reduce", scatter_reduce)
    method("scatter_reduce_", lambda self, dim, index, src, reduce, *, include_self=True: inplace(
        self, lambda t: scatter_reduce(t, dim, index, src, reduce, include_self=include_self)))
    function("scatter_reduce", lambda input, dim, index, src, reduce, *, include_self=True, out=None: scatter_reduce(
        input, dim, index, src, reduce, include_self=include_self))
