"""Matrix products of tensors: ``matmul`` / ``@``, ``mm``, ``mv``, ``dot``, ``addmm``, ``linear``.

Each is one node (MmBackward0, AddmmBackward0...), composed as PyTorch 2.13's ``at::matmul``
and ``at::linear`` compose them, so grad_fn names and ``next_functions`` match. Values are
added in the order of the MKL kernel PyTorch's CPU build calls for the shape and layout
(``_base/kernel_order``: sgemm's fused chain, the 8-lane kernel of a transposed second operand,
sdot's lanes). The backward is made of products again (``grad @ mat2.T``), as in PyTorch.

MKL picks its code path by processor (vendor, vector width): the modelled order is the one
measured on AVX2/AVX512 Intel machines, and may differ in the last bit elsewhere.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.kernel_order import fma_chain, gemm_f32, mkl_lanes8, mkl_sdot
from .._base.layout import is_contiguous, numel
from .._ops import arithmetic as AR
from .._ops import products as L
from .._ops import views as S
from .._ops.views import Layout
from .arguments import not_tensor
from .deprecated_overloads import accepting
from .elementwise import binary
from .inplace import inplace
from .operands import broadcast_shapes, check_size, positions, result_dtype
from .reductions import sum as tsum
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper
from .views import contiguous, expand, flatten, make_view, mT, permute, reshape, select, squeeze, t, unsqueeze, view
from .views import transpose as transpose_view

__all__ = ["matmul", "mm", "mv", "dot", "vdot", "dot_checks", "addmv",
           "inner", "addmm", "linear", "outer", "bmm", "baddbmm", "addbmm", "install"]


def _dot_value(av: list, bv: list, dt, kind: str):
    if not dt.is_floating_point:
        return dt.round(sum(x * y for x, y in zip(av, bv)))
    f32 = dt is dtypes.float32
    if kind == "dot":
        return mkl_sdot(av, bv, f32)
    if kind == "gemm_nt":
        return mkl_lanes8(av, bv, f32)
    r = dt.round
    return r(fma_chain(av, bv, f32))


def _gemm_kind(b: Tensor, n: int, m: int) -> str:
    """Which MKL code path PyTorch's mm takes for a (n x k) @ b (k x m) (see kernel_order)."""
    if m == 1 and n > 1:
        return "gemv"
    bst = b._t.strides
    transposed = len(bst) == 2 and bst[0] == 1 and b._t.shape[0] > 1 and bst[1] != 1
    if transposed and m % 4:
        return "gemm_nt"
    return "gemm"


def _elements(x: Tensor) -> list:
    return x._val if x._t.ndim else [x._val]


def _same_dtype(a: Tensor, b: Tensor, what: str) -> None:
    ta, tb = a._t.dtype, b._t.dtype
    if ta is not tb:
        if what == "dot":
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {ta.short} and {tb.short}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {ta.c_name} != {tb.c_name}")


def _product_values(a: Tensor, b: Tensor, bias: list | None = None) -> list:
    """a (n x k) @ b (k x m) (+ bias, n x m, added once per element), in MKL's order."""
    n, k = a._t.shape
    m = b._t.shape[1]
    check_size((n, m))
    dt = a._t.dtype
    ea, eb = _elements(a), _elements(b)
    kind = _gemm_kind(b, n, m)
    r = dt.round
    f32 = dt is dtypes.float32
    # k = 1: MKL's gemm fuses the product and the bias (one rounding), but not its gemv paths:
    # one output column (nn.Linear(1, 1) on a batch), or one row times a transposed row
    # (nn.Linear(1, m) on one sample), which multiply then add. Measured on AVX512 and AVX2
    # MKL; MKL_CBWR=COMPATIBLE never fuses (the products are machine-dependent, see kernel_order)
    fuse = k == 1 and dt.is_floating_point and m > 1 and not (n == 1 and b._t.strides[0] == 1)
    # (a fused k = 1 product without a bias is the chain's one multiply-add from +0.0)
    bulk = gemm_f32(ea, eb, n, k, m, kind == "gemm_nt") if f32 and not (fuse and bias is not None) else None
    if bulk is not None:  # the same values, a row or column of the result at a time
        return bulk if bias is None else dtypes.round_f32_list([v + c for v, c in zip(bulk, bias)])
    rows = [ea[i * k:(i + 1) * k] for i in range(n)]
    cols = [[eb[i * m + j] for i in range(k)] for j in range(m)]
    out = []
    for i in range(n):
        row = rows[i]
        for j in range(m):
            val = _dot_value(row, cols[j], dt, kind)
            if bias is not None:
                c = bias[i * m + j]
                if fuse:
                    val = fma_chain([1.0, row[0]], [c, cols[j][0]], f32)
                else:
                    val = r(val + c)
            out.append(val)
    return out


