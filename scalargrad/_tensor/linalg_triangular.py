"""Triangular systems on tensors (``_ops/linalg_triangular.py``): ``torch.linalg.solve_triangular``
(LinalgSolveTriangularBackward0), ``torch.cholesky_solve`` (CholeskySolveBackward0) and
``torch.cholesky_inverse`` (CholeskyInverseBackward0), each computed by substitution in double,
rounded to the dtype.

Batch dimensions broadcast; refused by name: the gradient of an input whose batch dimensions were
broadcast, A and B of different dtypes, double backwards."""

from __future__ import annotations

import math
import warnings

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.layout import column_major_strides
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import linalg_triangular as TS
from .linalg_errors import LinAlgError
from .linalg_outputs import check_versions, remember_versions, several_outputs
from .operands import broadcast_shapes, positions
from .return_types import return_type
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper
from .views import expand

__all__ = ["solve_triangular", "cholesky_solve", "cholesky_inverse", "triangular_solve", "install"]


def _matrices(x: Tensor, batch: tuple) -> list:
    """The row-major matrices of ``x`` with its batch dimensions broadcast to ``batch``."""
    shape = tuple(x._t.shape)
    size = shape[-1] * shape[-2]
    own = shape[:-2]
    vals = x._val
    return [vals[p * size:(p + 1) * size] for p in positions(own, batch)] if batch else [vals]


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None) -> Tensor:
    """``torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)``: X with
    T X = B (``left``) or X T = B, T the ``upper`` or lower triangle of each n x n matrix of A
    (ones on its diagonal with ``unitriangular``). X is column-major, as LAPACK writes it."""
    for pos, (arg, x) in enumerate((("A", A), ("B", B)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"linalg_solve_triangular(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if out is not None:
        raise Unsupported("torch.linalg.solve_triangular(out=...)")
    for arg, x in (("A", A), ("B", B)):
        if x._t.ndim < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {arg} must have at least 2 dimensions.")
    n, m = A._t.shape[-2:]
    if n != m:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are {n} by {m} "
                           "matrices")
    rows, cols = B._t.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})")
    dt = A._t.dtype
    if not dt.is_floating_point or dt.itemsize < 4:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{dt.short}'")
    if B._t.dtype is not dt:  # PyTorch's result then has A's dtype, B cast unrecorded: not followed
        raise Unsupported("linalg.solve_triangular of A and B of different dtypes")
    batch = broadcast_shapes(tuple(A._t.shape[:-2]), tuple(B._t.shape[:-2]))
    if is_grad_enabled() and any(x._rg and tuple(x._t.shape[:-2]) != batch for x in (A, B)):
        raise Unsupported("the gradient of linalg.solve_triangular with broadcast batch dimensions")
    if tuple(A._t.shape[:-2]) != batch:
        A = expand(A, *(batch + (n, n)))
    if tuple(B._t.shape[:-2]) != batch:
        B = expand(B, *(batch + (rows, cols)))
    out_vals = []
    for a, b in zip(_matrices(A, batch), _matrices(B, batch)):
        out_vals.extend(dt.round(x) for x in TS.tri_solve(a, b, n, rows, cols, upper, left, unitriangular))
    shape = batch + (rows, cols)
    c = TS.TriangularInfo(bool(upper), bool(left), bool(unitriangular), n, rows, cols)
    return make(TS.LinalgSolveTriangular, TensorType(dt, shape, column_major_strides(shape)), out_vals, (A, B), c)


@helper
def solve_triangular_backward(g, a: Tensor, x: Tensor, c) -> tuple:
    """(gA, gB) per system, in double from A, X and grad, rounded once."""
    dt = x._t.dtype
    n, rows, cols = c.n, c.rows, c.cols
    gv = g._val if isinstance(g, Tensor) else [g]
    av, xv = a._val, x._val
    ga, gb = [], []
    for b in range(math.prod(x._t.shape[:-2])):
        sa, sx = slice(b * n * n, (b + 1) * n * n), slice(b * rows * cols, (b + 1) * rows * cols)
        pa, pb = TS.tri_solve_grads(av[sa], xv[sx], gv[sx], n, rows, cols, c.upper, c.left, c.unitriangular)
        ga.extend(dt.round(v) for v in pa)
        gb.extend(dt.round(v) for v in pb)
    return leaf(ga, TensorType(dt, tuple(a._t.shape))), leaf(gb, TensorType(dt, tuple(x._t.shape)))


def _no_double_backward(g, a, x, c):
    raise Unsupported("the double backward of linalg.solve_triangular (create_graph=True through "
                      "LinalgSolveTriangularBackward0)")


graph_helper("solve_triangular_backward", _no_double_backward)


# ---------------------------------------------------------------- through a Cholesky factor


def _batch_of(x: Tensor) -> tuple:
    return tuple(x._t.shape[:-2])


