"""The nn names added in round 10, module and functional forms: normalisations, the newer losses,
distances, GLU, Fold/Unfold, the random activations and dropouts, and a few tensor functions.

A program draws one entry of the catalogue (``NN``): GroupNorm, InstanceNorm1d/2d/3d,
BatchNorm3d, LocalResponseNorm, RMSNorm; KLDivLoss, PoissonNLLLoss, GaussianNLLLoss,
HingeEmbeddingLoss, CosineEmbeddingLoss, MarginRankingLoss, SoftMarginLoss,
MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss, TripletMarginLoss,
TripletMarginWithDistanceLoss; PairwiseDistance, F.cosine_similarity, GLU, Fold/Unfold, RReLU,
Dropout1d/3d, AlphaDropout, FeatureAlphaDropout, F.gumbel_softmax; torch.range, diagflat,
float_power, put, fill_diagonal_, masked_scatter. Each is spelled as a module or as its
functional form, with its options drawn (reduction, weight, margin, p, eps, affine,
track_running_stats, train/eval, log_target, full, ...), over random shapes (0-size,
1-element, batch-less where PyTorch allows) in float32 and float64; now and then an operand is
made wrong (a shape, a dtype, a class index, a divisor) so that the error is compared. The
result is observed (values, grad_fn, next_functions), then closed like ``gen_newer``: a
backward, ``autograd.grad`` or a create_graph double backward, and every leaf's gradient.

Operands are small multiples of 1/4, so the sums inside the losses and normalisations are
exact; the math functions and vectorised reductions PyTorch computes with machine-dependent
code go through the kernel rule (``kernels.py``) as everywhere else.
"""

from __future__ import annotations

from . import gen_newer  # also registers the dyadic_params helper
from .program import GRAD, Program, lit
from .shaped import Builder, Model

__all__ = ["generate_nn", "NN"]

F = "torch.nn.functional"
NN_ = "torch.nn"
REDUCTIONS = ["'mean'", "'sum'", "'none'"]


def _red(b: Builder) -> str:
    return b.rng.choice(REDUCTIONS)


def _red0(b: Builder, frames: int) -> str:
    """A reduction; over a batch of 0 frames 'none' only: PyTorch 2.13's multi_margin_loss and
    multilabel_margin_loss return uninitialised memory there for 'mean' and 'sum' (differing from
    run to run)."""
    return _red(b) if frames else "'none'"


def _out(dt: str) -> Model:
    return Model("", (), dt, True, False)


def _pos(b: Builder, x: Model, lo: str = "0.25") -> str:
    """A positive non-leaf of ``x`` (``x.abs() + lo``)."""
    return b.let(f"{x.name}.abs() + {lo}", "compute", show=False)


def _call(b: Builder, module: str, functional: str, args: str, op: str) -> Model:
    """Apply a loss or layer either as ``torch.nn.Module(opts)(args)`` or as ``F.fn(args, opts)``."""
    out = _out("")
    if b.rng.random() < 0.5:
        b.probe(f"{module}({args})", op, model=out)
    else:
        b.probe(functional, op, model=out)
    return out


def _batch(b: Builder) -> tuple:
    return b.rng.choice([(), (1,), (2,), (3,), (0,)])


# ---------------------------------------------------------------- normalisations


def n_group_norm(b: Builder, dt: str):
    rng = b.rng
    g = rng.choice([1, 2, 3])
    c = g * rng.choice([1, 2])
    if rng.random() < 0.1:
        c += 1  # not divisible: PyTorch's error
    n = rng.choice([1, 2, 0])
    x = b.layout(b.leaf((n, c) + tuple(rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))), dt))
    eps = rng.choice([1e-5, 0.5, 0.0])
    affine = rng.random() < 0.7
    m = b.let(f"dyadic_params(torch.nn.GroupNorm({g}, {c}, eps={eps}, affine={affine}, dtype=torch.{dt}))", "module",
              show=False, helpers=("dyadic_params",))
    out = _out(dt)
    if rng.random() < 0.5:
        b.probe(f"{m}({x.name})", "group_norm", model=out)
    else:
        b.probe(f"{F}.group_norm({x.name}, {g}, {m}.weight, {m}.bias, {eps})", "group_norm", model=out)
    b.let(f"[p.grad for p in {m}.parameters()]", "read_grad", GRAD, show=False)
    return out, [x]


