"""The normalization family's elements (``_ops/normalization.py``): each element of batch_norm,
layer_norm, group_norm... is a ``NormalizedOf`` its group (training) or of itself with the running
statistics (evaluation), with its weight and bias elements."""

from __future__ import annotations

from .._base import ieee
from .._ops import normalization as NO
from .element_op import ElementOp, exact_number, fsum
from .graph import elements_of

__all__ = ["NormalizedOf"]


class NormalizedOf(ElementOp):
    """An element of batch_norm / layer_norm: ``(x - mean) / sqrt(var + eps) * weight + bias``
    over its group (training), or with the running statistics as constants (evaluation): the op
    table's ``BatchNorm.sympy``. Inputs: the group's elements (training; ``x`` among them) or
    ``x`` alone (evaluation), then the weight and bias elements present. ``c``: (position of
    ``x`` among the inputs, eps, mean, invstd (None in training), parameters present)."""

    name = "normalized"
    c_kind = "object"

    @staticmethod
    def _split(args, c):
        j, eps, mean, invstd, affine = c
        n = len(args) - affine
        group = args[:n]
        w = args[n] if affine >= 1 else 1
        b = args[n + 1] if affine == 2 else 0
        return group, group[j], w, b

    @classmethod
    def sympy(cls, sp, args, c):
        group, x, w, b = cls._split(list(args), c)
        _, eps, mean, invstd, _ = c
        if mean is None:
            return NO.BatchNorm.sympy(sp, x, group, eps=exact_number(sp, eps), weight=w, bias=b)
        return NO.BatchNorm.sympy(sp, x, [x], exact_number(sp, mean), exact_number(sp, invstd), weight=w, bias=b)

    @classmethod
    def _moments(cls, vals, c):
        group, x, w, b = cls._split(list(vals), c)
        _, eps, mean, invstd, _ = c
        if mean is None:
            n = len(group)
            mean = fsum(group) / n
            var = fsum([(a - mean) ** 2 for a in group]) / n
            invstd = ieee.div(1.0, ieee.sqrt(var + eps))  # inf at eps=0 over a constant group
        return group, x, w, b, mean, invstd

    @classmethod
    def value(cls, vals, c):
        group, x, w, b, mean, invstd = cls._moments(vals, c)
        y = (x - mean) * invstd * w
        return y + b, abs(y) + abs(b) + abs(x * invstd * w)

    @classmethod
    def partials(cls, vals, c):
        group, x, w, b, mean, invstd = cls._moments(vals, c)
        j, eps, cmean, _, affine = c
        xhat_j = (x - mean) * invstd
        if cmean is None:
            n = len(group)
            parts = [w * invstd * ((1.0 if i == j else 0.0) - 1.0 / n - (a - mean) * invstd * xhat_j / n)
                     for i, a in enumerate(group)]
        else:
            parts = [w * invstd]
        if affine >= 1:
            parts.append(xhat_j)
        if affine == 2:
            parts.append(1.0)
        return parts

    @classmethod
    def partial_scales(cls, vals, c):
        """The sizes of the terms of each partial (they cancel: a gradient near 0 is rounding)."""
        group, x, w, b, mean, invstd = cls._moments(vals, c)
        j, eps, cmean, _, affine = c
        xhat_j = abs((x - mean) * invstd)
        if cmean is None:
            n = len(group)
            parts = [abs(w * invstd) * (1.0 + 1.0 / n + abs((a - mean) * invstd) * xhat_j / n) for a in group]
        else:
            parts = [abs(w * invstd)]
        if affine >= 1:
            parts.append(xhat_j + abs(x * invstd))
        if affine == 2:
            parts.append(1.0)
        return parts

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5, 0.25], (1, 0.5, None, None, 2)


def _normalized(v, vin, vals):
    norm = v._c
    x = vin[0]
    params = vin[1:]
    spec = []
    for k in range(len(vals)):
        g = norm.group_of[k]
        p = norm.param_of[k]
        extra = tuple((u, p) for u in params)
        if norm.training:
            group = norm.groups[g]
            c = (group.index(k), norm.eps, None, None, len(params))
            spec.append((NormalizedOf, c, tuple((x, i) for i in group) + extra))
        else:
            c = (0, norm.eps, norm.mean[g], norm.invstd[g], len(params))
            spec.append((NormalizedOf, c, ((x, k),) + extra))
    return spec


elements_of(*NO.NORMALIZATION_OPS)(_normalized)
