"""Pairwise distances (``torch.cdist``): one node per call, CdistBackward0 (each distance the
p-norm of a row difference) or, on ATen's matrix-product path for p = 2, EuclideanDistBackward0
(sqrt(|x1|^2 + |x2|^2 - 2 x1.x2), clamped at 0).

Values: the direct path's p-norm in double (the powers added exactly, one root) rounded once,
where PyTorch's kernel adds float32 powers (the last bits are machine-dependent: the tests bound
them); the product path in double from the float-rounded squared norms, rounded once, so its
cancellation near equal rows is PyTorch's to within the norms' rounding. Derivatives:
``_cdist_backward`` (ATen's Distance.cpp: 0 for p = 0, sign(diff) for 1, diff |diff|^(p-2) /
dist^(p-1), 0 where the distance is 0, the maximal |diff| alone for inf) and
``_euclidean_dist_backward`` (ratio = grad / dist, 0 where dist is 0: x1 sum(ratio) - ratio x2).
"""

from __future__ import annotations

import math

from .norms import norm_value, sympy_norm
from .table import Op, register

__all__ = ["cdist_value", "euclid_value", "cdist_partial", "CdistInfo", "Cdist", "EuclideanDist"]


def cdist_value(u: list, v: list, p: float) -> float:
    """The p-norm of u - v, in double."""
    return norm_value([a - b for a, b in zip(u, v)], p)


def euclid_value(u: list, v: list, r) -> float:
    """ATen's product path: sqrt(max(0, |u|^2 + |v|^2 - 2 u.v)), the squared norms rounded by
    ``r`` (the dtype's rounding) as PyTorch's sum makes them, the rest in double."""
    nu, nv = r(math.fsum(a * a for a in u)), r(math.fsum(b * b for b in v))
    d2 = math.fsum([nu, nv] + [-2.0 * a * b for a, b in zip(u, v)])
    return math.sqrt(d2) if d2 > 0.0 else 0.0


def cdist_partial(diff: float, dist: float, p: float) -> float:
    """d dist / d u_k for u - v = diff at coordinate k, as ATen's backward kernels take it."""
    if p == 0.0 or dist == 0.0 or dist != dist:
        return 0.0
    if p == 1.0:
        return math.copysign(1.0, diff) if diff else 0.0
    if p == 2.0:
        return diff / dist
    if p == math.inf:
        return math.copysign(1.0, diff) if abs(diff) == dist and diff else 0.0
    if p < 1.0 and diff == 0.0:
        return 0.0
    if p < 2.0:
        return math.copysign(1.0, diff) * abs(diff) ** (p - 1.0) / dist ** (p - 1.0) if diff else 0.0
    return diff * abs(diff) ** (p - 2.0) / dist ** (p - 1.0)


class CdistInfo:
    """What a distance node keeps: p, the rows' length m."""

    __slots__ = ("p", "m")

    def __init__(self, p: float, m: int) -> None:
        self.p, self.m = p, m


@register
class Cdist(Op):
    """torch.cdist's direct path (CdistBackward0): inputs (x1, x2)."""

    name = "CdistBackward0"
    saves, saves_inputs, saves_output = True, True, True
    saved = (("p", "c.p"), ("result", "result"), ("x1", 0), ("x2", 1))

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        return k.cdist_backward(g, ins[0], ins[1], k.out(v), v._c)

    @staticmethod
    def forward(r, *args):
        """|a - b| of two 1-vectors (the form's default element)."""
        return abs(args[0] - args[1])

    @staticmethod
    def sympy(sp, *args, p=2.0):
        """The p-norm of u - v, u and v the two halves of ``args``."""
        m = len(args) // 2
        d = [args[i] - args[m + i] for i in range(m)]
        if p == 0:
            return sum(sp.Piecewise((0, sp.Eq(x, 0)), (1, True)) for x in d)
        return sympy_norm(sp, d, p)


@register
class EuclideanDist(Cdist):
    """torch.cdist's product path for p = 2 (EuclideanDistBackward0)."""

    name = "EuclideanDistBackward0"
    saved = (("result", "result"), ("x1", 0), ("x2", 1))
