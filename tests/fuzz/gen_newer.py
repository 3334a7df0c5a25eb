"""The newer op families: attention, medians, small linear algebra, out=, seeded sampling,
prune/parametrize, the scatter views, block_diag, 3-D convolution and pooling, interpolate.

A program draws one entry of the catalogue (``NEWER``), builds its operands (dyadic values,
contiguous or not), applies it (observing every result), and closes with one of the four
backwards of ``Builder.backward`` when the result is differentiable.

Machine-dependent kernels are kept exact rather than bounded: operands are small multiples of
1/4, so every sum of products inside a convolution, a pooling window, an interpolation with
dyadic weights (scale factor 2 or sizes that halve), a cross product or a matrix product is
exact whatever the order of its additions or fused multiply-adds; matrices for det and inverse
are built as ``L @ D @ M.mT`` (``L``, ``M`` unit lower triangular with multipliers of at most
1/2, so partial pivoting keeps the rows of A and of A^T; ``D`` powers of 2) and for cholesky as
``L @ L.mT`` (diagonal powers of 2), whose LU and Cholesky factors, inverses and gradients are
dyadic and so exact in LAPACK's order or any other (signs of zero aside: ``kernels.py``).
Attention goes through softmax and exp, which the kernel rule (``kernels.py``) replaces where
PyTorch takes its math path.
"""

from __future__ import annotations

from fractions import Fraction

from .program import GRAD, HELPERS, Program, lit
from .shaped import Builder, Model, numel

__all__ = ["generate_newer", "NEWER"]

HELPERS["dyadic_params"] = '''def dyadic_params(m):
    # every parameter of m filled with distinct small multiples of 1/4, in order (exact sums)
    k = 0
    with torch.no_grad():
        for p in m.parameters():
            n = p.numel()
            p.copy_(torch.tensor([((k + i) % 9 - 4) / 4 for i in range(n)]).reshape(p.shape))
            k += n
    return m'''
HELPERS["Symmetric"] = '''class Symmetric(torch.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT'''
F = "torch.nn.functional"


def _tensor(b: Builder, shape: tuple, dtype: str, rg: bool = True) -> Model:
    return b.layout(b.leaf(shape, dtype, rg=rg))


def _leaves(*ms) -> list:
    return [m for m in ms if m.rg and m.leaf]


# ---------------------------------------------------------------- attention


def n_sdpa(b: Builder, dt: str):
    rng = b.rng
    batch = rng.choice([(), (1,), (2,), (2, 1)])
    L, S, E, Ev = rng.choice([1, 2, 3]), rng.choice([1, 2, 4]), rng.choice([1, 2]), rng.choice([1, 2])
    q, k, v = (b.leaf(batch + s, dt) for s in ((L, E), (S, E), (S, Ev)))
    kw = []
    r = rng.random()
    if r < 0.25:
        kw.append("is_causal=True")
    elif r < 0.45:
        mask = b.let(f"torch.tensor({lit(b.data((L, S), 'bool'))})", "mask")
        kw.append(f"attn_mask={mask}")
    elif r < 0.6:
        mask = b.let(f"torch.tensor({lit(b.data((L, S)))}, dtype=torch.{dt})", "mask")
        kw.append(f"attn_mask={mask}")
    if rng.random() < 0.3:
        kw.append(f"scale={rng.choice([0.5, 1.0, 2.0])}")
    out = Model("", batch + (L, Ev), dt, True, False)
    b.probe(f"{F}.scaled_dot_product_attention({q.name}, {k.name}, {v.name}{''.join(', ' + a for a in kw)})",
            "sdpa", model=out)
    return out, [q, k, v]