def _unit_scaling(fn: str, beta, alpha) -> None:
    """The add-product family computes ``input + mat1 @ mat2`` only: BLAS folds beta and alpha
    into its own summation order, which differs between processors, so other scalings are
    refused rather than rounded in an order PyTorch may not use."""
    if beta != 1 or alpha != 1:
        raise Unsupported(f"{fn} with beta or alpha other than 1")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """``input @ mat2`` for two matrices (MmBackward0)."""
    a, b = input, mat2
    for name, x in (("self", a), ("mat2", b)):
        if not isinstance(x, Tensor):
            raise TypeError(f"mm(): argument '{name}' (position {1 if name == 'self' else 2}) must be Tensor, "
                            f"not {type(x).__name__}")
    if a._t.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b._t.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    n, k = a._t.shape
    k2, m = b._t.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    _same_dtype(a, b, "mm")
    vals = _product_values(a, b)
    return make(L.Mm, TensorType(a._t.dtype, (n, m)), vals, (a, b))


_NAIVE_BMM = 400
"""ATen's CPU bmm multiplies batches whose contraction x rows x columns is below this with its
own loop (each product rounded, added in order: the same bits on every processor); larger
ones go to MKL's gemm (machine-dependent, modelled as mm's order)."""


def _bmm_values(a: Tensor, b: Tensor, bias: list | None = None) -> list:
    bs, n, k = a._t.shape
    m = b._t.shape[2]
    check_size((bs, n, m))
    dt = a._t.dtype
    r = dt.round
    ea, eb = _elements(a), _elements(b)
    out = []
    if k * n * m >= _NAIVE_BMM and dt.is_floating_point:
        for q in range(bs):
            am = leaf(ea[q * n * k:(q + 1) * n * k], TensorType(dt, (n, k)))
            bm = leaf(eb[q * k * m:(q + 1) * k * m], TensorType(dt, (k, m)))
            part = _product_values(am, bm)
            if bias is not None:
                part = [r(x + c) for x, c in zip(part, bias[q * n * m:(q + 1) * n * m])]
            out.extend(part)
        return out
    for q in range(bs):
        for i in range(n):
            row = ea[(q * n + i) * k:(q * n + i + 1) * k]
            for j in range(m):
                acc = 0.0 if dt.is_floating_point else 0
                for x in range(k):
                    acc = r(acc + r(row[x] * eb[(q * k + x) * m + j]))
                if bias is not None:
                    acc = r(bias[(q * n + i) * m + j] + acc)
                out.append(acc)
    return out


def _check_batches(a: Tensor, b: Tensor, name: str, first: int = 1) -> None:
    """bmm's and baddbmm's checks; ``first`` is the position PyTorch's parser gives the first
    operand (a method's self takes none)."""
    names = ("input", "mat2") if name == "bmm" else ("batch1", "batch2")
    for pos, (arg, x) in enumerate(zip(names, (a, b))):
        if not isinstance(x, Tensor):
            raise not_tensor(x, name, arg, first + pos)
    if a._t.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b._t.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    bs, _, k = a._t.shape
    if tuple(b._t.shape[:2]) != (bs, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but got: "
                           f"[{b._t.shape[0]}, {b._t.shape[1]}].")
    if a._t.dtype is not b._t.dtype:
        raise RuntimeError(f"expected scalar type {a._t.dtype.short} but found {b._t.dtype.short}")