def n_instance_norm(b: Builder, dt: str):
    rng = b.rng
    d = rng.choice([1, 2, 3])
    c = rng.choice([1, 2, 3])
    size = tuple(rng.choice([1, 2, 3]) for _ in range(d))
    batch = rng.choice([(1,), (2,), ()])
    x = b.layout(b.leaf(batch + (c,) + size, dt))
    affine, track = rng.random() < 0.5, rng.random() < 0.5
    mom = rng.choice([0.1, 0.5, None])
    cc = c if rng.random() < 0.9 else c + 1  # a mismatch: an error or a warning, as PyTorch says
    m = b.let(f"dyadic_params(torch.nn.InstanceNorm{d}d({cc}, eps={rng.choice([1e-5, 0.25])}, momentum={mom}, "
              f"affine={affine}, track_running_stats={track}, dtype=torch.{dt}))", "module", show=False,
              helpers=("dyadic_params",))
    if rng.random() < 0.3:
        b.do(f"{m}.eval()", "eval")
    out = _out(dt)
    b.probe(f"{m}({x.name})", "instance_norm", model=out)
    b.let(f"[(n, t) for n, t in {m}.named_buffers()]", "buffers", show=False)
    if rng.random() < 0.3:
        b.probe(f"{F}.instance_norm({x.name}, use_input_stats={rng.random() < 0.7})", "instance_norm")
    return out, [x]


def n_batch_norm3d(b: Builder, dt: str):
    rng = b.rng
    c = rng.choice([1, 2])
    x = b.layout(b.leaf((rng.choice([1, 2, 0]), c) + tuple(rng.choice([1, 2]) for _ in range(3)), dt))
    if rng.random() < 0.1:
        x = b.leaf((c, 2, 2, 2), dt)  # 4-D: PyTorch's error
    affine, track = rng.random() < 0.7, rng.random() < 0.7
    m = b.let(f"dyadic_params(torch.nn.BatchNorm3d({c}, momentum={rng.choice([0.1, 0.5, None])}, affine={affine}, "
              f"track_running_stats={track}, dtype=torch.{dt}))", "module", show=False, helpers=("dyadic_params",))
    if rng.random() < 0.35:
        b.do(f"{m}.eval()", "eval")
    out = _out(dt)
    b.probe(f"{m}({x.name})", "batch_norm3d", model=out)
    b.let(f"[(n, t) for n, t in {m}.named_buffers()]", "buffers", show=False)
    return out, [x]


def n_local_response_norm(b: Builder, dt: str):
    rng = b.rng
    x = b.layout(b.leaf((rng.choice([1, 2]), rng.choice([1, 2, 3, 4])) + tuple(
        rng.choice([1, 2]) for _ in range(rng.choice([0, 1, 2, 3]))), dt))
    size = rng.choice([1, 2, 3, 5])
    alpha, beta, k = rng.choice([1e-4, 0.5, 1.0]), rng.choice([0.75, 1.0, 0.5]), rng.choice([1.0, 2.0])
    opts = f"{size}, alpha={alpha}, beta={beta}, k={k}"
    return _call(b, f"torch.nn.LocalResponseNorm({opts})", f"{F}.local_response_norm({x.name}, {opts})", x.name,
                 "local_response_norm"), [x]


def n_rms_norm(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=3, empty=0.1)
    if not shape:
        shape = (2,)
    x = b.layout(b.leaf(shape, dt))
    k = rng.randint(1, len(shape))
    norm = shape[-k:]
    if rng.random() < 0.1:
        norm = norm[:-1] + (norm[-1] + 1,)  # a mismatch: PyTorch's error
    eps = rng.choice(["None", "1e-6", "0.25"])
    affine = rng.random() < 0.6
    m = b.let(f"dyadic_params(torch.nn.RMSNorm({lit(norm)}, eps={eps}, elementwise_affine={affine}, "
              f"dtype=torch.{dt}))", "module", show=False, helpers=("dyadic_params",))
    out = _out(dt)
    if rng.random() < 0.5:
        b.probe(f"{m}({x.name})", "rms_norm", model=out)
    else:
        b.probe(f"{F}.rms_norm({x.name}, {lit(norm)}, {m}.weight, eps={eps})", "rms_norm", model=out)
    return out, [x]