def n_mha(b: Builder, dt: str):
    rng = b.rng
    E, H = rng.choice([(2, 1), (2, 2), (4, 2)])
    first = rng.random() < 0.5
    L, S, N = rng.choice([1, 2, 3]), rng.choice([1, 2]), rng.choice([1, 2])
    args = [f"{E}, {H}", f"batch_first={first}"]
    if rng.random() < 0.3:
        args.append("bias=False")
    if rng.random() < 0.2:
        args.append("add_bias_kv=True")
    if rng.random() < 0.2:
        args.append(f"kdim={E + 1}, vdim={E + 1}")
    kd = E + 1 if "kdim" in args[-1] else E
    m = b.let(f"dyadic_params(torch.nn.MultiheadAttention({', '.join(args)}, dtype=torch.{dt}))", "mha",
              show=False, helpers=("dyadic_params",))
    shape = (lambda n, s, e: (n, s, e) if first else (s, n, e))
    q, k = b.leaf(shape(N, L, E), dt), b.leaf(shape(N, S, kd), dt)
    extra = ""
    if rng.random() < 0.3:
        pad = b.let(f"torch.tensor({lit([[j == S - 1 and i == 0 for j in range(S)] for i in range(N)])})", "mask")
        extra += f", key_padding_mask={pad}"
    if rng.random() < 0.3:
        extra += f", average_attn_weights={rng.random() < 0.5}"
    if rng.random() < 0.2:
        extra += ", need_weights=False"
    res = b.probe(f"{m}({q.name}, {k.name}, {k.name}{extra})", "mha")
    out = Model("", shape(N, L, E), dt, True, False)
    b.probe(f"{res}[0]", "mha", model=out)
    b.probe(f"{res}[1]", "mha")
    b.let(f"[p.grad for p in {m}.parameters()]", "read_grad", GRAD, show=False)  # None before backward
    return out, [q, k]


# ---------------------------------------------------------------- medians


def n_median(b: Builder, dt: str):
    rng = b.rng
    x = b.layout(b.leaf(b.shape(max_dims=3, empty=0.08), dt, edge=rng.choice([0.0, 0.2])))
    fn = rng.choice(["median", "nanmedian"])
    whole = rng.random() < 0.35 or not x.shape
    if not whole and ".expand(" in b.steps[-1].code:
        # PyTorch 2.13's median/nanmedian with a dim read past the data of an expanded input
        # (``torch.median(torch.ones(2, 2).expand(2, 2, 2), 0)`` gives garbage): not drawn
        m = Model("", x.shape, dt, True, False)
        b.let(f"{x.name}.contiguous()", "layout", model=m)
        x = m
    if whole:
        out = Model("", (), dt, True, False)
        b.probe(f"{x.name}.{fn}()" if rng.random() < 0.5 else f"torch.{fn}({x.name})", fn, model=out)
        return out, [x] if x.leaf else []
    d = rng.randrange(-len(x.shape), len(x.shape))
    keep = rng.random() < 0.3
    r = b.probe(f"torch.{fn}({x.name}, {d}{', keepdim=True' if keep else ''})", fn)
    shape = list(x.shape)
    if keep:
        shape[d] = 1
    else:
        shape.pop(d)
    b.probe(f"{r}.indices", fn)
    out = Model("", tuple(shape), dt, True, False)
    b.probe(f"{r}.values", fn, model=out)
    return out, []


# ---------------------------------------------------------------- linear algebra, exactly


def _lu_matrix(rng, n: int, singular: bool = False) -> list:
    """``L @ D @ M.mT``: ``L``, ``M`` unit lower triangular with multipliers of at most 1/2, ``D``
    diagonal powers of 2, so that LU with partial pivoting of A and of A^T (ATen's det factors
    the transpose) keeps the rows and every step is exact."""
    def unit_lower():
        return [[Fraction(1) if i == j else (Fraction(rng.choice([-2, -1, 0, 1, 2]), 4) if j < i else Fraction(0))
                 for j in range(n)] for i in range(n)]

    lo, mo = unit_lower(), unit_lower()
    d = [Fraction(rng.choice([1, 2, -1, -2, 4]), 2) for _ in range(n)]
    if singular:
        d[n - 1] = Fraction(0)
    a = [[sum(lo[i][k] * d[k] * mo[j][k] for k in range(n)) for j in range(n)] for i in range(n)]
    return [[float(v) for v in row] for row in a]


def _spd_matrix(rng, n: int) -> list:
    lo = [[Fraction(rng.choice([1, 2, 4, 1]), 2) if i == j else
           (Fraction(rng.randint(-2, 2), 4) if j < i else Fraction(0)) for j in range(n)] for i in range(n)]
    return [[float(sum(lo[i][k] * lo[j][k] for k in range(n))) for j in range(n)] for i in range(n)]


