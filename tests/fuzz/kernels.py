"""The kernel rule: PyTorch re-run with scalargrad's result at each machine-dependent kernel.

PyTorch computes a few of its kernels with code that depends on the processor (tests/
faithfulness.py; measured here by running the fuzzer's programs on PyTorch under
``ATEN_CPU_CAPABILITY=default``, ``=avx2`` and ``MKL_CBWR=COMPATIBLE`` and listing the ops
whose outputs changed for the same inputs): MKL's vector math and SLEEF for exp, log, sin,
cos, tanh, sigmoid, sqrt and pow; MKL's sgemm for matrix products; the fused multiply-adds of
``add``/``sub`` with alpha, ``addcmul``, ``addcdiv``, ``lerp`` and ``tanh_backward``, which the
build without AVX rounds twice; vectorised reductions inside softmax, log_softmax, layer_norm,
batch_norm and vector norms, and their backward. Everything else - IEEE ``+ - * /``,
comparisons, copies, views, sums - is the same on every machine and is compared bit for bit.

When scalargrad's outcome differs from PyTorch's, the comparator runs the program on PyTorch
again under ``Substitution`` (a ``TorchDispatchMode``: below autograd, so forward and backward
kernels alike): each call of a kernel of the table gets, in place of PyTorch's result,
scalargrad's result for the same operands (scalargrad's own public op on tensors holding those
values, laid out alike; a backward kernel through scalargrad's autograd of the forward op). If
scalargrad then agrees in every observable, the difference is attributed to the kernels whose
bits were replaced - provided every replaced value of scalargrad passes the kernel's
machine-independent check (``bounds``): correctly rounded for the math functions, one of the
two roundings of a multiply-add, or within the running error bound of that element's own
terms for the reductions. PyTorch's native values are checked the same way, for the report.

An error in a derivative cannot hide here: derivative formulas are IEEE arithmetic around
these kernels, and must agree bit for bit once the kernels' bits are the same; and an error in
a kernel of scalargrad fails the kernel's check.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from . import libm
from .bounds import ALGORITHMIC, Err, fma_pair, within

__all__ = ["Substitution", "KernelCall", "KERNELS", "kernel_table"]

_IEEE_EXPONENTS = (0, 1, 2, 3, -1, -2, -0.5)  # pow_tensor_scalar computes these with + - * / and IEEE sqrt


@dataclass
class KernelCall:
    """One call of a machine-dependent kernel whose bits the substitution changed."""

    kernel: str
    dtype: str
    elements: int  # elements whose bits changed
    sg_ok: bool  # scalargrad's values pass the kernel's machine-independent check
    torch_ok: bool  # PyTorch's native values pass it too (its documented accuracy)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "dtype": self.dtype, "elements": self.elements, "sg_ok": self.sg_ok,
                "torch_ok": self.torch_ok}


# ---------------------------------------------------------------- helpers


def _dtype(t) -> str:
    return str(t.dtype).replace("torch.", "")


def _flat(t) -> list:
    return _flat_list(t.detach().tolist())


def _flat_list(v) -> list:
    if not isinstance(v, list):
        return [v]
    out: list = []
    for e in v:
        out.extend(_flat_list(e))
    return out


def _same(a: float, b: float) -> bool:
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _contiguous_strides(shape) -> list:
    out, step = [], 1
    for n in reversed(list(shape)):
        out.append(step)
        step *= max(n, 1)
    return list(reversed(out))


def _to_sg(sg, t, rg: bool = False):
    """A scalargrad tensor holding ``t``'s values with ``t``'s strides where ``t`` is a
    permutation of a contiguous tensor (a transposed weight: the strides decide which of
    MKL's kernels a product takes, size-1 dimensions included), else contiguous."""
    dt = getattr(sg, _dtype(t))
    x = None
    if t.dim() >= 2 and list(t.stride()) != _contiguous_strides(t.shape):
        for order in itertools.permutations(range(t.dim())):
            p = t.permute(order)
            if list(p.stride()) == _contiguous_strides(p.shape):
                inverse = [order.index(d) for d in range(t.dim())]
                x = sg.tensor(p.detach().tolist(), dtype=dt).permute(inverse)
                break
    if x is None:
        x = sg.tensor(t.detach().tolist(), dtype=dt)
    if rg:
        x = x.detach().requires_grad_()
    return x


def _values(x) -> list:
    return _flat_list(x.tolist())


def _element(t, index: int, shape) -> float:
    """Element ``index`` (row-major in ``shape``) of ``t`` broadcast to ``shape``."""
    import torch

    if not isinstance(t, torch.Tensor):
        return t
    b = t.detach().expand(shape) if list(t.shape) != list(shape) else t.detach()
    return b.reshape(-1)[index].item() if b.dim() else b.item()


def _ulps(a: float, b: float, dt: str) -> float:
    d = libm.ulps_apart(a, b, dt)
    return math.inf if d is None else d


def _unravel(index: int, shape) -> list:
    out = []
    for s in reversed(list(shape)):
        out.append(index % s)
        index //= s
    return list(reversed(out))


def _slice_of(t, dim: int, coords: list) -> list:
    """The values of ``t`` along ``dim`` through the element at ``coords``."""
    idx = tuple(slice(None) if k == dim else c for k, c in enumerate(coords))
    return _flat(t.detach()[idx])


# ---------------------------------------------------------------- kernels


@dataclass
class Kernel:
    """A machine-dependent kernel: ``sg(sg, args, kwargs)`` gives scalargrad's result for the
    same call (one flat list per substituted output, or None when the rule does not apply to
    this call); ``check(args, kwargs, k, i, value, dt, shape)`` says whether ``value`` is an
    acceptable element ``i`` of output ``k``."""

    name: str
    sg: object
    check: object
    outputs: tuple = (0,)  # which outputs of a tuple-returning op are substituted
    torch_check: object = None  # PyTorch's documented accuracy, where it is looser than ``check``
    prepare: object = None  # (args, kwargs) -> what ``sg`` needs from before the call (a generator's state)
    alternative: bool = False  # ``sg(..., alternative=True)`` gives the other legitimate form (see Substitution)

    def accuracy(self, *a) -> bool:
        return (self.torch_check or self.check)(*a)


def _cr_kernel(name: str) -> Kernel:
    def sg_values(sg, args, kwargs):
        return [_values(getattr(_to_sg(sg, args[0]), name)())]

    def check(args, kwargs, k, i, value, dt, shape):
        x = _element(args[0], i, shape)
        want = libm.correctly_rounded(name, [x], dt)
        return want is not None and _same(value, want)

    def within_1_ulp(args, kwargs, k, i, value, dt, shape):  # MKL's VML (HA), SLEEF's u10, glibc
        want = libm.correctly_rounded(name, [_element(args[0], i, shape)], dt)
        return want is not None and _ulps(value, want, dt) <= 1

    return Kernel(name, sg_values, check, torch_check=within_1_ulp)


def _pow_kernel(op: str) -> Kernel:
    def sg_values(sg, args, kwargs):
        if op == "Tensor_Scalar":
            if args[1] in _IEEE_EXPONENTS:
                return None
            return [_values(_to_sg(sg, args[0]) ** args[1])]
        if op == "Tensor_Tensor":
            return [_values(_to_sg(sg, args[0]) ** _to_sg(sg, args[1]))]
        return [_values(args[0] ** _to_sg(sg, args[1]))]

    def check(args, kwargs, k, i, value, dt, shape):
        a, b = _element(args[0], i, shape), _element(args[1], i, shape)
        a, b = libm.round_to(float(a), dt), libm.round_to(float(b), dt)  # ATen casts a number operand first
        want = libm.correctly_rounded("sqrt", [a], dt) if b == 0.5 else libm.correctly_rounded("pow", [a, b], dt)
        return want is not None and _same(value, want)

    def within_1_ulp(args, kwargs, k, i, value, dt, shape):
        a, b = _element(args[0], i, shape), _element(args[1], i, shape)
        a, b = libm.round_to(float(a), dt), libm.round_to(float(b), dt)
        want = libm.correctly_rounded("sqrt", [a], dt) if b == 0.5 else libm.correctly_rounded("pow", [a, b], dt)
        return want is not None and _ulps(value, want, dt) <= 1

    return Kernel("pow", sg_values, check, torch_check=within_1_ulp)


def _alpha_kernel(name: str) -> Kernel:
    """add/sub with alpha != 1: ``self + alpha * other``, one fused multiply-add with FMA."""

    def sg_values(sg, args, kwargs):
        alpha = kwargs.get("alpha", 1)
        if alpha == 1:
            return None
        other = _to_sg(sg, args[1]) if hasattr(args[1], "dim") else args[1]
        return [_values(getattr(sg, name)(_to_sg(sg, args[0]), other, alpha=alpha))]

    def check(args, kwargs, k, i, value, dt, shape):
        alpha = kwargs.get("alpha", 1)
        a = libm.round_to(float(alpha if name == "add" else -alpha), dt)
        pair = fma_pair(a, float(_element(args[1], i, shape)), float(_element(args[0], i, shape)), dt)
        return any(_same(value, p) for p in pair)

    return Kernel(name, sg_values, check)


def _addc_kernel(name: str) -> Kernel:
    """addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (the last step fused)."""

    def sg_values(sg, args, kwargs):
        return [_values(getattr(sg, name)(*(_to_sg(sg, t) for t in args[:3]), value=kwargs.get("value", 1)))]

    def check(args, kwargs, k, i, value, dt, shape):
        s = libm.round_to(float(kwargs.get("value", 1)), dt)
        x, t1, t2 = (float(_element(t, i, shape)) for t in args[:3])
        r = lambda v: libm.round_to(v, dt)
        if name == "addcmul":  # x + (s * t1) * t2 or x + s * (t1 * t2), the last step fused or not
            cands = fma_pair(r(s * t1), t2, x, dt) + fma_pair(s, r(t1 * t2), x, dt)
        else:  # x + (s * t1) / t2, or x + s * (t1 / t2) fused or not
            q = r(s * t1) / t2 if t2 else (math.copysign(math.inf, s * t1 * t2 if t2 == t2 else 1) if s * t1
                                           else math.nan)
            cands = (r(x + r(q)),) + fma_pair(s, r(t1 / t2) if t2 else q, x, dt)
        return any(_same(value, c) for c in cands)

    return Kernel(name, sg_values, check)


def _lerp_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        w = _to_sg(sg, args[2]) if hasattr(args[2], "dim") else args[2]
        return [_values(sg.lerp(_to_sg(sg, args[0]), _to_sg(sg, args[1]), w))]

    def check(args, kwargs, k, i, value, dt, shape):
        a, b = float(_element(args[0], i, shape)), float(_element(args[1], i, shape))
        w = libm.round_to(float(_element(args[2], i, shape)), dt)
        d = libm.round_to(b - a, dt)
        if abs(w) < 0.5:
            cands = fma_pair(w, d, a, dt)
        else:
            cands = fma_pair(-d, libm.round_to(1 - w, dt), b, dt)
        return any(_same(value, c) for c in cands)

    return Kernel("lerp", sg_values, check)


def _fuses(lib) -> bool:
    """Whether ``lib`` rounds ``a + alpha * b`` once: PyTorch's AVX2/AVX512 builds and scalargrad
    by default do, ATen's generic code does not, nor scalargrad while it models that code
    (``tests/faithfulness.product_first``). a = 1 + 2**-12: -1 + a * a differs between the two."""
    a = 1 + 2.0**-12
    got = lib.full((1,), -1.0, dtype=lib.float32).add_(lib.full((1,), a, dtype=lib.float32), alpha=a).item()
    return got == 2.0**-11 + 2.0**-24


def _tanh_backward_kernel() -> Kernel:
    """grad * (1 - y*y): 1 - y*y fused in PyTorch's AVX2/AVX512 builds, rounded twice without.
    scalargrad has no public tanh_backward: its value is the form scalargrad computes in (it
    fuses unless it models ATen's generic code), and must be one of the two."""

    def pair(g: float, y: float, dt: str) -> tuple:
        fused, unfused = fma_pair(-y, y, 1.0, dt)
        return libm.round_to(g * fused, dt), libm.round_to(g * unfused, dt)

    def sg_values(sg, args, kwargs, alternative=False):
        import torch

        g, y = torch.broadcast_tensors(args[0].detach(), args[1].detach())
        dt = _dtype(args[0])
        form = (0 if _fuses(sg) else 1) ^ int(alternative)
        return [[pair(gv, yv, dt)[form] for gv, yv in zip(_flat(g), _flat(y))]]

    def check(args, kwargs, k, i, value, dt, shape):
        return any(_same(value, c) for c in pair(float(_element(args[0], i, shape)),
                                                 float(_element(args[1], i, shape)), dt))

    return Kernel("tanh_backward", sg_values, check, alternative=True)


def _product_kernel(name: str) -> Kernel:
    def sg_values(sg, args, kwargs):
        if name in ("addmm", "baddbmm"):
            c, a, b = (_to_sg(sg, t) for t in args[:3])
            return [_values(getattr(sg, name)(c, a, b, beta=kwargs.get("beta", 1), alpha=kwargs.get("alpha", 1)))]
        return [_values(getattr(sg, name)(*(_to_sg(sg, t) for t in args[:2])))]

    def check(args, kwargs, k, i, value, dt, shape):
        beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
        if name in ("mm", "bmm", "addmm", "baddbmm"):
            a, b = (args[1], args[2]) if name.startswith(("add", "badd")) else (args[0], args[1])
            coords = _unravel(i, shape)
            row = _flat(a[tuple(coords[:-1])]) if a.dim() == len(shape) else _flat(a[coords[-2]])
            col = _flat(b[tuple(coords[:-2]) + (slice(None), coords[-1])]) if b.dim() == 3 else \
                _flat(b[:, coords[-1]])
        elif name == "mv":
            row, col = _flat(args[0][i]), _flat(args[1])
        else:
            row, col = _flat(args[0]), _flat(args[1])
        terms = [Err(Fraction(p) * Fraction(q) * Fraction(alpha), 0, dt) for p, q in zip(row, col)]
        if name.startswith(("add", "badd")) and beta != 0:
            terms.append(Err(Fraction(float(_element(args[0], i, shape))) * Fraction(beta), 0, dt))
        # each product rounded (u |p|) before a sum in any order: the bound of Higham 3.1
        ref = Err.sum(terms, dt)
        ref.e += sum(abs(t.v) for t in terms) * 2.0 ** (-24 if dt == "float32" else -53)
        return within(value, ref, 1)

    return Kernel(name, sg_values, check)


# softmax-like kernels: the forward's input is remembered (by the forward's output bits), so that
# the backward can be scalargrad's autograd of the same forward
_FORWARD_INPUT: dict = {}


def _softmax_kernel(log: bool) -> Kernel:
    def sg_values(sg, args, kwargs):
        x, dim = args[0], args[1]
        xs = _to_sg(sg, x)
        out = (sg.log_softmax if log else sg.softmax)(xs, dim)
        vals = _values(out)
        _FORWARD_INPUT[(log, dim, tuple(float(v).hex() for v in vals))] = x.detach().clone()
        return [vals]

    def check(args, kwargs, k, i, value, dt, shape):
        x, dim = args[0], args[1]
        coords = _unravel(i, shape) if shape else []
        xs = _slice_of(x, dim % x.dim(), coords) if x.dim() else [x.item()]
        j = coords[dim % x.dim()] if x.dim() else 0
        if not all(math.isfinite(v) for v in xs):
            return False
        with mpmath.workprec(200):
            m = max(xs)
            e = [(Err(v, 0, dt) - m).exp() for v in xs]
            s = Err.sum(e, dt)
            ref = ((Err(xs[j], 0, dt) - m) - s.log()) if log else e[j] / s
        return within(value, ref)

    return Kernel("log_softmax" if log else "softmax", sg_values, check)


def _safe_softmax_kernel() -> Kernel:
    """``at::_safe_softmax``, the attention math path's softmax (which PyTorch takes under the
    rule's dispatch mode in place of its fused CPU kernel): an entry of -inf (a masked key) gives
    exactly 0, a row of -inf whole gives zeros; the other entries within the softmax's running
    bound over the row's finite entries."""

    def sg_values(sg, args, kwargs):
        from scalargrad._tensor.softmax import softmax  # the op itself (SafeSoftmax), not a second formula

        x, dim = args[0], args[1]
        vals = _values(softmax(_to_sg(sg, x), dim, safe=True))
        _FORWARD_INPUT[(False, dim, tuple(float(v).hex() for v in vals))] = ("safe", x.detach().clone())
        return [vals]

    def check(args, kwargs, k, i, value, dt, shape):
        x, dim = args[0], args[1]
        coords = _unravel(i, shape) if shape else []
        xs = _slice_of(x, dim % x.dim(), coords) if x.dim() else [x.item()]
        j = coords[dim % x.dim()] if x.dim() else 0
        if xs[j] == -math.inf:
            return _same(value, 0.0)
        finite = [v for v in xs if v != -math.inf]
        if not all(math.isfinite(v) for v in finite):
            return False
        with mpmath.workprec(200):
            m = max(finite)
            s = Err.sum([(Err(v, 0, dt) - m).exp() for v in finite], dt)
            ref = (Err(xs[j], 0, dt) - m).exp() / s
        return within(value, ref)

    return Kernel("safe_softmax", sg_values, check)


_MAX_SUMS = 512
"""At most this many candidate sums are tried by a structural check; beyond, the bound decides."""


def _floats_within(ref: Err, dt: str) -> list[float] | None:
    """Every number of ``dt`` within ``ALGORITHMIC`` times ``ref``'s bound of its exact value:
    the values a sum in some order can take (None: more than ``_MAX_SUMS``, or no finite bound)."""
    if not (mpmath.isfinite(ref.v) and mpmath.isfinite(ref.e)):
        return None
    centre = libm.round_to(float(ref.v), dt)
    if not math.isfinite(centre):
        return None
    reach = int(mpmath.ceil(ALGORITHMIC * ref.e / libm.ulp(centre, dt))) + 1
    if 2 * reach + 1 > _MAX_SUMS:
        return None
    return [x for x in (_step(centre, n, dt) for n in range(-reach, reach + 1)) if within(x, ref)]


def _step(x: float, n: int, dt: str) -> float:
    from tests.faithfulness import step

    return step(x, n, dt)


def _softmax_backward_kernel(log: bool) -> Kernel:
    """ATen's softmax backward: a sum over the dim in the order of its vector lanes
    (machine-dependent), then one IEEE step per element: ``(grad - sum) * output``, or for
    log_softmax ``grad - exp(output) * sum`` (exp to 1 ulp, the multiply-subtract fused or not).
    scalargrad's value must be that step applied to some sum within the sum's error bound: a
    derivative a little off cannot hide in the bound of a result that cancels to about 0 (the
    gradient of ``softmax(x).sum()``). PyTorch's own values are checked against the bound of the
    whole formula (its documented accuracy)."""

    def sg_values(sg, args, kwargs):
        g, out, dim = args[0], args[1], args[2]
        x = _FORWARD_INPUT.get((log, dim, tuple(float(v).hex() for v in _flat(out))))
        if x is None:
            return None  # a forward scalargrad did not compute: no substitution
        safe = isinstance(x, tuple)  # _safe_softmax's forward: its rows of -inf whole give 0
        xs = _to_sg(sg, x[1] if safe else x, rg=True)
        with _grad(sg, True):
            if safe:
                whole = (xs == -math.inf).all(dim, keepdim=True)
                y = xs.masked_fill(whole, 0.0).softmax(dim).masked_fill(whole, 0.0)
            else:
                y = (sg.log_softmax if log else sg.softmax)(xs, dim)
            gx, = sg.autograd.grad(y, [xs], _to_sg(sg, g))
        return [_values(gx)]

    def operands(args, i, shape):
        g, out, dim = args[0], args[1], args[2]
        coords = _unravel(i, shape) if shape else []
        d = dim % out.dim() if out.dim() else 0
        gs = _slice_of(g, d, coords) if out.dim() else [g.item()]
        ys = _slice_of(out, d, coords) if out.dim() else [out.item()]
        return gs, ys, (coords[d] if out.dim() else 0)

    def bound(args, kwargs, k, i, value, dt, shape):
        gs, ys, j = operands(args, i, shape)
        if not all(math.isfinite(v) for v in gs + ys):
            return False
        with mpmath.workprec(200):
            if log:
                ref = Err(gs[j], 0, dt) - Err(ys[j], 0, dt).exp() * Err.sum([Err(v, 0, dt) for v in gs], dt)
            else:
                s = Err.sum([Err(a, 0, dt) * b for a, b in zip(gs, ys)], dt)
                ref = Err(ys[j], 0, dt) * (Err(gs[j], 0, dt) - s)
        return within(value, ref)

    def check(args, kwargs, k, i, value, dt, shape):
        gs, ys, j = operands(args, i, shape)
        if not all(math.isfinite(v) for v in gs + ys):
            return False
        with mpmath.workprec(200):
            if log:
                sums = _floats_within(Err.sum([Err(v, 0, dt) for v in gs], dt), dt)
            else:
                sums = _floats_within(Err.sum([Err(a, 0, dt) * b for a, b in zip(gs, ys)], dt), dt)
        if sums is None:
            return bound(args, kwargs, k, i, value, dt, shape)
        if log:
            e = libm.correctly_rounded("exp", [ys[j]], dt)
            if e is None or not math.isfinite(e):
                return bound(args, kwargs, k, i, value, dt, shape)
            cands = set()
            for ex in (_step(e, -1, dt), e, _step(e, 1, dt)):
                for sp in sums:
                    cands.update(fma_pair(-ex, sp, gs[j], dt))
        else:
            # float32: a difference of two float32 numbers and a product of two are exact in
            # float64 (but for exponents 29 apart), so one rounding to float32 is the kernel's
            r = lambda v: libm.round_to(v, dt)
            cands = {r(ys[j] * r(gs[j] - sp)) for sp in sums}
        return any(_same(value, c) for c in cands)

    return Kernel("log_softmax_backward" if log else "softmax_backward", sg_values, check, torch_check=bound)


def _moments(xs: list, dt: str) -> tuple[Err, Err]:
    n = max(len(xs), 1)
    mean = Err.sum([Err(v, 0, dt) for v in xs], dt) / n
    var = Err.sum([(Err(v, 0, dt) - mean) * (Err(v, 0, dt) - mean) for v in xs], dt) / n
    return mean, var


def _layer_norm_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        x, shape, w, b, eps = args[:5]
        out = sg.nn.functional.layer_norm(_to_sg(sg, x), list(shape), None if w is None else _to_sg(sg, w),
                                          None if b is None else _to_sg(sg, b), eps)
        return [_values(out)]

    def check(args, kwargs, k, i, value, dt, shape):
        x, nshape, w, b, eps = args[:5]
        inner = math.prod(nshape)
        flat = _flat(x)
        row, j = divmod(i, inner)
        xs = flat[row * inner:(row + 1) * inner]
        with mpmath.workprec(200):
            mean, var = _moments(xs, dt)
            rstd = 1 / (var + eps).sqrt()
            ref = (Err(xs[j], 0, dt) - mean) * rstd
            if w is not None:
                ref = ref * float(_flat(w)[j])
            if b is not None:
                ref = ref + float(_flat(b)[j])
        return within(value, ref)

    return Kernel("layer_norm", sg_values, check)


def _layer_norm_backward_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        g, x, nshape, mean, rstd, w, b, mask = args[:8]
        named = [("x", _to_sg(sg, x, rg=True)), ("w", None if w is None else _to_sg(sg, w, rg=True)),
                 ("b", None if b is None else _to_sg(sg, b, rg=True))]
        inputs = [t for _, t in named if t is not None]
        with _grad(sg, True):
            y = sg.nn.functional.layer_norm(named[0][1], list(nshape), named[1][1], named[2][1], _LAYER_NORM_EPS)
            grads = iter(sg.autograd.grad(y, inputs, _to_sg(sg, g), allow_unused=True))
        out = {n: (next(grads) if t is not None else None) for n, t in named}
        return [_values(out[n]) if m and out[n] is not None else None for n, m in zip(("x", "w", "b"), mask)]

    def check(args, kwargs, k, i, value, dt, shape):
        g, x, nshape, mean, rstd, w = args[:6]
        inner = math.prod(nshape)
        flat, gflat = _flat(x), _flat(g)
        rows = len(flat) // inner if inner else 0
        wv = _flat(w) if w is not None else [1.0] * inner
        eps = _LAYER_NORM_EPS
        with mpmath.workprec(200):
            def normalised(r):
                xs = flat[r * inner:(r + 1) * inner]
                mu, var = _moments(xs, dt)
                rs = 1 / (var + eps).sqrt()
                return [(Err(v, 0, dt) - mu) * rs for v in xs], rs
            if k == 0:
                r, j = divmod(i, inner)
                xh, rs = normalised(r)
                dxh = [Err(gflat[r * inner + c], 0, dt) * wv[c] for c in range(inner)]
                s1 = Err.sum(dxh, dt)
                s2 = Err.sum([a * b for a, b in zip(dxh, xh)], dt)
                ref = rs / inner * (dxh[j] * inner - s1 - xh[j] * s2)
            elif k == 1:
                ref = Err.sum([Err(gflat[r * inner + i], 0, dt) * normalised(r)[0][i] for r in range(rows)], dt)
            else:
                ref = Err.sum([Err(gflat[r * inner + i], 0, dt) for r in range(rows)], dt)
        return within(value, ref)

    return Kernel("layer_norm_backward", sg_values, check, outputs=(0, 1, 2))


_LAYER_NORM_EPS = 1e-5
"""layer_norm's eps does not reach its backward kernel: the programs use LayerNorm's default."""


def _batch_norm_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        x, w, b, rm, rv, training, momentum, eps = args[:8]
        rms = None if rm is None else _to_sg(sg, rm)
        rvs = None if rv is None else _to_sg(sg, rv)
        out = sg.nn.functional.batch_norm(_to_sg(sg, x), rms, rvs, None if w is None else _to_sg(sg, w),
                                          None if b is None else _to_sg(sg, b), training, momentum, eps)
        extra = []
        if training and rm is not None:  # the running statistics PyTorch updated in place (arguments 3, 4)
            extra = [("running", 3, _values(rms)), ("running", 4, _values(rvs))]
        return [_values(out)] + extra

    def check(args, kwargs, k, i, value, dt, shape):
        x, w, b, rm, rv, training, momentum, eps = args[:8]
        c = _unravel(i, shape)[1] if len(shape) > 1 else 0
        xs = _flat(x.detach().transpose(0, 1)[c]) if x.dim() > 1 else _flat(x)
        with mpmath.workprec(200):
            if training:
                mean, var = _moments(xs, dt)
            else:
                mean, var = Err(_flat(rm)[c], 0, dt), Err(_flat(rv)[c], 0, dt)
            ref = (Err(_flat(x)[i], 0, dt) - mean) / (var + eps).sqrt()
            if w is not None:
                ref = ref * float(_flat(w)[c])
            if b is not None:
                ref = ref + float(_flat(b)[c])
        return within(value, ref)

    return Kernel("batch_norm", sg_values, check)


def _batch_norm_backward_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        g, x, w, rm, rv, save_mean, save_invstd, train, eps, mask = args[:10]
        xs = _to_sg(sg, x, rg=True)
        ws = _to_sg(sg, w, rg=True) if w is not None else None
        bs = sg.zeros(x.shape[1], dtype=xs.dtype, requires_grad=True) if x.dim() > 1 else None
        with _grad(sg, True):
            y = sg.nn.functional.batch_norm(xs, None if train else _to_sg(sg, rm), None if train else _to_sg(sg, rv),
                                            ws, bs, train, 0.0, eps)
            inputs = [t for t in (xs, ws, bs) if t is not None]
            grads = list(sg.autograd.grad(y, inputs, _to_sg(sg, g), allow_unused=True))
        if ws is None:
            grads.insert(1, None)
        return [None if not m or gr is None else _values(gr) for gr, m in zip(grads, mask)]

    def check(args, kwargs, k, i, value, dt, shape):
        g, x, w, rm, rv, save_mean, save_invstd, train, eps = args[:9]
        channels = x.shape[1] if x.dim() > 1 else 1
        per = lambda t, c: _flat(t.detach().transpose(0, 1)[c]) if x.dim() > 1 else _flat(t)
        c = (_unravel(i, shape)[1] if len(shape) > 1 else 0) if k == 0 else i
        if c >= channels:
            return False
        xs, gs = per(x, c), per(g, c)
        n = len(xs)
        wc = float(_flat(w)[c]) if w is not None else 1.0
        if not all(math.isfinite(v) for v in xs + gs):
            return False
        if train:
            mean, var = _moments(xs, dt)
        else:
            mean, var = Err(_flat(rm)[c], 0, dt), Err(_flat(rv)[c], 0, dt)
        invstd = 1 / (var + eps).sqrt()
        xh = [(Err(v, 0, dt) - mean) * invstd for v in xs]
        if k == 2:
            ref = Err.sum([Err(v, 0, dt) for v in gs], dt)
        elif k == 1:
            ref = Err.sum([Err(a, 0, dt) * b for a, b in zip(gs, xh)], dt)
        else:
            pos = _position_in_channel(x, i) if x.dim() > 1 else i
            if train:
                s1 = Err.sum([Err(v, 0, dt) for v in gs], dt)
                s2 = Err.sum([Err(a, 0, dt) * b for a, b in zip(gs, xh)], dt)
                ref = invstd * wc / n * (Err(gs[pos], 0, dt) * n - s1 - xh[pos] * s2)
            else:
                ref = Err(gs[pos], 0, dt) * invstd * wc
        return within(value, ref)

    return Kernel("batch_norm_backward", sg_values, check, outputs=(0, 1, 2))


def _position_in_channel(x, j: int) -> int:
    """Where flat element ``j`` of ``x`` (N, C, ...) falls in its channel's values as
    ``x.transpose(0, 1)[c]`` lists them."""
    shape = list(x.shape)
    coords = _unravel(j, shape)
    rest = [coords[0]] + coords[2:]
    dims = [shape[0]] + shape[2:]
    pos = 0
    for c, d in zip(rest, dims):
        pos = pos * d + c
    return pos


def _norm_kernel() -> Kernel:
    def sg_values(sg, args, kwargs):
        x = args[0]
        ord_ = args[1] if len(args) > 1 else kwargs.get("ord", 2)
        dim = args[2] if len(args) > 2 else kwargs.get("dim")
        keep = args[3] if len(args) > 3 else kwargs.get("keepdim", False)
        return [_values(sg.linalg.vector_norm(_to_sg(sg, x), ord_, dim, keep))]

    def check(args, kwargs, k, i, value, dt, shape):
        x = args[0]
        ord_ = float(args[1] if len(args) > 1 else kwargs.get("ord", 2))
        dim = args[2] if len(args) > 2 else kwargs.get("dim")
        keep = args[3] if len(args) > 3 else kwargs.get("keepdim", False)
        xs = _flat(x)
        if dim is not None and x.dim() > 0:
            dims = {d % x.dim() for d in ([dim] if isinstance(dim, int) else dim)}
            coords = iter(_unravel(i, shape)) if shape else iter(())
            idx = []
            for d in range(x.dim()):
                if d in dims:
                    idx.append(slice(None))
                    if keep:
                        next(coords)
                else:
                    idx.append(next(coords))
            xs = _flat(x.detach()[tuple(idx)])
        if not all(math.isfinite(v) for v in xs):
            return False
        with mpmath.workprec(200):
            if ord_ == math.inf:
                return _same(value, max(abs(v) for v in xs))
            if ord_ == 1:
                ref = Err.sum([Err(abs(v), 0, dt) for v in xs], dt)
            elif ord_ == 2:
                ref = Err.sum([Err(v, 0, dt) * v for v in xs], dt).sqrt()
            else:
                return False  # no reference here: the difference is not admitted
        return within(value, ref)

    return Kernel("norm", sg_values, check)


def _gelu_reference(x: float, approximate: str, dt: str, derivative: bool) -> Err:
    """GELU and its derivative, textbook forms: x/2 (1 + erf(x/sqrt 2)), or the tanh form."""
    e = Err(x, 0, dt)
    if approximate == "tanh":
        k = mpmath.sqrt(2 / mpmath.pi)
        inner = (e + e * e * e * 0.044715) * k
        t = inner.tanh()
        if not derivative:
            return e * 0.5 * (t + 1)
        return (t + 1) * 0.5 + e * 0.5 * (1 - t * t) * k * (e * e * (3 * 0.044715) + 1)
    cdf = ((e * float(1 / mpmath.sqrt(2))).erf() + 1) * 0.5
    if not derivative:
        return e * cdf
    pdf = (e * e * -0.5).exp() * float(1 / mpmath.sqrt(2 * mpmath.pi))
    return cdf + e * pdf


def _gelu_kernel(backward: bool) -> Kernel:
    def sg_values(sg, args, kwargs):
        if backward:
            g, x = args[0], args[1]
            approximate = kwargs.get("approximate", args[2] if len(args) > 2 else "none")
            xs = _to_sg(sg, x, rg=True)
            with _grad(sg, True):
                y = sg.nn.functional.gelu(xs, approximate=approximate)
                gx, = sg.autograd.grad(y, [xs], _to_sg(sg, g))
            return [_values(gx)]
        approximate = kwargs.get("approximate", args[1] if len(args) > 1 else "none")
        return [_values(sg.nn.functional.gelu(_to_sg(sg, args[0]), approximate=approximate))]

    def check(args, kwargs, k, i, value, dt, shape):
        if backward:
            g, x = float(_element(args[0], i, shape)), float(_element(args[1], i, shape))
            approximate = kwargs.get("approximate", args[2] if len(args) > 2 else "none")
            if not (math.isfinite(g) and math.isfinite(x)):
                return False
            return within(value, _gelu_reference(x, approximate, dt, True) * g)
        x = float(_element(args[0], i, shape))
        approximate = kwargs.get("approximate", args[1] if len(args) > 1 else "none")
        return math.isfinite(x) and within(value, _gelu_reference(x, approximate, dt, False))

    return Kernel("gelu_backward" if backward else "gelu", sg_values, check)


def _uniform_kernel() -> Kernel:
    """uniform_(from, to): x * (to - from) + from, x = k * 2**-24 drawn from the generator
    (ATen's uniform_real_distribution), fused in the AVX2/AVX512 builds and rounded twice in the
    build without AVX. scalargrad's generator reproduces PyTorch's: it is given the state
    PyTorch's generator had before the call, draws, and is put back."""

    def prepare(args, kwargs):
        import torch

        gen = kwargs.get("generator") or (args[3] if len(args) > 3 else None) or torch.default_generator
        return gen.get_state()

    def sg_values(sg, args, kwargs, state=None):
        saved = sg.get_rng_state()
        try:
            sg.set_rng_state(sg.tensor(state.tolist(), dtype=sg.uint8))
            t = sg.empty(tuple(args[0].shape), dtype=getattr(sg, _dtype(args[0])))
            t.uniform_(float(args[1]) if len(args) > 1 else 0.0, float(args[2]) if len(args) > 2 else 1.0)
            return [_values(t)]
        finally:
            sg.set_rng_state(saved)

    def check(args, kwargs, k, i, value, dt, shape):
        """``value`` is x * (to - from) + from, fused or not, for a draw x on the 2**-24 grid."""
        lo = libm.round_to(float(args[1] if len(args) > 1 else 0.0), dt)
        hi = libm.round_to(float(args[2] if len(args) > 2 else 1.0), dt)
        span = libm.round_to(hi - lo, dt)
        if not span or not math.isfinite(value):
            return False
        bits = 24 if dt == "float32" else 53
        k0 = round((value - lo) / span * 2.0 ** bits)
        return any(_same(value, v) for k in range(k0 - 4, k0 + 5) if 0 <= k < 2 ** bits
                   for v in fma_pair(k * 2.0 ** -bits, span, lo, dt))

    return Kernel("uniform_", sg_values, check, prepare=prepare)


def _cpu_capability() -> str:
    import torch

    return torch.backends.cpu.get_cpu_capability()


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _bce_kernel(logits: bool) -> Kernel:
    """binary_cross_entropy(_with_logits): the logarithms inside the kernel are the machine's."""

    def parts(args, kwargs):
        x, y = args[0], args[1]
        weight = args[2] if len(args) > 2 else kwargs.get("weight")
        pos = (args[3] if len(args) > 3 else kwargs.get("pos_weight")) if logits else None
        reduction = args[4 if logits else 3] if len(args) > (4 if logits else 3) else kwargs.get("reduction", 1)
        return x, y, weight, pos, reduction

    def sg_values(sg, args, kwargs):
        x, y, weight, pos, reduction = parts(args, kwargs)
        w = None if weight is None else _to_sg(sg, weight)
        f = sg.nn.functional
        if logits:
            out = f.binary_cross_entropy_with_logits(_to_sg(sg, x), _to_sg(sg, y), w,
                                                     pos_weight=None if pos is None else _to_sg(sg, pos),
                                                     reduction=_REDUCTIONS[reduction])
        else:
            out = f.binary_cross_entropy(_to_sg(sg, x), _to_sg(sg, y), w, reduction=_REDUCTIONS[reduction])
        return [_values(out)]

    def element(x: float, y: float, w: float, pw: float, dt: str) -> Err:
        e = Err(x, 0, dt)
        if logits:  # (1 - y) x + (1 + (pw - 1) y) log(1 + exp(-x)), the log taken stably
            lse = (Err(-abs(x), 0, dt).exp() + 1).log() + Err(max(-x, 0), 0, dt)
            return ((1 - Err(y, 0, dt)) * e + lse * (Err(y, 0, dt) * (pw - 1) + 1)) * w
        lx = e.log() if x > 0 else Err(-100, 0, dt)
        l1x = (1 - e).log() if x < 1 else Err(-100, 0, dt)
        if lx.v < -100:
            lx = Err(-100, 0, dt)
        if l1x.v < -100:
            l1x = Err(-100, 0, dt)
        return -(lx * y + l1x * (1 - Err(y, 0, dt))) * w

    def check(args, kwargs, k, i, value, dt, shape):
        x, y, weight, pos, reduction = parts(args, kwargs)
        xs, ys = _flat(x), _flat(y.expand(x.shape) if y.shape != x.shape else y)
        ws = _flat(weight.expand(x.shape)) if weight is not None else [1.0] * len(xs)
        ps = _flat(pos.expand(x.shape)) if pos is not None else [1.0] * len(xs)
        if not all(math.isfinite(v) for v in xs + ys + ws + ps):
            return False
        terms = [element(a, b, c, d, dt) for a, b, c, d in zip(xs, ys, ws, ps)]
        if reduction == 0:
            return within(value, terms[i])
        total = Err.sum(terms, dt)
        return within(value, total / len(terms) if reduction == 1 else total)

    return Kernel("binary_cross_entropy_with_logits" if logits else "binary_cross_entropy", sg_values, check)


class _grad:
    def __init__(self, sg, on: bool) -> None:
        self.sg, self.on = sg, on

    def __enter__(self):
        self.prev = self.sg.is_grad_enabled()
        self.sg.set_grad_enabled(self.on)

    def __exit__(self, *exc):
        self.sg.set_grad_enabled(self.prev)


UNARY = ("exp", "log", "sin", "cos", "tanh", "sqrt", "sigmoid", "log1p", "expm1")
KERNELS = UNARY + ("pow", "add", "sub", "addcmul", "addcdiv", "lerp", "tanh_backward", "mm", "bmm", "addmm",
                   "baddbmm", "mv", "dot", "softmax", "log_softmax", "softmax_backward", "log_softmax_backward",
                   "layer_norm", "layer_norm_backward", "batch_norm", "batch_norm_backward", "norm", "gelu",
                   "gelu_backward", "binary_cross_entropy", "binary_cross_entropy_with_logits", "uniform_",
                   "safe_softmax", "sdpa_flash", "sdpa_flash_backward", "cholesky", "inverse", "det",
                   "solve_triangular", "lu_solve", "upsample_linear1d", "upsample_bilinear2d",
                   "upsample_trilinear3d", "upsample_bicubic2d", "upsample_linear1d_backward",
                   "upsample_bilinear2d_backward", "upsample_trilinear3d_backward", "upsample_bicubic2d_backward",
                   "glu", "glu_backward", "group_norm", "group_norm_backward", "soft_margin_loss",
                   "soft_margin_loss_backward", "log_sigmoid", "log_sigmoid_backward")
"""The kernels the rule substitutes."""


def _table() -> dict:
    """{ATen op overload: (Kernel, "out" | "inplace")}."""
    import torch

    aten = torch.ops.aten
    table: dict = {}

    def put(kernel, out=None, inplace=None):
        if out is not None:
            table[out] = (kernel, "out")
        if inplace is not None:
            table[inplace] = (kernel, "inplace")

    for name in UNARY:
        put(_cr_kernel(name), getattr(aten, name).default, getattr(aten, name + "_").default)
    put(_pow_kernel("Tensor_Scalar"), aten.pow.Tensor_Scalar, aten.pow_.Scalar)
    put(_pow_kernel("Tensor_Tensor"), aten.pow.Tensor_Tensor, aten.pow_.Tensor)
    put(_pow_kernel("Scalar"), aten.pow.Scalar)
    for name in ("add", "sub"):
        put(_alpha_kernel(name), getattr(aten, name).Tensor, getattr(aten, name + "_").Tensor)
    for name in ("addcmul", "addcdiv"):
        put(_addc_kernel(name), getattr(aten, name).default, getattr(aten, name + "_").default)
    lerp = _lerp_kernel()
    put(lerp, aten.lerp.Scalar, aten.lerp_.Scalar)
    put(lerp, aten.lerp.Tensor, aten.lerp_.Tensor)
    put(_tanh_backward_kernel(), aten.tanh_backward.default)
    for name in ("mm", "bmm", "addmm", "baddbmm", "mv", "dot"):
        put(_product_kernel(name), getattr(aten, name).default)
    put(_softmax_kernel(False), aten._softmax.default)
    put(_softmax_kernel(True), aten._log_softmax.default)
    put(_safe_softmax_kernel(), aten._safe_softmax.default)
    put(_softmax_backward_kernel(False), aten._softmax_backward_data.default)
    put(_softmax_backward_kernel(True), aten._log_softmax_backward_data.default)
    put(_layer_norm_kernel(), aten.native_layer_norm.default)
    put(_layer_norm_backward_kernel(), aten.native_layer_norm_backward.default)
    put(_batch_norm_kernel(), aten.native_batch_norm.default)
    put(_batch_norm_backward_kernel(), aten.native_batch_norm_backward.default)
    put(_norm_kernel(), aten.linalg_vector_norm.default)
    put(_gelu_kernel(False), aten.gelu.default, aten.gelu_.default)
    put(_gelu_kernel(True), aten.gelu_backward.default)
    put(_bce_kernel(False), aten.binary_cross_entropy.default)
    put(_bce_kernel(True), aten.binary_cross_entropy_with_logits.default)
    put(_uniform_kernel(), aten.uniform_.default)
    from .kernels_attention import attention_kernels  # those modules build on this one's helpers
    from .kernels_linalg import linalg_kernels
    from .kernels_nn import nn_kernels
    from .kernels_upsample import upsample_kernels

    table.update(attention_kernels(torch))
    table.update(linalg_kernels(torch))
    table.update(upsample_kernels(torch))
    table.update(nn_kernels(torch))
    return table


_TABLE: dict | None = None


def kernel_table() -> dict:
    global _TABLE
    if _TABLE is None:
        _TABLE = _table()
    return _TABLE


# ---------------------------------------------------------------- the mode


def Substitution(sg, alternative: bool = False):
    """A ``TorchDispatchMode`` writing scalargrad's result into each machine-dependent kernel's
    output; ``mode.calls`` lists the calls whose bits it changed, ``mode.failed`` the calls
    scalargrad could not compute (left as PyTorch's). A kernel scalargrad has no public op for
    (tanh_backward) gets the form scalargrad computes in as far as a probe can tell, or with
    ``alternative`` the other one: every call of the run gets the same form, and
    ``mode.alternatives`` says whether such a kernel was met."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    table = kernel_table()

    class _Substitution(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[KernelCall] = []
            self.failed: list[str] = []
            self.alternatives = False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            entry = table.get(func)
            if entry is None:
                return func(*args, **kwargs)
            kernel, variant = entry
            operands = list(args)
            if variant == "inplace":
                operands[0] = args[0].detach().clone()
            # the running statistics batch_norm updates in place: their values before the call
            saved = [a.detach().clone() if isinstance(a, torch.Tensor) else a for a in operands]
            before = kernel.prepare(args, kwargs) if kernel.prepare is not None else None
            out = func(*args, **kwargs)
            try:
                with _grad(sg, False):
                    self._substitute(kernel, saved, kwargs, out, args, before)
            except Exception as e:  # scalargrad refuses the call: no substitution, the difference stays
                self.failed.append(f"{kernel.name}: {type(e).__name__}: {e}"[:200])
            return out

        def _substitute(self, kernel: Kernel, args, kwargs, out, originals, before=None) -> None:
            if kernel.prepare is not None:
                results = kernel.sg(sg, args, kwargs, before)
            elif kernel.alternative:
                self.alternatives = True
                results = kernel.sg(sg, args, kwargs, alternative)
            else:
                results = kernel.sg(sg, args, kwargs)
            if results is None:
                return
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            extra = [r for r in results if isinstance(r, tuple)]
            results = [r for r in results if not isinstance(r, tuple)]
            for k, values in zip(kernel.outputs, results):
                if values is None or k >= len(outs):
                    continue
                self._write(kernel, args, kwargs, k, outs[k], values)
            for _, position, values in extra:  # batch_norm's running statistics, changed in place
                target = originals[position]
                native = _flat(target)
                if len(native) == len(values) and any(not _same(a, b) for a, b in zip(values, native)):
                    with torch.no_grad():
                        target.copy_(torch.tensor(values, dtype=target.dtype).reshape(target.shape))

        def _write(self, kernel, args, kwargs, k, t, values) -> None:
            if not isinstance(t, torch.Tensor) or t.dtype not in (torch.float32, torch.float64) or t.numel() == 0:
                return
            dt = _dtype(t)
            native = _flat(t)
            if len(values) != len(native):
                self.failed.append(f"{kernel.name}: scalargrad gives {len(values)} elements, PyTorch {len(native)}")
                return
            changed = [i for i, (a, b) in enumerate(zip(values, native)) if not _same(float(a), float(b))]
            if not changed:
                return
            shape = list(t.shape)
            with mpmath.workprec(200):  # the references' exact values
                sg_ok = all(kernel.check(args, kwargs, k, i, float(values[i]), dt, shape) for i in changed)
                torch_ok = all(kernel.accuracy(args, kwargs, k, i, float(native[i]), dt, shape) for i in changed)
            self.calls.append(KernelCall(kernel.name, dt, len(changed), sg_ok, torch_ok))
            with torch.no_grad():
                t.copy_(torch.tensor([float(v) for v in values], dtype=t.dtype).reshape(t.shape))

    return _Substitution()