# ---------------------------------------------------------------- losses


def n_kl_div(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=3, empty=0.08)
    x = b.layout(b.leaf(shape, dt))
    t = b.leaf(shape, dt, rg=rng.random() < 0.4)
    log_target = rng.random() < 0.5
    tt = t.name if log_target else _pos(b, t, "0.0")
    red = rng.choice(REDUCTIONS + ["'batchmean'"])
    opts = f"reduction={red}, log_target={log_target}"
    return _call(b, f"torch.nn.KLDivLoss({opts})", f"{F}.kl_div({x.name}, {tt}, {opts})", f"{x.name}, {tt}",
                 "kl_div"), [x, t]


def n_poisson_nll(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=3, empty=0.08)
    x = b.layout(b.leaf(shape, dt))
    t = b.leaf(shape, dt, rg=rng.random() < 0.3)
    log_input, full = rng.random() < 0.6, rng.random() < 0.5
    xi = x.name if log_input else _pos(b, x)
    ti = _pos(b, t, rng.choice(["0.0", "0.5", "1.0"]))
    opts = f"log_input={log_input}, full={full}, eps={rng.choice([1e-8, 0.25])}, reduction={_red(b)}"
    return _call(b, f"torch.nn.PoissonNLLLoss({opts})", f"{F}.poisson_nll_loss({xi}, {ti}, {opts})", f"{xi}, {ti}",
                 "poisson_nll_loss"), [x, t]


def n_gaussian_nll(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=3, empty=0.08)
    if not shape:
        shape = (2,)
    x = b.layout(b.leaf(shape, dt))
    t = b.leaf(shape, dt, rg=rng.random() < 0.3)
    r = rng.random()
    vshape = shape if r < 0.6 else shape[:-1] + (1,) if r < 0.8 else shape[:-1] if r < 0.9 else (7,)
    v = b.leaf(vshape, dt, rg=rng.random() < 0.6)
    var = _pos(b, v) if rng.random() < 0.9 else f"{v.name} - 1"  # negative: PyTorch's error
    opts = f"full={rng.random() < 0.5}, eps={rng.choice([1e-6, 0.5])}, reduction={_red(b)}"
    return _call(b, f"torch.nn.GaussianNLLLoss({opts})", f"{F}.gaussian_nll_loss({x.name}, {t.name}, {var}, {opts})",
                 f"{x.name}, {t.name}, {var}", "gaussian_nll_loss"), [x, t, v]


def _signs(b: Builder, shape: tuple, dt: str, zero: bool = False) -> str:
    rng = b.rng
    vals = [rng.choice([1, -1] + ([0] if zero else [])) for _ in range(max(1, __import__("math").prod(shape)))]
    if 0 in shape:
        return b.let(f"torch.ones({lit(shape)}, dtype=torch.{dt})", "target", show=False)
    src = f"torch.tensor({lit([float(v) for v in vals])}, dtype=torch.{dt})"
    return b.let(f"{src}.reshape({lit(shape)})" if shape else f"{src}[0]", "target", show=False)


def n_hinge_embedding(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=3, empty=0.08)
    x = b.layout(b.leaf(shape, dt))
    y = _signs(b, shape, dt, zero=rng.random() < 0.1)
    opts = f"margin={rng.choice([1.0, 0.5, 0.0, 2.0])}, reduction={_red(b)}"
    return _call(b, f"torch.nn.HingeEmbeddingLoss({opts})", f"{F}.hinge_embedding_loss({x.name}, {y}, {opts})",
                 f"{x.name}, {y}", "hinge_embedding_loss"), [x]


def n_cosine_embedding(b: Builder, dt: str):
    rng = b.rng
    n, d = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    batchless = rng.random() < 0.25
    shape = (d,) if batchless else (n, d)
    x1, x2 = b.layout(b.leaf(shape, dt)), b.leaf(shape, dt, rg=rng.random() < 0.6)
    yshape = () if batchless else (n if rng.random() < 0.9 else n + 1,)
    y = _signs(b, yshape, dt)
    opts = f"margin={rng.choice([0.0, 0.5, -0.5])}, reduction={_red(b)}"
    return _call(b, f"torch.nn.CosineEmbeddingLoss({opts})",
                 f"{F}.cosine_embedding_loss({x1.name}, {x2.name}, {y}, {opts})", f"{x1.name}, {x2.name}, {y}",
                 "cosine_embedding_loss"), [x1, x2]