def n_linalg(b: Builder, dt: str):
    rng = b.rng
    n = rng.choice([1, 2, 2, 3])
    batch = rng.choice([(), (), (2,)])
    fn = rng.choice(["det", "inverse", "cholesky", "det", "inverse", "cholesky", "singular"])
    make = _spd_matrix if fn == "cholesky" else _lu_matrix
    mats = [make(rng, n) if fn != "singular" else _lu_matrix(rng, n, True) for _ in range(max(1, numel(batch)))]
    data = mats if batch else mats[0]
    x = Model("", batch + (n, n), dt, True, True)
    b.let(f"torch.tensor({lit(data)}, dtype=torch.{dt}, requires_grad=True)", "leaf", model=x)
    base = b.layout(x) if rng.random() < 0.5 else x
    if fn == "singular":
        b.probe(rng.choice([f"torch.inverse({base.name})", f"torch.linalg.inv({base.name})",
                            f"torch.linalg.inv_ex({base.name}).info"]), "inverse")
        out = Model("", batch, dt, False, False)
        b.probe(f"torch.det({base.name}.detach())", "det", model=out)
        return out, []
    if fn == "det":
        code, shape = rng.choice([f"torch.det({base.name})", f"{base.name}.det()", f"torch.linalg.det({base.name})"]), \
            batch
    elif fn == "inverse":
        code, shape = rng.choice([f"torch.inverse({base.name})", f"torch.linalg.inv({base.name})",
                                  f"{base.name}.inverse()"]), batch + (n, n)
    else:
        code, shape = rng.choice([f"torch.linalg.cholesky({base.name})", f"torch.cholesky({base.name})",
                                  f"torch.linalg.cholesky({base.name}, upper=True)",
                                  f"torch.linalg.cholesky_ex({base.name}).L"]), batch + (n, n)
    out = Model("", shape, dt, True, False)
    b.probe(code, fn, model=out)
    return out, [x]


def n_cross(b: Builder, dt: str):
    rng = b.rng
    shape = list(rng.choice([(3,), (2, 3), (3, 2), (3, 3), (2, 1, 3), (1, 3)]))
    dims = [i for i, s in enumerate(shape) if s == 3]
    d = rng.choice(dims)
    x = b.layout(b.leaf(tuple(shape), dt))
    other = list(x.shape)
    if rng.random() < 0.2 and len(other) > 1:
        other[0 if other[0] != 3 else -1] = 1  # broadcast
    y = b.leaf(tuple(other), dt, rg=rng.random() < 0.6)
    d = next((i for i, s in enumerate(x.shape) if s == 3), d)
    code = rng.choice([f"torch.linalg.cross({x.name}, {y.name}, dim={d})", f"torch.cross({x.name}, {y.name}, dim={d})",
                       f"{x.name}.cross({y.name}, {d})", f"torch.linalg.cross({x.name}, {y.name})"])
    out = Model("", x.shape, dt, True, False)
    b.probe(code, "cross", model=out)
    return out, [x, y]


# ---------------------------------------------------------------- out=

OUT_CALLS = ["torch.add({x}, {y}, out={o})", "torch.mul({x}, {y}, out={o})", "torch.sub({x}, {y}, alpha=2, out={o})",
             "torch.div({x}, {y}, out={o})", "torch.where({x} > 0, {x}, {y}, out={o})",
             "torch.where({x} > 0, {x}, 0., out={o})", "torch.clamp({x}, -1, 1, out={o})", "torch.neg({x}, out={o})",
             "torch.abs({x}, out={o})", "torch.maximum({x}, {y}, out={o})", "torch.sum({x}, 0, out={o})",
             "torch.cumsum({x}, 0, out={o})", "torch.max({x}, 0, out=({o}, {i}))",
             "torch.sort({x}, 0, out=({o}, {i}))", "torch.median({x}, 0, out=({o}, {i}))",
             "torch.cat([{x}, {y}], out={o})", "torch.stack([{x}, {y}], out={o})",
             "torch.mean({x}, 0, out={o})", "torch.eq({x}, {y}, out={o})", "torch.tril({x}, out={o})",
             "torch.mul({x}, 2, out={o})", "torch.floor({x}, out={o})"]


