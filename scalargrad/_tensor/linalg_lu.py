"""The LU family (``_ops/linalg.py``): ``linalg.lu_factor``/``lu_factor_ex`` and the deprecated
``torch.lu``/``Tensor.lu`` (one LinalgLuFactorExBackward0 node: the packed factors, with LAPACK's
1-based int32 pivots as an output that takes no gradient), ``linalg.lu_solve`` and the deprecated
``torch.lu_solve``/``Tensor.lu_solve`` (LinalgLuSolveBackward0 over LU and B), ``lu_unpack`` and
``linalg.lu`` (P, L, U). Factors are computed as getrf's unblocked algorithm in double, rounded
once: LAPACK's blocked kernels add in their own order (machine-dependent last bits), but choose
the same pivots (the first largest magnitude) wherever no two candidates are within rounding.

``linalg.solve`` (LinalgSolveExBackward0) solves through the same LU.

Not done, refused by name: the gradient of a non-square factorisation, of ``lu_unpack`` and of
``linalg.lu`` (PyTorch's LuUnpackBackward0 and LinalgLuBackward0, each one node with two
outputs), ``lu_solve`` with ``left=False`` or ``adjoint=True`` under autograd, and double
backwards."""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import state as grad_state
from .._base.layout import column_major_strides
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import linalg as LA
from .linalg_errors import LinAlgError
from .linalg_outputs import check_versions, remember_versions
from .return_types import return_type
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["lu_factor_ex", "linalg_lu_factor", "lu", "lu_solve", "lu_unpack", "linalg_lu", "linalg_solve", "install"]


def _batches(x: Tensor) -> tuple:
    """(batch shape, m, n, list of row-major m x n matrices) of a (..., m, n) tensor."""
    shape = tuple(x._t.shape)
    m, n = shape[-2:]
    size = m * n
    count = 1
    for s in shape[:-2]:
        count *= s
    vals = x._val
    return shape[:-2], m, n, [vals[i * size:(i + 1) * size] for i in range(count)]


def _check_a(A, name: str, arg: str) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {type(A).__name__}")
    if A._t.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(str(s) for s in A._t.shape)}] instead")
    if not A._t.dtype.is_floating_point:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A._t.dtype.short}'")


def _factor(A: Tensor, pivot: bool, name: str, arg: str) -> tuple:
    """(LU tensor, pivots tensor, infos list, batch shape): one node when A requires grad."""
    _check_a(A, name, arg)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    dt = A._t.dtype
    batch, m, n, mats = _batches(A)
    k = min(m, n)
    lus, pivs, infos = [], [], []
    for a in mats:
        lu, piv, _ = LA.lu_factor(a, n, m)
        lus.extend(dt.round(x) for x in lu)
        pivs.extend(piv)
        infos.append(next((j + 1 for j in range(k) if lu[j * n + j] == 0.0), 0))
    pivots = leaf(pivs, TensorType(dtypes.int32, batch + (k,)))
    if A._rg and grad_state.enabled and m != n:
        raise Unsupported("the gradient of the LU factorisation of a non-square matrix (linalg_lu_backward's "
                          "m != n cases)")
    c = LA.LuFactors(pivots, m, n)
    remember_versions(c, [pivots], outputs=False)  # PyTorch names a changed pivots tensor without its node
    out = make(LA.LinalgLuFactorEx, TensorType(dt, tuple(A._t.shape)), lus, (A,), c)
    return out, pivots, infos, batch


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> tuple:
    """``torch.linalg.lu_factor_ex(A, pivot=True, check_errors=False)``: (LU, pivots, info)."""
    lu, pivots, infos, batch = _factor(A, pivot, "linalg_lu_factor_ex", "A")
    info = leaf(infos if batch else infos[0], TensorType(dtypes.int32, batch))
    return return_type("linalg_lu_factor_ex")("linalg_lu_factor_ex", lu, pivots, info)


def linalg_lu_factor(A: Tensor, *, pivot: bool = True) -> tuple:
    """``torch.linalg.lu_factor(A, pivot=True)``: (LU, pivots); a zero pivot is PyTorch's error."""
    lu, pivots, infos, batch = _factor(A, pivot, "linalg_lu_factor", "A")
    for b, info in enumerate(infos):
        if info:
            where = f"(Batch element {b}): " if batch else ""
            raise RuntimeError(f"torch.linalg.lu_factor: {where}U[{info},{info}] is zero and using it on lu_solve "
                               "would result in a division by zero. If you still want to perform the factorization, "
                               "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return return_type("linalg_lu_factor")("linalg_lu_factor", lu, pivots)


_LU_WARNING = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a "
    "future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
    "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, "
    "get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")