def n_margin_ranking(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=2, empty=0.08)
    x1, x2 = b.layout(b.leaf(shape, dt)), b.leaf(shape, dt, rg=rng.random() < 0.6)
    y = _signs(b, shape, dt)
    opts = f"margin={rng.choice([0.0, 0.5, 1.0])}, reduction={_red(b)}"
    return _call(b, f"torch.nn.MarginRankingLoss({opts})",
                 f"{F}.margin_ranking_loss({x1.name}, {x2.name}, {y}, {opts})", f"{x1.name}, {x2.name}, {y}",
                 "margin_ranking_loss"), [x1, x2]


def n_soft_margin(b: Builder, dt: str):
    shape = b.shape(max_dims=3, empty=0.08)
    x = b.layout(b.leaf(shape, dt))
    y = _signs(b, shape, dt)
    opts = f"reduction={_red(b)}"
    return _call(b, f"torch.nn.SoftMarginLoss({opts})", f"{F}.soft_margin_loss({x.name}, {y}, {opts})",
                 f"{x.name}, {y}", "soft_margin_loss"), [x]


def n_multilabel_soft_margin(b: Builder, dt: str):
    rng = b.rng
    n, c = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    shape = rng.choice([(n, c), (n, c), (c,)])
    x = b.layout(b.leaf(shape, dt))
    y = b.let(f"torch.tensor({lit(b.data(shape, 'bool'))}).to(torch.{dt})", "target", show=False)
    w = f"torch.tensor({lit([(k % 3 + 1) / 2 for k in range(c)])}, dtype=torch.{dt})" if rng.random() < 0.4 \
        else "None"
    opts = f"weight={w}, reduction={_red(b)}"
    return _call(b, f"torch.nn.MultiLabelSoftMarginLoss({opts})",
                 f"{F}.multilabel_soft_margin_loss({x.name}, {y}, {opts})", f"{x.name}, {y}",
                 "multilabel_soft_margin_loss"), [x]


def n_multi_margin(b: Builder, dt: str):
    rng = b.rng
    n, c = rng.choice([1, 2, 3, 0]), rng.choice([1, 2, 3])
    batchless = rng.random() < 0.2
    x = b.layout(b.leaf((c,) if batchless else (n, c), dt))
    hi = c if rng.random() < 0.92 else c + 1  # a class out of range: PyTorch's error
    ys = [rng.randrange(hi) for _ in range(1 if batchless else n)]
    y = b.let(f"torch.tensor({lit(ys[0] if batchless and rng.random() < 0.5 else ys)}, dtype=torch.int64)",
              "target", show=False)
    w = f"torch.tensor({lit([(k % 3 + 1) / 2 for k in range(c)])}, dtype=torch.{dt})" if rng.random() < 0.4 \
        else "None"
    opts = f"p={rng.choice([1, 1, 2, 3])}, margin={rng.choice([1.0, 0.5, 2.0])}, weight={w}, reduction={_red0(b, n)}"
    return _call(b, f"torch.nn.MultiMarginLoss({opts})", f"{F}.multi_margin_loss({x.name}, {y}, {opts})",
                 f"{x.name}, {y}", "multi_margin_loss"), [x]


def n_multilabel_margin(b: Builder, dt: str):
    rng = b.rng
    n, c = rng.choice([1, 2, 3, 0]), rng.choice([1, 2, 3, 4])
    batchless = rng.random() < 0.25
    x = b.layout(b.leaf((c,) if batchless else (n, c), dt))

    def row():
        k = rng.randint(0, c)
        labels = rng.sample(range(c), k) + [-1] * (c - k)
        if rng.random() < 0.3 and c > 1:
            labels[-1] = rng.randrange(c)  # after a -1: ignored
        return labels

    ys = row() if batchless else [row() for _ in range(n)]
    if rng.random() < 0.06 and not batchless and n:
        ys[0][0] = c  # out of range: PyTorch's error
    y = b.let(f"torch.tensor({lit(ys)}, dtype=torch.int64)" if ys else f"torch.zeros(0, {c}, dtype=torch.int64)",
              "target", show=False)
    opts = f"reduction={_red0(b, 1 if batchless else n)}"
    return _call(b, f"torch.nn.MultiLabelMarginLoss({opts})", f"{F}.multilabel_margin_loss({x.name}, {y}, {opts})",
                 f"{x.name}, {y}", "multilabel_margin_loss"), [x]


