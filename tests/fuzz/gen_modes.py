"""Modes: saved-tensor hooks, inference mode, no_grad and friends, nested and mixed.

Saved-tensor programs build a graph under ``torch.autograd.graph.saved_tensors_hooks`` with a
pack/unpack pair from the catalogue (``PACKS``: identity, a clone, ``2 * x`` unpacked as is or
halved, a tuple, a detached copy; each recording what it packed and unpacked in ``ev``),
sometimes nested or with ``disable_saved_tensors_hooks``, then run backward (``create_graph``
too) and compare ``ev`` in order and every gradient.

Mode programs (``MODES``) make tensors, views and in-place results inside and outside
``inference_mode``, ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (nested, as decorators
and as functions), observe requires_grad, is_inference, is_leaf, grad_fn, and use them
afterwards in graphs, in place and in backward, where PyTorch's refusals (an inference tensor
saved for backward, changed in place outside the mode) are compared by type and message.
"""

from __future__ import annotations

from .program import GRAD, Program
from .shaped import Builder

__all__ = ["generate_modes", "PACKS", "MODES"]

PACKS = [
    ("lambda t: t", "lambda t: t"),
    ("lambda t: t.clone()", "lambda t: t"),
    ("lambda t: 2 * t", "lambda t: t"),
    ("lambda t: 2 * t", "lambda t: t / 2"),
    ("lambda t: (t, 1)", "lambda p: p[0]"),
    ("lambda t: t.detach()", "lambda t: t"),
    ("lambda t: (ev.append(('pack', list(t.shape), t.requires_grad)), t)[1]",
     "lambda t: (ev.append(('unpack', list(t.shape))), t)[1]"),
]
GRAPHS = ["{x} * {x}", "{x}.exp()", "{x}.sin() * {w}", "({x} * {w}).tanh()", "{x}.pow(3)", "{x}.sigmoid() * {x}",
          "{x} / {w}", "{x}.relu() * {w}"]
MODES = ["inference_mode", "no_grad", "set_grad_enabled", "enable_in_no_grad", "inference_false", "decorator"]


def _saved_hooks(b: Builder, x, w) -> None:
    rng = b.rng
    pack, unpack = rng.choice(PACKS)
    expr = rng.choice(GRAPHS).format(x=x.name, w=w.name)
    if rng.random() < 0.2:  # nested: the inner pair applies
        pack2, unpack2 = rng.choice(PACKS)
        code = (f"with torch.autograd.graph.saved_tensors_hooks({pack}, {unpack}):\n"
                f"    with torch.autograd.graph.saved_tensors_hooks({pack2}, {unpack2}):\n        v_out = {expr}")
    elif rng.random() < 0.15:
        code = (f"with torch.autograd.graph.saved_tensors_hooks({pack}, {unpack}):\n"
                f"    with torch.autograd.graph.disable_saved_tensors_hooks('no hooks here'):\n        v_out = {expr}")
    else:
        code = f"with torch.autograd.graph.saved_tensors_hooks({pack}, {unpack}):\n    v_out = {expr}"
    b.do(code, "saved_tensors_hooks", guard=True)
    out = b.let("v_out", "read")
    z = b.probe(f"({out} * {b.weights(x.shape)}).sum()", "reduce")
    if rng.random() < 0.35:
        g = b.probe(f"torch.autograd.grad({z}, [{x.name}], create_graph=True)[0]", "grad_create_graph", GRAD)
        b.do(f"{g}.sum().backward()", "double_backward", guard=True)
    else:
        b.do(f"{z}.backward()", "backward", guard=True)
    b.observe_events()
    for m in (x, w):
        b.let(f"{m.name}.grad", "read_grad", GRAD, show=False)


def _observe(b: Builder, name: str) -> None:
    b.let(f"({name}.requires_grad, {name}.is_leaf, {name}.is_inference(), "
          f"None if {name}.grad_fn is None else {name}.grad_fn.name())", "flags", show=False)


def _modes(b: Builder, x, w) -> None:
    rng = b.rng
    mode = rng.choice(MODES)
    made = rng.choice(["{x} * 2", "{x}[0]" if x.shape else "{x}.view(1)", "{x}.view(-1)", "torch.ones_like({x})",
                       "{x}.clone()", "{x}.detach()", "{x}.t()" if len(x.shape) <= 2 else "{x}.mT"]).format(x=x.name)
    inner = rng.choice(["", "{n}.mul_(2)", "{n}.add_(1)", "{n}.zero_()"])
    if mode == "inference_mode":
        ctx = "torch.inference_mode()"
    elif mode == "inference_false":
        ctx = "torch.inference_mode(False)"
    elif mode == "no_grad":
        ctx = "torch.no_grad()"
    elif mode == "set_grad_enabled":
        ctx = f"torch.set_grad_enabled({rng.choice(['False', 'True'])})"
    elif mode == "enable_in_no_grad":
        ctx = "torch.no_grad()"
        made = f"torch.enable_grad()(lambda: {made})()"
    else:
        ctx = None
    if ctx is None:  # a decorated function
        deco = rng.choice(["torch.no_grad()", "torch.inference_mode()", "torch.enable_grad()"])
        b.setup(f"@{deco}\ndef made(t):\n    return {made.replace(x.name, 't')}", "define")
        v = b.let(f"made({x.name})", "call")
    else:
        body = f"v_in = {made}" + (f"\n{inner.format(n='v_in')}" if inner else "")
        if rng.random() < 0.3:  # a view of a normal tensor made inside, changed outside
            body += f"\nv_view = {x.name}.detach()[0]" if x.shape else ""
        b.do(f"with {ctx}:\n    " + body.replace("\n", "\n    "), mode, guard=True)
        v = b.let("v_in", "read")
    _observe(b, v)
    after = rng.choice(["{v} * {w}", "{v}.exp()", "{v}.add_(1)", "{v}.mul_({w})", "{v} * 1", "{v}.sum()"])
    out = b.probe(after.format(v=v, w=w.name), "after")
    _observe(b, out)
    z = b.probe(f"(({out}) * {w.name}).sum()", "reduce")
    b.do(f"{z}.backward()", "backward", guard=True)
    for m in (x, w):
        b.let(f"{m.name}.grad", "read_grad", GRAD, show=False)


def generate_modes(seed: int, index: int) -> Program:
    """Modes program ``index`` of campaign ``seed``."""
    b = Builder("modes", seed, index)
    rng = b.rng
    b.event_log()
    dtype = rng.choice(["float32"] * 4 + ["float64"])
    shape = b.shape(max_dims=3, empty=0.02)
    x = b.leaf(shape, dtype, rg=True)
    w = b.leaf(shape[-1:] if shape else (), dtype, rg=rng.random() < 0.7)
    if rng.random() < 0.5:
        _saved_hooks(b, x, w)
    else:
        _modes(b, x, w)
    return b.program()