_LU_SOLVE_WARNING = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release.\n"
    "Note that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
    "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")


def _warn_once(key: str, text: str) -> None:
    if first_time("torch_" + key):
        warnings.warn(text, UserWarning, stacklevel=program_stacklevel())


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:
    """``torch.lu(A, pivot=True, get_infos=False)`` (deprecated): (LU, pivots), with infos a
    ``torch.return_types._lu_with_info``; never an error for a zero pivot, as PyTorch's."""
    _warn_once("lu", _LU_WARNING)
    lu_t, pivots, infos, batch = _factor(A, pivot, "lu", "A")
    if get_infos:
        info = leaf(infos if batch else infos[0], TensorType(dtypes.int32, batch))
        return return_type("_lu_with_info")("_lu_with_info", lu_t, pivots, info)
    return lu_t, pivots


def _check_solve(LU, pivots, B, name: str, left: bool) -> None:
    for pos, (arg, x) in enumerate((("LU", LU), ("pivots", pivots), ("B", B))):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos + 1}) must be Tensor, not {type(x).__name__}")
    if B._t.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    m, n = LU._t.shape[-2:] if LU._t.ndim >= 2 else (0, 1)
    if LU._t.ndim < 2 or m != n:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are {m} by {n} "
                           "matrices")
    if B._t.shape[-2 if left else -1] != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{B._t.shape[-2]}x{B._t.shape[-1]})")
    if pivots._t.dtype is not dtypes.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if LU._t.dtype is not B._t.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{LU._t.dtype.short} and B of type {B._t.dtype.short} instead")
    if tuple(LU._t.shape[:-2]) != tuple(B._t.shape[:-2]) or tuple(pivots._t.shape) != tuple(LU._t.shape[:-1]):
        raise Unsupported("linalg.lu_solve with broadcast batch dimensions")


class SolveInfo:
    """What an lu_solve node keeps: the pivots (a tensor), ``left``, ``adjoint`` and sizes."""

    __slots__ = ("pivots", "left", "adjoint", "n", "k", "versions")

    def __init__(self, pivots, left: bool, adjoint: bool, n: int, k: int) -> None:
        self.pivots, self.left, self.adjoint, self.n, self.k = pivots, left, adjoint, n, k


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,
             _name: str = "linalg_lu_solve") -> Tensor:
    """``torch.linalg.lu_solve(LU, pivots, B, left=True, adjoint=False)``: X with A X = B (A^T X
    = B with ``adjoint``; X A = B, X A^T = B without ``left``), A = P L U, by getrs in double."""
    _check_solve(LU, pivots, B, _name, left)
    if (LU._rg or B._rg) and grad_state.enabled and (adjoint or not left):
        raise Unsupported("the gradient of linalg.lu_solve with left=False or adjoint=True")
    dt = LU._t.dtype
    n = LU._t.shape[-1]
    _, _, k, bs = _batches(B)
    _, _, _, lus = _batches(LU)
    pv = pivots._val
    out = []
    for i, (lu, b) in enumerate(zip(lus, bs)):
        piv = pv[i * n:(i + 1) * n]
        if left:
            out.extend(dt.round(x) for x in LA.lu_solve_of(lu, piv, b, n, k, adjoint))
        else:  # X A = B: A^T X^T = B^T (X A^T = B: A X^T = B^T)
            rows = B._t.shape[-2]
            xt = LA.lu_solve_of(lu, piv, LA.transposed_rect(b, rows, n), n, rows, not adjoint)
            out.extend(dt.round(x) for x in LA.transposed_rect(xt, n, rows))
    c = SolveInfo(pivots, left, adjoint, n, k)
    remember_versions(c, [pivots], outputs=False)
    return make(LA.LinalgLuSolve, TensorType(dt, tuple(B._t.shape)), out, (LU, B), c)


def _lu_solve_deprecated(self: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """``torch.lu_solve(b, LU_data, LU_pivots)``/``Tensor.lu_solve`` (deprecated): linalg.lu_solve."""
    _warn_once("lu_solve", _LU_SOLVE_WARNING)
    return lu_solve(LU_data, LU_pivots, self, _name="lu_solve")


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> tuple:
    """``torch.lu_unpack``: (P, L, U) with A = P L U; an empty tensor for what is not unpacked."""
    if LU_pivots._t.dtype is not dtypes.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.")
    if LU_data._rg and grad_state.enabled and unpack_data:
        raise Unsupported("the gradient of lu_unpack (LuUnpackBackward0, one node with two outputs)")
    return _unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, "lu_unpack")


