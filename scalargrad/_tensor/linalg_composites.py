"""The composites of ``torch.linalg`` that ATen writes in terms of other ops
(``LinearAlgebra.cpp``, ``BatchLinearAlgebra.cpp``): ``matrix_power`` (and ``torch.matrix_power``,
``Tensor.matrix_power``), ``vecdot``, ``solve_ex``, ``tensorinv`` and ``tensorsolve``.

Each is composed of scalargrad's own ops in ATen's order, so values, strides and the graph are
theirs: ``matrix_power(A, 5)`` is the binary decomposition's MmBackward0 chain, ``tensorinv`` a
reshape of ``linalg.inv``'s column-major result (ReshapeAliasBackward0 over
LinalgInvExBackward0), ``tensorsolve`` a ViewBackward0 over LinalgSolveExBackward0, ``vecdot``
``(x * y).sum(dim)`` (SumBackward1 over MulBackward0)."""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .linalg import LinAlgError, inverse
from .linalg_lu import linalg_solve
from .products import matmul
from .ranges import eye
from .return_types import return_type
from .tensor import Tensor, leaf
from .views import clone, contiguous_format, movedim, reshape

__all__ = ["matrix_power", "vecdot", "solve_ex", "tensorinv", "tensorsolve", "install"]


def _not_tensor(name: str, arg: str, pos: int, x) -> TypeError:
    return TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _no_out(name: str, out) -> None:
    if out is not None:
        raise Unsupported(f"torch.{name}(out=...)", "the composite is computed without an out= tensor")


def matrix_power(A: Tensor, n: int, *, out: Tensor | None = None, _name: str = "linalg_matrix_power",
                 _arg: str = "A") -> Tensor:
    """``torch.linalg.matrix_power(A, n)``: A^n of each square matrix (any dtype; a negative n
    inverts first, which needs a floating dtype). ATen's order: n = 0 the identity copied into a
    contiguous clone (CopyBackwards), 1 a clone, -1 ``linalg.inv``, 2 and 3 ``matmul(a, a)`` and
    ``matmul(matmul(a, a), a)``, above that the binary decomposition from the lowest bit
    (``z = z @ z``; ``result = result @ z`` where the bit is 1)."""
    if not isinstance(A, Tensor):
        raise _not_tensor(_name, _arg, 1, A)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{_name}(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    _no_out("linalg.matrix_power", out)
    if A._t.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    rows, cols = A._t.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {rows} by "
                           f"{cols} matrices")
    if n == 0:
        return clone(A, memory_format=contiguous_format).copy_(eye(rows, dtype=A._t.dtype))
    if n == 1:
        return clone(A, memory_format=contiguous_format)
    if n == -1:
        return inverse(A, "linalg_inv", "A")
    a = inverse(A, "linalg_inv", "A") if n < 0 else A
    n = abs(n)
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """``torch.linalg.vecdot(x, y, *, dim=-1)``: the dot products along ``dim`` of the broadcast
    operands, ATen's ``(x.conj() * y).sum(dim)`` (real: SumBackward1 over MulBackward0)."""
    for pos, (arg, t) in enumerate((("x", x), ("y", y))):
        if not isinstance(t, Tensor):
            raise _not_tensor("linalg_vecdot", arg, pos + 1, t)
    _no_out("linalg.vecdot", out)
    if not x._t.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{x._t.dtype.short}")
    if x._t.dtype is not y._t.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x._t.dtype.short} and y of type {y._t.dtype.short} instead")
    return (x * y).sum(dim)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False,
             out: tuple | None = None) -> tuple:
    """``torch.linalg.solve_ex(A, B, *, left=True, check_errors=False)``: (result, info), the
    result ``linalg.solve``'s (LinalgSolveExBackward0), info getrf's zeros (int32, A's batch
    shape). A singular A raises LinAlgError with ``check_errors``; without it PyTorch returns
    LAPACK's partial solve (its infs and nans) with info > 0, which scalargrad refuses."""
    _no_out("linalg.solve_ex", out)
    try:
        result = linalg_solve(A, B, left=left)
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("torch.linalg.solve:", "torch.linalg.solve_ex:")) from None
        raise Unsupported("torch.linalg.solve_ex(check_errors=False) of a singular matrix",
                          "PyTorch returns LAPACK's partial solve through the zero pivot there") from None
    batch = tuple(A._t.shape[:-2])
    count = 1
    for s in batch:
        count *= s
    info = leaf([0] * count if batch else 0, TensorType(dtypes.int32, batch))
    return return_type("linalg_solve_ex")("linalg_solve_ex", result, info)


def tensorinv(A: Tensor, ind: int = 2, *, out: Tensor | None = None) -> Tensor:
    """``torch.linalg.tensorinv(A, ind=2)``: the inverse of A read as a prod(shape[:ind]) x
    prod(shape[ind:]) matrix, shaped shape[ind:] + shape[:ind]."""
    if not isinstance(A, Tensor):
        raise _not_tensor("linalg_tensorinv", "A", 1, A)
    if isinstance(ind, bool) or not isinstance(ind, int):
        raise TypeError(f"linalg_tensorinv(): argument 'ind' (position 2) must be int, not {type(ind).__name__}")
    _no_out("linalg.tensorinv", out)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A._t.shape)
    end, start = shape[ind:], shape[:ind]
    p_end = p_start = 1
    for s in end:
        p_end *= s
    for s in start:
        p_start *= s
    if p_end != p_start:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {p_end} != {p_start}")
    return reshape(inverse(reshape(A, (p_end, p_end)), "linalg_tensorinv", "A", "inv"), end + start)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out: Tensor | None = None) -> Tensor:
    """``torch.linalg.tensorsolve(A, B, dims=None)``: X with tensordot(A, X, X.ndim) = B: A's
    ``dims`` moved to the end, A reshaped to a square matrix, ``linalg.solve`` with B flattened,
    the result shaped A.shape[B.ndim:]."""
    for pos, (arg, t) in enumerate((("A", A), ("B", B))):
        if not isinstance(t, Tensor):
            raise _not_tensor("linalg_tensorsolve", arg, pos + 1, t)
    _no_out("linalg.tensorsolve", out)
    nd = A._t.ndim
    a = A
    if dims is not None:
        dims = tuple(dims)
        a = movedim(a, dims, tuple(range(nd - len(dims), nd)))
    result_shape = tuple(a._t.shape[B._t.ndim:])
    p_result = p_other = 1
    for s in result_shape:
        p_result *= s
    for s in B._t.shape:
        p_other *= s
    if p_result != p_other:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {p_result} != {p_other}")
    return reshape(linalg_solve(reshape(a, (p_result, p_result)), B.flatten()), result_shape)


def install(method, function) -> None:
    """``torch.matrix_power(input, n)`` and ``Tensor.matrix_power(n)``: linalg.matrix_power."""
    function("matrix_power", lambda input, n, *, out=None: matrix_power(input, n, out=out, _name="matrix_power",
                                                                         _arg="input"))
    method("matrix_power", lambda self, n: matrix_power(self, n, _name="matrix_power", _arg="input"))
