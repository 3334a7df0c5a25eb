"""QR on tensors (``_ops/linalg_qr.py``): ``torch.linalg.qr(A, mode)``, the deprecated
``torch.qr``/``Tensor.qr(some)``: one LinalgQrBackward0 node with outputs Q and R, neither a view.
Computed in double by LAPACK's unblocked Householder algorithm, rounded once. Refused by name:
the gradient of a wide matrix's QR (m < n, PyTorch's other formula) and double backwards."""

from __future__ import annotations

import warnings

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import state as grad_state
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import linalg_qr as QR
from .linalg_outputs import check_versions, remember_versions, several_outputs
from .return_types import return_type
from .tensor import Tensor, leaf
from .tensor_kernel import graph_helper, helper

__all__ = ["linalg_qr", "qr", "install"]

_QR_WARNING = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe boolean "
    "parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be "
    "replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)")


def linalg_qr(A: Tensor, mode: str = "reduced", _kind: str = "linalg_qr", _name: str = "linalg_qr") -> tuple:
    """``torch.linalg.qr(A, mode='reduced')``: (Q, R) of each m x n matrix, A = Q R, Q's columns
    orthonormal, R upper triangular with LAPACK's diagonal signs; mode 'complete' (Q m x m) or
    'r' (Q empty)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{_name}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if A._t.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if not A._t.dtype.is_floating_point:
        raise RuntimeError(f"linalg.qr: Expected a floating point or complex tensor as input. Got {A._t.dtype.short}")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           "'complete'")
    dt = A._t.dtype
    shape = tuple(A._t.shape)
    batch, (m, n) = shape[:-2], shape[-2:]
    k = min(m, n)
    if A._rg and grad_state.enabled and m < n and mode != "r":
        raise Unsupported("the gradient of the QR decomposition of a wide matrix (m < n: linalg_qr_backward's other "
                          "formula)")
    count = 1
    for s in batch:
        count *= s
    qs, rs, signs = [], [], []
    vals = A._val
    for b in range(count):
        q, r, sg = QR.householder_qr(vals[b * m * n:(b + 1) * m * n], m, n, mode)
        qs.extend(dt.round(x) for x in q)
        rs.extend(dt.round(x) for x in r)
        signs.append(sg)
    kq = m if mode == "complete" else k
    q_t = TensorType(dt, batch + (m, kq)) if mode != "r" else TensorType(dt, (0,))
    r_t = TensorType(dt, batch + ((m if mode == "complete" else k), n))
    c = QR.QrInfo(mode, m, n, signs)
    Q, R = several_outputs(QR.LinalgQr, A, [qs, rs], [q_t, r_t], c)
    c.Q, c.R = Q, R
    remember_versions(c, [Q, R])
    return return_type(_kind)(_kind, Q, R)


def qr(input: Tensor, some: bool = True) -> tuple:
    """``torch.qr(input, some=True)`` (deprecated, with PyTorch's warning once): linalg.qr with
    mode 'reduced' or 'complete'."""
    if first_time("torch_qr"):
        warnings.warn(_QR_WARNING, UserWarning, stacklevel=program_stacklevel())
    return linalg_qr(input, "reduced" if some else "complete", "qr", "qr")


@helper
def qr_backward(g, c) -> Tensor:
    """linalg_qr_backward per matrix (m >= n): the outputs' gradients, None as zeros."""
    if c.mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = c.m, c.n
    if c.mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    check_versions(c, "LinalgQr")
    q, r = c.Q, c.R
    dt = q._t.dtype
    nq, nr = m * n, n * n
    count = len(c.signs)
    if isinstance(g, list):
        gq = g[0]._val if g[0] is not None else [0.0] * (nq * count)
        gr = g[1]._val if g[1] is not None else [0.0] * (nr * count)
    else:  # the SymPy check's probe: one tensor, Q's elements then R's
        gq, gr = g._val[:nq * count], g._val[nq * count:]
    out = []
    for b in range(count):
        out.extend(dt.round(x) for x in QR.qr_grad(q._val[b * nq:(b + 1) * nq], r._val[b * nr:(b + 1) * nr],
                                                    gq[b * nq:(b + 1) * nq], gr[b * nr:(b + 1) * nr], m, n))
    shape = tuple(q._t.shape[:-2]) + (m, n)
    return leaf(out, TensorType(dt, shape))


def _no_qr_double_backward(g, c):
    raise Unsupported("the double backward of qr (create_graph=True through LinalgQrBackward0)")


graph_helper("qr_backward", _no_qr_double_backward)


def install(method, function) -> None:
    method("qr", lambda self, some=True: qr(self, some))
    function("qr", lambda input, some=True: qr(input, some))