def _unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool, unpack_pivots: bool, kind: str) -> tuple:
    dt = LU_data._t.dtype
    batch, m, n, mats = _batches(LU_data)
    k = min(m, n)
    ps, ls, us = [], [], []
    pv = LU_pivots._val if LU_pivots._t.ndim else [LU_pivots._val]
    for b, lu in enumerate(mats):
        perm = LA.permutation(pv[b * k:(b + 1) * k], m)
        p = [0.0] * (m * m)
        for i in range(m):
            p[perm[i] * m + i] = 1.0
        ps.extend(p)
        ls.extend(lu[i * n + j] if j < i else (1.0 if i == j else 0.0) for i in range(m) for j in range(k))
        us.extend(lu[i * n + j] if j >= i else 0.0 for i in range(k) for j in range(n))
    empty = leaf([], TensorType(dt, (0,)))
    P = leaf(ps, TensorType(dt, batch + (m, m))) if unpack_pivots else empty
    L = leaf(ls, TensorType(dt, batch + (m, k))) if unpack_data else empty
    U = leaf(us, TensorType(dt, batch + (k, n))) if unpack_data else leaf([], TensorType(dt, (0,)))
    return return_type(kind)(kind, P, L, U)


def linalg_lu(A: Tensor, *, pivot: bool = True) -> tuple:
    """``torch.linalg.lu(A, pivot=True)``: (P, L, U) with A = P L U."""
    if isinstance(A, Tensor) and A._rg and grad_state.enabled:
        raise Unsupported("the gradient of linalg.lu (LinalgLuBackward0, one node with two outputs): use "
                          "linalg.lu_factor")
    lu_t, pivots, _, _ = _factor(A, pivot, "linalg_lu", "A")
    return _unpack(lu_t, pivots, True, True, "linalg_lu")