def n_out(b: Builder, dt: str):
    rng = b.rng
    shape = rng.choice([(3,), (2, 3), (2, 2), (1, 3)])
    x = _tensor(b, shape, dt, rg=rng.random() < 0.4)
    y = b.leaf(shape, dt, rg=False)
    kind = rng.choice(["same", "same", "same", "shape", "empty", "float64", "int64", "grad", "input", "view"])
    if kind == "same":
        o = b.let(f"torch.zeros({lit(shape)}, dtype=torch.{dt})", "out")
    elif kind == "shape":
        o = b.let(f"torch.zeros(5, dtype=torch.{dt})", "out")
    elif kind == "empty":
        o = b.let(f"torch.empty(0, dtype=torch.{dt})", "out")
    elif kind in ("float64", "int64"):
        o = b.let(f"torch.zeros({lit(shape)}, dtype=torch.{kind})", "out")
    elif kind == "grad":
        o = b.let(f"torch.zeros({lit(shape)}, requires_grad=True)", "out")
    elif kind == "input":
        o = y.name
    else:
        base = b.let(f"torch.zeros({lit((2,) + shape)}, dtype=torch.{dt})", "out")
        o = b.let(f"{base}[1]", "out")
    i = b.let(f"torch.zeros({lit(shape)}, dtype=torch.int64)", "out")
    calls = [c for c in OUT_CALLS if "median" not in c or ".expand(" not in b.steps[1].code]  # see n_median
    call = rng.choice(calls).format(x=x.name, y=y.name, o=o, i=i)
    if rng.random() < 0.5:
        b.probe(call, "out")
    else:
        b.probe(f"{call} is {o}", "out")
    b.let(o, "out_after")
    if rng.random() < 0.5:
        b.let(f"{o}._version" if kind != "input" else f"({o}._version, {x.name}._version)", "version", show=False)
    return None, []


# ---------------------------------------------------------------- sampling under a seed


def n_sampling(b: Builder, dt: str):
    rng = b.rng
    seed = rng.randrange(1000)
    n = rng.choice([2, 3, 4])
    probs = [rng.choice([0.0, 0.25, 0.5, 1.0, 2.0]) for _ in range(n)]
    if not any(probs):
        probs[0] = 1.0
    rows = rng.choice([(), (2,)])
    p = b.let(f"torch.tensor({lit([probs] * rows[0] if rows else probs)}, dtype=torch.{dt})", "probs")
    b.setup(f"torch.manual_seed({seed})")
    calls = [f"torch.multinomial({p}, {rng.randint(1, n)})",
             f"torch.multinomial({p}, {rng.randint(1, 6)}, replacement=True)",
             f"torch.bernoulli({p} / 2)", f"torch.bernoulli({p} / 2, 0.25)" if rng.random() < 0.3 else
             f"torch.bernoulli(torch.full({lit(rows + (n,))}, 0.5))",
             f"torch.distributions.Categorical(probs={p}).sample({lit((rng.randint(1, 3),))})",
             f"torch.distributions.Categorical(logits={p}).sample()",
             f"torch.distributions.Bernoulli(probs={p} / 2).sample()",
             f"torch.distributions.Bernoulli(probs={p} / 2).sample((2,))",
             f"torch.randint(0, {n + 1}, {lit(rows + (n,))})", f"torch.randperm({n + 2})",
             f"torch.rand({lit(rows + (n,))}, dtype=torch.{dt})",
             f"{p}.multinomial({n}, True)", f"torch.empty({lit(rows + (n,))}).bernoulli_(0.5)",
             f"torch.multinomial({p}, {n + 1})"]
    for _ in range(rng.randint(1, 3)):
        b.probe(rng.choice(calls), "sampling")
    b.let("torch.rand(2)", "sampling")  # where the generator's state stands
    return None, []


# ---------------------------------------------------------------- prune and parametrize


