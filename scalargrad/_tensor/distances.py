"""``torch.cdist(x1, x2, p=2.0, compute_mode=...)`` (``_ops/distances.py``): the p-norm distance
of every row of x1 to every row of x2, batched, as ATen's ``cdist`` picks its path: for p = 2
the matrix-product formula (EuclideanDistBackward0 under a view) when either side has more than
25 rows (``use_mm_for_euclid_dist_if_necessary``, the default) or always
(``use_mm_for_euclid_dist``), else the direct kernel (CdistBackward0). Batch dimensions that
differ (broadcast) are refused by name under autograd, as are double backwards."""

from __future__ import annotations

import math

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._ops import distances as D
from .operands import broadcast_shapes, positions
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper
from .views import expand, view

__all__ = ["cdist", "install"]

_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


def _rows(x: Tensor, batch: tuple) -> list:
    """Per batch element (``x``'s batch broadcast to ``batch``), its rows."""
    shape = tuple(x._t.shape)
    r, m = shape[-2:]
    vals = x._val
    idx = positions(shape[:-2], batch) if batch else [0]
    return [[vals[(b * r + i) * m:(b * r + i + 1) * m] for i in range(r)] for b in idx]


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """``torch.cdist``: (..., r1, r2) distances of x1 (..., r1, m) and x2 (..., r2, m)."""
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for pos, (arg, x) in enumerate((("x1", x1), ("x2", x2)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"cdist(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")
    for arg, x in (("X1", x1), ("X2", x2)):
        if not x._t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {arg} got: {x._t.dtype.short}")
    for arg, x in (("X1", x1), ("X2", x2)):
        if x._t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {arg} got: {x._t.ndim}D")
    m1, m2 = x1._t.shape[-1], x2._t.shape[-1]
    if m1 != m2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {m1} X2: {m2}")
    p = float(p)
    if not p >= 0.0:
        raise RuntimeError("cdist only supports non-negative p values")
    dt = x1._t.dtype
    if x2._t.dtype is not dt:
        raise RuntimeError(f"expected scalar type {dt.short} but found {x2._t.dtype.short}")
    if dt.itemsize < 4:
        raise NotImplementedError(f"\"cdist\" not implemented for '{dt.short}'")
    batch = broadcast_shapes(tuple(x1._t.shape[:-2]), tuple(x2._t.shape[:-2]))
    if any(tuple(x._t.shape[:-2]) != batch for x in (x1, x2)):
        if is_grad_enabled() and (x1._rg or x2._rg):
            raise Unsupported("the gradient of torch.cdist with broadcast batch dimensions")
        x1 = expand(x1, *(batch + tuple(x1._t.shape[-2:])))
        x2 = expand(x2, *(batch + tuple(x2._t.shape[-2:])))
    r1, r2 = x1._t.shape[-2], x2._t.shape[-2]
    mode = _MODES[compute_mode]
    euclid = p == 2.0 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    r = dt.round
    out = []
    for rows1, rows2 in zip(_rows(x1, batch), _rows(x2, batch)):
        for u in rows1:
            for v in rows2:
                out.append(r(D.euclid_value(u, v, r) if euclid else D.cdist_value(u, v, p)))
    shape = batch + (r1, r2)
    c = D.CdistInfo(p, m1)
    if not euclid:
        return make(D.Cdist, TensorType(dt, shape), out, (x1, x2), c)
    if batch:  # ATen's product path works on 3-D views and views the result back
        raise Unsupported("torch.cdist's matrix-product path (p=2, more than 25 rows) on batched inputs")
    return view(make(D.EuclideanDist, TensorType(dt, shape), out, (x1, x2), c), *shape)


@helper
def cdist_backward(g, x1: Tensor, x2: Tensor, y: Tensor, c) -> tuple:
    """(g1, g2): sum over the other side's rows of grad * d dist / d row, in double, rounded once."""
    dt = y._t.dtype
    batch = tuple(y._t.shape[:-2])
    r1, r2 = y._t.shape[-2:]
    m = c.m
    gv = g._val if isinstance(g, Tensor) else [g]
    yv = y._val
    g1, g2 = [], []
    for b, (rows1, rows2) in enumerate(zip(_rows(x1, batch), _rows(x2, batch))):
        acc1 = [[[] for _ in range(m)] for _ in range(r1)]
        acc2 = [[[] for _ in range(m)] for _ in range(r2)]
        for i, u in enumerate(rows1):
            for j, v in enumerate(rows2):
                e = (b * r1 + i) * r2 + j
                gij, dist = gv[e], yv[e]
                for k in range(m):
                    t = gij * D.cdist_partial(u[k] - v[k], dist, c.p)
                    acc1[i][k].append(t)
                    acc2[j][k].append(-t)
        g1.extend(dt.round(math.fsum(a)) for row in acc1 for a in row)
        g2.extend(dt.round(math.fsum(a)) for row in acc2 for a in row)
    return leaf(g1, TensorType(dt, tuple(x1._t.shape))), leaf(g2, TensorType(dt, tuple(x2._t.shape)))


def _no_double_backward(g, x1, x2, y, c):
    raise Unsupported("the double backward of torch.cdist (create_graph=True through CdistBackward0 or "
                      "EuclideanDistBackward0)")


graph_helper("cdist_backward", _no_double_backward)


def install(method, function) -> None:
    function("cdist", cdist, checked=False)
