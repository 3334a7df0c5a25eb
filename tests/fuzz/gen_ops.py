"""Ops on tensors of every shape: reductions, softmax, norms, clamps, conversions, alpha, edges.

A program makes one or two leaves (contiguous or not, values sometimes at the edges of IEEE:
signed zeros, inf, nan, 3.4e38, 1.8e308) and applies one to three ops from the catalogue
(``OPS``: sum/mean/prod/amax/amin/max/min/var/std/norm/cumsum/logsumexp over all or one
dimension, keepdim, the ``axis=`` spelling; softmax and log_softmax (empty tensors too);
max/min with a dim on a 0-dim tensor; add/sub with ``alpha``; sign, sgn, abs; clamp with
number, nan and tensor bounds; dtype conversions of strided inputs and ``view`` after them;
where and masked_fill with masks that broadcast or not; matmul of small shapes), each result
observed, then backward (``create_graph`` too) and ``.item()`` of what comes back.
"""

from __future__ import annotations

from .program import GRAD, Program, lit
from .shaped import Builder, Model

__all__ = ["generate_ops", "OPS"]


def _dim(b, m):
    return b.rng.randrange(-len(m.shape), len(m.shape)) if m.shape else b.rng.choice([0, -1])


def o_reduce(b, m, w):
    rng = b.rng
    fn = rng.choice(["sum", "mean", "prod", "amax", "amin", "sum", "mean", "var", "std", "norm", "logsumexp"])
    if rng.random() < 0.4 and fn not in ("logsumexp",):
        return f"{m}.{fn}()"
    d = _dim(b, b.models[m])
    keep = ", keepdim=True" if rng.random() < 0.3 else ""
    spelled = rng.choice(["{d}", "dim={d}", "axis={d}", "({d},)"]) if fn in ("sum", "mean", "amax", "amin") \
        else "{d}"
    if fn == "norm":
        p = rng.choice(["2", "1", "float('inf')"])
        return f"{m}.norm({p}, {d}{keep})"
    return f"{m}.{fn}({spelled.format(d=d)}{keep})"


def o_maxdim(b, m, w):
    fn = b.rng.choice(["max", "min"])
    d = _dim(b, b.models[m])
    return f"{m}.{fn}({d}{', keepdim=True' if b.rng.random() < 0.3 else ''})[{b.rng.choice([0, 1])}]"


def o_softmax(b, m, w):
    fn = b.rng.choice(["softmax", "log_softmax"])
    d = _dim(b, b.models[m])
    return b.rng.choice([f"{m}.{fn}({d})", f"torch.{fn}({m}, dim={d})", f"torch.nn.functional.{fn}({m}, dim={d})"])


def o_alpha(b, m, w):
    rng = b.rng
    fn = rng.choice(["add", "sub"])
    alpha = rng.choice(["2", "-1", "0.5", "3", "1e308"])
    other = rng.choice([w, m, "-0.0", "torch.tensor(-0.0)"]) if w else m
    return f"torch.{fn}({m}, {other}, alpha={alpha})"


def o_sign(b, m, w):
    return f"{m}.{b.rng.choice(['sign', 'sgn', 'abs', 'sign', 'neg'])}()"


def o_clamp(b, m, w):
    rng = b.rng
    lo = rng.choice(["-1.0", "0.0", "float('nan')", "None", "3.5e38", "-0.0"])
    hi = rng.choice(["1.0", "float('nan')", "None", "2.0", "-3.5e38"])
    if lo == "None" and hi == "None":
        hi = "1.0"
    if w and rng.random() < 0.2:
        lo = w
    one_sided = f"{m}.clamp(min={lo})" if lo != "None" else f"{m}.clamp(max={hi})"
    return rng.choice([f"torch.clamp({m}, {lo}, {hi})", one_sided, f"{m}.clip({lo}, {hi})"])


def o_convert(b, m, w):
    rng = b.rng
    conv = rng.choice([".double()", ".float()", ".to(torch.float64)", ".to(torch.float32)", ".type(torch.float64)"])
    after = rng.choice(["", ".view(-1)", ".is_contiguous()", ".stride()"])
    return f"{m}{conv}{after}"


