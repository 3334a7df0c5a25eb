"""Reductions on tensors: sum, mean, max/min, argmax/argmin, all/any, in PyTorch's order.

A float32 sum rounds after every addition, so its result depends on the order of the
additions: ``_base/kernel_order.sum_program`` writes down the order of PyTorch's CPU sum kernel
for the input's shape and memory layout, and the sum follows it. The accumulator starts at
+0.0, so a sum is never -0.0.
"""

from __future__ import annotations

import builtins
import math

from .._base import dtypes
from .._base.dtypes import TensorType, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled, no_grad
from .._base.ieee import div
from .._base.kernel_order import sum_program
from .._base.layout import contiguous_strides
from .._base.numpy_types import integer
from .._ops import arithmetic as AR
from .._ops import comparison as CM
from .._ops import reductions as R
from .._ops import unary as UN
from .._ops.reductions import Reduced
from .arguments import not_tensor
from .comparison import where
from .elementwise import binary, unary
from .factories import check_dtype
from .indexing import scatter_into
from .return_types import ReturnTypes
from .tensor import Tensor, defaults, flat, leaf, make
from .tensor_kernel import helper
from .views import expand, gather_index, norm_dim, norm_dims, reshape, to_dtype, unsqueeze, view

__all__ = ["sum", "mean", "max_min", "amax", "aminmax", "arg_max_min", "all_any", "ReturnTypes", "sum_values",
           "group_index", "reduced_strides", "install", "sum_to", "logsumexp", "trace"]


def _out_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if d in dims else shape[d] for d in range(len(shape)))
    return tuple(shape[d] for d in range(len(shape)) if d not in dims)


def sum_values(x: Tensor, dims: tuple, dt) -> list:
    """The sums of ``x``'s elements over ``dims`` (row-major over the kept dims), added in
    PyTorch's kernel order, rounded to ``dt``, never -0.0."""
    shape = tuple(x._t.shape)
    vals = x._val if x._t.ndim else [x._val]
    if x._t.dtype is not dt:
        vals = round_list(dt, vals)
    if not dt.is_floating_point:
        return [dt.round(s) for s in group_sums(vals, shape, dims)]
    prog = sum_program(shape, tuple(x._t.strides), dims, dt.name)
    return [s + 0.0 for s in prog.evaluate(vals, dt)]


def group_sums(vals: list, shape: tuple, dims: tuple) -> list:
    """Exact (integer) sums over ``dims``."""
    out: dict = {}
    for i, o in enumerate(group_index(shape, dims)):
        out[o] = out.get(o, 0) + vals[i]
    n = 1
    for d in range(len(shape)):
        if d not in dims:
            n *= shape[d]
    return [out.get(o, 0) for o in range(n)]


def reduced_strides(shape: tuple, dims: tuple) -> list:
    """The strides, over the input's dims, of a row-major output of the kept dims: 0 on a
    reduced dim (every element of a group lands on the same output element)."""
    kept = [d for d in range(len(shape)) if d not in dims]
    ocs = contiguous_strides([shape[d] for d in kept])
    ost = [0] * len(shape)
    for i, d in enumerate(kept):
        ost[d] = ocs[i]
    return ost


def group_index(shape: tuple, dims: tuple) -> list:
    """For each element (row-major), the flat index of the output element it reduces into."""
    return gather_index(shape, reduced_strides(shape, dims), 0)


def _reduced_dtype(x: Tensor, dtype):
    dt = dtype if dtype is not None else x._t.dtype
    if not dt.is_floating_point:
        dt = dtypes.int64
    return dt