def n_triplet(b: Builder, dt: str):
    rng = b.rng
    n, d = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    shape = rng.choice([(n, d), (n, d), (d,)])
    a, p, q = b.layout(b.leaf(shape, dt)), b.leaf(shape, dt, rg=rng.random() < 0.6), b.leaf(shape, dt)
    args = f"{a.name}, {p.name}, {q.name}"
    margin, swap = rng.choice([1.0, 0.5, 0.0]), rng.random() < 0.3
    if rng.random() < 0.55:
        opts = (f"margin={margin}, p={rng.choice([1.0, 2.0, 2.0, 3.0])}, eps={rng.choice([1e-6, 0.25])}, swap={swap}, "
                f"reduction={_red(b)}")
        return _call(b, f"torch.nn.TripletMarginLoss({opts})", f"{F}.triplet_margin_loss({args}, {opts})", args,
                     "triplet_margin_loss"), [a, p, q]
    dist = rng.choice(["None", "torch.nn.PairwiseDistance()", "torch.nn.PairwiseDistance(p=1.0)",
                       "lambda u, v: (u - v).abs().sum(-1)"])
    opts = f"distance_function={dist}, margin={margin}, swap={swap}, reduction={_red(b)}"
    return _call(b, f"torch.nn.TripletMarginWithDistanceLoss({opts})",
                 f"{F}.triplet_margin_with_distance_loss({args}, {opts})", args,
                 "triplet_margin_with_distance_loss"), [a, p, q]


# ---------------------------------------------------------------- distances, GLU, fold


def n_distance(b: Builder, dt: str):
    rng = b.rng
    shape = rng.choice([(2, 3), (3,), (1, 2), (2, 1, 3), (0, 2), (1,)])
    x1 = b.layout(b.leaf(shape, dt))
    oshape = shape if rng.random() < 0.7 else (1,) + shape[1:] if len(shape) > 1 else (1,)
    x2 = b.leaf(oshape, dt, rg=rng.random() < 0.6)
    if rng.random() < 0.5:
        p = rng.choice(["1.0", "2.0", "2.0", "3.0", "0.5", "0.0", "float('inf')"])
        opts = f"p={p}, eps={rng.choice([1e-6, 0.25])}, keepdim={rng.random() < 0.3}"
        out = _call(b, f"torch.nn.PairwiseDistance({opts})", f"{F}.pairwise_distance({x1.name}, {x2.name}, {opts})",
                    f"{x1.name}, {x2.name}", "pairwise_distance")
    else:
        dim = rng.randrange(-len(shape), len(shape))
        opts = f"dim={dim}, eps={rng.choice([1e-8, 0.25])}"
        out = _call(b, f"torch.nn.CosineSimilarity({opts})", f"{F}.cosine_similarity({x1.name}, {x2.name}, {opts})",
                    f"{x1.name}, {x2.name}", "cosine_similarity")
    return out, [x1, x2]


def n_glu(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=3, empty=0.08) or (2,)
    x = b.layout(b.leaf(shape, dt))
    dim = rng.randrange(-len(shape), len(shape))
    return _call(b, f"torch.nn.GLU({dim})", f"{F}.glu({x.name}, {dim})", x.name, "glu"), [x]


