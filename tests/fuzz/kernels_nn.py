"""The kernel rule's entries for the nn kernels the nn family (``gen_nn.py``) reaches (``kernels.py``).

Each of these ATen CPU kernels computes with code whose last bits depend on the processor, and
the dispatch mode cannot reach inside it to substitute the math functions one by one:

* ``glu`` and ``glu_backward``: ``a * (1 / (1 + exp(-b)))`` with the vectorised exp;
* ``native_group_norm`` and its backward: vectorised moments (``RowwiseMoments``, its order
  the vector width's) and ``scale * x + shift`` fused where the build has FMA;
* ``soft_margin_loss`` and its backward: ``log1p(exp(-x * y))`` with the vectorised exp;
* ``log_sigmoid_forward`` and its backward (``multilabel_soft_margin_loss``): the same exp;
* ``norm.ScalarOpt_dim`` (``pairwise_distance``, the triplet losses): the vector norm's
  reduction, as ``linalg_vector_norm``'s entry in ``kernels.py``.

Every replaced element of scalargrad is checked against the textbook formula evaluated on the
call's own operands with its running error bound (``bounds.Err``, ``within``), as the other
entries are.
"""

from __future__ import annotations

import math

import mpmath

from .bounds import Err, unit_roundoff, within
from .kernels import Kernel, _flat, _grad, _norm_kernel, _to_sg, _unravel, _values

__all__ = ["nn_kernels"]


def _log1p(e: Err) -> Err:
    """log1p of a computed number: its error through 1 / (1 + v), and the library's 1 ulp."""
    low = 1 + e.v - e.e
    if low <= 0:
        return Err(mpmath.log1p(e.v) if e.v > -1 else -mpmath.inf, mpmath.inf, e.dt)
    r = mpmath.log1p(e.v)
    return e._round(r, e.e / low + 2 * unit_roundoff(e.dt) * abs(r))


def _sigmoid(b: float, dt: str) -> Err:
    return 1 / ((-Err(b, 0, dt)).exp() + 1)


# ---------------------------------------------------------------- glu


def _glu_pair(shape: list, dim: int, coords: list) -> tuple[int, int]:
    """Flat indices (in ``shape``, the input's) of the a and b of the output at ``coords``."""
    h = shape[dim] // 2
    a = list(coords)
    b = list(coords)
    b[dim] += h

    def flat(c):
        k = 0
        for s, x in zip(shape, c):
            k = k * s + x
        return k

    return flat(a), flat(b)


def _glu_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
        return [_values(sg.nn.functional.glu(_to_sg(sg, args[0]), dim))]

    def check(args, kwargs, k, i, value, dt, shape):
        x = args[0]
        dim = (args[1] if len(args) > 1 else kwargs.get("dim", -1)) % x.dim()
        xs = _flat(x)
        ia, ib = _glu_pair(list(x.shape), dim, _unravel(i, shape))
        a, b = xs[ia], xs[ib]
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        with mpmath.workprec(200):
            return within(value, _sigmoid(b, dt) * a)

    return Kernel("glu", sg_values, check)


def _glu_backward_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        g, x, dim = args[0], args[1], args[2]
        xs = _to_sg(sg, x, rg=True)
        with _grad(sg, True):
            y = sg.nn.functional.glu(xs, dim)
            gx, = sg.autograd.grad(y, [xs], _to_sg(sg, g))
        return [_values(gx)]

    def check(args, kwargs, k, i, value, dt, shape):
        g, x, dim = args[0], args[1], args[2] % args[1].dim()
        xs, gs = _flat(x), _flat(g)
        coords = _unravel(i, shape)
        h = shape[dim] // 2
        second = coords[dim] >= h
        if second:
            coords[dim] -= h
        ia, ib = _glu_pair(list(shape), dim, coords)
        oshape = list(shape)
        oshape[dim] = h
        go = 0
        for s, c in zip(oshape, coords):
            go = go * s + c
        a, b, gv = xs[ia], xs[ib], gs[go]
        if not all(math.isfinite(v) for v in (a, b, gv)):
            return False
        with mpmath.workprec(200):
            s = _sigmoid(b, dt)
            ref = (1 - s) * s * a * gv if second else s * gv
        return within(value, ref)

    return Kernel("glu_backward", sg_values, check)


# ---------------------------------------------------------------- group_norm


_GROUP_NORM_EPS = (1e-5, 0.5, 0.0, 0.25)
"""The eps values the programs use: native_group_norm_backward is not given eps, only rstd."""


