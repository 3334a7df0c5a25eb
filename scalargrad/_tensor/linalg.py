"""The determinant of a square matrix or a batch of them (``torch.det``, ``Tensor.det``,
``torch.linalg.det``): one LinalgDetBackward0 node, from LAPACK's partial-pivoting LU
(``_ops/linalg.py``). Under create_graph its gradient (and inverse's) is PyTorch's grad-mode
formula in tensor ops, PyTorch's nodes, for a second derivative; det's near a singular matrix
(PyTorch's SVD path) is refused by name. The cross product of
3-vectors (``torch.linalg.cross``, ``torch.cross``, ``Tensor.cross``), broadcast: one
LinalgCrossBackward0 node, whose gradients are crosses again (nodes under create_graph)."""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import no_grad
from .._base.layout import column_major_strides
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import linalg as LA
from . import linalg_lu, linalg_qr, linalg_triangular
from .comparison import where
from .linalg_errors import LinAlgError
from .linalg_outputs import check_versions, remember_versions, several_outputs
from .operands import broadcast_shapes, positions
from .products import matmul
from .return_types import return_type
from .selection import diag_embed
from .tensor import Tensor, leaf, make
from .tensor_kernel import as_tensor, graph_helper, helper
from .views import expand, mT, unsqueeze

__all__ = ["det", "linalg_det", "linalg_cross", "cross", "cholesky", "linalg_cholesky", "cholesky_ex", "LinAlgError",
           "inverse", "linalg_inv", "linalg_inv_ex", "slogdet", "linalg_slogdet", "logdet", "install"]


def _matrices(x: Tensor) -> tuple:
    """(batch shape, n, list of row-major matrices) of a (..., n, n) tensor."""
    shape = tuple(x._t.shape)
    n = shape[-1]
    vals = x._val
    size = n * n
    count = 1
    for s in shape[:-2]:
        count *= s  # each matrix of a batch, empty ones (n = 0) included
    return shape[:-2], n, [vals[i * size:(i + 1) * size] for i in range(count)]