def n_fold(b: Builder, dt: str):
    rng = b.rng
    c = rng.choice([1, 2])
    k = (rng.choice([1, 2]), rng.choice([1, 2]))
    stride, pad, dil = rng.choice([1, 2]), rng.choice([0, 1]), rng.choice([1, 2])
    opts = f"kernel_size={lit(k)}, dilation={dil}, padding={pad}, stride={stride}"
    batch = rng.choice([(1,), (2,), ()])
    if rng.random() < 0.5:
        x = b.layout(b.leaf(batch + (c, rng.choice([2, 3]), rng.choice([2, 3, 4])), dt))
        return _call(b, f"torch.nn.Unfold({opts})", f"{F}.unfold({x.name}, {opts})", x.name, "unfold"), [x]
    out = (rng.choice([2, 3, 4]), rng.choice([2, 3]))
    blocks = 1
    for o, kk in zip(out, k):
        blocks *= max(0, (o + 2 * pad - dil * (kk - 1) - 1) // stride + 1)
    if rng.random() < 0.1:
        blocks += 1  # a wrong number of blocks: PyTorch's error
    x = b.layout(b.leaf(batch + (c * k[0] * k[1], blocks), dt))
    opts = f"output_size={lit(out)}, " + opts
    return _call(b, f"torch.nn.Fold({opts})", f"{F}.fold({x.name}, {opts})", x.name, "fold"), [x]


# ---------------------------------------------------------------- random activations, dropouts


def n_random(b: Builder, dt: str):
    rng = b.rng
    shape = b.shape(max_dims=4, empty=0.08)
    which = rng.choice(["rrelu", "dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "gumbel"])
    if which == "dropout1d":
        shape = rng.choice([(2, 3), (1, 2, 3), (2, 2, 2), (0, 2)])
    elif which == "dropout3d":
        shape = rng.choice([(2, 1, 2, 2), (1, 2, 1, 2, 2), (2, 2, 1, 1, 1)])
    elif which == "gumbel" and not shape:
        shape = (3,)
    x = b.layout(b.leaf(shape, dt))
    b.setup(f"torch.manual_seed({rng.randrange(1000)})")
    train = rng.random() < 0.6
    p = rng.choice([0.0, 0.5, 1.0, 0.25])
    if which == "rrelu":
        lo, hi = rng.choice([(0.125, 0.25), (0.25, 0.25), (1 / 8, 1 / 3)])
        out = _call(b, f"torch.nn.RReLU({lo}, {hi}).train({train})",
                    f"{F}.rrelu({x.name}, {lo}, {hi}, training={train})", x.name, "rrelu")
    elif which == "gumbel":
        d = rng.randrange(-len(shape), len(shape))
        out = _out(dt)
        b.probe(f"{F}.gumbel_softmax({x.name}, tau={rng.choice([1.0, 0.5, 2.0])}, hard={rng.random() < 0.4}, "
                f"dim={d})", "gumbel_softmax", model=out)
    else:
        mod = {"dropout1d": "Dropout1d", "dropout3d": "Dropout3d", "alpha_dropout": "AlphaDropout",
               "feature_alpha_dropout": "FeatureAlphaDropout"}[which]
        out = _call(b, f"torch.nn.{mod}({p}).train({train})", f"{F}.{which}({x.name}, {p}, training={train})",
                    x.name, which)
    b.let("torch.rand(2)", "sampling")  # where the generator's state stands
    return out, [x]


# ---------------------------------------------------------------- tensor functions


def n_tensor_fns(b: Builder, dt: str):
    rng = b.rng
    which = rng.choice(["range", "diagflat", "float_power", "put", "fill_diagonal_", "masked_scatter"])
    out = _out(dt)
    if which == "range":
        start, end = rng.choice([0, 1, -2, 0.5]), rng.choice([3, 2.5, -1, 0, 1])
        step = rng.choice([1, 0.5, 2, -1, -0.5, 0])
        dtype = rng.choice(["", f", dtype=torch.{dt}", ", dtype=torch.int64"])
        b.probe(f"torch.range({start}, {end}, {step}{dtype})", "range")
        return None, []
    if which == "diagflat":
        x = b.layout(b.leaf(b.shape(max_dims=2, empty=0.1), dt))
        b.probe(rng.choice([f"torch.diagflat({x.name}, {rng.randint(-2, 2)})", f"{x.name}.diagflat()",
                            f"torch.diagflat({x.name}, offset={rng.randint(-1, 1)})"]), "diagflat", model=out)
        return out, [x]
    if which == "float_power":
        shape = b.shape(max_dims=2, empty=0.08)
        x = b.layout(b.leaf(shape, dt))
        base = _pos(b, x) if rng.random() < 0.6 else x.name
        e = rng.choice(["2", "0.5", "-1", "3", "2.5"])
        if rng.random() < 0.4:
            y = b.leaf(shape, rng.choice([dt, "int64"]), rg=rng.random() < 0.5)
            e = y.name
            b.probe(f"torch.float_power({base}, {e})", "float_power", model=out)
            return out, [x, y]
        b.probe(rng.choice([f"torch.float_power({base}, {e})", f"{base}.float_power({e})"]), "float_power", model=out)
        if rng.random() < 0.2:
            b.probe(f"{x.name}.detach().clone().float_power_({e})", "float_power_")
        return out, [x]
    if which == "put":
        shape = b.shape(max_dims=3, empty=0.05)
        n = max(1, __import__("math").prod(shape))
        x = b.leaf(shape, dt)
        base = b.let(f"{x.name} * 1", "compute", show=False)
        k = rng.randint(0, 3)
        idx = [rng.randrange(-n, n) if rng.random() < 0.95 else n for _ in range(k)]
        src = b.leaf((k,), dt, rg=rng.random() < 0.6)
        acc = rng.choice(["", ", accumulate=True", ", accumulate=False"])
        call = rng.choice([f"{base}.put({{i}}, {src.name}{acc})", f"{base}.put_({{i}}, {src.name}{acc})",
                           f"torch.put({base}, {{i}}, {src.name}{acc})"])
        b.probe(call.format(i=f"torch.tensor({lit(idx)}, dtype=torch.int64)"), "put", model=out)
        return out, [x, src]
    if which == "fill_diagonal_":
        shape = rng.choice([(2, 3), (3, 2), (3, 3), (5, 2), (2, 2, 2), (3,), (1, 1), (0, 2), (7, 3)])
        x = b.leaf(shape, dt)
        base = b.let(f"{x.name} * 1", "compute", show=False)
        b.probe(f"{base}.fill_diagonal_({rng.choice([0.5, -1.0, 2])}, wrap={rng.random() < 0.5})", "fill_diagonal_",
                model=out)
        return out, [x]
    shape = b.shape(max_dims=3, empty=0.05)
    x = b.layout(b.leaf(shape, dt))
    mshape = shape if rng.random() < 0.7 else shape[1:]
    mask = b.let(f"torch.tensor({lit(b.data(mshape, 'bool'))})" if 0 not in mshape else
                 f"torch.zeros({lit(mshape)}, dtype=torch.bool)", "mask", show=False)
    n = max(1, __import__("math").prod(shape))
    src = b.leaf((n + rng.choice([0, 0, 1, -n]),), dt, rg=rng.random() < 0.6)
    if rng.random() < 0.4:
        b.probe(f"{x.name}.masked_scatter({mask}, {src.name})", "masked_scatter", model=out)
    else:
        base = b.let(f"{x.name} * 1", "compute", show=False)
        b.probe(f"{base}.masked_scatter_({mask}, {src.name})", "masked_scatter_", model=out)
    return out, [x, src]


NN = {"group_norm": (n_group_norm, 3), "instance_norm": (n_instance_norm, 3), "batch_norm3d": (n_batch_norm3d, 2),
      "local_response_norm": (n_local_response_norm, 2), "rms_norm": (n_rms_norm, 2), "kl_div": (n_kl_div, 2),
      "poisson_nll": (n_poisson_nll, 2), "gaussian_nll": (n_gaussian_nll, 2),
      "hinge_embedding": (n_hinge_embedding, 2), "cosine_embedding": (n_cosine_embedding, 2),
      "margin_ranking": (n_margin_ranking, 2), "soft_margin": (n_soft_margin, 2),
      "multilabel_soft_margin": (n_multilabel_soft_margin, 2), "multi_margin": (n_multi_margin, 2),
      "multilabel_margin": (n_multilabel_margin, 2), "triplet": (n_triplet, 3), "distance": (n_distance, 3),
      "glu": (n_glu, 2), "fold": (n_fold, 3), "random": (n_random, 4), "tensor_fns": (n_tensor_fns, 5)}


def generate_nn(seed: int, index: int) -> Program:
    """nn-family program ``index`` of campaign ``seed``."""
    b = Builder("nn", seed, index)
    rng = b.rng
    dtype = rng.choice(["float32"] * 3 + ["float64"])
    name = rng.choices(list(NN), [w for _, w in NN.values()])[0]
    out, _ = NN[name][0](b, dtype)
    if out is not None:
        out.dtype = dtype
    if out is not None and out.name:
        gen_newer.differentiate(b, out, 0.45, 0.7)
    return b.program(note=name)