def bmm(a: Tensor, b: Tensor, _first: int = 1) -> Tensor:
    """``bmm``: the matrix product of each batch, (b, n, k) @ (b, k, m) (BmmBackward0)."""
    _check_batches(a, b, "bmm", _first)
    bs, n, _ = a._t.shape
    m = b._t.shape[2]
    return make(L.Bmm, TensorType(a._t.dtype, (bs, n, m)), _bmm_values(a, b), (a, b))


def baddbmm(bias: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, _first: int = 2) -> Tensor:
    """``baddbmm``: bias (broadcast) + batch1 @ batch2 per batch (BaddbmmBackward0)."""
    _check_batches(batch1, batch2, "baddbmm", _first)
    _unit_scaling("baddbmm", beta, alpha)
    shape = (batch1._t.shape[0], batch1._t.shape[1], batch2._t.shape[2])
    if bias._t.dtype is not batch1._t.dtype:
        raise RuntimeError(f"expected scalar type {batch1._t.dtype.short} but found {bias._t.dtype.short}")
    try:
        full = broadcast_shapes(bias._t.shape, shape)
    except RuntimeError:
        full = None
    if full != shape:
        bad = next(d for d in range(1, len(bias._t.shape) + 1) if bias._t.shape[-d] not in (1, shape[-d]))
        raise RuntimeError(f"The expanded size of the tensor ({shape[-bad]}) must match the existing size "
                           f"({bias._t.shape[-bad]}) at non-singleton dimension {3 - bad}.  Target sizes: "
                           f"{list(shape)}.  Tensor sizes: {list(bias._t.shape)}")
    eb = _elements(bias)
    spread = [eb[i] for i in positions(bias._t.shape, shape)]
    return make(L.Baddbmm, TensorType(batch1._t.dtype, shape), _bmm_values(batch1, batch2, spread),
                (bias, batch1, batch2))


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``torch.addbmm``: input (broadcast to n x m) + the sum over the batch of batch1[b] @
    batch2[b] (AddbmmBackward0). Computed as ATen's CPU kernel does: one ``addmm`` per batch
    into the result, in batch order (each as ``addmm``'s MKL order, machine-dependent in the
    last bits as there)."""
    _tensor_arguments("addbmm", input=input, batch1=batch1, batch2=batch2)
    _unit_scaling("addbmm", beta, alpha)
    if batch1._t.ndim > 1 and batch2._t.ndim > 2 and tuple(input._t.shape) != (n := batch1._t.shape[1],
                                                                              m := batch2._t.shape[2]):
        expand(input, (n, m))  # PyTorch's error where input does not broadcast to (n, m), checked first
    for name, x in (("batch1", batch1), ("batch2", batch2)):
        if x._t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (bs, n, k), (bs2, k2, m) = batch1._t.shape, batch2._t.shape
    if bs != bs2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {bs} and {bs2}")
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{m})")
    for x in (batch1, batch2):
        if x._t.dtype is not input._t.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {input._t.dtype.short} and "
                               f"{x._t.dtype.short}")
    eb = _elements(input)
    vals = [eb[i] for i in positions(input._t.shape, (n, m))]
    a, b = batch1.detach(), batch2.detach()
    for q in range(bs):
        vals = _product_values(select(a, 0, q), select(b, 0, q), vals)
    return make(L.Addbmm, TensorType(input._t.dtype, (n, m)), vals, (input, batch1, batch2))


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """matrix @ vector (MvBackward0)."""
    a, x = input, vec
    if a._t.ndim != 2 or x._t.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a._t.ndim}, {x._t.ndim}")
    n, k = a._t.shape
    if k != x._t.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({x._t.shape[0]})")
    _same_dtype(a, x, "mv")
    ea, ex = _elements(a), _elements(x)
    dt = a._t.dtype
    vals = gemm_f32(ea, ex, n, k, 1, False) if dt is dtypes.float32 else None
    if vals is None:
        vals = [_dot_value(ea[i * k:(i + 1) * k], ex, dt, "gemm") for i in range(n)]
    return make(L.Mv, TensorType(dt, (n,)), vals, (a, x))


def _tensor_arguments(fn: str, **named) -> None:
    """PyTorch's TypeError for an argument of ``fn`` that is not a tensor (named in order)."""
    for pos, (name, x) in enumerate(named.items(), 1):
        if not isinstance(x, Tensor):
            raise not_tensor(x, fn, name, pos)


