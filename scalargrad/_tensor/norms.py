"""Vector norms and ``dist``: ``Tensor.norm``/``torch.norm``, ``linalg.vector_norm``,
``linalg.norm``, ``linalg.matrix_norm`` (composed of vector norms, amax/amin and singular
values, as ATen composes it), ``dist``.

Values: the float32 and float64 2-norm is ATen's CPU kernel's arithmetic, bit for bit
(``kernel_norm_values``); the other orders are the p-norm in double (``_ops/norms.norm_value``: the
powers added exactly, one root) rounded once to the dtype, where PyTorch's ``NormOps`` adds
``pow`` results (a machine-dependent function) in the dtype and can differ by a few ulps
(``tests/test_norms.py`` measures it); maxima (+-inf) and integer-valued sums agree exactly.
"""

from __future__ import annotations

import math
from itertools import product

from .._base.dtypes import TensorType, float32, float64, promote_types
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled, no_grad
from .._base.kernel_order import fma32, fma64
from .._base.layout import coalesce, contiguous_strides, iteration_order
from .._ops import comparison as CM
from .._ops import norms as N
from .._ops import unary as UN
from .arguments import not_tensor
from .comparison import logical_or
from .elementwise import binary, unary
from .fill import masked_fill
from .inplace import inplace
from .linalg_svdvals import linalg_svdvals
from .operands import broadcast_shapes, cast, positions, result_dtype
from .reductions import _out_shape, _raw_dims, amax, group_index, reduced_strides
from .reductions import sum as tsum
from .tensor import Tensor, leaf, make
from .tensor_kernel import as_tensor, helper
from .views import expand, norm_dim, norm_dims, permute, reshape, to_dtype, unsqueeze

__all__ = ["vector_norm", "aten_norm", "norm", "linalg_norm", "matrix_norm", "dist", "renorm", "cosine_similarity",
           "install"]


def _order(ord, what: str):  # PyTorch's name
    if isinstance(ord, Tensor) and not ord._t.ndim:  # a 0-dim tensor passes as its number
        ord = ord.item()
        ord = int(ord) if ord.__class__ is bool else ord
    if ord.__class__ is bool or not isinstance(ord, (int, float)):
        raise TypeError(f"{what}(): argument 'ord' must be Number, not {type(ord).__name__}")
    return ord


def _norm_value(vals: list, p: float, dt) -> float:
    """``norm_value``, except where PyTorch's float32 accumulation (also half's and bfloat16's)
    leaves the range: over two or more elements it sums the powers |x|**p computed in float32,
    so a sum past float32's largest number is inf (inf ** (1/p): 0 for p < 0) and powers that
    all underflow give 0 (inf for p < 0); subnormal powers are taken as float32 holds them (a
    single element's norm is |x|)."""
    if dt is float64 or len(vals) < 2 or p in (0.0, 1.0, math.inf, -math.inf) or any(x != x for x in vals):
        return N.norm_value(vals, p)
    f32 = float32.round
    terms = []
    for x in vals:
        try:
            terms.append(f32(abs(x) ** p) if x else (0.0 if p > 0 else math.inf))
        except OverflowError:
            terms.append(math.inf)
    total = math.fsum(terms) if math.inf not in terms else math.inf
    if f32(total) == math.inf:
        return math.inf if p > 0 else 0.0
    if total == 0.0:
        return 0.0 if p > 0 else math.inf
    if any(0.0 < t < _F32_TINY for t in terms):  # subnormal powers keep only float32's few bits
        return total ** (1.0 / p)
    return N.norm_value(vals, p)


_F32_TINY = 1.1754943508222875e-38  # float32's smallest normal number


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``linalg.vector_norm``: the ``ord``-norm over ``dim`` (every element if None)."""
    return _vector_norm(x, ord, dim, keepdim, dtype, N.VectorNorm)


def aten_norm(x: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """ATen's ``at::norm(self, p, dim, keepdim)`` as its C++ composites call it: the vector
    norm's value, node NormBackward1."""
    return _vector_norm(x, p, dim, keepdim, None, N.NormDim)


