"""Indexing: basic and advanced indices, read and assigned, with gradients through both.

An index is drawn from the catalogue of index parts (``PARTS``): an int (negative too), a
slice with a start, stop and step, None, Ellipsis, a bool mask tensor, an int64 index tensor
(negative, repeated, multi-dimensional), a Python list, True/False; combined into a tuple,
with two or more None at times. A program reads ``x[index]`` (observed), or assigns into a
clone of ``x`` (a number, a broadcast tensor, a tensor that requires grad), or both, and closes
with a backward whose output is weighted so that every element's gradient is its own.
Out-of-range and malformed indices are probes: the error and message are compared.
"""

from __future__ import annotations

from .program import Program, lit
from .shaped import Builder, Model, numel

__all__ = ["generate_indexing", "PARTS"]


def _int(rng, size):
    if size == 0 or rng.random() < 0.05:
        return str(rng.choice([size, -size - 1, 5])), None  # out of range: IndexError
    return str(rng.randrange(-size, size)), "drop"


def _slice(rng, size):
    start = rng.choice(["", "", "0", "1", "-1", "-2", str(size)])
    stop = rng.choice(["", "", "2", "-1", str(size + 2)])
    step = rng.choice(["", "", "", "2", "3"])
    text = f"{start}:{stop}" + (f":{step}" if step else "")
    return text, ("slice", start, stop, step)


def _tensor_index(rng, size):
    n = rng.choice([1, 2, 3])
    vals = [rng.randrange(-size, size) if size else 0 for _ in range(n)]
    if size and rng.random() < 0.3:
        vals.append(vals[0])  # a repeated index: its gradients add up
    if rng.random() < 0.2:
        return f"torch.tensor({lit([vals, vals])})", ("adv", (2, len(vals)))
    if rng.random() < 0.25:
        return lit(vals), ("adv", (len(vals),))  # a Python list is an index tensor
    return f"torch.tensor({lit(vals)})", ("adv", (len(vals),))


def _mask(rng, size):
    vals = [rng.random() < 0.5 for _ in range(size)]
    return f"torch.tensor({lit(vals)})", ("adv", (sum(vals),))


PARTS = ["int", "slice", "slice", "None", "Ellipsis", "tensor", "mask"]


def _index(rng, shape: tuple) -> tuple[str, bool]:
    """(index source, whether it is surely valid as far as the generator can tell)."""
    parts = []
    d = 0
    used_ellipsis = False
    n_parts = rng.choice([1, 1, 2, 2, 3, 4])
    for _ in range(n_parts):
        kind = rng.choice(PARTS)
        if kind == "None":
            parts.append("None")
            if rng.random() < 0.5:
                parts.append("None")  # two or more None
            continue
        if kind == "Ellipsis":
            if used_ellipsis:
                continue
            used_ellipsis = True
            parts.append("...")
            d = len(shape) - sum(1 for p in parts if p not in ("None", "..."))  # roughly: the rest
            continue
        if d >= len(shape):
            if rng.random() < 0.2:
                parts.append("0")  # too many indices: IndexError
            break
        size = shape[d]
        if kind == "int":
            parts.append(_int(rng, size)[0])
        elif kind == "slice":
            parts.append(_slice(rng, size)[0])
        elif kind == "tensor":
            parts.append(_tensor_index(rng, size)[0])
        else:
            if rng.random() < 0.3 and len(shape) - d >= 2:
                m = [[rng.random() < 0.5 for _ in range(shape[d + 1])] for _ in range(size)]
                parts.append(f"torch.tensor({lit(m)})")
                d += 1
            else:
                parts.append(_mask(rng, size)[0])
        d += 1
    if not parts:
        parts = [":"]
    if rng.random() < 0.1:
        parts.append(rng.choice(["True", "False"]))
    if len(parts) == 1 and rng.random() < 0.6:
        return parts[0], True
    return ", ".join(parts), True


VALUES = ["0.0", "-1.5", "{t}", "{t}.sum()", "float('nan')", "{rg}", "{rg} * 2", "torch.tensor([0.5])", "2"]


def generate_indexing(seed: int, index: int) -> Program:
    """Indexing program ``index`` of campaign ``seed``."""
    b = Builder("indexing", seed, index)
    rng = b.rng
    dtype = rng.choice(["float32"] * 4 + ["float64"])
    leaf = b.leaf(b.shape(max_dims=4, empty=0.04), dtype, rg=True)
    base = b.layout(leaf)
    if rng.random() < 0.3:
        base = b.non_leaf(base)
    outs = []
    mode = rng.random()
    if mode < 0.55:  # read
        idx, _ = _index(rng, base.shape)
        v = b.probe(f"{base.name}[{idx}]", "getitem", model=Model("", (), dtype, True, False))
        outs.append(v)
        if rng.random() < 0.3:
            idx2, _ = _index(rng, base.shape)
            outs.append(b.probe(f"{base.name}[{idx2}]", "getitem", model=Model("", (), dtype, True, False)))
    else:  # assign into a clone (a leaf itself refuses), then read it
        target = b.let(f"{base.name}.clone()", "clone", model=Model("", base.shape, dtype, True, False))
        if rng.random() < 0.3:  # assign through a view of the clone
            view = b.let(f"{target}[{_slice(rng, base.shape[0])[0] if base.shape else '...'}]", "view",
                         model=Model("", (), dtype, True, False, True))
            where = view
        else:
            where = target
        idx, _ = _index(rng, base.shape)
        src = rng.choice(VALUES)
        extra = None
        if "{rg}" in src:
            extra = b.leaf((), dtype, rg=True)
            src = src.replace("{rg}", extra.name)
        if "{t}" in src:
            t = b.let(f"torch.tensor({b.number()}, dtype=torch.{dtype})", "value")
            src = src.replace("{t}", t)
        b.do(f"{where}[{idx}] = {src}", "setitem", guard=True)
        outs.append(b.let(target, "read", model=Model("", base.shape, dtype, True, False)))
        if where != target:
            outs.append(b.let(where, "read"))
        if extra is not None:
            outs.append(extra.name)
    last = b.models.get(outs[0])
    if last is None:
        return b.program()
    # close: a weighted sum of what was read (the shape is PyTorch's: weights made at run time)
    leaves = [leaf] + [b.models[o] for o in outs if o in b.models and b.models[o].leaf and o != leaf.name]
    o = outs[0]
    y = b.probe(f"({o} * torch.arange(1, {o}.numel() + 1, dtype={o}.dtype).reshape({o}.shape)).sum()", "reduce",
                model=Model("", (), dtype, True, False))
    r = rng.random()
    names = [m.name for m in leaves]
    if r < 0.5:
        b.do(f"{y}.backward()", "backward", guard=True)
        for n in names:
            b.let(f"{n}.grad", "read_grad", "grad", show=False)
    else:
        b.probe(f"torch.autograd.grad({y}, [{', '.join(names)}], allow_unused=True)", "autograd.grad", "grad")
    if numel(base.shape) and rng.random() < 0.1:
        b.probe(f"{base.name}[{lit(tuple([0] * (len(base.shape) + 1)))}]", "too_many")
    return b.program()