def _dot(a: Tensor, b: Tensor, op) -> Tensor:
    dot_checks(a, b)
    val = _dot_value(_elements(a), _elements(b), a._t.dtype, "dot")
    return make(op, TensorType(a._t.dtype, ()), val, (a, b))


def dot_checks(a: Tensor, b: Tensor) -> None:
    """ATen's dot/vdot checks (one dimension each, one dtype, one length), in its order."""
    if a._t.ndim != 1 or b._t.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._t.ndim}D and {b._t.ndim}D tensors")
    _same_dtype(a, b, "dot")
    ka, kb = a._t.shape[0], b._t.shape[0]
    if ka != kb:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{ka}] and src [{kb}] to have the same "
                           f"number of elements, but got {ka} and {kb} elements respectively")


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """vector . vector (DotBackward0)."""
    _tensor_arguments("dot", input=input, tensor=tensor)
    return _dot(input, tensor, L.Dot)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``torch.vdot`` of real vectors (VdotBackward0): ``dot``'s checks and kernel, as ATen's
    vdot, which calls dot for a real dtype (the conjugate of a real number is itself)."""
    _tensor_arguments("vdot", input=input, other=other)
    return _dot(input, other, L.Vdot)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``torch.addmv(input, mat, vec)``: input (0-dim or 1-dim, broadcast) + mat @ vec
    (AddmvBackward0). Each element is the row's ``mv`` value plus the input's element, rounded
    once more (gemv with beta = 1 adds y after its dot product; MKL's order within the dot
    product is ``mv``'s, machine-dependent in the last bits as there)."""
    _tensor_arguments("addmv", input=input, mat=mat, vec=vec)
    _unit_scaling("addmv", beta, alpha)
    if input._t.ndim > 1 or mat._t.ndim != 2 or vec._t.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._t.ndim}, {mat._t.ndim}, {vec._t.ndim}")
    n, k = mat._t.shape
    if vec._t.shape[0] != k or (input._t.ndim == 1 and input._t.shape[0] not in (1, n)):
        size = input._t.shape[0] if input._t.ndim else 1
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{k}), vec ({vec._t.shape[0]})")
    dts = (input._t.dtype, mat._t.dtype, vec._t.dtype)
    if len(set(dts)) > 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {dts[0].short}, {dts[1].short}, "
                           f"and {dts[2].short}")
    dt = mat._t.dtype
    products = _elements(mv(mat.detach(), vec.detach()))
    eb = _elements(input)
    spread = [eb[i] for i in positions(input._t.shape, (n,))]
    r = dt.round
    vals = [r(p + c) for p, c in zip(products, spread)] if dt.kind != "b" else \
        [bool(p) or bool(c) for p, c in zip(products, spread)]
    return make(L.Addmv, TensorType(dt, (n,)), vals, (input, mat, vec))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product a b^T of two vectors (``ger``), composed as PyTorch's: ``a.reshape(n, 1)
    * b`` (ViewBackward0 under MulBackward0); each element one rounded product."""
    a, b = input, vec2
    for name, x in (("self", a), ("vec2", b)):
        if not isinstance(x, Tensor):
            raise not_tensor(x, "outer", name, None)
        if x._t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {x._t.ndim}-D")
    return binary(AR.Mul, reshape(a, a._t.shape[0], 1), b)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """``torch.inner``: a product over the last dimensions, composed as PyTorch composes it
    (``tensordot``: permute and reshape each operand to a matrix, mm, reshape the result);
    with a 0-dim operand, ``a * b``."""
    a, b = input, other
    if not a._t.ndim or not b._t.ndim:
        return binary(AR.Mul, a, b)
    sa, sb = tuple(a._t.shape), tuple(b._t.shape)
    if sa[-1] != sb[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(sa)} and {list(sb)}")
    # tensordot(a, b, [-1], [-1]): a contracted dimension of size 1 in one operand is summed out of
    # the other first (broadcast); then the contracted dimension (-1, as given) goes last in a,
    # first in b
    if sb[-1] == 1:
        a = tsum(a, -1, keepdim=True)
    elif sa[-1] == 1:
        b = tsum(b, -1, keepdim=True)
    pa, pb = permute(a, *range(len(sa) - 1), -1), permute(b, -1, *range(len(sb) - 1))
    n, m = numel(sa[:-1]), numel(sb[:-1])
    if n == 1 and m == 1:  # one output element: a dot product of the flattened operands
        return reshape(dot(flatten(pa), flatten(pb)), sa[:-1] + sb[:-1])
    k = pa._t.shape[-1]
    return reshape(mm(reshape(pa, n, k), reshape(pb, k, m)), sa[:-1] + sb[:-1])


def matmul(input, other) -> Tensor:
    """``input @ other`` composed as ``at::matmul``: dot, mv, (unsqueeze, mm, squeeze), mm, an N-D
    tensor folded into a matrix product and viewed back, or batched products (bmm)."""
    a, b = input, other
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        bad = b if isinstance(a, Tensor) else a
        raise not_tensor(bad, 'matmul', 'other', 1)
    da, db = a._t.ndim, b._t.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        k, m = b._t.shape
        if a._t.shape[0] != k:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{a._t.shape[0]} and {k}x{m})")
        out = mm(unsqueeze(a, 0), b)
        # PyTorch squeezes the product in place: SqueezeBackward4
        return make_view(out, (m,), (1,), 0, None, S.SqueezeInplace, Layout((1, m), dim=0), copy=True)
    if da == 2 and db == 2:
        return mm(a, b)
    if da >= 3 and db <= 2:
        sa = tuple(a._t.shape)
        k = sa[-1]
        folded = reshape(a, -1, k)
        if db == 1:
            out = mv(folded, b)
            shape = sa[:-1]
        else:
            out = mm(folded, b)
            shape = sa[:-1] + (b._t.shape[1],)
        return make_view(out, shape, None, 0, None, S.UnsafeView, Layout(out._t.shape), copy=True)
    return _batched_matmul(a, b)


def _unsafe_view(x: Tensor, shape) -> Tensor:
    return make_view(x, tuple(shape), None, 0, None, S.UnsafeView, Layout(x._t.shape), copy=True)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product, as ATen's composite: each operand viewed with a 1 beside each of
    its (left-padded) dims, multiplied, the product viewed back (UnsafeViewBackward0 over
    MulBackward0 over two UnsafeViewBackward0)."""
    for pos, (arg, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise not_tensor(x, "kron", arg, pos)
        if not x._t.contiguous:  # ATen's final view can then fail; not followed here
            raise Unsupported("torch.kron of a non-contiguous tensor")
    sa, sb = tuple(input._t.shape), tuple(other._t.shape)
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a_shape = [n for d in sa for n in (d, 1)]
    b_shape = [n for d in sb for n in (1, d)]
    prod = binary(AR.Mul, _unsafe_view(input, a_shape), _unsafe_view(other, b_shape))
    return _unsafe_view(prod, [p * q for p, q in zip(sa, sb)])


def _should_fold_swapped(a: Tensor, b: Tensor) -> bool:
    """ATen's should_fold for a 1-D or 2-D ``a`` and a ``b`` of 3 or more dimensions: fold
    ``b.mT`` into a matrix when ``a`` requires grad, or when ``a`` is a vector and ``b.mT``'s
    batch dimensions fold without a copy."""
    if a._rg:
        return True
    if a._t.ndim == 2:
        return False
    if not b._t.numel:
        return True
    shape, st = list(b._t.shape), list(b._t.strides)
    shape[-2:], st[-2:] = shape[:-3:-1], st[:-3:-1]  # b.mT
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    """at::matmul with a tensor of 3 or more dimensions on the right (or on both sides): the
    left operand folded into the transposed right one (mm or mv) when it requires grad or is a
    vector, else both broadcast over their batch dimensions, reshaped to 3-D and multiplied
    with bmm, the result viewed back (UnsafeViewBackward0)."""
    da, db = a._t.ndim, b._t.ndim
    if da <= 2 and db >= 3 and _should_fold_swapped(a, b):
        t1 = mT(b)
        t2 = t(a) if da == 2 else a
        shape = tuple(t1._t.shape[:-1])
        folded = reshape(t1, numel(shape), t1._t.shape[-1])
        if da == 2:
            out = _unsafe_view(mm(folded, t2), shape + (t2._t.shape[1],))
            return contiguous(transpose_view(out, -2, -1))
        return _unsafe_view(mv(folded, t2), shape)
    if da == 3 and db == 3 and a._t.shape[0] != b._t.shape[0]:
        if a._t.shape[0] == 1 and a._rg:
            return matmul(squeeze(a, 0), b)
        if b._t.shape[0] == 1 and b._rg:
            return matmul(a, squeeze(b, 0))
    sa, sb = tuple(a._t.shape), tuple(b._t.shape)
    n = sa[-2] if da > 1 else 1
    m1 = sa[-1]
    m2 = sb[-2] if db > 1 else sb[0]
    p = sb[-1] if db > 1 else 1
    batch = broadcast_shapes(sa[:max(da - 2, 0)], sb[:max(db - 2, 0)])
    count = numel(batch)
    left = reshape(expand(a, *batch, n, m1), count, n, m1)
    if db == 1:
        right = unsqueeze(reshape(expand(b, *batch, m2), count, m2), 2)
    else:
        right = reshape(expand(b, *batch, m2, p), count, m2, p)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = bmm(left, right)
    return _unsafe_view(squeeze(out, -1) if db == 1 else out, shape)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``torch.addmm(input, mat1, mat2)``: mat1 @ mat2 + input (broadcast), AddmmBackward0."""
    bias = input
    _unit_scaling("addmm", beta, alpha)
    if mat1._t.ndim != 2 or mat2._t.ndim != 2:
        raise RuntimeError("mat1 must be a matrix" if mat1._t.ndim != 2 else "mat2 must be a matrix")
    n, k = mat1._t.shape
    k2, m = mat2._t.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    dt = mat1._t.dtype
    if mat2._t.dtype is not dt or bias._t.dtype is not dt:
        other = mat2._t.dtype if mat2._t.dtype is not dt else bias._t.dtype
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {dt.c_name} != {other.c_name}")
    if broadcast_shapes(bias._t.shape, (n, m)) != (n, m):
        raise RuntimeError(f"The expanded size of the tensor ({m}) must match the existing size "
                           f"({bias._t.shape[-1]}) at non-singleton dimension 1.  Target sizes: [{n}, {m}].  "
                           f"Tensor sizes: {list(bias._t.shape)}")
    eb = _elements(bias)
    spread = [eb[i] for i in positions(bias._t.shape, (n, m))]
    vals = _product_values(mat1, mat2, spread)
    return make(L.Addmm, TensorType(dt, (n, m)), vals, (bias, mat1, mat2))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``torch.addr``: input (broadcast) + the outer product of two vectors (AddrBackward0); each
    element ``input + vec1[i] * vec2[j]``, the product rounded first (PyTorch's vectorised and
    ``ATEN_CPU_CAPABILITY=default`` kernels; its AVX2 scalar tail fuses them: last digits)."""
    _unit_scaling("addr", beta, alpha)
    for name, x in (("self", input), ("vec1", vec1), ("vec2", vec2)):
        if not isinstance(x, Tensor):
            raise not_tensor(x, "addr", name, None)
    for name, x in (("vec1", vec1), ("vec2", vec2)):
        if x._t.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {x._t.ndim}-D")
    n, m = vec1._t.shape[0], vec2._t.shape[0]
    if tuple(input._t.shape) != (n, m):
        expand(input, (n, m))  # PyTorch's error where input does not broadcast to (n, m)
    dt = result_dtype([input, vec1, vec2])
    r = dt.round
    es, a, b = _elements(input), _elements(vec1), _elements(vec2)
    spread = [es[i] for i in positions(input._t.shape, (n, m))]
    if dt.kind == "b":
        vals = [bool(spread[i * m + j]) or (bool(a[i]) and bool(b[j])) for i in range(n) for j in range(m)]
    else:
        vals = [r(spread[i * m + j] + r(a[i] * b[j])) for i in range(n) for j in range(m)]
    return make(L.Addr, TensorType(dt, (n, m)), vals, (input, vec1, vec2))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``nn.functional.linear``: input @ weight.T + bias, composed as PyTorch 2.13's
    ``at::linear`` composes it (AddmmBackward0 for 2-D input with a bias, ViewBackward0 over it
    for 3-D input, MmBackward0 / SqueezeBackward4 / UnsafeViewBackward0 without a bias)."""
    for name, x in (("input", input), ("weight", weight)):
        if not isinstance(x, Tensor):
            raise TypeError(f"linear(): argument '{name}' (position {1 if name == 'input' else 2}) must be Tensor, "
                            f"not {type(x).__name__}")
    wt = t(weight)
    nd = input._t.ndim
    if bias is not None:
        if nd == 2:
            return addmm(bias, input, wt)
        contiguous = input._t.contiguous or is_contiguous(input._t.shape, input._t.strides)
        if contiguous and (nd == 3 or bias._t.ndim == 1) and nd >= 1:
            # _flatten_nd_linear: view to 2-D, addmm, view back
            shape = tuple(input._t.shape)
            flat = view(input, numel(shape[:-1]), shape[-1])
            out = addmm(bias, flat, wt)
            return view(out, *shape[:-1], out._t.shape[1])
    out = matmul(input, wt)
    if bias is not None:
        out = binary(AR.Add, out, bias)
    return out


def install(method, function) -> None:
    """matmul (``@``), mm, mv, dot, bmm, baddbmm, inner, outer/ger, addmm (and in place)."""

    def old_form_method(name, fn):  # the add-product family also takes PyTorch's deprecated
        method(name, accepting(name, fn, method=True))  # (beta[, alpha], t1, t2)

    def old_form_function(name, fn):
        function(name, accepting(name, fn, method=False))

    method("__matmul__", lambda self, other: matmul(self, other) if isinstance(other, Tensor) else NotImplemented)
    method("__rmatmul__", lambda self, other: matmul(other, self) if isinstance(other, Tensor) else NotImplemented)
    method("bmm", lambda self, mat2: bmm(self, mat2, _first=0))
    old_form_method("baddbmm", lambda self, batch1, batch2, *, beta=1, alpha=1: baddbmm(
        self, batch1, batch2, beta=beta, alpha=alpha, _first=1))
    old_form_method("baddbmm_", lambda self, batch1, batch2, *, beta=1, alpha=1: inplace(self, lambda t: baddbmm(
        t, batch1, batch2, beta=beta, alpha=alpha, _first=1)))
    old_form_method("addmm", lambda self, mat1, mat2, *, beta=1, alpha=1: addmm(
        self, mat1, mat2, beta=beta, alpha=alpha))
    old_form_method("addmm_", lambda self, mat1, mat2, *, beta=1, alpha=1: inplace(
        self, lambda t: addmm(t, mat1, mat2, beta=beta, alpha=alpha)))
    for name, fn in (("matmul", matmul), ("mm", mm), ("mv", mv), ("dot", dot), ("inner", inner), ("outer", outer),
                     ("ger", outer)):
        method(name, fn)
        function(name, fn)
    old_form_function("addmm", addmm)
    method("vdot", lambda self, other: vdot(self, other))
    function("vdot", vdot)
    old_form_method("addmv", lambda self, mat, vec, *, beta=1, alpha=1: addmv(self, mat, vec, beta=beta, alpha=alpha))
    old_form_method("addmv_", lambda self, mat, vec, *, beta=1, alpha=1: inplace(
        self, lambda t: addmv(t, mat, vec, beta=beta, alpha=alpha)))
    old_form_function("addmv", addmv)
    old_form_method("addbmm", lambda self, batch1, batch2, *, beta=1, alpha=1: addbmm(
        self, batch1, batch2, beta=beta, alpha=alpha))
    old_form_method("addbmm_", lambda self, batch1, batch2, *, beta=1, alpha=1: inplace(self, lambda t: addbmm(
        t, batch1, batch2, beta=beta, alpha=alpha)))
    old_form_function("addbmm", addbmm)
    old_form_method("addr", lambda self, vec1, vec2, *, beta=1, alpha=1: addr(self, vec1, vec2, beta=beta, alpha=alpha))
    old_form_method("addr_", lambda self, vec1, vec2, *, beta=1, alpha=1: inplace(
        self, lambda t: addr(t, vec1, vec2, beta=beta, alpha=alpha)))
    old_form_function("addr", addr)
    method("kron", kron)
    function("kron", kron)
    function("bmm", lambda input, mat2: bmm(input, mat2))
    old_form_function("baddbmm", lambda input, batch1, batch2, *, beta=1, alpha=1: baddbmm(
        input, batch1, batch2, beta=beta, alpha=alpha))


# ---------------------------------------------------------------- derivative helpers, on tensors


helper(mv)
helper(bmm)
helper(outer)


@helper
def mm_mat1_backward(g, mat2, mat1, alpha):
    # a column-major mat1 gets its gradient computed as (mat2 @ grad.T).T (FunctionsManual)
    sizes, strides = mat1._t.shape, mat1._t.strides
    if strides[0] == 1 and strides[1] == sizes[0]:
        return t(mm(mat2, t(g)))
    return mm(g, t(mat2))


@helper
def mm_mat2_backward(g, mat1, mat2, alpha):
    sizes, strides = mat2._t.shape, mat2._t.strides
    if strides[0] == 1 and strides[1] == sizes[0]:
        return t(mm(t(g), mat1))
    return mm(t(mat1), g)


def _batch_grad(g, a, b):
    """The result's gradient repeated for every batch: grad.unsqueeze(0).expand({B, n, m})."""
    return expand(unsqueeze(g, 0), a._t.shape[0], a._t.shape[1], b._t.shape[2])


@helper
def addbmm_batch1_backward(g, batch1, batch2):
    return bmm(_batch_grad(g, batch1, batch2), transpose_view(batch2, 1, 2))


@helper
def addbmm_batch2_backward(g, batch1, batch2):
    return bmm(transpose_view(batch1, 1, 2), _batch_grad(g, batch1, batch2))