def _vector_norm(x: Tensor, ord, dim, keepdim: bool, dtype, op) -> Tensor:
    if not isinstance(x, Tensor):
        raise not_tensor(x, "linalg_vector_norm")
    ord = _order(ord, "linalg_vector_norm")
    if not x._t.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{x._t.dtype.short}")
    src = x if dtype is None else to_dtype(x, dtype)
    dt = src._t.dtype
    shape = tuple(x._t.shape)
    nd = len(shape)
    dims = norm_dims(dim, nd) if nd else ()
    if dim is not None and not isinstance(dim, int) and not tuple(dim):
        dim = None
    p = float(ord)
    vals = src._val if nd else [src._val]
    if dim is None or not nd:
        groups = [vals]
    else:
        groups = [[] for _ in range(_count(shape, dims))]
        for i, o in enumerate(group_index(shape, dims)):
            groups[o].append(vals[i])
    if p < 0 and any(not g for g in groups):
        word = "-inf" if p == -math.inf else str(ord)
        raise RuntimeError(f"linalg.vector_norm cannot compute the {word} norm on an empty tensor because the "
                           "operation does not have an identity")
    r = dt.round
    if p in (1.0, 2.0) and dt in (float32, float64) and nd and x._t.numel:
        out = kernel_norm_values(vals, shape, tuple(src._t.strides), dims if dim is not None else tuple(range(nd)),
                                 dt is float32, p)
    else:
        out = [r(_norm_value(g, p, dt)) for g in groups]
    out_shape = () if dim is None else _out_shape(shape, dims, keepdim)
    if dim is None and keepdim:
        out_shape = (1,) * nd
    c = N.Normed(shape, dims if nd else (), bool(keepdim), dim is None, ord,
                 raw=_raw_dims(dim) if dim is not None else {"dims": None})
    return make(op, TensorType(dt, out_shape), out if out_shape else out[0], (src,), c)


_LANES = {True: 8, False: 4}  # Vectorized<float>, Vectorized<double>: 32 bytes in every x86 build
_SERIAL_MAX = 32768  # at::internal::GRAIN_SIZE: a longer single-output reduction is split among threads


def kernel_norm_values(vals: list, shape: tuple, strides: tuple, dims: tuple, f32: bool, p: float = 2.0) -> list:
    """The ``p``-norm (2 or 1) over ``dims`` of each output (row-major over the kept dims) as ATen's CPU
    ``norm_kernel_tensor_iterator_impl`` computes it in the dtype (float32 or float64).

    TensorIterator walks the reduced dims fastest first (``iteration_order``). Where they
    coalesce into one contiguous run (``is_reduce_lastdim``: a row, a whole contiguous tensor)
    the kernel adds rounded squares into 8 float32 (4 float64) lanes over the longest multiple of
    8 (4), adds the lanes in order, then the rest one by one with a fused multiply-add (the AVX2
    build's scalar loop; for float32 its first 4 squares rounded first, GCC's vectorised
    products), then a correctly rounded square root; elsewhere ``NormTwoOps`` adds the rounded
    squares one by one from 0 in the walk's order (no fused multiply-add in any build).
    Measured on PyTorch 2.13 (``tests/test_norms.py``): the lanes are the AVX2 build's, which
    AVX512 machines run too (REGISTER_DISPATCH leaves AVX512 out); ATen's generic code has the
    same lanes without fused multiply-adds (the tests' ``product_first``). A group of one
    element is ``|x|`` (PyTorch copies it). A single-output reduction off the 2-norm's contiguous
    path and longer than ``_SERIAL_MAX`` is split among threads by ``binary_kernel_reduce``
    (measured: one thread gives this chain, two another value), so it keeps the correctly
    rounded norm (within the error bound of any order). The 1-norm (``NormOneOps``, no fast path)
    adds ``|x|`` one by one in the walk's order: IEEE additions, the same in every build."""
    kept = [d for d in range(len(shape)) if d not in dims]
    ost = reduced_strides(shape, dims)
    perm = iteration_order(list(shape), [(tuple(ost), True), (tuple(strides), False)], reduction=True)
    cshape, (cos, cis) = coalesce([shape[d] for d in perm], [[ost[d] for d in perm], [strides[d] for d in perm]])
    lastdim = p == 2.0 and sum(1 for s in cos if s == 0) == 1 and cos[0] == 0 and cshape[0] > 1 and cis[0] == 1
    logical = contiguous_strides(shape)
    red = [d for d in perm if d in dims]  # fastest first
    # the logical offsets of one output's reduced elements, in the walk's order
    offs = [0]
    for d in red:
        offs = [o + i * logical[d] for i in range(shape[d]) for o in offs]
    bases = [sum(i * logical[d] for i, d in zip(idx, kept)) for idx in product(*(range(shape[d]) for d in kept))]
    step = _abs_chain if p == 1.0 else (_lane_norm if lastdim else _chain_norm)
    out = []
    for b in bases:
        g = [vals[b + o] for o in offs]
        if len(g) < 2:
            out.append(abs(g[0]) if g else 0.0)
        elif not lastdim and len(bases) == 1 and len(g) > _SERIAL_MAX:
            out.append((float32 if f32 else float64).round(N.norm_value(g, 2.0)))
        else:
            out.append(step(g, f32))
    return out


