"""What the multi-element families share: a program builder, shapes, values, leaves, closings.

A family's generator draws from its catalogue with ``random.Random(f"{kind}:{seed}:{index}")``
and writes straight-line Python through ``Builder`` (``let`` binds and observes a value,
``do`` runs statements, ``probe`` is a guarded step whose error is the point). ``Model`` keeps
the shape, dtype and flags the generator believes a value has, only to choose sensible
operands: what PyTorch does is what the program is compared with.

Shapes go from 0-dim to 4-D, with empty dimensions now and then; leaves are contiguous or
made non-contiguous (transposed, permuted, sliced with a step, expanded). Values are small
multiples of 1/4 (IEEE arithmetic on them is mostly exact, so a wrong element shows as such),
with edge values (signed zeros, inf, nan, 3.4e38) where a family asks for them.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from . import operands as O
from .program import EVENTS, GRAD, SETUP, VALUE, Program, Step, lit

__all__ = ["Builder", "Model", "numel"]


def numel(shape: tuple) -> int:
    return math.prod(shape)


@dataclass
class Model:
    """What the generator believes a bound value is."""

    name: str
    shape: tuple
    dtype: str = "float32"
    rg: bool = False
    leaf: bool = True
    view: bool = False  # a view of another tensor (shares its memory)
    contiguous: bool = True


class Builder:
    """Writes one program's steps."""

    def __init__(self, kind: str, seed: int, index: int) -> None:
        self.kind, self.seed, self.index = kind, seed, index
        self.rng = random.Random(f"{kind}:{seed}:{index}")
        self.steps: list[Step] = []
        self.n = 0
        self.models: dict[str, Model] = {}
        self.events = False

    # ------------------------------------------------------------ steps

    def _uses(self, code: str) -> tuple:
        words = set(re.findall(r"\bv\d+\b", code))
        if self.events and re.search(r"\bev\b", code):
            words.add("ev")
        return tuple(s.name for s in self.steps if s.name in words)

    def let(self, code: str, op: str = "", tag: str = VALUE, show: bool | None = None, guard: bool = False,
            helpers=(), model: Model | None = None) -> str:
        name = f"v{self.n}"
        self.n += 1
        if show is None:
            show = self.rng.random() < 0.15
        self.steps.append(Step(code, name, self._uses(code), op, tag, show, guard, tuple(helpers)))
        if model is not None:
            model.name = name
            self.models[name] = model
        return name

    def do(self, code: str, op: str = "", tag: str = VALUE, guard: bool = False, helpers=()) -> None:
        self.steps.append(Step(code, None, self._uses(code), op, tag, False, guard, tuple(helpers)))

    def probe(self, code: str, op: str = "", tag: str = VALUE, model: Model | None = None) -> str:
        """A guarded step: its error (or value) is compared and the program goes on."""
        return self.let(code, op, tag, show=False, guard=True, model=model)

    def event_log(self) -> None:
        """``ev = []``: hooks append what fired; ``observe_events`` compares the list."""
        if not self.events:
            self.events = True
            self.steps.append(Step("[]", "ev", (), "events", SETUP, False))

    def observe_events(self) -> None:
        self.let("list(ev)", "events", EVENTS, show=False)

    def program(self, note: str = "") -> Program:
        return Program(self.kind, self.seed, self.index, self.steps, note=note)

    # ------------------------------------------------------------ shapes and values

    def shape(self, max_dims: int = 4, empty: float = 0.06, max_size: int = 4) -> tuple:
        rng = self.rng
        nd = rng.choices(range(max_dims + 1), [1, 3, 4, 3, 2][: max_dims + 1])[0]
        shape = [rng.choice([1, 2, 2, 3, 3, 4][: max_size + 2]) for _ in range(nd)]
        if shape and rng.random() < empty:
            shape[rng.randrange(nd)] = 0
        while numel(shape) > 36:
            shape[shape.index(max(shape))] -= 1
        return tuple(shape)

    def number(self, edge: float = 0.0) -> float:
        rng = self.rng
        if edge and rng.random() < edge:
            return rng.choice(O.EDGE_FLOATS)
        return rng.randint(-12, 12) / 4

    def data(self, shape: tuple, dtype: str = "float32", edge: float = 0.0):
        rng = self.rng

        def one():
            if dtype == "bool":
                return rng.random() < 0.5
            if dtype == "int64":
                return rng.randint(-5, 5)
            return self.number(edge)

        def nest(dims):
            if not dims:
                return one()
            return [nest(dims[1:]) for _ in range(dims[0])]

        return nest(list(shape))

    def leaf(self, shape: tuple, dtype: str = "float32", rg: bool = True, edge: float = 0.0) -> Model:
        """A leaf tensor of ``shape`` (``torch.zeros`` for an empty one)."""
        rgs = ", requires_grad=True" if rg else ""
        if 0 in shape:
            code = f"torch.zeros({lit(shape)}, dtype=torch.{dtype}{rgs})"
        else:
            code = f"torch.tensor({lit(self.data(shape, dtype, edge))}, dtype=torch.{dtype}{rgs})"
        m = Model("", shape, dtype, rg and dtype.startswith("float"), True)
        self.let(code, "leaf", model=m)
        return m

    def non_leaf(self, m: Model) -> Model:
        """A value computed from ``m`` (so that it has a grad_fn)."""
        code = self.rng.choice(["{x} * 2", "{x} + 0.5", "{x} * 1", "{x}.clone()", "-{x}", "{x} / 4"]).format(x=m.name)
        out = Model("", m.shape, m.dtype, m.rg, not m.rg)
        self.let(code, "compute", model=out)
        return out

    def layout(self, m: Model) -> Model:
        """``m`` as it is, or a non-contiguous view of it (transposed, permuted, stepped, expanded)."""
        rng = self.rng
        s = m.shape
        r = rng.random()
        if r < 0.55 or not s:
            return m
        if len(s) >= 2 and r < 0.7:
            d0, d1 = rng.sample(range(len(s)), 2)
            shape = list(s)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            code, shape = f"{m.name}.transpose({d0}, {d1})", tuple(shape)
        elif len(s) >= 3 and r < 0.8:
            perm = list(range(len(s)))
            rng.shuffle(perm)
            code, shape = f"{m.name}.permute({lit(tuple(perm))})", tuple(s[p] for p in perm)
        elif r < 0.9 and any(x >= 2 for x in s):
            d = next(i for i, x in enumerate(s) if x >= 2)
            idx = ", ".join([":"] * d + ["::2"])
            shape = list(s)
            shape[d] = (s[d] + 1) // 2
            code, shape = f"{m.name}[{idx}]", tuple(shape)
        else:
            ones = [i for i, x in enumerate(s) if x == 1]
            if not ones:
                code, shape = f"{m.name}.unsqueeze(0).expand({lit((2,) + s)})", (2,) + s
            else:
                shape = list(s)
                shape[ones[0]] = 3
                code, shape = f"{m.name}.expand({lit(tuple(shape))})", tuple(shape)
        out = Model("", shape, m.dtype, m.rg, not m.rg, True, False)
        self.let(code, "layout", model=out)
        return out

    def weights(self, shape: tuple) -> str:
        """Python source of a constant tensor of ``shape`` with distinct small values: a sum
        weighted by it gives each element its own gradient."""
        n = numel(shape)
        vals = [(k % 7 + 1) / 4 for k in range(n)]
        if not shape:
            return f"torch.tensor({lit(vals[0])})"
        return f"torch.tensor({lit(vals)}).reshape({lit(shape)})"

    # ------------------------------------------------------------ closing a program

    def backward(self, out: Model, leaves: list[Model], retained: list[str] = ()) -> None:
        """Reduce ``out`` to a number (weighted, so each element's gradient differs), then one of
        backward(), backward(gradient=...), autograd.grad, create_graph double backward; read
        every leaf's gradient."""
        rng = self.rng
        if not out.rg:
            return
        if out.dtype != "float32" and out.dtype != "float64":
            return
        w = self.weights(out.shape)
        r = rng.random()
        names = [m.name for m in leaves if m.rg]
        if r < 0.3:
            y = self.let(f"({out.name} * {w}).sum()", "reduce", model=Model("", (), out.dtype, True, False))
            self.do(f"{y}.backward()", "backward")
        elif r < 0.5:
            self.do(f"{out.name}.backward({w}.to({out.name}.dtype))", "backward")
        elif r < 0.8 and names:
            y = self.let(f"({out.name} * {w}).sum()", "reduce", model=Model("", (), out.dtype, True, False))
            self.let(f"torch.autograd.grad({y}, [{', '.join(names)}], allow_unused=True)", "autograd.grad", GRAD,
                     show=False)
            return
        else:
            y = self.let(f"({out.name} * {w}).sum()", "reduce", model=Model("", (), out.dtype, True, False))
            gs = [self.let(f"torch.autograd.grad({y}, [{n}], create_graph=True, allow_unused=True)[0]",
                           "grad_create_graph", GRAD, show=False) for n in names[:1]]
            for g in gs:
                self.do(f"if {g} is not None and {g}.requires_grad:\n    ({g} * {g}).sum().backward()",
                        "double_backward")
        for n in names + list(retained):
            self.let(f"{n}.grad", "read_grad", GRAD, show=False)

    def setup(self, code: str, op: str = "setup") -> None:
        self.steps.append(Step(code, None, self._uses(code), op, SETUP))
