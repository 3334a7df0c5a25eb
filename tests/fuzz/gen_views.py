"""Views: chains of view ops on tensors of every shape, then backward through them.

The catalogue (``VIEWS``) holds every view a tutorial uses: view/reshape (with -1), transpose,
permute, expand/expand_as, narrow, select, unbind, split, chunk, squeeze, unsqueeze, flatten,
unflatten, T, mT, t, diagonal, swapaxes, movedim, view_as, contiguous, indexing by a slice.
A program takes a leaf (contiguous or not) or a value computed from it, applies one to three
views (each result observed: values, shape, strides, storage offset, is_contiguous, grad_fn,
next_functions), sometimes computes on the last one, and closes with one of four backwards.
Invalid views are probes: PyTorch's error and message are compared.
"""

from __future__ import annotations

from .program import Program, lit
from .shaped import Builder, Model, numel

__all__ = ["generate_views", "VIEWS"]


def _dim(rng, s):
    return rng.randrange(-len(s), len(s))


def v_view(rng, s):
    n = numel(s)
    cands = [(n,), (1, n), (n, 1)] + ([(2, n // 2)] if n % 2 == 0 and n else []) + [(-1,)]
    if len(s) >= 2:
        cands.append((s[0], -1))
    shape = rng.choice(cands)
    real = tuple(n // max(1, numel([d for d in shape if d != -1])) if d == -1 else d for d in shape) if n else \
        tuple(0 if d == -1 else d for d in shape)
    return f".{rng.choice(['view', 'reshape', 'view', 'reshape'])}({lit(shape)[1:-1].rstrip(',')})", real


def v_transpose(rng, s):
    if len(s) < 2:
        return (".transpose(0, -1)" if s else ".transpose(0, 0)"), s
    a, b = rng.sample(range(len(s)), 2)
    out = list(s)
    out[a], out[b] = out[b], out[a]
    fn = rng.choice(["transpose", "swapaxes", "swapdims"])
    return f".{fn}({a}, {b})", tuple(out)


def v_permute(rng, s):
    perm = list(range(len(s)))
    rng.shuffle(perm)
    if rng.random() < 0.2 and perm:
        perm = [p - len(s) for p in perm]
    return f".permute({', '.join(map(str, perm))})", tuple(s[p] for p in perm)


def v_expand(rng, s):
    new = [3 if d == 1 else (-1 if rng.random() < 0.3 else d) for d in s]
    if rng.random() < 0.5 or not s:
        new = [2] + new
    real = tuple(s[i - (len(new) - len(s))] if d == -1 else d for i, d in enumerate(new))
    return f".expand({', '.join(map(str, new))})" if new else ".expand(())", real


def v_narrow(rng, s):
    if not s:
        return ".narrow(0, 0, 1)", s
    d = rng.randrange(len(s))
    if s[d] == 0:
        return f".narrow({d}, 0, 0)", s
    start = rng.randrange(s[d])
    length = rng.randint(0, s[d] - start)
    out = list(s)
    out[d] = length
    return f".narrow({d}, {start}, {length})", tuple(out)


def v_select(rng, s):
    if not s or 0 in s:
        return ".select(0, 0)", None
    d = rng.randrange(len(s))
    i = rng.randrange(-s[d], s[d])
    return (f".select({d}, {i})" if rng.random() < 0.5 else f"[{', '.join([':'] * d + [str(i)])}]"), \
        s[:d] + s[d + 1:]


def v_unbind(rng, s):
    if not s or s[0] == 0:
        return ".unbind()[0]", None
    d = rng.randrange(len(s))
    if s[d] == 0:
        return f".unbind({d})", None
    return f".unbind({d})[{rng.randrange(s[d])}]", s[:d] + s[d + 1:]


def v_split(rng, s):
    if not s:
        return ".split(1)[0]", None
    d = rng.randrange(len(s))
    size = rng.randint(1, max(1, s[d]))
    k = 0 if s[d] == 0 else rng.randrange(-(-s[d] // size))
    out = list(s)
    out[d] = min(size, s[d] - k * size)
    if rng.random() < 0.3 and s[d] >= 2:
        sizes = [1, s[d] - 1]
        k = rng.randrange(2)
        out[d] = sizes[k]
        return f".split({lit(sizes)}, {d})[{k}]", tuple(out)
    return f".split({size}, {d})[{k}]", tuple(out)


def v_chunk(rng, s):
    if not s or 0 in s:
        return ".chunk(2)[0]", None
    d = rng.randrange(len(s))
    chunks = rng.randint(1, 3)
    size = -(-s[d] // chunks)
    n = -(-s[d] // size)
    k = rng.randrange(n)
    out = list(s)
    out[d] = min(size, s[d] - k * size)
    return f".chunk({chunks}, {d})[{k}]", tuple(out)


def v_squeeze(rng, s):
    r = rng.random()
    if r < 0.4 or not s:
        return ".squeeze()", tuple(d for d in s if d != 1)
    d = rng.randrange(len(s))
    if r < 0.8:
        return f".squeeze({d})", s[:d] + s[d + 1:] if s[d] == 1 else s
    dims = tuple(sorted(rng.sample(range(len(s)), min(2, len(s)))))
    return f".squeeze({lit(dims)})", tuple(x for i, x in enumerate(s) if not (i in dims and x == 1))


def v_unsqueeze(rng, s):
    d = rng.randint(-len(s) - 1, len(s))
    out = list(s)
    out.insert(d % (len(s) + 1), 1)
    return f".unsqueeze({d})", tuple(out)


def v_flatten(rng, s):
    if len(s) < 2:
        return ".flatten()", (numel(s),)
    a = rng.randrange(len(s))
    b = rng.randrange(a, len(s))
    out = s[:a] + (numel(s[a:b + 1]),) + s[b + 1:]
    return (f".flatten({a}, {b})" if rng.random() < 0.7 else ".flatten()"), out if a or b else out


def v_unflatten(rng, s):
    if not s or s[0] % 2 or s[0] == 0:
        return ".unflatten(0, (1, -1))", (1,) + s if s else None
    return f".unflatten(0, (2, {s[0] // 2}))", (2, s[0] // 2) + s[1:]


def v_T(rng, s):
    choice = rng.random()
    if choice < 0.4:
        return ".T", tuple(reversed(s))  # a UserWarning beyond 2-D (and an error in time)
    if choice < 0.7:
        return ".mT", s[:-2] + (s[-1], s[-2]) if len(s) >= 2 else None
    return ".t()", tuple(reversed(s)) if len(s) <= 2 else None


def v_diagonal(rng, s):
    if len(s) < 2:
        return ".diagonal()", None
    a, b = rng.sample(range(len(s)), 2)
    off = rng.randint(-1, 1)
    n = max(0, min(s[a] + min(off, 0), s[b] - max(off, 0)))
    rest = tuple(x for i, x in enumerate(s) if i not in (a, b))
    return f".diagonal({off}, {a}, {b})", rest + (n,)


def v_movedim(rng, s):
    if not s:
        return ".movedim(0, 0)", s
    a, b = rng.randrange(len(s)), rng.randrange(len(s))
    out = list(s)
    out.insert(b, out.pop(a))
    return f".movedim({a}, {b})", tuple(out)


def v_slice(rng, s):
    if not s:
        return "[...]", s
    d = rng.randrange(len(s))
    start, step = rng.randint(0, 1), rng.randint(1, 2)
    n = len(range(start, s[d], step))
    out = list(s)
    out[d] = n
    return f"[{', '.join([':'] * d + [f'{start}::{step}'])}]", tuple(out)


def v_contiguous(rng, s):
    return rng.choice([".contiguous()", ".clone()", ".view_as({x})", ".expand_as({x})", ".reshape_as({x})"]), s


VIEWS = {"view": (v_view, 4), "transpose": (v_transpose, 3), "permute": (v_permute, 2), "expand": (v_expand, 2),
         "narrow": (v_narrow, 2), "select": (v_select, 3), "unbind": (v_unbind, 2), "split": (v_split, 2),
         "chunk": (v_chunk, 2), "squeeze": (v_squeeze, 2), "unsqueeze": (v_unsqueeze, 3), "flatten": (v_flatten, 2),
         "unflatten": (v_unflatten, 1), "T": (v_T, 2), "diagonal": (v_diagonal, 2), "movedim": (v_movedim, 1),
         "slice": (v_slice, 2), "contiguous": (v_contiguous, 1)}

AFTER = ["{v} * {w}", "{v}.exp()", "{v}.sum(0)", "{v} + {v}", "{v}.sin()", "{v}.mean()", "({v} * 2).sum(-1)",
         "{v}.tanh()", "{v} ** 2", "{v}.abs()"]


def generate_views(seed: int, index: int) -> Program:
    """Views program ``index`` of campaign ``seed``."""
    b = Builder("views", seed, index)
    rng = b.rng
    dtype = rng.choice(["float32"] * 4 + ["float64"])
    leaf = b.leaf(b.shape(), dtype, rg=rng.random() < 0.9)
    base = b.layout(leaf)
    if rng.random() < 0.5:
        base = b.non_leaf(base)
    cur = base
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        name = rng.choices(list(VIEWS), [w for _, w in VIEWS.values()])[0]
        code, shape = VIEWS[name][0](rng, cur.shape)
        code = code.replace("{x}", cur.name)
        m = Model("", shape if shape is not None else cur.shape, cur.dtype, cur.rg, False, True,
                  name not in ("contiguous",))
        if shape is None:  # a probe: an error (or an unexpected success) is compared
            b.probe(f"{cur.name}{code}", name, model=m)
            break
        b.let(f"{cur.name}{code}", name, model=m)
        if rng.random() < 0.25:
            b.let(f"({m.name}._base is {base.name}, {m.name}._is_view(), {m.name}.is_leaf)", "is_view", show=False)
        cur = m
    if rng.random() < 0.6 and cur.shape is not None:
        expr = rng.choice(AFTER)
        w = b.weights(cur.shape)
        out_shape = cur.shape
        if "sum(0)" in expr:
            out_shape = cur.shape[1:] if cur.shape else ()
        elif "sum(-1)" in expr:
            out_shape = cur.shape[:-1] if cur.shape else ()
        elif "mean" in expr:
            out_shape = ()
        m = Model("", out_shape, cur.dtype, cur.rg, False)
        b.let(expr.format(v=cur.name, w=w), "after", model=m, guard="sum" in expr and not cur.shape)
        cur = m
    if leaf.rg and cur.rg:
        b.backward(cur, [leaf])
    return b.program()