def _sqrt(s: float, f32: bool) -> float:
    if s != s or s == math.inf:
        return s
    return float32.round(math.sqrt(s)) if f32 else math.sqrt(s)  # sqrt of a float32 in double, then
    # rounded to float32: the correctly rounded float32 root (double's 53 bits >= 2*24 + 2)


def _lane_norm(g: list, f32: bool) -> float:
    r = float32.round if f32 else float64.round
    fma = fma32 if f32 else fma64
    lanes = _LANES[f32]
    n = len(g)
    nv = n - n % lanes
    acc = [0.0] * lanes
    for i in range(nv):
        x = g[i]
        acc[i % lanes] = r(acc[i % lanes] + r(x * x))
    s = acc[0]
    for j in range(1, lanes):
        s = r(s + acc[j])
    first = nv + (4 * ((n - nv) // 4) if f32 else 0)  # GCC vectorises 4 float32 products of the tail
    for i in range(nv, first):
        s = r(s + r(g[i] * g[i]))
    for i in range(first, n):
        s = fma(g[i], g[i], s)
    return _sqrt(s, f32)


def _chain_norm(g: list, f32: bool) -> float:
    r = float32.round if f32 else float64.round
    s = 0.0
    for x in g:  # the product rounded first in every build (measured)
        s = r(s + r(x * x))
    return _sqrt(s, f32)


def _abs_chain(g: list, f32: bool) -> float:
    r = float32.round if f32 else float64.round
    s = 0.0
    for x in g:
        s = r(s + abs(x))
    return s


def _count(shape: tuple, dims: tuple) -> int:
    n = 1
    for d, s in enumerate(shape):
        if d not in dims:
            n *= s
    return n


def norm(x: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``torch.norm``/``Tensor.norm``: a number ``p``, or "fro" over at most two dims, is
    ``linalg.vector_norm`` (the Frobenius norm being the 2-norm of the elements); any other
    string is ``linalg.matrix_norm`` over ``dim`` (every dim without it), as torch.functional's."""
    if isinstance(p, str):
        if p != "fro" or not (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return matrix_norm(x, p, list(range(x._t.ndim)) if dim is None else dim, keepdim, dtype=dtype)
        p = 2
    if p is None:
        p = 2
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


def linalg_norm(x: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``linalg.norm``: with ``ord`` None the 2-norm of the elements (over ``dim``); a vector
    with a number ``ord``: ``vector_norm``; a matrix with "fro": the 2-norm over its two dims.
    The other matrix orders: ``matrix_norm``."""
    if ord is None:
        return vector_norm(x, 2.0, dim, keepdim, dtype=dtype)
    dims = (dim,) if isinstance(dim, int) else (tuple(dim) if dim is not None else None)
    if isinstance(ord, str):
        if dims is None:
            if x._t.ndim != 2:
                raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                                   f"Got {x._t.ndim}D.")
            dims = (-2, -1)
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
        if ord != "fro":
            return matrix_norm(x, ord, dims, keepdim, dtype=dtype)
        nd = x._t.ndim  # matrix_norm hands vector_norm its dims normalised
        return vector_norm(x, 2, tuple(d % nd if nd else d for d in dims), keepdim, dtype=dtype)
    if (dims is None and x._t.ndim == 2) or (dims is not None and len(dims) == 2):
        return matrix_norm(x, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(x, ord, dim, keepdim, dtype=dtype)


def _backshift(d0: int, d1: int, nd: int) -> list:
    """ATen's ``create_dim_backshift_permutation``: the other dims in order, then d0, d1."""
    return [d for d in range(nd) if d not in (d0, d1)] + [d0, d1]


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``torch.linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None)``,
    composed as ATen's: 'fro' the 2-norm of the elements (LinalgVectorNormBackward0); 1, -1, inf,
    -inf the 1-norm along the columns (rows for +-inf) then amax/amin over the other dim; 2, -2
    and 'nuc' the extreme singular value or their sum, from ``linalg.svdvals`` of ``A`` with its
    dims moved last (machine-independent values; the gradient, through LinalgSvdBackward0, is
    refused by name there)."""
    if not isinstance(A, Tensor):
        raise not_tensor(A, "linalg_matrix_norm", "A")
    if out is not None:
        raise Unsupported("torch.linalg.matrix_norm(out=...)")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        low_precision = ord != "nuc"
    else:
        ord = _order(ord, "linalg_matrix_norm")
        if abs(float(ord)) not in (1.0, 2.0, math.inf):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        low_precision = abs(float(ord)) != 2.0
    nd = A._t.ndim
    if nd < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    dt = A._t.dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {dt.short}")
    if not low_precision and dt not in (float32, float64):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got {dt.short}")
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    d0, d1 = norm_dim(dims[0], nd), norm_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError(f"linalg.matrix_norm: dtype should be floating point or complex, but got "
                               f"{dtype.short}")
        if promote_types(dt, dtype) is not dtype:
            raise RuntimeError(f"linalg.matrix_norm: the dtype of the input ({dt.short}) should be convertible "
                               f"without narrowing to the specified dtype ({dtype.short})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord == "nuc" or abs(float(ord)) == 2.0:
        perm = _backshift(d0, d1, nd)
        src = A if dtype is None else to_dtype(A, dtype)
        values = linalg_svdvals(permute(src, *perm))
        if ord == "nuc":
            result = tsum(values, -1, keepdim=keepdim)
        else:
            result = amax(values, -1, keepdim, largest=float(ord) > 0)
        if keepdim:
            result = permute(unsqueeze(result, -1), *[perm.index(i) for i in range(nd)])
        return result
    if abs(float(ord)) == math.inf:  # the inf-norm is the 1-norm of the transpose
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:  # the first reduction removes a dim before d1
        d1 -= 1
    return amax(vector_norm(A, 1.0, (d0,), keepdim, dtype=dtype), d1, keepdim, largest=float(ord) > 0)


def dist(x: Tensor, other: Tensor, p=2) -> Tensor:
    """``dist(self, other, p)``: the p-norm of ``self - other`` (broadcast) over every element
    (DistBackward0)."""
    if not isinstance(other, Tensor):
        raise not_tensor(other, 'dist', 'other', 2)
    if p.__class__ is bool or not isinstance(p, (int, float)):
        raise TypeError(f"dist(): argument 'p' (position 3) must be Number, not {type(p).__name__}")
    dt = result_dtype((x, other))
    if not dt.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{dt.short}")
    shape = broadcast_shapes(x._t.shape, other._t.shape)
    r = dt.round
    xv = cast(x, dt) if x._t.ndim else [cast(x, dt)]
    ov = cast(other, dt) if other._t.ndim else [cast(other, dt)]
    diff = [r(xv[i] - ov[j]) for i, j in zip(positions(x._t.shape, shape), positions(other._t.shape, shape))]
    c = N.Normed(shape, tuple(range(len(shape))), False, True, p)
    if float(p) in (1.0, 2.0) and dt in (float32, float64) and len(diff) > 1:  # ATen: norm(self - other, p)
        value = kernel_norm_values(diff, shape, contiguous_strides(shape), tuple(range(len(shape))), dt is float32,
                                   float(p))[0]
    else:
        value = r(_norm_value(diff, float(p), dt))
    return make(N.Dist, TensorType(dt, ()), value, (x, other), c)


def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """``renorm``: each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled by
    ``maxnorm / (norm + 1e-7)`` (ATen's renorm_scale_factor, in the dtype), the others kept. Its
    gradient (RenormBackward0) is not implemented: refused by name."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "renorm")
    if float(p) <= 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    nd = input._t.ndim
    if nd < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = norm_dim(dim, nd)
    if input._rg and is_grad_enabled():
        raise Unsupported("the gradient of renorm (RenormBackward0)")
    norms = vector_norm(input, p, tuple(k for k in range(nd) if k != d), True)
    dt = norms._t.dtype
    r = dt.round
    top, eps = r(float(maxnorm)), r(1e-7)
    factor = [r(top / r(v + eps)) if v > top else 1.0 for v in norms._val]
    return input * leaf(factor, norms._t)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``cosine_similarity`` (also ``nn.functional``'s): ATen's composite, step for step, so the
    values, graph and gradient are those ops': x1 and x2 (integers cast to the common floating
    dtype) broadcast together, each divided by a clone of its 2-norm over ``dim`` raised to
    ``eps`` in place under no_grad (no gradient through the clamp), the products summed over ``dim``."""
    if not isinstance(x1, Tensor):
        raise not_tensor(x1, "cosine_similarity", "x1", 1)
    if not isinstance(x2, Tensor):
        raise not_tensor(x2, "cosine_similarity", "x2", 2)
    dt = result_dtype((x1, x2))
    if not dt.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {dt.short}")
    x1 = x1 if x1._t.dtype.is_floating_point else to_dtype(x1, dt)
    x2 = x2 if x2._t.dtype.is_floating_point else to_dtype(x2, dt)
    if tuple(x1._t.shape) != tuple(x2._t.shape):  # expand_outplace: both expanded, unless the shapes are equal
        shape = tuple(broadcast_shapes(x1._t.shape, x2._t.shape))
        x1, x2 = expand(x1, shape), expand(x2, shape)
    n1 = vector_norm(x1, 2, dim, True).clone()
    n2 = vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def install(method, function) -> None:
    """norm, dist, renorm and cosine_similarity."""
    function("cosine_similarity", lambda x1, x2, dim=1, eps=1e-8: cosine_similarity(x1, x2, dim, eps))
    method("renorm", lambda self, p, dim, maxnorm: renorm(self, p, dim, maxnorm))
    method("renorm_", lambda self, p, dim, maxnorm: inplace(self, lambda t: renorm(t, p, dim, maxnorm)))
    function("renorm", renorm)
    method("norm", lambda self, p="fro", dim=None, keepdim=False, dtype=None: norm(self, p, dim, keepdim, dtype))
    function("norm", lambda input, p="fro", dim=None, keepdim=False, out=None, dtype=None:
             norm(input, p, dim, keepdim, dtype))
    method("dist", lambda self, other, p=2: dist(self, other, p))
    function("dist", lambda input, other, p=2: dist(input, other, p))


# ---------------------------------------------------------------- derivative helpers, on tensors


@helper
def norm_backward(g, x, y, c):
    """norm_backward (FunctionsManual.cpp) on tensors: ``g`` and the norm ``y`` get the reduced
    dims back (unsqueeze_multiple), then PyTorch's formula for the order."""
    g = as_tensor(g, x)
    if not c.all and not c.keepdim and c.dims and c.in_shape:
        shape = tuple(1 if d in c.dims else s for d, s in enumerate(c.in_shape))
        g, y = reshape(g, shape), reshape(y, shape)
    p = float(c.ord)
    if p == 0.0:  # an undefined gradient, as PyTorch's
        return None
    if p == 1.0:
        return unary(UN.Sgn, x) * g
    if p == 2.0:
        return g * masked_fill(x / y, binary(CM.Eq, y, 0), 0, False)
    if p in (math.inf, -math.inf):
        a = unary(UN.Abs, x)
        mask = logical_or(binary(CM.Eq, a, y), binary(CM.Ne, a, a))
        count = tsum(mask, c.dims, keepdim=True) if (c.dims and not c.all) else tsum(mask, None)
        return unary(UN.Sgn, x) * ((g / count) * mask)
    if p < 1.0:
        scaled = unary(UN.Sgn, x) * masked_fill(unary(UN.Abs, x) ** (p - 1.0), binary(CM.Eq, x, 0), 0, False)
        return scaled * g * y ** (1.0 - p)
    if p < 2.0:
        scaled = unary(UN.Sgn, x) * unary(UN.Abs, x) ** (p - 1.0)
    else:
        scaled = x * unary(UN.Abs, x) ** (p - 2.0)
    return scaled * masked_fill(g / y ** (p - 1.0), binary(CM.Eq, y, 0), 0, False)
