"""Random Module trees, their names and state_dicts, and loads of intact and mutated dicts.

A tree nests ``Sequential``, ``ModuleList``, ``ModuleDict``, ``Linear``, ``ReLU``, ``Sigmoid``,
``Tanh`` and a generic ``Node`` module (``HELPERS["Node"]``) holding Parameters of shapes
(), (1,), (2,), (2, 3), persistent and non-persistent buffers and children; sometimes one
module appears twice (``named_parameters`` removes the duplicate, ``state_dict`` does not).
Linear layers draw their weights from the seeded generator, so the values are compared too.

A program observes the names (parameters, buffers, modules, state_dict keys), then loads
dicts into a copy or into the module itself: intact, with a key missing or added, a value of
another shape, dtype or type, not a mapping at all; strict or not; ``assign`` or not. Around
each load it snapshots every parameter and buffer (identity, type, dtype, shape, values) and
records what the load changed: after a failed load that must be nothing (issue 14).
"""

from __future__ import annotations

import random

from . import operands as O
from .program import HELPERS, HIDDEN, MODULE, STATE, VALUE, Program, Step, lit

__all__ = ["generate_module"]

HELPERS["Node"] = '''class Node(torch.nn.Module):
    def __init__(self, params=(), buffers=(), children=()):
        super().__init__()
        for name, value in params:
            setattr(self, name, torch.nn.Parameter(torch.tensor(value)))
        for name, value, persistent in buffers:
            self.register_buffer(name, torch.tensor(value), persistent=persistent)
        for name, child in children:
            setattr(self, name, child)'''

PARAM_SHAPES = [(), (), (1,), (2,), (2, 3)]
NAMES = ["w", "b", "scale", "alpha", "weight", "bias2", "theta", "k"]
CHILD_NAMES = ["lin", "act", "body", "head", "enc", "dec", "blocks", "layers", "inner", "out"]


