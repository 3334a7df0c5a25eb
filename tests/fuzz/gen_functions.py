"""Custom autograd Functions: every feature of ``torch.autograd.Function`` a tutorial or test uses.

A program defines one Function ``F`` from the catalogue (``FUNCTIONS``: saved tensors, an
in-place forward marked dirty (returning its input once or twice), view outputs, outputs
marked non-differentiable, an input returned as it is, ``setup_context`` with forward's
default arguments, ``set_materialize_grads(False)``, reentrant backward at a depth, backward
returning None, too many gradients or gradients of another shape, both ``backward`` and
``vjp``), sometimes decorated with ``once_differentiable``; applies it to a leaf, a clone of
it, a view of a leaf or a computed value; changes the result in place at times; and closes
with a backward (``create_graph`` too). What backward received is recorded in ``ev`` and
compared in order with the outputs (values, grad_fn ``FBackward``, next_functions) and every
gradient.
"""

from __future__ import annotations

from .program import GRAD, Program
from .shaped import Builder, Model

__all__ = ["generate_functions", "FUNCTIONS"]

_REC = "ev.append(('backward', [None if t is None else t.tolist() for t in {gs}]))"

# name -> (forward body, backward body, outputs, in place); forward(ctx, x, y), backward(ctx, *gs)
FUNCTIONS = {
    "mul": ("ctx.save_for_backward(x, y)\nreturn x * y",
            "x, y = ctx.saved_tensors\nreturn gs[0] * y, gs[0] * x", 1, False),
    "exp": ("r = x.exp()\nctx.save_for_backward(r)\nreturn r",
            "r, = ctx.saved_tensors\nreturn gs[0] * r, None", 1, False),
    "none_grad": ("return x * 2 + y", "return gs[0] * 2, None", 1, False),
    "inplace": ("x.mul_(2)\nctx.mark_dirty(x)\nreturn x", "return gs[0] * 2, None", 1, True),
    "dirty_pair": ("x.add_(1)\nctx.mark_dirty(x)\nreturn x, x", "return gs[0] + gs[1], None", 2, True),
    "view": ("ctx.shape = x.shape\nreturn x.view(-1)", "return gs[0].reshape(ctx.shape), None", 1, False),
    "view_select": ("ctx.shape = x.shape\nreturn x[0]",
                    "g = torch.zeros(ctx.shape, dtype=gs[0].dtype)\ng[0] = gs[0]\nreturn g, None", 1, False),
    "identity": ("return x", "return gs[0], None", 1, False),
    "non_differentiable": ("a = x * 2\nb = x * 3\nctx.mark_non_differentiable(b)\nreturn a, b",
                           "return gs[0] * 2, None", 2, False),
    "materialize": ("ctx.set_materialize_grads(False)\nreturn x * 2, x * 3",
                    "g = 0\nfor k, t in zip((2, 3), gs):\n    if t is not None:\n        g = g + t * k\n"
                    "return g, None", 2, False),
    "int_output": ("return x * 2, (x > 0).sum()", "return gs[0] * 2, None", 2, False),
    "too_many": ("return x * 2", "return gs[0] * 2, None, None", 1, False),
    "wrong_shape": ("return x * 2", "return (gs[0] * 2).sum(), None", 1, False),
    "wrong_dtype": ("return x * 2", "return (gs[0] * 2).double(), None", 1, False),
    "saved_variables": ("ctx.save_for_backward(x)\nreturn x * 3", "x, = ctx.saved_variables\nreturn gs[0] * 3, None",
                        1, False),
    "dirty_non_input": ("t = x * 2\nctx.mark_dirty(t)\nreturn t", "return gs[0] * 2, None", 1, False),
    "saved_twice": ("ctx.save_for_backward(x)\nreturn x * x", "a, = ctx.saved_tensors\nb, = ctx.saved_tensors\n"
                    "return gs[0] * (a + b), None", 1, False),
    "nested": ("with torch.enable_grad():\n    t = x.detach().requires_grad_()\n    (t * t).sum().backward()\n"
               "ctx.save_for_backward(t.grad)\nreturn x * 2", "g2, = ctx.saved_tensors\nreturn gs[0] * g2, None",
               1, False),
}
SETUP_CONTEXT = ("return x * k + y", "ctx.k = inputs[2] if len(inputs) > 2 else None\n"
                 "ev.append(('setup_context', len(inputs), ctx.k))",
                 "return gs[0] * ctx.k, gs[0]")
