"""Hooks: on tensors, views and graph nodes; the order of what fired, compared event by event.

A program builds a small graph over multi-element tensors (leaves, a computed value, a view
of it, sometimes changed in place after a hook was registered), registers hooks from the
catalogue (``HOOKS``: ``register_hook`` on a leaf, a non-leaf or a view, returning None or a
changed gradient; ``retain_grad``; a node's pre-hook and post-hook; a post-accumulate-grad
hook, some changing ``.grad`` in place; ``register_multi_grad_hook``; a handle removed again),
each appending what it saw to ``ev``; then runs ``backward()``, ``backward(inputs=...)``,
``autograd.grad`` (also with a pre-hook on its output's node), two backwards with
``retain_graph``, or ``create_graph`` and a second backward through the gradient. ``ev`` is
compared in order, as PyTorch's hook tests do, with every ``.grad`` and gradient returned.
"""

from __future__ import annotations

from .program import GRAD, Program
from .shaped import Builder, Model

__all__ = ["generate_hooks", "HOOKS"]

RETURNS = ["None", "g * 2", "g + 1", "g.clone()", "-g"]
HOOKS = ["tensor", "tensor", "retain_grad", "prehook", "posthook", "post_accumulate", "multi", "removed"]


def _record(tag: str, what: str) -> str:
    return f"ev.append(({tag!r}, {what}))"


def generate_hooks(seed: int, index: int) -> Program:
    """Hooks program ``index`` of campaign ``seed``."""
    b = Builder("hooks", seed, index)
    rng = b.rng
    b.event_log()
    dtype = rng.choice(["float32"] * 4 + ["float64"])
    shape = b.shape(max_dims=3, empty=0.0)
    x = b.leaf(shape, dtype, rg=True)
    w = b.leaf(shape[-1:] if shape else (), dtype, rg=rng.random() < 0.6)
    y = Model("", shape, dtype, True, False)
    b.let(rng.choice([f"{x.name} * {w.name}", f"({x.name} * 2).exp()", f"{x.name} + {w.name}",
                      f"{x.name}.sin() * {w.name}", f"{x.name} * {x.name}"]), "compute", model=y)
    view = None
    if shape and rng.random() < 0.6:
        view = Model("", shape[1:], dtype, True, False, True)
        b.let(rng.choice([f"{y.name}[0]", f"{y.name}.select(0, -1)", f"{y.name}.unbind(0)[0]"]), "view", model=view)
    z = Model("", (), dtype, True, False)
    src = view or y
    b.let(rng.choice([f"({src.name} * {b.weights(src.shape)}).sum()", f"{src.name}.exp().sum()",
                      f"({src.name} ** 2).mean()", f"{src.name}.tanh().sum()"]), "reduce", model=z)
    retained = []
    for k in range(rng.choice([1, 2, 3, 4])):
        kind = rng.choice(HOOKS)
        on = rng.choice([x, y] + ([view] if view else []) + ([w] if w.rg else []))
        ret = rng.choice(RETURNS)
        tag = f"{kind}{k}:{on.name}"
        if kind == "tensor":
            body = _record(tag, "g.tolist()")
            b.do(f"{on.name}.register_hook(lambda g: ({body}, {ret})[1])", "register_hook")
        elif kind == "retain_grad":
            if not on.leaf:
                b.do(f"{on.name}.retain_grad()", "retain_grad")
                retained.append(on.name)
        elif kind == "prehook" and not on.leaf:
            body = _record(tag, "[None if t is None else t.tolist() for t in go]")
            newret = rng.choice(["None", "tuple(None if t is None else t * 2 for t in go)"])
            b.do(f"{on.name}.grad_fn.register_prehook(lambda go: ({body}, {newret})[1])", "node_prehook")
        elif kind == "posthook" and not on.leaf:
            body = _record(tag, "[None if t is None else t.tolist() for t in gi]")
            newret = rng.choice(["None", "tuple(None if t is None else t + 1 for t in gi)"])
            b.do(f"{on.name}.grad_fn.register_hook(lambda gi, go: ({body}, {newret})[1])", "node_posthook")
        elif kind == "post_accumulate" and on.leaf:
            change = rng.choice(["None", "p.grad.mul_(3)", "p.grad.add_(1)", "p.grad.zero_()"])
            body = _record(tag, "p.grad.tolist()")
            b.do(f"{on.name}.register_post_accumulate_grad_hook(lambda p: ({body}, {change})[0])", "post_accumulate")
        elif kind == "multi":
            ts = [m.name for m in (x, y, w) if m.rg]
            mode = rng.choice(["'all'", "'any'"])
            body = _record(tag, "[None if t is None else t.tolist() for t in gs]" if mode == "'all'" else
                           "gs.tolist()")
            b.do(f"torch.autograd.graph.register_multi_grad_hook([{', '.join(ts)}], lambda gs: {body}, mode={mode})",
                 "multi_grad_hook", guard=True)
        elif kind == "removed":
            body = _record(tag, "'removed hook ran'")
            b.do(f"_h = {on.name}.register_hook(lambda g: {body})\n_h.remove()", "removed_hook")
    if view is not None and rng.random() < 0.3:  # in place on a hooked view
        b.do(f"{view.name}.{rng.choice(['exp_()', 'mul_(2)', 'relu_()'])}", "inplace", guard=True)
    how = rng.random()
    leaves = [x] + ([w] if w.rg else [])
    names = ", ".join(m.name for m in leaves)
    if how < 0.3:
        b.do(f"{z.name}.backward()", "backward", guard=True)
    elif how < 0.4:
        b.do(f"{z.name}.backward(inputs=[{x.name}])", "backward_inputs", guard=True)
    elif how < 0.6:
        b.probe(f"torch.autograd.grad({z.name}, [{names}], allow_unused=True)", "autograd.grad", GRAD)
    elif how < 0.7:
        b.do(f"{z.name}.grad_fn.register_prehook(lambda go: {_record('out_prehook', '[t.tolist() for t in go]')})",
             "node_prehook")
        b.probe(f"torch.autograd.grad({z.name}, [{names}], allow_unused=True)", "autograd.grad", GRAD)
    elif how < 0.82:
        b.do(f"{z.name}.backward(retain_graph=True)", "backward", guard=True)
        b.do(f"{z.name}.backward()", "backward", guard=True)
    else:
        b.do(f"{z.name}.backward(create_graph=True)", "backward_create_graph", guard=True)
        b.let(f"{x.name}.grad", "read_grad", GRAD, show=False)  # before it is used: None or not
        b.do(f"ev.append('second')\n({x.name}.grad * {x.name}.grad).sum().backward()", "double_backward", guard=True)
    b.observe_events()
    for n in [m.name for m in leaves] + retained:
        b.let(f"{n}.grad", "read_grad", GRAD, show=False)
    return b.program()