def _group_of(x, n: int, grp: int, group: int) -> list:
    xs = _flat(x)
    row = len(xs) // (x.shape[0] * group) if x.shape[0] * group else 0
    start = (n * group + grp) * row
    return xs[start:start + row]


def _group_norm_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        x, w, b, _, _, _, group, eps = args[:8]
        out = sg.nn.functional.group_norm(_to_sg(sg, x), group, None if w is None else _to_sg(sg, w),
                                          None if b is None else _to_sg(sg, b), eps)
        return [_values(out)]

    def check(args, kwargs, k, i, value, dt, shape):
        x, w, b, N, C, HxW, group, eps = args[:8]
        n, rest = divmod(i, C * HxW)
        c = rest // HxW
        xs = _group_of(x, n, c // (C // group), group)
        xv = _flat(x)[i]
        if not all(math.isfinite(v) for v in xs):
            return False
        with mpmath.workprec(200):
            mean = Err.sum([Err(v, 0, dt) for v in xs], dt) / len(xs)
            var = Err.sum([(Err(v, 0, dt) - mean) * (Err(v, 0, dt) - mean) for v in xs], dt) / len(xs)
            ref = (Err(xv, 0, dt) - mean) / (var + eps).sqrt()
            if w is not None:
                ref = ref * float(_flat(w)[c])
            if b is not None:
                ref = ref + float(_flat(b)[c])
        return within(value, ref)

    return Kernel("group_norm", sg_values, check)


def _group_norm_backward_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        g, x, mean, rstd, w, N, C, HxW, group, mask = args[:10]
        # eps: the one of the programs' whose rstd is nearest the call's (the first group's)
        xs = _group_of(x, 0, 0, group) if N else []
        if not xs or not math.isfinite(_flat(rstd)[0]):
            return None
        m = math.fsum(xs) / len(xs)
        var = math.fsum((v - m) ** 2 for v in xs) / len(xs)
        r0 = _flat(rstd)[0]
        eps = min(_GROUP_NORM_EPS, key=lambda e: abs(1 / math.sqrt(var + e) - r0) if var + e > 0 else math.inf)
        xt = _to_sg(sg, x, rg=True)
        # a weight of ones where there is none (scalargrad takes a bias only beside a weight):
        # multiplying by 1 changes no bit of the input's gradient
        wt = _to_sg(sg, w, rg=True) if w is not None else sg.ones(C, dtype=xt.dtype, requires_grad=True)
        bt = sg.zeros(C, dtype=xt.dtype, requires_grad=True)
        with _grad(sg, True):
            y = sg.nn.functional.group_norm(xt, group, wt, bt, eps)
            grads = list(sg.autograd.grad(y, [xt, wt, bt], _to_sg(sg, g), allow_unused=True))
        return [None if not want or gr is None else _values(gr) for gr, want in zip(grads, mask)]

    def check(args, kwargs, k, i, value, dt, shape):
        g, x, mean, rstd, w, N, C, HxW, group = args[:9]
        cpg = C // group
        xv, gv, mv, rv = _flat(x), _flat(g), _flat(mean), _flat(rstd)
        wv = _flat(w) if w is not None else [1.0] * C
        if not all(math.isfinite(v) for v in xv + gv + mv + rv):
            return False
        with mpmath.workprec(200):
            def xhat(j):
                q = j // (cpg * HxW)
                return (Err(xv[j], 0, dt) - mv[q]) * rv[q]

            if k == 0:
                q = i // (cpg * HxW)
                idx = range(q * cpg * HxW, (q + 1) * cpg * HxW)
                dyw = {j: Err(gv[j], 0, dt) * wv[(j // HxW) % C] for j in idx}
                cnt = len(idx)
                s1 = Err.sum(list(dyw.values()), dt)
                s2 = Err.sum([dyw[j] * xhat(j) for j in idx], dt)
                ref = Err(rv[q], 0, dt) / cnt * (dyw[i] * cnt - s1 - xhat(i) * s2)
            else:
                idx = [j for j in range(len(xv)) if (j // HxW) % C == i]
                ref = Err.sum([Err(gv[j], 0, dt) * xhat(j) if k == 1 else Err(gv[j], 0, dt) for j in idx], dt)
        return within(value, ref)

    return Kernel("group_norm_backward", sg_values, check, outputs=(0, 1, 2))


# ---------------------------------------------------------------- soft_margin_loss

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _soft_margin_kernel(backward: bool) -> Kernel:
    def sg_values(sg, args, kwargs):
        if backward:
            g, x, y, red = args[:4]
            xs = _to_sg(sg, x, rg=True)
            with _grad(sg, True):
                out = sg.nn.functional.soft_margin_loss(xs, _to_sg(sg, y), reduction=_REDUCTIONS[red])
                gx, = sg.autograd.grad(out, [xs], _to_sg(sg, g))
            return [_values(gx)]
        x, y = args[0], args[1]
        red = args[2] if len(args) > 2 else kwargs.get("reduction", 1)
        return [_values(sg.nn.functional.soft_margin_loss(_to_sg(sg, x), _to_sg(sg, y), reduction=_REDUCTIONS[red]))]

    def check(args, kwargs, k, i, value, dt, shape):
        if backward:
            g, x, y, red = args[:4]
        else:
            x, y = args[0], args[1]
            red = args[2] if len(args) > 2 else kwargs.get("reduction", 1)
        xs = _flat(x)
        ys = _flat(y.expand(x.shape) if y.shape != x.shape else y)
        if not all(math.isfinite(v) for v in xs + ys):
            return False
        with mpmath.workprec(200):
            if backward:
                gs = _flat(g.expand(x.shape) if g.shape != x.shape else g)
                z = (-(Err(xs[i], 0, dt) * ys[i])).exp()
                norm = 1.0 / len(xs) if red == 1 else 1.0
                return math.isfinite(gs[i]) and within(value, -(z / (z + 1)) * ys[i] * norm * gs[i])
            terms = [_log1p((-(Err(a, 0, dt) * b)).exp()) for a, b in zip(xs, ys)]
            if red == 0:
                return within(value, terms[i])
            total = Err.sum(terms, dt)
            return within(value, total / len(terms) if red == 1 else total)

    return Kernel("soft_margin_loss_backward" if backward else "soft_margin_loss", sg_values, check)


# ---------------------------------------------------------------- log_sigmoid


def _log_sigmoid_kernel(backward: bool) -> Kernel:
    """log_sigmoid_forward (its output; the buffer stays PyTorch's, which only its own backward
    reads, substituted as well) and log_sigmoid_backward: ``g * sigmoid(-x)``."""

    def sg_values(sg, args, kwargs):
        if backward:
            g, x = args[0], args[1]
            xs = _to_sg(sg, x, rg=True)
            with _grad(sg, True):
                y = sg.nn.functional.logsigmoid(xs)
                gx, = sg.autograd.grad(y, [xs], _to_sg(sg, g))
            return [_values(gx)]
        return [_values(sg.nn.functional.logsigmoid(_to_sg(sg, args[0])))]

    def check(args, kwargs, k, i, value, dt, shape):
        if backward:
            g, x = _flat(args[0].expand(shape) if list(args[0].shape) != list(shape) else args[0]), _flat(args[1])
            if not (math.isfinite(g[i]) and math.isfinite(x[i])):
                return False
            with mpmath.workprec(200):
                return within(value, _sigmoid(-x[i], dt) * g[i])
        x = _flat(args[0])[i]
        if not math.isfinite(x):
            return False
        with mpmath.workprec(200):  # -(log1p(exp(-|x|)) + max(-x, 0))
            return within(value, -(_log1p(Err(-abs(x), 0, dt).exp()) + max(-x, 0.0)))

    return Kernel("log_sigmoid_backward" if backward else "log_sigmoid", sg_values, check)


def nn_kernels(torch) -> dict:
    """{ATen op overload: (Kernel, "out")} of this module's kernels."""
    aten = torch.ops.aten
    return {aten.glu.default: (_glu_kernel(), "out"), aten.glu_backward.default: (_glu_backward_kernel(), "out"),
            aten.native_group_norm.default: (_group_norm_kernel(), "out"),
            aten.native_group_norm_backward.default: (_group_norm_backward_kernel(), "out"),
            aten.soft_margin_loss.default: (_soft_margin_kernel(False), "out"),
            aten.soft_margin_loss_backward.default: (_soft_margin_kernel(True), "out"),
            aten.log_sigmoid_forward.default: (_log_sigmoid_kernel(False), "out"),
            aten.log_sigmoid_backward.default: (_log_sigmoid_kernel(True), "out"),
            aten.norm.ScalarOpt_dim: (_norm_kernel(), "out")}


NN_KERNELS = ("glu", "glu_backward", "group_norm", "group_norm_backward", "soft_margin_loss",
              "soft_margin_loss_backward", "log_sigmoid", "log_sigmoid_backward")
"""The names of this module's kernels (``norm.ScalarOpt_dim`` is the ``norm`` kernel's)."""