def n_prune(b: Builder, dt: str):
    rng = b.rng
    fi, fo = rng.choice([(2, 2), (3, 2), (2, 3), (4, 1)])
    b.setup("__import__(torch.__name__ + '.nn.utils.prune')")
    b.setup(f"torch.manual_seed({rng.randrange(100)})")
    m = b.let(f"dyadic_params(torch.nn.Linear({fi}, {fo}, dtype=torch.{dt}))", "linear", show=False,
              helpers=("dyadic_params",))
    how = rng.choice(["l1_unstructured(m, 'weight', amount={a})", "random_unstructured(m, 'weight', amount={a})",
                      "l1_unstructured(m, 'bias', amount={a})", "ln_structured(m, 'weight', amount={a}, n=2, dim=0)",
                      "random_structured(m, 'weight', amount={a}, dim=1)", "identity(m, 'weight')"])
    amount = rng.choice(["0.5", "1", "0.0", "2", "0.34"])
    b.probe(f"torch.nn.utils.prune.{how.format(a=amount).replace('(m', '(' + m)}", "prune")
    if rng.random() < 0.3:
        b.probe(f"torch.nn.utils.prune.l1_unstructured({m}, 'weight', amount=1)", "prune")
    b.let(f"sorted(n for n, _ in {m}.named_buffers()), sorted(n for n, _ in {m}.named_parameters())", "names",
          show=False)
    b.let(f"{m}.weight", "weight")
    if rng.random() < 0.3:
        b.probe(f"torch.nn.utils.prune.remove({m}, 'weight')", "prune")
        b.let(f"sorted(n for n, _ in {m}.named_parameters())", "names", show=False)
    x = b.leaf((2, fi), dt)
    out = Model("", (2, fo), dt, True, False)
    b.probe(f"{m}({x.name})", "forward", model=out)
    b.backward(out, [x])
    b.let(f"[(n, p.grad) for n, p in {m}.named_parameters()]", "read_grad", GRAD, show=False)
    return None, []


def n_parametrize(b: Builder, dt: str):
    rng = b.rng
    n = rng.choice([2, 3])
    m = b.let(f"dyadic_params(torch.nn.Linear({n}, {n}, dtype=torch.{dt}))", "linear", show=False,
              helpers=("dyadic_params", "Symmetric"))
    b.setup(f"torch.nn.utils.parametrize.register_parametrization({m}, 'weight', Symmetric()"
            f"{', unsafe=True' if rng.random() < 0.2 else ''})")
    b.let(f"{m}.weight", "weight")
    b.let(f"(torch.nn.utils.parametrize.is_parametrized({m}), sorted(n for n, _ in {m}.named_parameters()))",
          "names", show=False)
    x = b.leaf((2, n), dt)
    if rng.random() < 0.3:
        b.do(f"with torch.nn.utils.parametrize.cached():\n    v_out = {m}({x.name}) + {m}({x.name})", "cached",
             guard=True)
    else:
        b.do(f"v_out = {m}({x.name})", "forward", guard=True)
    out = Model("", (2, n), dt, True, False)
    b.probe("v_out", "forward", model=out)
    b.backward(out, [x])
    b.let(f"{m}.parametrizations.weight.original.grad", "read_grad", GRAD, show=False)
    if rng.random() < 0.4:
        b.probe(f"torch.nn.utils.parametrize.remove_parametrizations({m}, 'weight', "
                f"leave_parametrized={rng.random() < 0.5})", "remove")
        b.let(f"{m}.weight", "weight")
    return None, []


# ---------------------------------------------------------------- scatter views and block_diag