@helper
def lu_factor_backward(g, lu: Tensor, c) -> Tensor:
    """linalg_lu_backward (square) per matrix, in double, rounded once."""
    check_versions(c, "LinalgLuFactorEx")
    dt = lu._t.dtype
    n = c.n
    size = n * n
    gv, lv, pv = g._val, lu._val, c.pivots._val
    out = []
    for b in range(len(lv) // size if size else 0):
        out.extend(dt.round(x) for x in LA.lu_factor_grad(lv[b * size:(b + 1) * size], pv[b * n:(b + 1) * n],
                                                           gv[b * size:(b + 1) * size], n))
    return leaf(out, TensorType(dt, tuple(lu._t.shape)))


@helper
def lu_solve_backward(g, lu: Tensor, x: Tensor, c) -> tuple:
    """(gLU, gB) per matrix (left, not adjoint), in double, rounded once."""
    check_versions(c, "LinalgLuSolve")
    dt = lu._t.dtype
    n, k = c.n, c.k
    gv, lv, xv, pv = g._val, lu._val, x._val, c.pivots._val
    glu, gb = [], []
    for b in range(len(lv) // (n * n) if n else 0):
        a, bb = LA.lu_solve_grads(lv[b * n * n:(b + 1) * n * n], pv[b * n:(b + 1) * n], xv[b * n * k:(b + 1) * n * k],
                                  gv[b * n * k:(b + 1) * n * k], n, k)
        glu.extend(dt.round(v) for v in a)
        gb.extend(dt.round(v) for v in bb)
    return leaf(glu, TensorType(dt, tuple(lu._t.shape))), leaf(gb, TensorType(dt, tuple(x._t.shape)))


class SolveFactors:
    """What a solve node keeps: A's LU and pivots (tensors), ``left``, the sizes and whether B
    was a vector."""

    __slots__ = ("LU", "pivots", "left", "n", "k", "vector")

    def __init__(self, lu, pivots, n: int, k: int, vector: bool) -> None:
        self.LU, self.pivots, self.left, self.n, self.k, self.vector = lu, pivots, True, n, k, vector


def linalg_solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``torch.linalg.solve(A, B, left=True)``: X with A X = B, through A's LU; B a vector (n,)
    or batch of them (A's batch shape), or matrices (..., n, k) of A's batch shape. A singular A
    raises PyTorch's LinAlgError."""
    for pos, (arg, x) in enumerate((("A", A), ("B", B))):
        if not isinstance(x, Tensor):
            raise TypeError(f"linalg_solve(): argument '{arg}' (position {pos + 1}) must be Tensor, not "
                            f"{type(x).__name__}")
    if A._t.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    n, m = A._t.shape[-2:]
    if n != m:
        raise RuntimeError(f"linalg.solve: A must be batches of square matrices, but they are {n} by {m} matrices")
    if not A._t.dtype.is_floating_point:
        raise RuntimeError(f"linalg.solve: Expected a floating point or complex tensor as input. Got "
                           f"{A._t.dtype.short}")
    if A._t.dtype is not B._t.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A._t.dtype.short} and B of type {B._t.dtype.short} instead")
    if not left:
        raise Unsupported("linalg.solve with left=False")
    batch = tuple(A._t.shape[:-2])
    vector = B._t.ndim == 1 or tuple(B._t.shape) == batch + (n,)
    rows, k = (B._t.shape[-1], 1) if vector else (B._t.shape[-2], B._t.shape[-1])
    if rows != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and "
                           f"{rows}x{k})")
    if (B._t.ndim == 1 and batch) or (not vector and tuple(B._t.shape[:-2]) != batch):
        raise Unsupported("linalg.solve with broadcast batch dimensions")
    dt = A._t.dtype
    _, _, _, mats = _batches(A)
    bv = B._val
    lus, pivs, out = [], [], []
    for b, a in enumerate(mats):
        lu, piv, _ = LA.lu_factor(a, n)
        if any(lu[j * (n + 1)] == 0.0 for j in range(n)):
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
        lus.extend(dt.round(x) for x in lu)
        pivs.extend(piv)
        out.extend(dt.round(x) for x in LA.lu_solve_of(lu, piv, bv[b * n * k:(b + 1) * n * k], n, k))
    c = SolveFactors(leaf(lus, TensorType(dt, tuple(A._t.shape))), leaf(pivs, TensorType(dtypes.int32, batch + (n,))),
                     n, k, vector)
    shape = tuple(B._t.shape)
    # a matrix right-hand side: LAPACK's getrs writes X as column-major matrices (x.stride() is
    # (1, n)); a vector one keeps its own layout here (PyTorch's is its batched column's)
    t = TensorType(dt, shape) if vector else TensorType(dt, shape, column_major_strides(shape))
    return make(LA.LinalgSolveEx, t, out, (A, B), c)


@helper
def linalg_solve_backward(g, x: Tensor, c) -> tuple:
    """(gA, gB) per system: gB = A^-T gX through the LU, gA = -gB X^T, in double, rounded once."""
    dt = x._t.dtype
    n, k = c.n, c.k
    gv, xv, lv, pv = g._val if isinstance(g, Tensor) else [g], x._val, c.LU._val, c.pivots._val
    ga, gb = [], []
    for b in range(len(lv) // (n * n) if n else 0):
        lu, piv = lv[b * n * n:(b + 1) * n * n], pv[b * n:(b + 1) * n]
        gbb = LA.lu_solve_of(lu, piv, gv[b * n * k:(b + 1) * n * k], n, k, adjoint=True)
        xb = xv[b * n * k:(b + 1) * n * k]
        ga.extend(dt.round(-sum(gbb[i * k + t] * xb[j * k + t] for t in range(k))) for i in range(n) for j in range(n))
        gb.extend(dt.round(y) for y in gbb)
    return leaf(ga, TensorType(dt, tuple(c.LU._t.shape))), leaf(gb, TensorType(dt, tuple(x._t.shape)))


def _refuse_lu_double_backward(*args):
    raise Unsupported("the double backward of the LU family (create_graph=True through LinalgLuFactorExBackward0, "
                      "LinalgLuSolveBackward0 or LinalgSolveExBackward0)")


graph_helper("lu_factor_backward", _refuse_lu_double_backward)
graph_helper("lu_solve_backward", _refuse_lu_double_backward)
graph_helper("linalg_solve_backward", _refuse_lu_double_backward)


def install(method, function) -> None:
    """Bind the spellings on Tensor and in torch."""
    method("lu", lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos))
    function("lu", lambda A, pivot=True, get_infos=False: lu(A, pivot, get_infos))
    method("lu_solve", _lu_solve_deprecated)
    function("lu_solve", lambda input, LU_data, LU_pivots: _lu_solve_deprecated(input, LU_data, LU_pivots))
    function("lu_unpack", lu_unpack)
