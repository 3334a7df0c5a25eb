"""Training runs: a model, a loss, an optimizer, a scheduler and a DataLoader, a few epochs.

A program seeds the generator, builds a model from the catalogue (``LAYERS``: Linear stacks
with ReLU, Tanh, Sigmoid, LeakyReLU, GELU, Dropout, LayerNorm, BatchNorm1d), a dataset of
small numbers and a ``DataLoader`` (batch size, shuffle with a seeded generator, drop_last;
or an ``IterableDataset`` split between workers with ``get_worker_info``), a loss
(``LOSSES``), an optimizer (``OPTIMIZERS``: SGD with momentum, nesterov, weight decay; Adam,
AdamW with amsgrad; RMSprop; Adagrad) and a scheduler (``SCHEDULERS``), and trains for one to
three epochs, logging every loss, learning rate and batch. The log, the final parameters and
the optimizer's state are compared; matrix products and the math library are machine-
dependent kernels (the kernel rule), everything else bit for bit.
"""

from __future__ import annotations

from .program import GRAD, Program, lit
from .shaped import Builder

__all__ = ["generate_training", "LAYERS", "LOSSES", "OPTIMIZERS", "SCHEDULERS"]

LAYERS = ["ReLU()", "Tanh()", "Sigmoid()", "LeakyReLU(0.1)", "GELU()", "Dropout(0.25)", "LayerNorm({n})",
          "BatchNorm1d({n})"]
# name -> (source, target kind)
LOSSES = {
    "mse": ("torch.nn.MSELoss()", "float"), "l1": ("torch.nn.L1Loss()", "float"),
    "smooth_l1": ("torch.nn.SmoothL1Loss(beta=0.5)", "float"), "huber": ("torch.nn.HuberLoss(delta=0.75)", "float"),
    "cross_entropy": ("torch.nn.CrossEntropyLoss()", "class"),
    "cross_entropy_smooth": ("torch.nn.CrossEntropyLoss(label_smoothing=0.1)", "class"),
    "nll": ("lambda out, y: torch.nn.functional.nll_loss(out.log_softmax(-1), y)", "class"),
    "bce_logits": ("torch.nn.BCEWithLogitsLoss()", "binary"),
    "bce": ("lambda out, y: torch.nn.functional.binary_cross_entropy(out.sigmoid(), y)", "binary"),
    "mse_sum": ("torch.nn.MSELoss(reduction='sum')", "float"),
}
OPTIMIZERS = [
    "torch.optim.SGD({p}, lr=0.1)", "torch.optim.SGD({p}, lr=0.05, momentum=0.9)",
    "torch.optim.SGD({p}, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)",
    "torch.optim.SGD({p}, lr=0.1, momentum=0.5, dampening=0.1)", "torch.optim.Adam({p}, lr=0.01)",
    "torch.optim.Adam({p}, lr=0.02, betas=(0.8, 0.99), weight_decay=0.01, amsgrad=True)",
    "torch.optim.AdamW({p}, lr=0.01)", "torch.optim.RMSprop({p}, lr=0.01)",
    "torch.optim.RMSprop({p}, lr=0.01, momentum=0.5, centered=True)", "torch.optim.Adagrad({p}, lr=0.1)",
]
SCHEDULERS = [
    None, "torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)",
    "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.3)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)",
    "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))",
    "torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=3)",
    "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)",
]
STREAM = '''class Stream(torch.utils.data.IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))'''


def _model(b: Builder, n_in: int, n_out: int) -> str:
    rng = b.rng
    layers = []
    width = n_in
    for _ in range(rng.choice([0, 1, 1, 2])):
        hidden = rng.choice([2, 3, 4])
        layers.append(f"torch.nn.Linear({width}, {hidden})")
        if rng.random() < 0.85:
            layers.append("torch.nn." + rng.choice(LAYERS).format(n=hidden))
        width = hidden
    layers.append(f"torch.nn.Linear({width}, {n_out}{', bias=False' if rng.random() < 0.15 else ''})")
    return "torch.nn.Sequential(" + ", ".join(layers) + ")"