REENTRANT = '''class R(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, depth):
        ctx.depth = depth
        return x * 2

    @staticmethod
    def backward(ctx, g):
        if ctx.depth > 0:
            with torch.enable_grad():
                t = torch.ones(1, requires_grad=True)
                R.apply(t, ctx.depth - 1).sum().backward()
        return g * 2, None'''


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


def _class(name: str, forward: str, backward: str, once: bool, setup: str | None = None, vjp: bool = False) -> str:
    lines = [f"class {name}(torch.autograd.Function):", "    @staticmethod"]
    if setup is None:
        lines.append("    def forward(ctx, x, y):")
    else:
        lines.append("    def forward(x, y, k=2.0):")
    lines.append(_indent(forward, 8))
    if setup is not None:
        lines += ["", "    @staticmethod", "    def setup_context(ctx, inputs, output):", _indent(setup, 8)]
    lines += ["", "    @staticmethod"]
    if once:
        lines.append("    @torch.autograd.function.once_differentiable")
    lines += ["    def backward(ctx, *gs):", _indent(_REC.format(gs="gs"), 8), _indent(backward, 8)]
    if vjp:
        lines += ["", "    @staticmethod", "    def vjp(ctx, *gs):", "        return gs"]
    return "\n".join(lines)


def generate_functions(seed: int, index: int) -> Program:
    """Function program ``index`` of campaign ``seed``."""
    b = Builder("functions", seed, index)
    rng = b.rng
    b.event_log()
    dtype = rng.choice(["float32"] * 4 + ["float64"])
    shape = b.shape(max_dims=3, empty=0.03)
    x = b.leaf(shape, dtype, rg=rng.random() < 0.9)
    y = b.leaf(shape, dtype, rg=rng.random() < 0.5)
    once = rng.random() < 0.2
    r = rng.random()
    if r < 0.12:
        fwd, setup, bwd = SETUP_CONTEXT
        b.setup(_class("F", fwd, bwd, once, setup=setup), "define")
        n_out, inplace = 1, False
        args = f"{{a}}, {y.name}" + rng.choice(["", ", 3.0"])
    elif r < 0.2:
        b.setup(REENTRANT, "define")
        depth = rng.choice([1, 3, 30, 200, 600])
        out = b.probe(f"R.apply({x.name}, {depth})", "apply", model=Model("", shape, dtype, x.rg, False))
        b.do(f"{out}.sum().backward()", "backward", guard=True)
        b.let(f"{x.name}.grad", "read_grad", GRAD, show=False)
        return b.program()
    else:
        name = rng.choice(list(FUNCTIONS))
        fwd, bwd, n_out, inplace = FUNCTIONS[name]
        b.setup(_class("F", fwd, bwd, once, vjp=rng.random() < 0.04), "define")
        args = f"{{a}}, {y.name}"
    target = rng.choice(["leaf", "clone", "clone", "view", "computed"] if inplace else ["leaf", "computed", "view"])
    if target == "leaf":
        a = x.name
    elif target == "clone":
        a = b.let(f"{x.name}.clone()", "clone")
    elif target == "view":
        a = b.let(f"{x.name}[0]" if shape else f"{x.name}.view(1)", "view")
    else:
        a = b.let(f"{x.name} * 1", "computed")
    res = b.probe(f"F.apply({args.format(a=a)})", "apply")
    outs = [res] if n_out == 1 else [b.let(f"{res}[{k}]", "output") for k in range(n_out)]
    if rng.random() < 0.25:
        b.do(f"{outs[0]} += 2", "inplace_after", guard=True)
        b.let(outs[0], "read")
    if inplace and target != "leaf":
        b.let(x.name, "read_leaf")
    used = outs[:1] if rng.random() < 0.6 else outs
    terms = " + ".join(f"({o} * {k + 1}).sum()" for k, o in enumerate(used) if True)
    z = b.probe(terms, "reduce")
    how = rng.random()
    names = ", ".join(m.name for m in (x, y) if m.rg)
    if how < 0.5:
        b.do(f"{z}.backward()", "backward", guard=True)
    elif how < 0.75 and names:
        b.probe(f"torch.autograd.grad({z}, [{names}], allow_unused=True)", "autograd.grad", GRAD)
    else:
        b.do(f"{z}.backward(create_graph=True)", "backward_create_graph", guard=True)
        b.let(f"{x.name}.grad", "read_grad", GRAD, show=False)  # before it is used: None or not
        b.do(f"ev.append('second')\n{x.name}.grad.sum().backward()", "double_backward", guard=True)
    b.observe_events()
    for m in (x, y):
        if m.rg:
            b.let(f"{m.name}.grad", "read_grad", GRAD, show=False)
    return b.program()