def _linear_solve_checks(b: Tensor, A: Tensor, name: str) -> tuple[int, int]:
    """ATen's ``linearSolveCheckInputs`` and the CPU kernel's dtype dispatch, in that order: the
    same dtype, square A, b's rows A's size, a float of at least 32 bits. Returns A's size and b's
    column count."""
    if b._t.dtype is not A._t.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {b._t.dtype.short} and A "
                           f"of type {A._t.dtype.short} instead.")
    n, m = A._t.shape[-2:]
    if n != m:
        raise RuntimeError(f"A must be batches of square matrices, but they are {n} by {m} matrices")
    rows, k = b._t.shape[-2:]
    if rows != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b "
                           f"matrix is {rows} by {k}")
    dt = A._t.dtype
    if not dt.is_floating_point or dt.itemsize < 4:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dt.short}'")
    return n, k


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky_solve(B, L, upper=False)``: X with A X = B, A = L L^T (``upper``: U^T U)
    from the factor's triangle; CholeskySolveBackward0, X column-major as LAPACK's potrs."""
    B, L = input, input2
    for pos, (arg, x) in enumerate((("input", B), ("input2", L)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"cholesky_solve(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if B._t.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B._t.ndim} dimensions instead")
    if L._t.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._t.ndim} dimensions instead")
    n, k = _linear_solve_checks(B, L, "cholesky_solve")
    dt = B._t.dtype
    batch = broadcast_shapes(_batch_of(B), _batch_of(L))
    if any(_batch_of(x) != batch for x in (B, L)):
        if is_grad_enabled() and (B._rg or L._rg):
            raise Unsupported("the gradient of torch.cholesky_solve with broadcast batch dimensions")
        B, L = expand(B, *(batch + (n, k))), expand(L, *(batch + (n, n)))
    out = []
    for fac, b in zip(_matrices(L, batch), _matrices(B, batch)):
        out.extend(dt.round(x) for x in TS.chol_solve(fac, b, n, k, upper))
    shape = batch + (n, k)
    c = TS.TriangularInfo(bool(upper), True, False, n, n, k)
    return make(TS.CholeskySolve, TensorType(dt, shape, column_major_strides(shape)), out, (B, L), c)


@helper
def cholesky_solve_backward(g, fac: Tensor, x: Tensor, c) -> tuple:
    """(gB, gL) per system, in double, rounded once."""
    dt = x._t.dtype
    n, k = c.n, c.cols
    gv = g._val if isinstance(g, Tensor) else [g]
    fv, xv = fac._val, x._val
    gb, gl = [], []
    for b in range(math.prod(x._t.shape[:-2])):
        sf, sx = slice(b * n * n, (b + 1) * n * n), slice(b * n * k, (b + 1) * n * k)
        pl, pb = TS.chol_solve_grads(fv[sf], xv[sx], gv[sx], n, k, c.upper)
        gl.extend(dt.round(v) for v in pl)
        gb.extend(dt.round(v) for v in pb)
    return leaf(gb, TensorType(dt, tuple(x._t.shape))), leaf(gl, TensorType(dt, tuple(fac._t.shape)))


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky_inverse(L, upper=False)``: (L L^T)^-1 (``upper``: (U^T U)^-1) from the
    factor's triangle; a zero diagonal element is PyTorch's LinAlgError."""
    L = input
    if not isinstance(L, Tensor):
        raise TypeError(f"cholesky_inverse(): argument 'input' (position 1) must be Tensor, not {type(L).__name__}")
    if L._t.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    n, m = L._t.shape[-2:]
    if n != m:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they are {n} by {m} "
                           "matrices")
    dt = L._t.dtype
    if not dt.is_floating_point or dt.itemsize < 4:
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for '{dt.short}'")
    batch = _batch_of(L)
    out = []
    for b, fac in enumerate(_matrices(L, batch)):
        inv, info = TS.chol_inverse(fac, n, upper)
        if inv is None:
            where = f"(Batch element {b}): " if batch else ""
            raise LinAlgError(f"cholesky_inverse: {where}The diagonal element {info} is zero, the inversion could not "
                              "be completed because the input matrix is singular.")
        out.extend(dt.round(x) for x in inv)
    shape = tuple(L._t.shape)
    c = TS.TriangularInfo(bool(upper), True, False, n, n, n)
    return make(TS.CholeskyInverse, TensorType(dt, shape, column_major_strides(shape)), out, (L,), c)


@helper
def cholesky_inverse_backward(g, fac: Tensor, y: Tensor, c) -> Tensor:
    """gL per matrix, in double, rounded once."""
    dt = y._t.dtype
    n = c.n
    gv = g._val if isinstance(g, Tensor) else [g]
    fv, yv = fac._val, y._val
    out = []
    for b in range(math.prod(y._t.shape[:-2])):
        s = slice(b * n * n, (b + 1) * n * n)
        out.extend(dt.round(v) for v in TS.chol_inverse_grad(fv[s], yv[s], gv[s], n, c.upper))
    return leaf(out, TensorType(dt, tuple(fac._t.shape)))