def n_scatter(b: Builder, dt: str):
    rng = b.rng
    shape = rng.choice([(3,), (2, 3), (3, 3), (2, 2, 3), (4, 2)])
    x = _tensor(b, shape, dt)
    fn = rng.choice(["slice", "select", "diagonal"])
    if fn == "slice":
        d = rng.randrange(len(shape))
        start, step = rng.randint(0, 1), rng.randint(1, 2)
        end = rng.choice([None, shape[d]])
        n = len(range(start, shape[d] if end is None else end, step))
        src_shape = shape[:d] + (n,) + shape[d + 1:]
        args = f"{d}, {start}, {end}, {step}" if rng.random() < 0.6 else f"dim={d}, start={start}, step={step}"
    elif fn == "select":
        d = rng.randrange(len(shape))
        src_shape = shape[:d] + shape[d + 1:]
        args = f"{d}, {rng.randrange(-shape[d], shape[d])}"
    else:
        if len(shape) < 2:
            shape = (2, 3)
            x = _tensor(b, shape, dt)
        off = rng.randint(-1, 1)
        d1, d2 = rng.sample(range(len(shape)), 2)
        nd = max(0, min(shape[d1] + min(off, 0), shape[d2] - max(off, 0)))
        src_shape = tuple(s for i, s in enumerate(shape) if i not in (d1, d2)) + (nd,)
        args = f"{off}, {d1}, {d2}"
    if rng.random() < 0.15 and src_shape:  # a source of the wrong shape: PyTorch's error
        src_shape = src_shape[:-1] + (src_shape[-1] + 1,)
    src = b.leaf(src_shape, dt, rg=rng.random() < 0.6)
    code = rng.choice([f"torch.{fn}_scatter({x.name}, {src.name}, {args})",
                       f"{x.name}.{fn}_scatter({src.name}, {args})"])
    out = Model("", shape, dt, True, False)
    b.probe(code, fn + "_scatter", model=out)
    return out, [x, src]


def n_block_diag(b: Builder, dt: str):
    rng = b.rng
    parts = []
    for _ in range(rng.randint(1, 3)):
        s = rng.choice([(), (2,), (1, 2), (2, 2), (3, 1), (0, 2)])
        parts.append(b.leaf(s, rng.choice([dt, dt, "int64"]), rg=rng.random() < 0.7))
    rows = sum((p.shape[0] if len(p.shape) == 2 else 1) for p in parts)
    cols = sum((p.shape[-1] if p.shape else 1) for p in parts)
    out = Model("", (rows, cols), dt, any(p.rg for p in parts), False)
    b.probe(f"torch.block_diag({', '.join(p.name for p in parts)})", "block_diag", model=out)
    return out, parts


# ---------------------------------------------------------------- 3-D convolution, pooling, interpolate