def sum(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:  # torch.sum
    """Sum over all elements or over ``dim``, added in PyTorch's CPU kernel order."""
    nd = x._t.ndim
    dims = norm_dims(dim, nd)
    src = x if dtype is None else to_dtype(x, dtype)
    dt = _reduced_dtype(src, None)
    sums = sum_values(src, dims if nd else (), dt)
    out_shape = () if dim is None else _out_shape(tuple(x._t.shape), dims, keepdim)
    op = R.Sum if dim is None else R.SumDim
    c = Reduced(x._t.shape, dims, bool(keepdim) and dim is not None, dim is None, raw=_raw_dims(dim))
    return make(op, TensorType(dt, out_shape), sums if out_shape else sums[0], (src,), c)


def _raw_dims(dim) -> dict | None:
    """The dims as the caller gave them, which PyTorch saves (``_saved_dim``)."""
    if dim is None:
        return None
    return {"dims": (int(dim),) if isinstance(dim, int) or integer(dim) is not None else tuple(int(d) for d in dim)}


def mean(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Mean over all elements or over ``dim``: PyTorch's sum, then one division by the count."""
    src = x if dtype is None else to_dtype(x, dtype)
    dt = src._t.dtype
    if not dt.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dt.short}")
    nd = x._t.ndim
    dims = norm_dims(dim, nd)
    sums = sum_values(src, dims if nd else (), dt)
    n = 1
    for d in dims if nd else ():
        n *= x._t.shape[d]
    r = dt.round
    vals = [r(div(s, float(n))) for s in sums]
    out_shape = () if dim is None else _out_shape(tuple(x._t.shape), dims, keepdim)
    op = R.Mean if dim is None else R.MeanDim
    c = Reduced(x._t.shape, dims, bool(keepdim) and dim is not None, dim is None, raw=_raw_dims(dim))
    return make(op, TensorType(dt, out_shape), vals if out_shape else vals[0], (src,), c)




def _pick(group: list, largest: bool, ties_last: bool = False):
    """(value, index) of the max (min) of ``group``: nan wins; ties keep the first (the last
    with ``ties_last``, as the all-element reduction's kernel does: it shows in the sign of a
    zero maximum of -0.0 and 0.0)."""
    best_i = 0
    best = group[0]
    for i in range(1, len(group)):
        v = group[i]
        if best != best:
            break
        if v != v or (v > best if largest else v < best) or (ties_last and v == best):
            best, best_i = v, i
    return best, best_i


def max_min(x: Tensor, dim=None, keepdim: bool = False, largest: bool = True, other=None):
    """``max()``/``min()`` of all elements, ``max(dim)`` with indices, or ``max(other)``
    (the elementwise maximum)."""
    name = "max" if largest else "min"
    if other is not None:
        return binary(CM.Maximum if largest else CM.Minimum, x, other)
    vals = x._val if x._t.ndim else [x._val]
    if dim is None:
        if not vals:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        v, _ = _pick(vals, largest, ties_last=True)
        op = R.MaxAll if largest else R.MinAll
        return make(op, TensorType(x._t.dtype, ()), v, (x,), Reduced(x._t.shape, tuple(range(x._t.ndim)), False, True))
    nd = x._t.ndim
    d = norm_dim(dim, nd)
    shape = tuple(x._t.shape)
    if nd and shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    values, indices, picked = _along(vals, shape, d, largest)
    out_shape = _out_shape(shape, (d,) if nd else (), keepdim)
    it = TensorType(dtypes.int64, out_shape)
    idx = leaf(indices if out_shape else indices[0], it)
    op = R.MaxDim if largest else R.MinDim
    c = Reduced(shape, (d,) if nd else (), bool(keepdim), False, indices=idx, raw={"dim": dim})
    c.picked = picked  # the flat input index each value came from, for the backward
    # the backward is a scatter, which only the tensor kernel has: a 0-dim input runs it too
    out = make(op if nd else op.tensor, TensorType(x._t.dtype, out_shape), values if out_shape else values[0], (x,), c)
    return ReturnTypes(name, out, idx)


def amax(x: Tensor, dim=(), keepdim: bool = False, largest: bool = True) -> Tensor:
    """``amax``/``amin`` over ``dim`` (() or None: every dimension): the extreme value of each
    slice, nan if the slice holds one (AmaxBackward0 shares the gradient among ties)."""
    name = "amax" if largest else "amin"
    if isinstance(dim, Tensor):
        raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not Tensor")
    nd = x._t.ndim
    given = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    dims = norm_dims(given, nd) if given else tuple(range(nd))
    if not nd:
        dims = ()
    shape = tuple(x._t.shape)
    vals = x._val if nd else [x._val]
    if not vals and not given:  # with dims none of size 0, an empty input gives an empty result
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    for raw in given if nd else ():
        if shape[norm_dim(raw, nd)] == 0:  # named as given (-1), in the order given, unlike max(dim)'s
            raise IndexError(f"{name}(): Expected reduction dim {raw} to have non-zero size.")
    groups: dict = {}
    for i, o in enumerate(group_index(shape, dims)):
        groups.setdefault(o, []).append(vals[i])
    out_shape = _out_shape(shape, dims, keepdim)
    picked = [_pick(groups[o], largest)[0] for o in range(len(groups))]
    op = R.Amax if largest else R.Amin
    c = Reduced(shape, dims, bool(keepdim), not given, raw={"dims": given})
    return make(op, TensorType(x._t.dtype, out_shape), picked if out_shape else picked[0], (x,), c)



def aminmax(input: Tensor, *, dim=None, keepdim: bool = False):
    """``aminmax``: (min, max) of every element, or of each slice along ``dim`` (``amin`` and
    ``amax``'s values, nan where a slice holds one). Its gradient (PyTorch's one node of two
    outputs, AminmaxBackward0) is not implemented: refused by name."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "aminmax")
    if dim is not None and dim.__class__ is not int:
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    if input._rg and is_grad_enabled():
        raise Unsupported("the gradient of torch.aminmax (AminmaxBackward0)")
    if dim is None:
        if not input._t.numel:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims = ()
    else:
        d = norm_dim(dim, input._t.ndim)
        if input._t.ndim and input._t.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = (dim,) if input._t.ndim else ()
        if not input._t.numel:  # an empty slice count: empty results
            out_shape = _out_shape(tuple(input._t.shape), (d,), keepdim)
            empty = leaf([], TensorType(input._t.dtype, out_shape))
            return ReturnTypes("aminmax", empty, leaf([], TensorType(input._t.dtype, out_shape)))
    return ReturnTypes("aminmax", amax(input, dims, keepdim, False), amax(input, dims, keepdim, True))

def _along(vals: list, shape: tuple, d: int, largest: bool):
    if not shape:
        return [vals[0]], [0], [0]
    size = shape[d]
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    outer = 1
    for s in shape[:d]:
        outer *= s
    values, indices, picked = [], [], []
    for o in range(outer):
        for i in range(inner):
            base = o * size * inner + i
            group = [vals[base + j * inner] for j in range(size)]
            v, j = _pick(group, largest)
            values.append(v)
            indices.append(j)
            picked.append(base + j * inner)
    return values, indices, picked


def arg_max_min(x: Tensor, dim=None, keepdim: bool = False, largest: bool = True) -> Tensor:
    """argmax/argmin: the index of the first extreme element (flat without ``dim``)."""
    name = "argmax" if largest else "argmin"
    if x._t.dtype is dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    vals = x._val if x._t.ndim else [x._val]
    if dim is None:
        if not vals:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        _, i = _pick(vals, largest)
        shape = tuple(1 for _ in x._t.shape) if keepdim else ()
        return leaf([i] if shape else i, TensorType(dtypes.int64, shape))
    d = norm_dim(dim, x._t.ndim)
    if x._t.ndim and x._t.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    _, indices, _ = _along(vals, tuple(x._t.shape), d, largest)
    out_shape = _out_shape(tuple(x._t.shape), (d,) if x._t.ndim else (), keepdim)
    return leaf(indices if out_shape else indices[0], TensorType(dtypes.int64, out_shape))


def all_any(x: Tensor, dim=None, keepdim: bool = False, want_all: bool = True) -> Tensor:
    vals = x._val if x._t.ndim else [x._val]
    if dim is None:
        r = all(bool(v) for v in vals) if want_all else any(bool(v) for v in vals)
        return leaf(r, TensorType(dtypes.bool, ()))
    dims = norm_dims(dim, x._t.ndim)
    shape = tuple(x._t.shape)
    groups: dict = {}
    for i, o in enumerate(group_index(shape, dims)):
        groups.setdefault(o, []).append(bool(vals[i]))
    out_shape = _out_shape(shape, dims, keepdim)
    n = 1
    for s in out_shape:
        n *= s
    res = [(all if want_all else any)(groups.get(o, [])) for o in range(n)]
    return leaf(res if out_shape else res[0], TensorType(dtypes.bool, out_shape))


_MISSING = object()


def diagonal_positions(shape: tuple) -> list:
    """The flat positions of a matrix's diagonal."""
    n, m = shape
    return [i * (m + 1) for i in range(min(n, m))]


def trace(input: Tensor) -> Tensor:
    """``trace``: the sum of a matrix's diagonal, added in order in double (ATen's accumulator
    for float32 too) and rounded once; an integer matrix gives int64 (bool is refused, as PyTorch's). One node,
    TraceBackward0."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "trace", "input", 1)
    if input._t.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._t.ndim}")
    dt = input._t.dtype
    if dt is dtypes.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    vals = input._val
    picked = diagonal_positions(tuple(input._t.shape))
    if dt.is_floating_point:
        acc = 0.0
        for i in picked:
            acc += vals[i]
        out_dt, value = dt, dt.round(acc)
    else:
        out_dt, value = dtypes.int64, dtypes.int64.round(builtins.sum(int(vals[i]) for i in picked))
    c = Reduced(input._t.shape, (0, 1), False, True)
    c.picked = picked
    return make(R.Trace, TensorType(out_dt, ()), value, (input,), c)


def logsumexp(x: Tensor, dim, keepdim: bool = False) -> Tensor:
    """``torch.logsumexp(x, dim, keepdim)``: ``log(sum(exp(x)))`` over ``dim`` (an int or a tuple
    of ints), as ATen's ``logsumexp_out_impl`` computes it, each step in the dtype: the maxima
    along ``dim`` (an infinite one taken as 0), ``exp(x - max)`` summed in the sum kernel's order,
    then ``log`` of the sum plus the maxima. An integer or bool input is computed in the default
    float dtype. One node, LogsumexpBackward0."""
    given = (dim,) if isinstance(dim, int) else tuple(dim)
    nd = x._t.ndim
    if not given and nd and not keepdim:  # ATen reduces every dim, then cannot add the maxima
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * nd}")
    dims = (norm_dims(given, nd) if given else tuple(range(nd))) if nd else (norm_dims(given, 1) and ())
    src = x if x._t.dtype.is_floating_point else to_dtype(x, defaults["dtype"])
    with no_grad():  # the steps are ATen's ops; the node is the one below
        if not src._t.numel:
            y = unary(UN.Log, sum(unary(UN.Exp, src), dims, keepdim=bool(keepdim)))
        else:
            maxes = amax(src, dims, keepdim=True) if nd else src
            mv = maxes._val if nd else [maxes._val]
            masked = [0.0 if v in (math.inf, -math.inf) else v for v in mv]  # maxes_squeezed.masked_fill_
            maxes = leaf(masked if nd else masked[0], TensorType(src._t.dtype, tuple(maxes._t.shape)))
            exps = unary(UN.Exp, binary(AR.Sub, src, maxes))
            sums = sum(exps, dims, keepdim=bool(keepdim)) if nd else exps
            shape = _out_shape(tuple(x._t.shape), dims, bool(keepdim))
            y = binary(AR.Add, unary(UN.Log, sums), reshape(maxes, shape) if nd else maxes)
    c = Reduced(x._t.shape, dims, bool(keepdim), False, raw={"dims": tuple(int(d) for d in given)})
    return make(R.Logsumexp, y._t, y._val, (src,), c)


def _logsumexp_arguments(name: str, args: tuple, kwargs: dict, first: int) -> tuple:
    """(dim, keepdim) from a logsumexp call, checked as PyTorch's argument parser checks them
    (``first``: dim's position in the call, 1 for the method, 2 for torch.logsumexp)."""
    if len(args) > 2:
        raise TypeError(f"{name}() takes from {first} to {first + 1} positional arguments but "
                        f"{len(args) + first - 1} were given")
    for alias, real, at in (("axis", "dim", 0), ("keepdims", "keepdim", 1)):  # NumPy's names, as the parser's
        if alias in kwargs and real not in kwargs and len(args) <= at:
            kwargs = dict(kwargs)
            kwargs[real] = kwargs.pop(alias)
    for key in kwargs:
        if key not in ("dim", "keepdim", "out"):
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    dim = args[0] if args else kwargs.get("dim", _MISSING)
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    if dim is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    where = f" (position {first})" if args else ""
    if isinstance(dim, Tensor) and dim._t.numel == 1 and dim._t.dtype.kind in ("i", "u", "b"):
        dim = int(flat(dim)[0])  # a one-element integer or bool tensor is an int (its __index__)
    if isinstance(dim, (list, tuple)):
        for i, d in enumerate(dim):
            if d.__class__ is float:
                raise TypeError(f"{name}(): argument 'dim'{where} must be tuple of ints, but found element of type "
                                f"float at pos {i}")
            if not isinstance(d, int) or isinstance(d, bool):
                raise TypeError(f"{name}(): argument 'dim' failed to unpack the object at pos {i + 1} with error "
                                f'"type must be tuple of ints,but got {type(d).__name__}"')
    elif not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim'{where} must be tuple of ints, not {type(dim).__name__}")
    if keepdim.__class__ is not bool:
        raise TypeError(f"{name}(): argument 'keepdim' must be bool, not {type(keepdim).__name__}")
    return dim, keepdim


def _logsumexp_method(self, *args, **kwargs):
    return logsumexp(self, *_logsumexp_arguments("logsumexp", args, kwargs, 1))


def _logsumexp_function(input, *args, **kwargs):
    if not isinstance(input, Tensor):
        raise not_tensor(input, "logsumexp", "input", 1)
    return logsumexp(input, *_logsumexp_arguments("logsumexp", args, kwargs, 2))


def _sum_method(self, dim=None, keepdim=False, *, dtype=None):
    return sum(self, dim, keepdim, check_dtype(dtype, "sum"))


def _mean_method(self, dim=None, keepdim=False, *, dtype=None):
    return mean(self, dim, keepdim, check_dtype(dtype, "mean"))


def _max_min_method(largest: bool):
    def apply(self, dim=None, keepdim=False, *, other=None):
        if other is not None:  # the (input, Tensor other) overload by its keyword
            if dim is not None:
                raise TypeError(f"{'max' if largest else 'min'}() got multiple values for argument 'other'")
            dim = other
        if isinstance(dim, Tensor):
            return max_min(self, other=dim, largest=largest)
        return max_min(self, dim, keepdim, largest)

    return apply


def install(method, function) -> None:
    """sum, mean, max/min (and argmax/argmin, amax/amin), all, any, logsumexp, trace."""
    method("sum", _sum_method)
    method("mean", _mean_method)
    function("sum", lambda input, dim=None, keepdim=False, *, dtype=None: _sum_method(input, dim, keepdim,
                                                                                      dtype=dtype))
    function("mean", lambda input, dim=None, keepdim=False, *, dtype=None: _mean_method(input, dim, keepdim,
                                                                                        dtype=dtype))
    for name, largest in (("max", True), ("min", False)):
        method(name, _max_min_method(largest))
        function(name, _max_min_method(largest))
        method("arg" + name, lambda self, dim=None, keepdim=False, _l=largest: arg_max_min(self, dim, keepdim, _l))
        function("arg" + name, lambda input, dim=None, keepdim=False, _l=largest:
                 arg_max_min(input, dim, keepdim, _l))
        method("a" + name, lambda self, dim=(), keepdim=False, _l=largest: amax(self, dim, keepdim, _l))
        function("a" + name, lambda input, dim=(), keepdim=False, _l=largest: amax(input, dim, keepdim, _l))
    method("aminmax", aminmax)
    function("aminmax", aminmax)
    method("all", lambda self, dim=None, keepdim=False: all_any(self, dim, keepdim, True))
    method("any", lambda self, dim=None, keepdim=False: all_any(self, dim, keepdim, False))
    function("all", lambda input, dim=None, keepdim=False: all_any(input, dim, keepdim, True))
    function("any", lambda input, dim=None, keepdim=False: all_any(input, dim, keepdim, False))
    method("logsumexp", _logsumexp_method)
    function("logsumexp", _logsumexp_function)
    method("trace", trace)
    function("trace", trace)


# ---------------------------------------------------------------- derivative helpers, on tensors


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """``at::sum_to``: sum a broadcast gradient back to ``shape`` (keepdim sum over the
    broadcast dims, then a view dropping the leading ones)."""
    gshape = tuple(g._t.shape)
    if gshape == shape:
        return g
    if not shape:  # ATen's sum_to: to a 0-dim shape, tensor.sum() (one node, no view)
        return sum(g)
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
    if dims:
        g = sum(g, dims, keepdim=True)
    if lead:
        g = view(g, shape)
    return g


@helper(name="sum_to")
def _sum_to_grad(g, shape):
    # ExpandBackward0's at::sum_to: to a 0-dim shape it is always a sum (SumBackward0 under
    # create_graph; +0.0 for -0.0), otherwise the dims that were broadcast are summed
    if not shape and isinstance(g, Tensor):
        return sum(g)
    return sum_to(g, tuple(shape))


@helper
def sum_backward(g, c):
    if not isinstance(g, Tensor):
        g = leaf(g, TensorType(dtypes.float64 if isinstance(g, float) else dtypes.int64, ()))
    if not c.all and not c.keepdim and c.in_shape:  # a 0-dim input's dim 0 / -1 is no dim to restore
        for d in c.dims:
            g = unsqueeze(g, d)
    return expand(g, c.in_shape)


@helper
def evenly_distribute(g, x, y):
    """evenly_distribute_backward: the gradient shared by the elements equal to the result
    (the nans, for a nan result), zeros elsewhere."""
    yv = y._val
    xv = x._val if x._t.ndim else [x._val]
    mask = [e != e for e in xv] if yv != yv else [e == yv for e in xv]
    share = g / float(builtins.sum(mask))
    t = x._t
    m = leaf(mask if t.ndim else mask[0], TensorType(dtypes.bool, t.shape))
    zeros = leaf([0.0] * t.numel if t.ndim else 0.0, TensorType(share._t.dtype, t.shape))
    return where(m, share, zeros)


@helper
def amax_backward(g, x, y, c):
    """scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(result) == self,
    dims): ``grad / count * mask``, the count of the elements equal to their slice's
    extreme (a nan slice counts none: its gradient is nan)."""
    if not isinstance(g, Tensor):
        g = leaf(g, TensorType(x._t.dtype, ()))
    if not c.keepdim and c.dims and c.in_shape:
        shape = tuple(1 if d in c.dims else s for d, s in enumerate(c.in_shape))
        g, y = reshape(g, shape), reshape(y, shape)
    mask = binary(CM.Eq, x, y)
    count = sum(mask, c.dims if c.in_shape else None, keepdim=True) if c.dims or not c.in_shape else sum(mask, None)
    return (g / count) * mask


@helper
def value_selecting_backward(g, c):
    return scatter_into(g, c.in_shape, c.picked, "SelectBackwardBackward0")


@helper
def trace_backward(g, c):
    """trace_backward: zeros of the matrix's size with the gradient at the diagonal's positions
    (IndexFillBackward1 under create_graph), viewed as the matrix (ViewBackward0)."""
    if not isinstance(g, Tensor):
        g = leaf(g, TensorType(dtypes.float64, ()))
    n = len(c.picked)
    flat_grad = scatter_into(expand(reshape(g, (1,)), (n,)), (c.numel,), c.picked, "IndexFillBackward1")
    return view(flat_grad, c.in_shape)


@helper
def restore_reduced(g, c):
    """``unsqueeze_multiple(g, dims)`` (FunctionsManual): a reduction's gradient or result given
    back its reduced dims, one UnsqueezeBackward0 each under create_graph; as it is with keepdim."""
    if c.keepdim or not c.in_shape:
        return g
    for d in c.dims:
        g = unsqueeze(g, d)
    return g