def _check(x, name: str, arg: str, what: str = "linalg.det") -> None:
    """``x``, the argument ``arg`` of ``name``, is a batch of square floating-point matrices:
    ATen's ``squareCheckInputs`` and ``checkFloatingOrComplex``, in the words of ``what``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {type(x).__name__}")
    if x._t.ndim < 2:
        raise RuntimeError(f"{what}: The input tensor A must have at least 2 dimensions.")
    n, m = x._t.shape[-2:]
    if n != m:
        raise RuntimeError(f"{what}: A must be batches of square matrices, but they are {n} by {m} matrices")
    if not x._t.dtype.is_floating_point:
        raise RuntimeError(f"{what}: Expected a floating point or complex tensor as input. Got {x._t.dtype.short}")


def _lapack_type(dt, shape) -> TensorType:
    """The type of a (..., n, n) result ATen computes with LAPACK: its batches of column-major
    matrices (``x.inverse().stride()`` is (1, n); inverse's own gradient, two matrix products,
    is row-major)."""
    return TensorType(dt, tuple(shape), column_major_strides(shape))


def det(A: Tensor, _name: str = "linalg_det", _arg: str = "A") -> Tensor:
    """``det(A)``: the determinant of each n x n matrix of ``A`` (..., n, n)."""
    _check(A, _name, _arg)
    dt = A._t.dtype
    batch, n, mats = _matrices(A)
    lus, pivs, values = [], [], []
    for a in mats:
        lu, piv, swaps = LA.lu_factor(LA.transposed(a, n), n)
        d = -1.0 if swaps % 2 else 1.0
        for i in range(n):
            d *= lu[i * (n + 1)]
        lus.extend(dt.round(x) for x in lu)
        pivs.extend(piv)
        values.append(dt.round(d))
    c = LA.DetFactors(leaf(lus, TensorType(dt, tuple(A._t.shape))) if lus else leaf([], TensorType(dt, A._t.shape)),
                      leaf(pivs, TensorType(dtypes.int32, batch + (n,))) if batch or n else
                      leaf([], TensorType(dtypes.int32, (0,))), n)
    return make(LA.LinalgDet, TensorType(dt, batch), values if batch else values[0], (A,), c)


def linalg_det(A: Tensor) -> Tensor:
    """``torch.linalg.det(A)``."""
    return det(A)


@helper
def linalg_det_backward(g, a: Tensor, y: Tensor, c) -> Tensor:
    """``(grad * det) * A^-T`` per matrix, through A's LU (zero where det is exactly 0); of 1 x 1
    matrices, ``grad`` itself (PyTorch's, whatever a is: not (grad * a) / a)."""
    dt = a._t.dtype
    gs = g._val if isinstance(g, Tensor) else g
    gs = gs if isinstance(gs, list) else [gs]
    ys = y._val if isinstance(y._val, list) else [y._val]
    _, n, mats = _matrices(a)
    out = []
    for m, gv, yv in zip(mats, gs, ys):
        out.extend([dt.round(gv)] if n == 1 else (dt.round(x) for x in LA.inverse_transpose(m, n, dt.round(gv * yv))))
    return leaf(out, _lapack_type(dt, a._t.shape))


_SINGULAR_BELOW = {"float32": 100 * 2.0 ** -23, "float64": 100 * 2.0 ** -52}
"""``100 * eps`` of the dtype: the |det| under which PyTorch's double-backward formula takes a
matrix as singular (``masked_fmap(det.abs() < 100. * eps, singular, non_singular, ...)``)."""


def _det_backward_recorded(g, a: Tensor, y: Tensor, c) -> Tensor:
    """Under create_graph: FunctionsManual's ``linalg_det_backward`` in grad mode, each op a node
    (PyTorch's names): 1 x 1 matrices, grad unsqueezed twice and expanded (ExpandBackward0);
    else ``d = diag_embed((grad * det).unsqueeze(-1).expand_as(pivots)).mT`` and
    ``linalg_solve(A.mH, d)`` (LinalgSolveExBackward0), which PyTorch takes for the matrices
    whose |det| is at least 100 eps. Below that PyTorch differentiates an SVD (LinalgSvdBackward0,
    cumprod...), which scalargrad does not have: refused by name."""
    if not a._t.numel:  # PyTorch returns no gradient there; zero elements either way
        return linalg_det_backward(g, a, y, c)
    g = as_tensor(g, y)
    if c.n == 1:
        return expand(unsqueeze(unsqueeze(g, -1), -1), *a._t.shape)
    ys = y._val if isinstance(y._val, list) else [y._val]
    below = _SINGULAR_BELOW.get(a._t.dtype.name)
    if below is None:  # PyTorch's LU has no half-precision kernel
        raise Unsupported(f"the double backward of det of {a._t.dtype.short} matrices")
    if any(not abs(v) >= below for v in ys):
        raise Unsupported("the double backward of det at a matrix whose |det| is below 100 eps (create_graph=True "
                          "through LinalgDetBackward0: PyTorch differentiates an SVD there)")
    d = mT(diag_embed(expand(unsqueeze(g * y, -1), c.result2._t.shape)))
    return linalg_lu.linalg_solve(mT(a), d)


graph_helper("linalg_det_backward", _det_backward_recorded)


def _flat(x: Tensor) -> list:
    return x._val if x._t.ndim else [x._val]


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``torch.linalg.cross(input, other, dim=-1)``: the cross product along ``dim`` (of size 3)
    of ``input`` and ``other`` broadcast together."""
    for pos, (arg, x) in enumerate((("input", input), ("other", other))):
        if not isinstance(x, Tensor):
            raise TypeError(f"linalg_cross(): argument '{arg}' (position {pos + 1}) must be Tensor, not "
                            f"{type(x).__name__}")
    if input._t.ndim != other._t.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    a_dt, b_dt = input._t.dtype, other._t.dtype
    if a_dt is not b_dt:
        raise RuntimeError(f"expected scalar type {a_dt.short} but found {b_dt.short}")
    shape = broadcast_shapes(tuple(input._t.shape), tuple(other._t.shape))
    nd = len(shape)
    if not -nd <= dim < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    d = dim % nd
    sa, sb = input._t.shape[d], other._t.shape[d]
    if sa != 3 or sb != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {sa} and {sb}")
    with no_grad():
        av, bv = _flat(input), _flat(other)
    pa, pb = positions(tuple(input._t.shape), shape), positions(tuple(other._t.shape), shape)
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    r = a_dt.round
    out = []
    for o in range(len(pa)):
        i = (o // inner) % 3
        base = o - i * inner
        j, k = base + ((i + 1) % 3) * inner, base + ((i + 2) % 3) * inner
        out.append(r(LA.LinalgCross.forward(r, av[pa[j]], bv[pb[k]], av[pa[k]], bv[pb[j]])))
    return make(LA.LinalgCross, TensorType(a_dt, shape), out, (input, other), LA.CrossDim(d, dim))




def cross(input: Tensor, other: Tensor, dim=None) -> Tensor:
    """``torch.cross(input, other, dim=None)``: ``linalg.cross`` along ``dim``; without it, along
    the first dimension of ``input`` of size 3, with PyTorch's deprecation warning (once)."""
    if dim is None:
        if first_time("cross_no_dim"):
            warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                          "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to "
                          "agree with that of linalg.cross in a future release. (Triggered internally at "
                          "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)", UserWarning,
                          stacklevel=program_stacklevel())
        sizes = tuple(input._t.shape) if isinstance(input, Tensor) else ()
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    return linalg_cross(input, other, dim=dim)