_TRIANGULAR_SOLVE_WARNING = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
    "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one "
    "of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
    "torch.linalg.solve_triangular(A, B). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "BatchLinearAlgebra.cpp:2273.)")


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> tuple:
    """``torch.triangular_solve(b, A, upper=True, transpose=False, unitriangular=False)``
    (deprecated, PyTorch's warning once): ``(solution, cloned_coefficient)`` of one
    TriangularSolveBackward0 node, the solution X of T X = b (``transpose``: T^T X = b), the
    clone A's copy, both column-major. Batches must have the same shape."""
    if first_time("triangular_solve"):
        warnings.warn(_TRIANGULAR_SOLVE_WARNING, UserWarning, stacklevel=program_stacklevel())
    b = input
    for pos, (arg, x) in enumerate((("input", b), ("A", A)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"triangular_solve(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if b._t.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b._t.ndim} dimensions instead")
    if A._t.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A._t.ndim} dimensions instead")
    n, k = _linear_solve_checks(b, A, "triangular_solve")
    dt = A._t.dtype
    batch = _batch_of(A)
    if _batch_of(b) != batch:
        raise Unsupported("torch.triangular_solve with broadcast batch dimensions")
    sols, clones = [], []
    for a, bb in zip(_matrices(A, batch), _matrices(b, batch)):
        mat, up = TS.effective(a, n, upper, transpose)
        sols.extend(dt.round(x) for x in TS.tri_solve(mat, bb, n, n, k, up, True, unitriangular))
        clones.extend(a)
    c = TS.TriangularSolveInfo(bool(upper), bool(transpose), bool(unitriangular), n, k)
    s_shape, a_shape = batch + (n, k), batch + (n, n)
    types = [TensorType(dt, s_shape, column_major_strides(s_shape)), TensorType(dt, a_shape,
                                                                                column_major_strides(a_shape))]
    solution, clone = several_outputs(TS.TriangularSolve, (b, A), [sols, clones], types, c)
    c.solution = solution
    remember_versions(c, [solution])
    return return_type("triangular_solve")("triangular_solve", solution, clone)


@helper
def triangular_solve_backward(g, a: Tensor, c) -> tuple:
    """(gb, gA) per system from the outputs' gradients (None for one that got none), in double,
    rounded once."""
    check_versions(c, "TriangularSolve")
    dt = a._t.dtype
    n, k = c.n, c.cols
    count = math.prod(a._t.shape[:-2])
    if isinstance(g, list):
        gx = g[0]._val if g[0] is not None else None
        gm = g[1]._val if g[1] is not None else None
    else:  # the SymPy check's probe: one tensor, the solutions' elements then the clones'
        gx, gm = g._val[:count * n * k], g._val[count * n * k:]
    av, xv = a._val, c.solution._val
    gb, ga = [], []
    for b in range(count):
        sa, sx = slice(b * n * n, (b + 1) * n * n), slice(b * n * k, (b + 1) * n * k)
        pb, pa = TS.triangular_solve_grads(av[sa], xv[sx], None if gx is None else gx[sx],
                                           None if gm is None else gm[sa], n, k, c.upper, c.transpose,
                                           c.unitriangular)
        gb.extend(dt.round(v) for v in pb)
        ga.extend(dt.round(v) for v in pa)
    return leaf(gb, TensorType(dt, tuple(c.solution._t.shape))), leaf(ga, TensorType(dt, tuple(a._t.shape)))


def _no_cholesky_double_backward(*args):
    raise Unsupported("the double backward of cholesky_solve, cholesky_inverse or triangular_solve (create_graph=True "
                      "through CholeskySolveBackward0, CholeskyInverseBackward0 or TriangularSolveBackward0)")


graph_helper("cholesky_solve_backward", _no_cholesky_double_backward)
graph_helper("cholesky_inverse_backward", _no_cholesky_double_backward)
graph_helper("triangular_solve_backward", _no_cholesky_double_backward)


def install(method, function) -> None:
    """``torch.cholesky_solve``/``Tensor.cholesky_solve``, ``torch.cholesky_inverse``/``Tensor.cholesky_inverse``."""
    method("cholesky_solve", lambda self, input2, upper=False: cholesky_solve(self, input2, upper))
    function("cholesky_solve", lambda input, input2, upper=False: cholesky_solve(input, input2, upper))
    method("cholesky_inverse", lambda self, upper=False: cholesky_inverse(self, upper))
    method("triangular_solve", lambda self, A, upper=True, transpose=False, unitriangular=False: triangular_solve(
        self, A, upper, transpose, unitriangular))
    function("triangular_solve", triangular_solve)
    function("cholesky_inverse", lambda input, upper=False: cholesky_inverse(input, upper))