def _stream(b: Builder) -> None:
    """An IterableDataset split between workers: the order of the items PyTorch's loader gives."""
    rng = b.rng
    b.setup(STREAM, "define")
    start, end = rng.randint(0, 3), rng.randint(4, 9)
    workers = rng.choice([0, 2])
    batch = rng.choice(["None", "1", "2"])
    b.let(f"[t.tolist() if hasattr(t, 'tolist') else t for t in torch.utils.data.DataLoader("
          f"Stream({start}, {end}), num_workers={workers}, batch_size={batch})]", "iterable_loader", show=False)


def generate_training(seed: int, index: int) -> Program:
    """Training program ``index`` of campaign ``seed``."""
    b = Builder("training", seed, index)
    rng = b.rng
    if rng.random() < 0.05:
        _stream(b)
        return b.program()
    b.setup(f"torch.manual_seed({rng.randrange(1000)})", "manual_seed")
    n_in, n_samples = rng.choice([1, 2, 3]), rng.choice([4, 5, 6, 8])
    loss_name = rng.choice(list(LOSSES))
    loss_src, target = LOSSES[loss_name]
    n_out = rng.choice([2, 3]) if target == "class" else rng.choice([1, 2])
    xs = [[rng.randint(-8, 8) / 4 for _ in range(n_in)] for _ in range(n_samples)]
    if target == "class":
        ys = f"torch.tensor({lit([rng.randrange(n_out) for _ in range(n_samples)])})"
    elif target == "binary":
        ys = f"torch.tensor({lit([[float(rng.random() < 0.5) for _ in range(n_out)] for _ in range(n_samples)])})"
    else:
        ys = f"torch.tensor({lit([[rng.randint(-8, 8) / 4 for _ in range(n_out)] for _ in range(n_samples)])})"
    model = b.let(_model(b, n_in, n_out), "model", show=False)
    b.setup(f"v_x = torch.tensor({lit(xs)})\nv_y = {ys}", "data")
    batch = rng.choice([1, 2, 3, n_samples])
    shuffle = rng.random() < 0.6
    gen = f", generator=torch.Generator().manual_seed({rng.randrange(100)})" if shuffle else ""
    drop = ", drop_last=True" if rng.random() < 0.2 else ""
    b.setup(f"loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(v_x, v_y), batch_size={batch}, "
            f"shuffle={shuffle}{gen}{drop})", "loader")
    b.setup(f"loss_fn = {loss_src}\nopt = {rng.choice(OPTIMIZERS).format(p=model + '.parameters()')}", "optimizer")
    sched = rng.choice(SCHEDULERS)
    b.setup(f"sched = {sched}" if sched else "sched = None", "scheduler")
    if rng.random() < 0.3:
        b.setup(f"{model}.train()" if rng.random() < 0.5 else f"{model}.eval()", "mode")
    epochs = rng.choice([1, 2, 3])
    step_sched = ("sched.step(total)" if sched and "Plateau" in sched else "sched.step()") if sched else "pass"
    loop = f"""log = []
for epoch in range({epochs}):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn({model}(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
        log.append((epoch, loss.item(), xb.tolist(), opt.param_groups[0]['lr']))
    if sched is not None:
        {step_sched}"""
    b.do(loop, "train", guard=True)
    b.let("log", "log", show=False)
    b.let(f"[p.detach() for p in {model}.parameters()]", "parameters", GRAD, show=False)
    b.let(f"[p.grad for p in {model}.parameters()]", "grads", GRAD, show=False)
    if rng.random() < 0.3:
        b.let("[(k, v) for k, v in opt.state_dict()['state'].get(0, {}).items()]", "optimizer_state", show=False)
    if rng.random() < 0.3:
        b.let(f"{model}.state_dict()", "state_dict", show=False)
    return b.program()