@helper
def linalg_cross_grad(a, b, dim):
    return linalg_cross(a, b, dim=dim)


_CHOLESKY_WARNING = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
    "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
    "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform "
    "will produce equivalent results for all valid (symmetric positive definite) inputs. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")


def _factor(A: Tensor, upper: bool, op, name: str, arg: str, what: str | None = None) -> Tensor:
    _check(A, "linalg_cholesky" if op is LA.LinalgCholeskyEx else "cholesky", arg, what or name)
    dt = A._t.dtype
    batch, n, mats = _matrices(A)
    out = []
    for b, a in enumerate(mats):
        lo, info = LA.cholesky_lower(a, n)
        if lo is None:
            where = f"(Batch element {b}): " if batch else ""
            raise LinAlgError(f"{name}: {where}The factorization could not be completed because the input is not "
                              f"positive-definite (the leading minor of order {info} is not positive-definite).")
        out.extend(dt.round(x) for x in (LA.transposed(lo, n) if upper else lo))
    return make(op, _lapack_type(dt, A._t.shape), out, (A,), LA.CholeskyInfo(bool(upper), n))


def linalg_cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """``torch.linalg.cholesky(A, upper=False)``: L lower triangular with L L^T = A (A's lower
    triangle read), or U = L^T."""
    return _factor(A, upper, LA.LinalgCholeskyEx, "linalg.cholesky", "A")


