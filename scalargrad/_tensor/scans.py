"""``prod``, ``cumsum``, ``cumprod`` and ``flip`` on tensors, rounding as PyTorch's CPU kernels
(see ``_ops/scans.py``)."""

from __future__ import annotations

import itertools
import math

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import state as _grad_state
from .._base.kernel_order import VECTOR_LANES
from .._base.layout import contiguous_strides, slices
from .._ops import scans as SC
from .._ops.views import Layout
from .arguments import not_tensor, sizes_by_keyword
from .comparison import where
from .factories import check_dtype
from .inplace import inplace
from .reductions import _out_shape
from .tensor import Tensor, leaf, make
from .tensor_kernel import as_tensor, helper, zeros
from .views import gather_index, narrow, norm_dim, norm_dims, to_dtype, unsqueeze

__all__ = ["prod", "cumsum", "cumprod", "flip", "flip_side", "rot90", "logcumsumexp", "vander", "prod_values",
           "install"]


def _check(x, name: str) -> None:
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, 'input', 1)


def _int_dim(dim, name: str) -> int:
    if dim.__class__ is not int:
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    return dim


def _source(x: Tensor, dtype, integral_to_long: bool = True):
    """``x`` in the computation dtype: ``dtype`` if given, else int64 for integer and bool
    tensors (ATen's promotion of sums and products), else its own."""
    if dtype is not None:
        return to_dtype(x, dtype) if dtype is not x._t.dtype else x
    if integral_to_long and not x._t.dtype.is_floating_point and x._t.dtype is not dtypes.int64:
        return to_dtype(x, dtypes.int64)
    return x


def _product(vals: list, dt, contiguous: bool) -> float:
    """The product of ``vals`` as ATen's reduce kernel takes it (``_ops/scans.py``)."""
    r = dt.round
    if not dt.is_floating_point:
        acc = 1
        for v in vals:
            acc = r(acc * v)
        return acc
    n = len(vals)
    lanes = VECTOR_LANES.get(dt.name, 8)
    block = 4 * lanes
    count = n // block if contiguous and dt.name in VECTOR_LANES else 0
    out = 1.0
    start = 0
    if count:
        acc = [[vals[j * lanes + lane] for lane in range(lanes)] for j in range(4)]
        for c in range(1, count):
            base = c * block
            for j in range(4):
                row = acc[j]
                for lane in range(lanes):
                    row[lane] = r(row[lane] * vals[base + j * lanes + lane])
        a0 = [r(r(acc[0][lane] * acc[1][lane]) * r(acc[2][lane] * acc[3][lane])) for lane in range(lanes)]
        b = a0[0]
        for lane in range(1, lanes):
            b = r(b * a0[lane])
        out = r(out * b)
        start = count * block
    for k in range(start, n):
        out = r(out * vals[k])
    return out


def prod_values(x: Tensor, d: int | None) -> list:
    """The products of ``x`` over every element (``d`` None) or along ``d``."""
    dt = x._t.dtype
    vals = x._val if x._t.ndim else [x._val]
    contiguous = x._t.contiguous
    if d is None or not x._t.ndim:
        if not contiguous:  # TensorIterator walks a dense permuted layout in memory order
            offsets = gather_index(tuple(x._t.shape), tuple(x._t.strides), 0)
            order = sorted(range(len(vals)), key=offsets.__getitem__)
            if [offsets[i] for i in order] == list(range(len(vals))):
                vals, contiguous = [vals[i] for i in order], True
        return [_product(vals, dt, contiguous)]
    shape = tuple(x._t.shape)
    inner = d == len(shape) - 1  # the reduced dim is the contiguous one: the vectorised path
    return [_product([vals[i] for i in s], dt, contiguous and inner) for s in slices(shape, d)]


