"""In place: item assignment and in-place ops on leaves, views and sibling views; version errors.

A program makes a leaf, picks a target from the catalogue (``TARGETS``: the leaf itself, the
leaf under no_grad, a view of the leaf, a computed value, a view of it made by slicing,
select, t, unbind, split, chunk, expand, diagonal or view), sometimes saves it first in a node
(``t.exp()``, ``t * t``), then changes it in place one to three times (``OPS``: relu_, exp_,
sigmoid_, mul_, add_ with alpha, copy_, zero_, fill_, clamp_, ``+=``, ``*=``, item assignment,
masked_fill_; operands that are numbers, broadcast tensors, or tensors that require grad).
Every tensor involved is observed after each change (values, requires_grad, grad_fn,
next_functions, layout, ``_version``), sibling views included; then a backward, whose
version error (and message) and every ``.grad`` - also after a failed backward - are compared.
"""

from __future__ import annotations

from .program import GRAD, Program
from .shaped import Builder, Model

__all__ = ["generate_inplace", "TARGETS", "OPS"]

TARGETS = ["leaf", "leaf_no_grad", "leaf_view", "computed", "slice", "select", "t", "unbind", "split", "chunk",
           "expand", "diagonal", "view", "computed", "slice", "select"]
OPS = ["relu_()", "exp_()", "sigmoid_()", "mul_({o})", "add_({o})", "add_({o}, alpha=2)", "sub_({o})", "div_({o})",
       "copy_({o})", "zero_()", "fill_(1.5)", "clamp_(-1, 1)", "clamp_(min=0.5)", "neg_()", "abs_()",
       "+= {o}", "*= {o}", "[0] = {o}", "[...] = {o}", "masked_fill_({t} > 0, 0.5)", "pow_(2)", "tanh_()"]


def _target(b: Builder, kind: str, x: Model) -> tuple[Model, Model | None]:
    """(the tensor changed in place, a sibling view of the same base or None)."""
    rng = b.rng
    s = x.shape
    if kind in ("leaf", "leaf_no_grad"):
        return x, None
    base = x
    if kind not in ("leaf_view",):
        base = b.non_leaf(x)
    if kind in ("computed",):
        return base, None
    code, shape = {
        "leaf_view": (f"{base.name}[0]" if s else f"{base.name}.view(1)", s[1:] if s else (1,)),
        "slice": (f"{base.name}[1:]" if s else f"{base.name}[...]", ((s[0] - 1,) + s[1:]) if s else s),
        "select": (f"{base.name}.select(-1, 0)" if s else f"{base.name}.view(1)", s[:-1] if s else (1,)),
        "t": (f"{base.name}.t()" if len(s) <= 2 else f"{base.name}.mT", tuple(reversed(s))),
        "unbind": (f"{base.name}.unbind(0)[0]" if s else f"{base.name}.view(1).unbind(0)[0]", s[1:]),
        "split": (f"{base.name}.split(1)[0]" if s else f"{base.name}.view(1).split(1)[0]", (1,) + s[1:]),
        "chunk": (f"{base.name}.chunk(2)[-1]" if s else f"{base.name}.view(1).chunk(1)[0]", s),
        "expand": (f"{base.name}.unsqueeze(0).expand(2, *{base.name}.shape)", (2,) + s),
        "diagonal": (f"{base.name}.diagonal()" if len(s) == 2 else f"{base.name}.view(-1)", (min(s),) if len(s) == 2
                     else (1,)),
        "view": (f"{base.name}.view(-1)", (1,)),
    }[kind]
    view = Model("", shape, x.dtype, x.rg, False, True)
    b.let(code, kind, model=view)
    sibling = None
    if rng.random() < 0.5 and s:
        sibling = Model("", s[1:], x.dtype, x.rg, False, True)
        b.let(rng.choice([f"{base.name}[-1]", f"{base.name}.unbind(0)[-1]", f"{base.name}.view(-1)"]), "sibling",
              model=sibling)
    return view, sibling


def generate_inplace(seed: int, index: int) -> Program:
    """In-place program ``index`` of campaign ``seed``."""
    b = Builder("inplace", seed, index)
    rng = b.rng
    dtype = rng.choice(["float32"] * 4 + ["float64"])
    x = b.leaf(b.shape(max_dims=3, empty=0.03), dtype, rg=rng.random() < 0.92)
    kind = rng.choice(TARGETS)
    target, sibling = _target(b, kind, x)
    saved = None
    if rng.random() < 0.45:  # a node that saved the target before it changes
        saved = b.let(rng.choice([f"{target.name}.exp()", f"{target.name} * {target.name}", f"{target.name}.sin()",
                                  f"{target.name}.sigmoid()", f"{target.name}.pow(3)", f"{target.name}.relu()"]),
                      "save", model=Model("", target.shape, dtype, target.rg, False))
    other = None
    for _ in range(rng.choice([1, 1, 2, 3])):
        op = rng.choice(OPS)
        if "{o}" in op:
            r = rng.random()
            if r < 0.4:
                o = str(b.number())
            elif r < 0.7 or other is not None:
                o = b.let(f"torch.tensor({b.number()}, dtype=torch.{dtype})", "operand")
            else:
                other = b.leaf(target.shape[1:] if target.shape and rng.random() < 0.5 else (), dtype, rg=True)
                o = other.name
            op = op.replace("{o}", o)
        op = op.replace("{t}", target.name)
        if op.startswith("["):
            code = f"{target.name}{op}"
        elif op.startswith(("+=", "*=")):
            code = f"{target.name} {op}"
        else:
            code = f"{target.name}.{op}"
        if kind == "leaf_no_grad":
            code = "with torch.no_grad():\n    " + code.replace("\n", "\n    ")
        b.do(code, "inplace", guard=True)
        b.let(target.name, "read", show=rng.random() < 0.2)
        if rng.random() < 0.4:
            b.let(f"{target.name}._version", "version", show=False)
    for m in (sibling, x) if sibling is not None else (x,):
        b.let(m.name, "read")
    if target is not x and rng.random() < 0.5:
        base = next((n for n in reversed(list(b.models)) if b.models[n].leaf is False and not b.models[n].view), None)
        if base is not None:
            b.let(base, "read_base")
    # backward: through what was saved (a version error when it changed), or through the target
    leaves = [x] + ([other] if other is not None else [])
    out = saved if saved is not None and rng.random() < 0.7 else target.name
    if sibling is not None and rng.random() < 0.3:
        out = sibling.name
    weighted = f"({out} * torch.arange(1, {out}.numel() + 1, dtype={out}.dtype).reshape({out}.shape)).sum()"
    r = rng.random()
    if r < 0.3:  # another leaf's branch before or after: is its .grad written when backward then fails?
        z = b.leaf((), dtype, rg=True)
        leaves.append(z)
        weighted = f"({z.name} * 3) + {weighted}" if rng.random() < 0.5 else f"{weighted} + {z.name} * 3"
    elif r < 0.5:
        weighted += f" + ({x.name} * 3).sum()"
    y = b.probe(weighted, "reduce")
    if rng.random() < 0.6:
        b.do(f"{y}.backward()", "backward", guard=True)
        for m in leaves:
            if m.rg:
                b.let(f"{m.name}.grad", "read_grad", GRAD, show=False)
    else:
        names = ", ".join(m.name for m in leaves if m.rg)
        if names:
            b.probe(f"torch.autograd.grad({y}, [{names}], allow_unused=True)", "autograd.grad", GRAD)
    return b.program()