def cholesky_ex(input: Tensor, *, upper: bool = False, check_errors: bool = False) -> tuple:
    """``torch.linalg.cholesky_ex(A, upper=False, check_errors=False)``: (L, info), L as
    linalg.cholesky's (LinalgCholeskyExBackward0), info int32 zeros of the batch shape. A matrix
    that is not positive-definite is PyTorch's LinAlgError with check_errors; without it PyTorch
    returns LAPACK's partial factor and info > 0, which scalargrad refuses by name."""
    if not isinstance(input, Tensor):
        raise TypeError(f"linalg_cholesky_ex(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    try:
        L = _factor(input, upper, LA.LinalgCholeskyEx, "linalg.cholesky_ex", "input", "linalg.cholesky")
    except LinAlgError:
        if check_errors:
            raise
        raise Unsupported("linalg.cholesky_ex of a matrix that is not positive-definite with check_errors=False",
                          "PyTorch returns LAPACK's partial factor there, whose order of updates scalargrad does "
                          "not reproduce") from None
    batch = tuple(input._t.shape[:-2])
    info = leaf([0] * _count(batch) if batch else 0, TensorType(dtypes.int32, batch))
    return return_type("linalg_cholesky_ex")("linalg_cholesky_ex", L, info)


def _count(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky(input, upper=False)`` (deprecated, CholeskyBackward0), with PyTorch's
    warning once."""
    if first_time("torch_cholesky"):
        warnings.warn(_CHOLESKY_WARNING, UserWarning, stacklevel=program_stacklevel())
    if isinstance(input, Tensor) and not input._t.numel:
        # ATen returns empty_like(input) before any check (any shape, any dtype), row-major
        t = TensorType(input._t.dtype, tuple(input._t.shape))
        return make(LA.Cholesky, t, [], (input,), LA.CholeskyInfo(bool(upper), t.shape[-1] if t.shape else 0))
    return _factor(input, upper, LA.Cholesky, "cholesky", "input")


@helper
def cholesky_backward(g, y: Tensor, c) -> Tensor:
    """cholesky_backward per matrix (the factor transposed first when upper), rounded once."""
    dt = y._t.dtype
    shape = y._t.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:  # torch.cholesky of an empty non-matrix: ATen's backward fails
        if len(shape) < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                               f"{len(shape)}-D tensor.")
        rows, cols = shape[-2:] if c.upper else shape[-2:][::-1]
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are {rows} by "
                           f"{cols} matrices")
    n = c.n
    size = n * n
    gv, yv = g._val, y._val
    out = []
    for b in range(len(yv) // size if size else 0):
        lo, gl = yv[b * size:(b + 1) * size], gv[b * size:(b + 1) * size]
        if c.upper:
            lo, gl = LA.transposed(lo, n), LA.transposed(gl, n)
        out.extend(dt.round(x) for x in LA.cholesky_grad(lo, gl, n))
    return leaf(out, _lapack_type(dt, y._t.shape))


def _no_cholesky_double_backward(g, y, c):
    # PyTorch's grad-mode cholesky_backward ends in two linalg.solve_triangular calls
    # (LinalgSolveTriangularBackward0), whose own create_graph backward scalargrad refuses
    raise Unsupported("the double backward of cholesky (create_graph=True through its backward: PyTorch's "
                      "linalg.solve_triangular nodes)")


graph_helper("cholesky_backward", _no_cholesky_double_backward)


def inverse(A: Tensor, _name: str = "inverse", _arg: str = "input", _what: str = "linalg.inv",
            _singular: bool = False) -> tuple | Tensor:
    """``torch.inverse(input)``, ``torch.linalg.inv(A)``: A^-1 of each n x n matrix, through its
    LU; a matrix whose U has an exactly zero diagonal element raises PyTorch's LinAlgError. With
    ``_singular`` (``linalg.inv_ex``), (inverse, getrf's infos) instead: a singular matrix's
    "inverse" is getrs's solve with the identity through the zero pivot (its infs and nans, as
    ``linalg.lu_solve`` of ``lu_factor_ex``'s factors)."""
    _check(A, _name, _arg, "linalg.inv")
    dt = A._t.dtype
    batch, n, mats = _matrices(A)
    out, infos = [], []
    for b, a in enumerate(mats):
        inv, info = LA.inverse_of(a, n)
        infos.append(info)
        if inv is None and _singular:
            lu, piv, _ = LA.lu_factor(a, n)
            eye = [float(i == j) for i in range(n) for j in range(n)]
            inv = LA.lu_solve_of([dt.round(x) for x in lu], piv, eye, n, n)
        elif inv is None:
            where = f"(Batch element {b}): " if batch else ""
            raise LinAlgError(f"{_what}: {where}The diagonal element {info} is zero, the inversion could not be "
                              "completed because the input matrix is singular.")
        out.extend(dt.round(x) for x in inv)
    y = make(LA.LinalgInvEx, _lapack_type(dt, A._t.shape), out, (A,), n)
    if not _singular:
        return y
    info = leaf(infos if batch else infos[0], TensorType(dtypes.int32, batch))
    return return_type("linalg_inv_ex")("linalg_inv_ex", y, info)


def linalg_inv_ex(A: Tensor, *, check_errors: bool = False) -> tuple:
    """``torch.linalg.inv_ex(A, check_errors=False)``: (inverse, info), the inverse as
    ``linalg.inv``'s (LinalgInvExBackward0) and info getrf's (int32, the batch's shape: 0, or the
    1-based index of U's first zero diagonal element). A singular matrix raises LinAlgError with
    ``check_errors``, else gives getrs's solve through the zero pivot."""
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg_inv_ex(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if check_errors:
        y = inverse(A, "linalg_inv_ex", "A", "linalg.inv_ex")
        batch = tuple(A._t.shape[:-2])
        info = leaf([0] * _count(batch) if batch else 0, TensorType(dtypes.int32, batch))
        return return_type("linalg_inv_ex")("linalg_inv_ex", y, info)
    return inverse(A, "linalg_inv_ex", "A", "linalg.inv_ex", _singular=True)


def linalg_inv(A: Tensor) -> Tensor:
    """``torch.linalg.inv(A)``."""
    return inverse(A, "linalg_inv", "A")


@helper
def linalg_inv_backward(g: Tensor, y: Tensor, n: int) -> Tensor:
    """derivatives.yaml's formula as ATen runs it, ``-matmul(inverse.mH(), matmul(grad,
    inverse.mH()))`` (mH is mT on real tensors): each product rounded by scalargrad's mm/bmm
    kernel, as PyTorch's rounds by its own (so the fuzzer's kernel rule sees PyTorch's order);
    under create_graph each op is a node of its own (NegBackward0, MmBackward0/BmmBackward0, two
    TransposeBackward0), as ATen's."""
    return -matmul(mT(y), matmul(g, mT(y)))


class SlogdetFactors(LA.DetFactors):
    """What a slogdet node keeps: det's LU and pivots, the sign output (``_saved_sign``) and the
    outputs' types and flat positions in the node's value (sign's elements, then log|det|'s)."""

    __slots__ = ("sign", "outputs", "outputs_types", "versions")


def slogdet(A: Tensor, _name: str = "linalg_slogdet", _arg: str = "A", _kind: str = "linalg_slogdet",
            _what: str = "linalg.slogdet") -> tuple:
    """``(sign, logabsdet)`` of each n x n matrix of ``A`` (..., n, n): the outputs of one
    LinalgSlogdetBackward0 node, neither a view. log|det| is summed in double and rounded once
    (PyTorch's float32 log and sum are machine-dependent: the tests bound it)."""
    _check(A, _name, _arg, _what)
    dt = A._t.dtype
    batch, n, mats = _matrices(A)
    lus, pivs, signs, logs = [], [], [], []
    for a in mats:
        sign, la, lu, piv = LA.slogdet_of(a, n)
        lus.extend(dt.round(x) for x in lu)
        pivs.extend(piv)
        signs.append(sign)
        logs.append(dt.round(la))
    t = TensorType(dt, batch)
    c = SlogdetFactors(leaf(lus, TensorType(dt, tuple(A._t.shape))),
                       leaf(pivs, TensorType(dtypes.int32, batch + (n,))) if batch or n else
                       leaf([], TensorType(dtypes.int32, (0,))), n)
    outs = several_outputs(LA.LinalgSlogdet, A, [signs, logs], [t, t], c)
    c.sign = outs[0]
    remember_versions(c, outs[:1])
    return return_type(_kind)(_kind, *outs)


def linalg_slogdet(A: Tensor) -> tuple:
    """``torch.linalg.slogdet(A)``: ``torch.return_types.linalg_slogdet(sign, logabsdet)``."""
    return slogdet(A)


def logdet(input: Tensor) -> Tensor:
    """``torch.logdet(input)``: log|det| where det >= 0, nan where det < 0, as ATen's
    ``where(sign == -1, nan, logabsdet)`` (WhereBackward0 over slogdet's second output)."""
    sign, logabsdet = slogdet(input, "logdet", "input", "slogdet", "logdet")
    return where(sign == -1.0, float("nan"), logabsdet)


@helper
def slogdet_backward(g, a: Tensor, c) -> Tensor | None:
    """``grad_logabsdet * A^-T`` per matrix, through A's LU; None (no gradient) without one. ``g``
    is the outputs' gradients (the engine's), or one tensor of the node's value, signs then
    log|det|s (the SymPy check's probe)."""
    check_versions(c, "LinalgSlogdet")
    _, n, mats = _matrices(a)
    if isinstance(g, list):
        glog = g[1]
        if glog is None:
            return None
        gs = glog._val if isinstance(glog, Tensor) else glog
        gs = gs if isinstance(gs, list) else [gs]
    else:
        gs = g._val[len(mats):]
    dt = a._t.dtype
    out = []
    for m, gv in zip(mats, gs):
        out.extend(dt.round(x) for x in LA.inverse_transpose(m, n, gv))
    return leaf(out, _lapack_type(dt, a._t.shape))


def _no_slogdet_double_backward(g, a, c):
    raise Unsupported("the double backward of slogdet (create_graph=True through LinalgSlogdetBackward0: "
                      "PyTorch's lu_solve nodes)")


graph_helper("slogdet_backward", _no_slogdet_double_backward)


def install(method, function) -> None:
    """Bind the spellings on Tensor (``method(name, fn)``) and in torch (``function``)."""
    method("det", det)
    function("det", lambda input: det(input, "det", "input"))
    method("cross", lambda self, other, dim=None: cross(self, other, dim))
    function("cross", lambda input, other, dim=None: cross(input, other, dim))
    method("cholesky", lambda self, upper=False: cholesky(self, upper))
    function("cholesky", lambda input, upper=False: cholesky(input, upper))
    method("inverse", lambda self: inverse(self))
    function("inverse", lambda input: inverse(input))
    method("slogdet", lambda self: slogdet(self, "slogdet", "input", "slogdet", "linalg.slogdet"))
    function("slogdet", lambda input: slogdet(input, "slogdet", "input", "slogdet", "linalg.slogdet"))
    method("logdet", logdet)
    function("logdet", logdet)
    linalg_lu.install(method, function)
    linalg_qr.install(method, function)
    linalg_triangular.install(method, function)