def o_where(b, m, w):
    rng = b.rng
    mask = rng.choice([f"{m} > 0", f"({m} > 0)[..., :1]" if b.models[m].shape else f"{m} > 0",
                       "torch.tensor([True, False, True])"])
    if rng.random() < 0.5:
        fill = rng.choice(["0.0", "float('-inf')", "2.5"])
        return f"{m}.masked_fill({mask}, {fill})"
    return f"torch.where({mask}, {m}, {rng.choice(['0.0', w or m])})"


def o_matmul(b, m, w):
    s = b.models[m].shape
    if not s:
        return f"{m} @ {m}"
    if len(s) == 1:
        return f"{m} @ {m}"
    return b.rng.choice([f"{m} @ {m}.mT", f"{m}.mT @ {m}", f"torch.matmul({m}, {m}.transpose(-1, -2))"])


def o_scan(b, m, w):
    d = _dim(b, b.models[m])
    return f"{m}.{b.rng.choice(['cumsum', 'cumprod'])}({d})"


def o_elementwise(b, m, w):
    return b.rng.choice([f"{m}.exp()", f"{m}.log()", f"{m}.sqrt()", f"{m}.tanh()", f"{m}.sigmoid()", f"{m} ** 1.5",
                         f"{m}.reciprocal()", f"{m} / {w or 2}", f"{m} * {w or 3}"])


OPS = {"reduce": (o_reduce, 5), "maxdim": (o_maxdim, 2), "softmax": (o_softmax, 3), "alpha": (o_alpha, 2),
       "sign": (o_sign, 2), "clamp": (o_clamp, 3), "convert": (o_convert, 2), "where": (o_where, 2),
       "matmul": (o_matmul, 2), "scan": (o_scan, 1), "elementwise": (o_elementwise, 3)}


def generate_ops(seed: int, index: int) -> Program:
    """Ops program ``index`` of campaign ``seed``."""
    b = Builder("ops", seed, index)
    rng = b.rng
    dtype = rng.choice(["float32"] * 3 + ["float64"])
    edge = rng.choice([0.0, 0.0, 0.15, 0.4])
    shape = () if rng.random() < 0.2 else b.shape(max_dims=3, empty=0.08)  # 0-dim: .item() of its gradient
    x = b.leaf(shape, dtype, rg=True, edge=edge)
    if edge and rng.random() < 0.3 and dtype == "float64":
        b.steps.pop()  # a float64 leaf at the edge of overflow
        b.n -= 1
        big = rng.choice(["1.8e308", "-1.7e308", "3.4e38", "1e-320"])
        x = Model("", x.shape, dtype, True, True)
        b.let(f"torch.full({lit(x.shape)}, {big}, dtype=torch.float64, requires_grad=True)", "leaf", model=x)
    base = b.layout(x)
    w = None
    if rng.random() < 0.4:
        wm = b.leaf(base.shape[-1:] if base.shape and rng.random() < 0.5 else base.shape, dtype,
                    rg=rng.random() < 0.5, edge=edge)
        w = wm.name
    cur = base.name
    for _ in range(rng.choice([1, 1, 2, 3])):
        name = rng.choices(list(OPS), [wt for _, wt in OPS.values()])[0]
        code = OPS[name][0](b, cur, w)
        nxt = b.probe(code, name, model=Model("", (), dtype, True, False))
        if not code.endswith(("is_contiguous()", "stride()")):
            b.models[nxt].shape = ()
            cur = nxt
        if rng.random() < 0.5:
            break
    z = b.probe(f"{cur}.sum() if {cur}.dim() else {cur}", "reduce")
    r = rng.random()
    if r < 0.6:
        b.do(f"{z}.backward()", "backward", guard=True)
    elif r < 0.8:
        b.probe(f"torch.autograd.grad({z}, [{x.name}], allow_unused=True)", "autograd.grad", GRAD)
    else:
        g = b.probe(f"torch.autograd.grad({z}, [{x.name}], create_graph=True, allow_unused=True)[0]",
                    "grad_create_graph", GRAD)
        b.do(f"{g}.sum().backward()", "double_backward", guard=True)
    gx = b.let(f"{x.name}.grad", "read_grad", GRAD, show=rng.random() < 0.2)
    if not x.shape:
        b.probe(f"{gx}.item()", "item", GRAD)
    return b.program()