class _Tree:
    """Writes the source of a random module tree."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.shared: list[str] = []  # names of modules defined once and used twice
        self.pre: list[Step] = []

    def value(self, shape: tuple):
        rng = self.rng
        if not shape:
            return O.ordinary(rng)
        if len(shape) == 1:
            return [O.ordinary(rng) for _ in range(shape[0])]
        return [[O.ordinary(rng) for _ in range(shape[1])] for _ in range(shape[0])]

    def leaf_module(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            bias = "" if rng.random() < 0.7 else ", bias=False"
            return f"torch.nn.Linear({rng.randint(1, 3)}, {rng.randint(1, 3)}{bias})"
        if r < 0.75:
            return rng.choice(["torch.nn.ReLU()", "torch.nn.Sigmoid()", "torch.nn.Tanh()"])
        return self.node(0)

    def node(self, depth: int) -> str:
        rng = self.rng
        names = rng.sample(NAMES, rng.randint(0, 2))
        params = [(n, self.value(rng.choice(PARAM_SHAPES))) for n in names]
        bnames = rng.sample(["rb", "running", "count", "mask"], rng.randint(0, 2))
        buffers = [(n, self.value(rng.choice(PARAM_SHAPES)), rng.random() < 0.75) for n in bnames]
        children = []
        if depth > 0:
            for n in rng.sample(CHILD_NAMES, rng.randint(0, 3)):
                children.append((n, self.module(depth - 1)))
        p = "[" + ", ".join(f"({n!r}, {lit(v)})" for n, v in params) + "]"
        b = "[" + ", ".join(f"({n!r}, {lit(v)}, {k})" for n, v, k in buffers) + "]"
        c = "[" + ", ".join(f"({n!r}, {src})" for n, src in children) + "]"
        return f"Node({p}, {b}, {c})"

    def module(self, depth: int) -> str:
        rng = self.rng
        if depth <= 0:
            return self.leaf_module()
        if self.shared and rng.random() < 0.15:
            return rng.choice(self.shared)
        r = rng.random()
        kids = [self.module(depth - 1) for _ in range(rng.randint(1, 3))]
        if r < 0.25:
            return f"torch.nn.Sequential({', '.join(kids)})"
        if r < 0.4:
            return f"torch.nn.ModuleList([{', '.join(kids)}])"
        if r < 0.55:
            keys = rng.sample(["a", "b", "enc", "x1", "head"], len(kids))
            return "torch.nn.ModuleDict({" + ", ".join(f"{k!r}: {c}" for k, c in zip(keys, kids)) + "})"
        if r < 0.65:
            return self.leaf_module()
        return self.node(depth)


class _ModuleProgram:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.steps: list[Step] = []
        self.n = 0

    def let(self, code: str, op: str, tag: str = MODULE, guard: bool = False, show: bool = True,
            helpers=("Node",)) -> str:
        name = f"v{self.n}"
        self.n += 1
        self.steps.append(Step(code, name, self._uses(code), op, tag, show, guard, tuple(helpers)))
        return name

    def do(self, code: str, op: str, tag: str = VALUE, guard: bool = False) -> None:
        self.steps.append(Step(code, None, self._uses(code), op, tag, False, guard, ("Node",)))

    def _uses(self, code: str) -> tuple:
        import re

        words = set(re.findall(r"\b(?:v\d+|shared\d+)\b", code))
        return tuple(s.name for s in self.steps if s.name in words)

    # ------------------------------------------------------------ observations

    def names(self, m: str) -> None:
        rng = self.rng
        for code in rng.sample([
            f"[n for n, _ in {m}.named_parameters()]", f"[n for n, _ in {m}.named_buffers()]",
            f"list({m}.state_dict().keys())", f"[n for n, _ in {m}.named_modules()]",
            f"[n for n, _ in {m}.named_parameters(remove_duplicate=False)]", f"len(list({m}.parameters()))",
            f"[n for n, _ in {m}.named_children()]", f"list({m}.state_dict(prefix='pre.').keys())",
            f"[(n, isinstance(t, torch.nn.Parameter), t.requires_grad) "
            f"for n, t in {m}.state_dict(keep_vars=True).items()]",
            f"[n for n, _ in {m}.named_parameters(recurse=False)]",
        ], 3):
            self.let(code, "names", STATE)

    def mutate(self, sd: str) -> tuple[str, str]:
        """A mutated copy of state dict ``sd``: (source, what was done)."""
        rng = self.rng
        i = rng.randrange(4)
        pick = f"list({sd})[{i} % len({sd})]"
        kind = rng.choice(["intact", "missing", "unexpected", "unexpected_nested", "shape", "dtype_double",
                           "dtype_int", "not_tensor", "parameter", "requires_grad", "both"])
        if kind == "intact":
            return f"dict({sd})", kind
        if kind == "missing":
            return f"{{k: t for j, (k, t) in enumerate({sd}.items()) if j != {i} % max(len({sd}), 1)}}", kind
        if kind == "unexpected":
            return f"dict({sd}, extra=torch.tensor(1.0))", kind
        if kind == "unexpected_nested":
            return f"{{**{sd}, 'lin.extra2': torch.zeros(2), 'a.b.c': torch.tensor(2.0)}}", kind
        if kind == "both":
            return (f"{{**{{k: t for j, (k, t) in enumerate({sd}.items()) if j != {i} % max(len({sd}), 1)}}, "
                    f"'zz': torch.tensor(3.0)}}"), kind
        value = {"shape": "torch.zeros(3, 3)", "dtype_double": f"{sd}[{pick}].double()",
                 "dtype_int": f"{sd}[{pick}].to(torch.int64)", "not_tensor": rng.choice(["1.0", "[1.0, 2.0]", "'a'"]),
                 "parameter": f"torch.nn.Parameter({sd}[{pick}].clone() + 1)",
                 "requires_grad": f"({sd}[{pick}].clone() * 2).requires_grad_()"}[kind]
        return f"{{**{sd}, {pick}: {value}}} if len({sd}) else {{}}", kind

    def load(self, src: str, sd_src: str, what: str) -> None:
        """Load a dict into a fresh copy of the tree (the same seed in both libraries), so that
        a failed load, partial in PyTorch and undone in scalargrad, leaves nothing behind that
        later steps would read."""
        rng = self.rng
        self.do(f"torch.manual_seed({rng.randrange(1000, 2000)})", "manual_seed")
        m = self.let(src, "build", MODULE, show=False)
        sd = self.let(sd_src, "mutate:" + what, STATE, show=False)
        strict = rng.choice(["", ", strict=False", ", strict=True"])
        assign = rng.choice(["", "", ", assign=True"])
        snap = self.let(f"snapshot({m})", "snapshot", HIDDEN, show=False, helpers=("Node", "snapshot"))
        self.let(f"{m}.load_state_dict({sd}{strict}{assign})", "load_state_dict", STATE, guard=True)
        self.let(f"changed({m}, {snap})", "changed", STATE, helpers=("Node", "changed"))

    def build(self) -> None:
        rng = self.rng
        tree = _Tree(rng)
        self.do(f"torch.manual_seed({rng.randrange(1000)})", "manual_seed")
        for k in range(rng.choice([0, 0, 1])):
            src = tree.leaf_module() if rng.random() < 0.7 else tree.node(1)
            name = f"shared{k}"
            self.steps.append(Step(src, name, (), "shared_module", MODULE, False, False, ("Node",)))
            tree.shared.append(name)
        depth = rng.choice([1, 1, 2, 2, 3])
        src = tree.module(depth)
        m = self.let(src, "build", MODULE)
        self.names(m)
        sd = self.let(f"{m}.state_dict()", "state_dict", STATE)
        for _ in range(rng.choice([1, 1, 2, 3])):
            r = rng.random()
            if r < 0.25:
                self.load(src, f"dict({sd})", "round_trip")
            elif r < 0.85:
                code, what = self.mutate(sd)
                self.load(src, code, what)
            elif r < 0.92:
                self.let(f"{m}.load_state_dict(list({sd}.items()))", "load_state_dict", STATE, guard=True)
            else:
                self.misc(m)
        self.let(f"[(n, isinstance(p, torch.nn.Parameter), str(p.dtype), tuple(p.shape), p.requires_grad) "
                 f"for n, p in {m}.named_parameters()]", "names", STATE)

    def misc(self, m: str) -> None:
        rng = self.rng
        code = rng.choice([
            f"{m}.train(1)", f"{m}.eval().training", f"{m}.requires_grad_(False) is {m}",
            f"{m}.zero_grad()", f"{m}.get_parameter('w')", f"{m}.get_submodule('lin')",
            f"{m}.register_buffer('a.b', torch.tensor(1.0))", f"{m}.register_buffer('', torch.tensor(1.0))",
            f"{m}.register_buffer('rb2', 3)", f"{m}.register_parameter('p2', torch.tensor(1.0))",
            f"{m}.add_module('x.y', torch.nn.ReLU())", f"{m}.add_module('c', 5)",
            f"setattr({m}, 'w', torch.tensor(1.0))", f"{m}.nope", f"{m}.state_dict(keep_vars=True)",
            f"{m}.get_parameter('nope.w')", f"{m}.to(torch.float64) is {m}", f"{m}.double() is {m}",
            f"repr({m})", f"{m}.extra_repr()", f"{m}.apply(lambda mod: None) is {m}",
        ])
        self.let(code, "module_misc", STATE, guard=True)


def generate_module(seed: int, index: int) -> Program:
    """Module program ``index`` of campaign ``seed``."""
    rng = random.Random(f"modules:{seed}:{index}")
    p = _ModuleProgram(rng)
    p.build()
    return Program("modules", seed, index, p.steps)