def prod(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``prod()`` (ProdBackward0) or ``prod(dim, keepdim)`` (ProdBackward1)."""
    _check(x, "prod")
    src = _source(x, dtype)
    shape = tuple(x._t.shape)
    nd = len(shape)
    if dim is None:
        c = SC.Along(shape, tuple(range(nd)), False, True)
        v = prod_values(src, None)[0]
        return make(SC.Prod, TensorType(src._t.dtype, ()), v, (src,), c)
    d = norm_dim(_int_dim(dim, "prod"), nd)
    vals = prod_values(src, d if nd else None)
    out_shape = _out_shape(shape, (d,) if nd else (), keepdim)
    c = SC.Along(shape, (d,) if nd else (), bool(keepdim), False, dim=d, raw={"dim": dim})
    return make(SC.ProdDim, TensorType(src._t.dtype, out_shape), vals if out_shape else vals[0], (src,), c)


def _scan(x: Tensor, dim, dtype, name: str, multiply: bool) -> Tensor:
    _check(x, name)
    src = _source(x, dtype)
    dt = src._t.dtype
    shape = tuple(x._t.shape)
    nd = len(shape)
    d = norm_dim(_int_dim(dim, name), nd)
    vals = list(src._val) if nd else [src._val]
    out = [None] * len(vals)
    r = dt.round
    floating = dt.is_floating_point
    for s in slices(shape, d) if nd else [[0]]:
        acc = (1.0 if multiply else 0.0) if floating else (1 if multiply else 0)
        for i in s:  # accumulated in double (integers exactly), each output rounded
            acc = acc * vals[i] if multiply else acc + vals[i]
            out[i] = r(acc)
    op = SC.Cumprod if multiply else SC.Cumsum
    c = SC.Along(shape, (d,) if nd else (), False, False, dim=d, raw={"dim": dim})
    return make(op, TensorType(dt, shape), out if nd else out[0], (src,), c)


def cumsum(x: Tensor, dim, dtype=None) -> Tensor:
    """``cumsum(dim)``: running sums along ``dim`` (integer and bool tensors give int64)."""
    return _scan(x, dim, dtype, "cumsum", False)


def cumprod(x: Tensor, dim, dtype=None) -> Tensor:
    """``cumprod(dim)``: running products along ``dim``."""
    return _scan(x, dim, dtype, "cumprod", True)


def _log_add_exp(x: float, y: float) -> float:
    """ATen's _log_add_exp_helper, in double: std::min/std::max (a nan ``y`` wins), the
    infinities of one sign kept."""
    if y != y:
        lo = hi = y
    else:
        lo, hi = (y, x) if y < x else (x, y)
    if lo != hi or math.isfinite(lo):
        return math.log1p(math.exp(lo - hi)) + hi
    return x


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``logcumsumexp(dim)``: log(cumsum(exp(x))) along ``dim``, as ATen's CPU kernel: each step
    ``log1p(exp(min - max)) + max`` in double, each output rounded (LogcumsumexpBackward0)."""
    _check(input, "logcumsumexp")
    dt = input._t.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{dt.short}'")
    shape = tuple(input._t.shape)
    d = norm_dim(_int_dim(dim, "logcumsumexp"), len(shape))
    vals = input._val if shape else [input._val]
    out = [0.0] * len(vals)
    for s in slices(shape, d) if shape else [[0]]:
        acc = -math.inf
        for i in s:
            acc = _log_add_exp(float(vals[i]), acc)
            out[i] = dt.round(acc)
    c = SC.Along(shape, (d,) if shape else (), False, False, dim=d, raw={"dim": dim})
    return make(SC.Logcumsumexp, TensorType(dt, shape), out if shape else out[0], (input,), c)


def vander(x: Tensor, N=None, increasing: bool = False) -> Tensor:
    """``torch.vander``: the columns ``x**(N-1), ..., x, 1`` (increasing: reversed), as ATen
    builds it: ones (int64 for integer ``x``), ``x`` copied into the columns after the first,
    their cumprod copied back (CopySlices), flipped (FlipBackward0) unless ``increasing``."""
    if not isinstance(x, Tensor):
        raise not_tensor(x, "vander", "x")
    if x._t.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._t.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = dtypes.promote_types(x._t.dtype, dtypes.int64)
    rows = x._t.shape[0]
    result = leaf([dt.round(0)] * (rows * n), TensorType(dt, (rows, n)))
    if n > 0:
        result.fill_(1)  # ATen fills an empty tensor: version 1, which an error message shows
    if n > 1:
        narrow(result, 1, 1, n - 1).copy_(unsqueeze(x, 1))
        narrow(result, 1, 1, n - 1).copy_(cumprod(narrow(result, 1, 1, n - 1), 1))
    return result if increasing else flip(result, 1)


def flip_side(x: Tensor, up_down: bool) -> Tensor:
    """``flipud`` (dim 0, of a tensor of at least 1 dim) and ``fliplr`` (dim 1, at least 2)."""
    _check(x, "flipud" if up_down else "fliplr")
    need = 1 if up_down else 2
    if x._t.ndim < need:
        raise RuntimeError(f"Input must be >= {need}-d.")
    return flip(x, 0 if up_down else 1)


def flip(x: Tensor, *dims) -> Tensor:
    """``flip(dims)``: a copy with the elements reversed along each of ``dims``."""
    _check(x, "flip")
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = tuple(dims[0])
    shape = tuple(x._t.shape)
    nd = len(shape)
    ds = norm_dims(dims, nd) if dims else ()  # PyTorch's refusals of a repeated or bad dim
    ds = ds if nd else ()
    vals = x._val if nd else [x._val]
    idx = list(range(len(vals)))
    for d in ds:
        new = idx[:]
        for s in slices(shape, d):
            for a, b in zip(s, reversed(s)):
                new[a] = idx[b]
        idx = new
    out = [vals[i] for i in idx]
    layout = Layout(shape, x._t.dtype, map=idx, dims=ds)
    layout.raw = {"dims": tuple(dims)}
    # the backward flips on the tensor kernel, which a 0-dim input runs too
    return make(SC.Flip if nd else SC.Flip.tensor, TensorType(x._t.dtype, shape), out if nd else out[0], (x,), layout)


def rot90(x: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """``rot90(k, dims)``: a copy rotated by ``k`` quarter turns from ``dims[0]`` towards
    ``dims[1]`` (ATen: flip then transpose; its odd turns keep the transposed strides)."""
    _check(x, "rot90")
    if k.__class__ is not int:
        raise TypeError(f"rot90(): argument 'k' (position 2) must be int, not {type(k).__name__}")
    dims = tuple(dims)
    nd = x._t.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == nd:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    d0, d1 = norm_dim(dims[0], nd), norm_dim(dims[1], nd)
    shape = tuple(x._t.shape)
    turns = k % 4
    out_shape = list(shape)
    if turns % 2:
        out_shape[d0], out_shape[d1] = shape[d1], shape[d0]
    in_strides = contiguous_strides(shape)
    n0, n1 = shape[d0], shape[d1]
    idx = []
    for pos in itertools.product(*map(range, out_shape)):
        src = list(pos)
        i, j = pos[d0], pos[d1]
        if turns == 1:
            src[d0], src[d1] = j, n1 - 1 - i
        elif turns == 2:
            src[d0], src[d1] = n0 - 1 - i, n1 - 1 - j
        elif turns == 3:
            src[d0], src[d1] = n0 - 1 - j, i
        idx.append(sum(a * b for a, b in zip(src, in_strides)))
    vals = x._val
    strides = list(contiguous_strides(shape))
    strides[d0], strides[d1] = strides[d1], strides[d0]
    t = TensorType(x._t.dtype, tuple(out_shape), tuple(strides)) if turns % 2 else TensorType(x._t.dtype, shape)
    layout = Layout(shape, x._t.dtype, map=idx, dims=dims, value=k % 2 ** 64)
    layout.raw = {"k": k}
    return make(SC.Rot90, t, [vals[i] for i in idx], (x,), layout)


def install(method, function) -> None:
    """prod, cumsum, cumprod (and their in-place forms), flip, fliplr, flipud."""
    method("prod", lambda self, dim=None, keepdim=False, *, dtype=None: prod(
        self, dim, keepdim, check_dtype(dtype, "prod")))
    function("prod", lambda input, dim=None, keepdim=False, *, dtype=None: prod(
        input, dim, keepdim, check_dtype(dtype, "prod")))
    for name, fn in (("cumsum", cumsum), ("cumprod", cumprod)):
        method(name, lambda self, dim, *, dtype=None, _f=fn: _f(self, dim, check_dtype(dtype)))
        method(name + "_", lambda self, dim, *, dtype=None, _f=fn: inplace(
            self, lambda t: _f(t, dim, check_dtype(dtype))))
        function(name, lambda input, dim, *, dtype=None, out=None, _f=fn: _f(
            input, dim, check_dtype(dtype)))
    method("flip", sizes_by_keyword(flip, "flip", "dims"))
    function("vander", vander, checked=False)  # PyTorch names its tensor x, not input
    method("logcumsumexp", logcumsumexp)
    function("logcumsumexp", logcumsumexp)
    method("rot90", rot90)
    function("rot90", rot90)
    method("fliplr", lambda self: flip_side(self, False))
    method("flipud", lambda self: flip_side(self, True))
    function("flip", lambda input, dims: flip(input, dims))
    function("fliplr", lambda input: flip_side(input, False))
    function("flipud", lambda input: flip_side(input, True))


# ---------------------------------------------------------------- derivative helpers, on tensors


def _reversed_cumsum(w: Tensor, d: int) -> Tensor:
    return flip(cumsum(flip(w, d), d), d)


def _exclusive_products(x: Tensor, d: int | None) -> Tensor:
    """prod_safe_zeros_backward's ``exclusive_normal * exclusive_reverse``: for each element the
    products of the elements before it and after it along ``d`` (the whole flattened tensor for
    None), each a cumulative product accumulated in double and rounded, as ATen's cumprod."""
    dt = x._t.dtype
    r = dt.round
    shape = tuple(x._t.shape)
    vals = x._val if x._t.ndim else [x._val]
    groups = [list(range(len(vals)))] if d is None else slices(shape, d)
    out = [0.0] * len(vals)
    for grp in groups:
        before, acc = [], 1.0
        for i in grp:
            before.append(r(acc))
            acc *= vals[i]
        after, acc = [], 1.0
        for i in reversed(grp):
            after.append(r(acc))
            acc *= vals[i]
        after.reverse()
        for i, b, a in zip(grp, before, after):
            out[i] = r(b * a)
    return leaf(out if shape else out[0], x._t.with_dtype(dt) if x._t.contiguous else TensorType(dt, shape))


@helper
def prod_backward(g, x, y, c):
    """prod_backward (FunctionsManual.cpp): ``grad * (result / self)`` without zeros in the
    input, else ``grad`` times the product of the other elements."""
    if not x._t.ndim:
        return g
    g = as_tensor(g, x)
    if not c.all and not c.keepdim:
        g, y = unsqueeze(g, c.dim), unsqueeze(y, c.dim)
    vals = x._val
    if not any(v == 0 for v in vals):
        return g * (y / x)
    if _grad_state.enabled:
        raise Unsupported("the double backward of prod through an input element equal to zero")
    if c.all:
        if sum(1 for v in vals if v == 0) > 1:  # every product of the others holds a zero
            return g * zeros(x)
        return g * _exclusive_products(x, None)
    return g * _exclusive_products(x, c.dim)


@helper
def cumsum_backward(g, c):
    if g._t.numel <= 1 or not g._t.ndim or g._t.shape[c.dim] == 1:
        return g
    return _reversed_cumsum(g, c.dim)


@helper
def cumprod_backward(g, x, y, c):
    """cumprod_backward: ``reversed_cumsum(result * grad) / self`` without zeros in the input;
    with zeros, PyTorch's masked form, slice by slice: before the first zero z1 the same
    formula over the outputs before z1; at z1 the products of the elements before the second
    zero without x_z1 (computed from the elements, rounded once) times their gradients; after
    z1 zero (an infinity beyond a zero gives no nan)."""
    if x._t.numel <= 1 or not x._t.ndim or x._t.shape[c.dim] == 1:
        return g
    vals = x._val
    if not any(v == 0 for v in vals):
        return _reversed_cumsum(y * g, c.dim) / x
    if _grad_state.enabled:
        raise Unsupported("the double backward of cumprod through an input element equal to zero")
    dt = x._t.dtype
    gv = g._val
    yv = y._val
    out = [0.0] * len(vals)
    for s in slices(tuple(x._t.shape), c.dim):
        zeros_at = [j for j, i in enumerate(s) if vals[i] == 0] + [len(s), len(s)]
        z1, z2 = zeros_at[0], zeros_at[1]
        r = dt.round
        acc = 0.0  # ATen's cumsum adds in double, each output rounded
        for a in range(z1 - 1, -1, -1):
            acc += r(yv[s[a]] * gv[s[a]])
            out[s[a]] = r(r(acc) / vals[s[a]])  # x before the first zero is not 0
        if z1 < len(s):
            total = 0.0
            for j in range(z1, z2):
                p = 1.0
                for b in range(j + 1):
                    if b != z1:
                        p *= vals[s[b]]
                total += gv[s[j]] * p
            out[s[z1]] = r(total)
    return leaf(out, TensorType(dt, tuple(x._t.shape)))


helper(lambda g, dims: flip(g, dims), name="flip")
helper(rot90)


@helper
def logcumsumexp_backward(g, x, y, c):
    """logcumsumexp_backward (FunctionsManual.cpp): the exponentials of the reversed
    logcumsumexp of log|grad| - result over the gradient's positive and of its negative
    elements (the dtype's lowest number elsewhere), plus self; their difference."""
    if not g._t.ndim or not g._t.numel:
        return g
    d = c.dim
    lowest = -dtypes.finite_max(g._t.dtype)
    log_abs = g.abs().log()

    def part(mask):
        w = where(mask, log_abs, lowest) - y
        return (flip(logcumsumexp(flip(w, d), d), d) + x).exp()

    return part(g > 0) - part(g < 0)