def n_conv3d(b: Builder, dt: str):
    rng = b.rng
    g = rng.choice([1, 1, 2])
    cin, cout = g * rng.choice([1, 2]), g * rng.choice([1, 2])
    size = tuple(rng.choice([1, 2, 3]) for _ in range(3))
    k = tuple(rng.choice([1, 2]) for _ in range(3))
    batch = rng.choice([(1,), (2,), ()])
    x = _tensor(b, batch + (cin,) + size, dt)
    w = b.leaf((cout, cin // g) + k, dt)
    bias = b.leaf((cout,), dt, rg=rng.random() < 0.5) if rng.random() < 0.6 else None
    stride, pad, dil = rng.choice([1, 1, 2]), rng.choice([0, 0, 1, "'same'"]), rng.choice([1, 1, 2])
    if pad == "'same'":
        stride = 1
    code = (f"{F}.conv3d({x.name}, {w.name}, {bias.name if bias else None}, stride={stride}, padding={pad}, "
            f"dilation={dil}, groups={g})")
    out = Model("", (), dt, True, False)
    b.probe(code, "conv3d", model=out)
    return out, [x, w] + ([bias] if bias else [])


def n_pool(b: Builder, dt: str):
    rng = b.rng
    dims = rng.choice([1, 2, 3, 3])
    size = tuple(rng.choice([2, 3, 4]) for _ in range(dims))
    x = _tensor(b, rng.choice([(1,), (2,), ()]) + (rng.choice([1, 2]),) + size, dt)
    k, s = rng.choice([1, 2, 2, 3]), rng.choice([None, 1, 2])
    fn = rng.choice(["max", "avg", "lp", "unpool", "max", "avg"])
    out = Model("", (), dt, True, False)
    if fn == "max":
        code = (f"{F}.max_pool{dims}d({x.name}, {k}, {s}, padding={rng.choice([0, 0, 1]) if k > 1 else 0}, "
                f"ceil_mode={rng.random() < 0.3})")
    elif fn == "avg":
        extra = f", divisor_override={rng.choice([1, 2, 3])}" if dims > 1 and rng.random() < 0.2 else ""
        code = (f"{F}.avg_pool{dims}d({x.name}, {k}, {s}, padding={rng.choice([0, 0, 1]) if k > 1 else 0}, "
                f"ceil_mode={rng.random() < 0.3}, count_include_pad={rng.random() < 0.5}{extra})")
    elif fn == "lp":
        p = rng.choice([1, 2, 2, 3, "float('inf')"])
        code = f"{F}.lp_pool{dims}d({x.name}, {p}, {k}, {s}, ceil_mode={rng.random() < 0.2})"
    else:
        r = b.probe(f"{F}.max_pool{dims}d({x.name}, {k}, {s}, return_indices=True)", "max_pool")
        extra = ", output_size=" + lit(x.shape[-dims:]) if rng.random() < 0.4 else ""
        code = f"{F}.max_unpool{dims}d({r}[0], {r}[1], {k}, {s}{extra})"
    b.probe(code, fn + "_pool", model=out)
    return out, [x]


def n_interpolate(b: Builder, dt: str):
    rng = b.rng
    mode = rng.choice(["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"])
    dims = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}.get(mode, rng.choice([1, 2, 3]))
    size = tuple(rng.choice([1, 2, 4]) for _ in range(dims))
    x = _tensor(b, (rng.choice([1, 2]), rng.choice([1, 2])) + size, dt)
    r = rng.random()
    if r < 0.5:
        how = f"scale_factor={rng.choice([2, 2.0, 0.5] if mode != 'area' else [2, 0.5])}"
    else:
        how = f"size={lit(tuple(rng.choice([s * 2, max(1, s // 2), s]) for s in size))}"
    ac = ""
    if mode in ("linear", "bilinear", "bicubic", "trilinear") and rng.random() < 0.4:
        ac = ", align_corners=False" if rng.random() < 0.7 else ", align_corners=True"
    out = Model("", (), dt, True, False)
    b.probe(f"{F}.interpolate({x.name}, {how}, mode='{mode}'{ac})", "interpolate", model=out)
    return out, [x]


NEWER = {"sdpa": (n_sdpa, 3), "mha": (n_mha, 2), "median": (n_median, 3), "linalg": (n_linalg, 4),
         "cross": (n_cross, 2), "out": (n_out, 5), "sampling": (n_sampling, 3), "prune": (n_prune, 2),
         "parametrize": (n_parametrize, 2), "scatter": (n_scatter, 3), "block_diag": (n_block_diag, 2),
         "conv3d": (n_conv3d, 3), "pool": (n_pool, 4), "interpolate": (n_interpolate, 3)}


def generate_newer(seed: int, index: int) -> Program:
    """Newer-families program ``index`` of campaign ``seed``."""
    b = Builder("newer", seed, index)
    rng = b.rng
    dtype = rng.choice(["float32"] * 3 + ["float64"])
    name = rng.choices(list(NEWER), [w for _, w in NEWER.values()])[0]
    out, _ = NEWER[name][0](b, dtype)
    if out is not None and out.rg:
        differentiate(b, out, 0.5, 0.8)
    return b.program(note=name)


def differentiate(b: Builder, out: Model, p_backward: float, p_grad: float) -> None:
    """A program's last steps: a weighted sum of ``out``, then (one draw) ``backward()`` with
    probability ``p_backward``, ``autograd.grad`` of the leaves up to ``p_grad``, else a
    create_graph gradient of the first leaf and a backward through it; every leaf's ``.grad`` read."""
    z = b.probe(f"({out.name} * torch.arange(1, {out.name}.numel() + 1).reshape({out.name}.shape)"
                f".to({out.name}.dtype) / 4).sum()", "reduce")
    names = [n for n, m in b.models.items() if m.leaf and m.rg]
    r = b.rng.random()
    if r < p_backward or not names:
        b.do(f"{z}.backward()", "backward", guard=True)
    elif r < p_grad:
        b.probe(f"torch.autograd.grad({z}, [{', '.join(names)}], allow_unused=True)", "autograd.grad", GRAD)
    else:
        g = b.probe(f"torch.autograd.grad({z}, [{names[0]}], create_graph=True, allow_unused=True)[0]",
                    "grad_create_graph", GRAD)
        b.do(f"{g}.square().sum().backward()", "double_backward", guard=True)
    for n in names:
        b.let(f"{n}.grad", "read_grad", GRAD, show=False)
