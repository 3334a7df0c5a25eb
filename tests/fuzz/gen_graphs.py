"""Expression graphs over tensors with edge operands, closed by one of four kinds of backward.

A graph program makes a few leaves (float32/float64 that require grad, int64/bool/float
constants), applies ops to earlier values and Python numbers on either side (every spelling:
operator, method, ``torch.*``, in place), sometimes changes a saved tensor through
``.detach()``/``.data`` or registers a tensor hook that returns another value, then runs
``backward()``, ``backward(gradient=...)``, ``autograd.grad`` or a ``create_graph`` double
backward and reads every gradient. Every bound value is observed.

The generator keeps an approximate model of each value (dtype, shape, requires_grad) only to
choose sensible operands; PyTorch's actual behaviour is what the program is compared with.
With ``shapes=True`` leaves also have shapes (2,), (2, 3), (1,), and broadcasting, views,
reductions over a dim and in-place ops on views join in (for the multi-element redesign).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import operands as O
from .program import GRAD, GRAD_GRAPH, SETUP, Program, Step, lit

__all__ = ["generate_graph", "UNARY", "BINARY"]

# name -> keeps integer dtypes
UNARY = {"neg": True, "abs": True, "exp": False, "log": False, "sqrt": False, "sin": False, "cos": False,
         "tanh": False, "sigmoid": False, "relu": True, "reciprocal": False, "square": True}
# name -> Python operator (None: no operator spelling)
BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floor_divide": "//", "pow": "**",
          "minimum": None, "maximum": None}
# in-place ops and their weights (clamp_ is beyond issue 14's list: a rare probe)
INPLACE = {"add_": 10, "sub_": 10, "mul_": 10, "div_": 10, "fill_": 10, "zero_": 10, "copy_": 10, "clamp_": 2,
           "iadd": 10, "imul": 10}
HOOKS = [
    "g * 2", "g.double()", "g.float()", "g.reshape(1)", "None", "torch.tensor(1.5)", "g + float('nan')",
    "g.to(torch.int64)", "g.expand(2)", "g * 0",
]
SHAPES = [(2,), (2, 3), (1,)]


@dataclass
class Var:
    name: str
    dtype: str
    rg: bool = False
    leaf: bool = False
    shape: tuple = ()
    dead: bool = False  # rebound under a new name after an in-place change (see _reread)


def _promote(a: str, b: str) -> str:
    order = ["bool", "int64", "float32", "float64"]
    return max(a, b, key=order.index)


class GraphBuilder:
    """Emits the steps of one graph program and tracks the approximate model of its values."""

    def __init__(self, rng: random.Random, shapes: bool = False, smooth: bool = False) -> None:
        self.rng = rng
        self.shapes = shapes
        self.smooth = smooth  # ordinary numbers and differentiable ops only (the property tests)
        self.steps: list[Step] = []
        self.vars: list[Var] = []
        self.count = 0
        self.default = "float32"

    # ------------------------------------------------------------ emitting

    def emit(self, code: str, op: str, uses=(), var: Var | None = None, tag: str = "value", show: bool | None = None,
             helpers=()) -> Var | None:
        name = None
        if var is not None:
            name = var.name = f"v{self.count}"
            self.count += 1
            self.vars.append(var)
        if show is None:
            show = self.rng.random() < 0.25
        self.steps.append(Step(code, name, tuple(uses), op, tag, show, False, tuple(helpers)))
        return var

    def statement(self, code: str, op: str, uses=(), tag: str = SETUP) -> None:
        self.steps.append(Step(code, None, tuple(uses), op, tag))

    def pick(self, pred=lambda v: True, recent: float = 0.6) -> Var | None:
        cands = [v for v in self.vars if not v.dead and pred(v)]
        if not cands:
            return None
        if self.rng.random() < recent:
            return cands[-1 - min(int(self.rng.expovariate(1.0)), len(cands) - 1)]
        return self.rng.choice(cands)

    # ------------------------------------------------------------ leaves

    def value_source(self, dtype: str, shape: tuple) -> str:
        rng = self.rng

        def one():
            if self.smooth:
                return O.ordinary(rng)
            if dtype == "bool":
                return rng.random() < 0.5
            if dtype == "int64":
                return O.int_number(rng, 0.3)
            return O.float_number(rng, 0.35)

        if not shape:
            return lit(one())
        if len(shape) == 1:
            return lit([one() for _ in range(shape[0])])
        return lit([[one() for _ in range(shape[1])] for _ in range(shape[0])])

    def leaf(self, dtype: str, rg: bool, shape: tuple = ()) -> Var:
        data = self.value_source(dtype, shape)
        spelled = self.rng.random()
        if dtype in ("float32", "int64", "bool") and dtype != "float32" or spelled < 0.7 or self.default != "float32":
            kw = f", dtype=torch.{dtype}"
        else:
            kw = ""  # inferred: a float literal takes the default dtype
            if dtype == "float32" and "." not in data and "e" not in data and "float" not in data:
                kw = ", dtype=torch.float32"
        if rg:
            kw += ", requires_grad=True"
        return self.emit(f"torch.tensor({data}{kw})", "tensor", (), Var("", dtype, rg, True, shape))

    # ------------------------------------------------------------ operands

    def number(self, dtype_hint: str | None = None):
        rng = self.rng
        if self.smooth:
            return O.ordinary(rng)
        if dtype_hint in ("int64", "bool") and rng.random() < 0.5:
            return O.int_number(rng) if rng.random() < 0.8 else rng.random() < 0.5
        return O.number(rng)

    def operand(self, pred=lambda v: True):
        """A tensor (Var) or, sometimes, a Python number."""
        if self.rng.random() < 0.3:
            return self.number()
        v = self.pick(pred)
        return v if v is not None else self.number()

    @staticmethod
    def src(x) -> str:
        return x.name if isinstance(x, Var) else lit(x)

    @staticmethod
    def uses(*xs) -> tuple:
        return tuple(x.name for x in xs if isinstance(x, Var))

    def model(self, *xs, float_result: bool = False) -> Var:
        """The approximate dtype / requires_grad / shape of an op's result."""
        dt = None
        rg = False
        shape: tuple = ()
        for x in xs:
            if isinstance(x, Var):
                dt = x.dtype if dt is None else _promote(dt, x.dtype)
                rg = rg or x.rg
                if len(x.shape) > len(shape) or (len(x.shape) == len(shape) and x.shape and x.shape[0] > shape[0]):
                    shape = x.shape
        for x in xs:
            if isinstance(x, float) and dt in ("int64", "bool"):
                dt = self.default
            elif isinstance(x, int) and not isinstance(x, bool) and dt == "bool":
                dt = "int64"
        if float_result and dt in ("int64", "bool", None):
            dt = self.default
        return Var("", dt or self.default, rg and dt in ("float32", "float64"), False, shape)

    # ------------------------------------------------------------ ops

    def unary(self) -> None:
        a = self.pick()
        if a is None:
            return
        name = self.rng.choice(list(UNARY))
        keep_int = UNARY[name]
        r = self.rng.random()
        if name == "neg" and r < 0.5:
            code = f"-{a.name}"
        elif name == "abs" and r < 0.3:
            code = f"abs({a.name})"
        elif name == "relu" and r < 0.3:
            code = f"torch.nn.functional.relu({a.name})"
        elif r < 0.7:
            code = f"{a.name}.{name}()"
        else:
            code = f"torch.{name}({a.name})"
        out = self.model(a, float_result=not keep_int)
        self.emit(code, name, (a.name,), out)

    def binary(self) -> None:
        rng = self.rng
        name = rng.choice([n for n in BINARY if not (self.smooth and n == "floor_divide")])
        sym = BINARY[name]
        left = self.operand()
        right = self.operand()
        if sym is None:  # minimum/maximum take tensors only; a number is an occasional error probe
            left = left if isinstance(left, Var) else self.pick()
            if not isinstance(right, Var) and rng.random() < 0.85:
                right = self.pick()
        if not isinstance(left, Var) and not isinstance(right, Var):
            right = self.pick()
            if right is None:
                return
        r = rng.random()
        if name == "floor_divide" and rng.random() < 0.85:
            r = 0.0  # mostly the operator (issue 14's spelling); the method and function are rare probes
        if sym and (r < 0.6 or not isinstance(left, Var)):
            lsrc = self.src(left)
            if lsrc.startswith("-"):  # -2 ** x is -(2 ** x) in Python
                lsrc = f"({lsrc})"
            code = f"{lsrc} {sym} {self.src(right)}"
        elif not isinstance(left, Var):
            return
        elif r < 0.8 or sym is None and r < 0.9:
            code = f"{left.name}.{name}({self.src(right)})"
        else:
            code = f"torch.{name}({left.name}, {self.src(right)})"
        out = self.model(left, right, float_result=name == "div")
        self.emit(code, name, self.uses(left, right), out)

    def clamp(self) -> None:
        rng = self.rng
        a = self.pick()
        if a is None:
            return
        lo = self.number(a.dtype) if rng.random() < 0.8 else None
        hi = self.number(a.dtype) if rng.random() < 0.8 or lo is None else None
        if rng.random() < 0.15 and not self.smooth:  # tensor bounds (PyTorch refuses a tensor beside a number)
            lo = self.pick() or lo
            hi = (self.pick() or hi) if rng.random() < 0.5 and isinstance(lo, Var) else None
        kind = rng.random()
        if kind < 0.2 and lo is not None:
            code, name = f"{a.name}.clamp_min({self.src(lo)})", "clamp_min"
            hi = None
        elif kind < 0.35 and hi is not None:
            code, name = f"{a.name}.clamp_max({self.src(hi)})", "clamp_max"
            lo = None
        elif kind < 0.7:
            args = ", ".join(f"{k}={self.src(v)}" for k, v in (("min", lo), ("max", hi)) if v is not None)
            code, name = f"torch.clamp({a.name}, {args})", "clamp"
        else:
            code, name = f"{a.name}.clamp({self.src(lo) if lo is not None else 'None'}, "\
                         f"{self.src(hi) if hi is not None else 'None'})", "clamp"
        self.emit(code, name, self.uses(a, lo, hi), self.model(a, *(b for b in (lo, hi) if b is not None)))

    def reduction(self) -> None:
        a = self.pick()
        if a is None:
            return
        name = self.rng.choice(["sum", "mean"])
        if a.shape and self.rng.random() < 0.5:
            dim = self.rng.randrange(-len(a.shape), len(a.shape))
            keep = self.rng.random() < 0.3
            code = f"{a.name}.{name}({dim}{', keepdim=True' if keep else ''})"
            shape = tuple(1 if i == dim % len(a.shape) else s for i, s in enumerate(a.shape)) if keep else \
                tuple(s for i, s in enumerate(a.shape) if i != dim % len(a.shape))
        else:
            code = f"{a.name}.{name}()" if self.rng.random() < 0.6 else f"torch.{name}({a.name})"
            shape = ()
        out = self.model(a)
        if name == "sum" and a.dtype == "bool":
            out.dtype = "int64"
        out.shape = shape
        self.emit(code, name, (a.name,), out)

    def inplace(self) -> None:
        """An in-place op on a computed value (recorded in the graph), through .detach()/.data
        (outside it, on a value a node may have saved), or on a leaf under no_grad."""
        rng = self.rng
        kind = rng.random()
        if kind < 0.55:
            where, t = "graph", self.pick(lambda v: not v.leaf) or self.pick()
        elif kind < 0.8:
            where, t = "detached", self.pick(lambda v: not v.leaf and v.rg) or self.pick()
        else:
            where, t = "no_grad", self.pick(lambda v: v.leaf)
        if t is None:
            return
        op = rng.choices(list(INPLACE), list(INPLACE.values()))[0]
        other = self.operand()
        target = t.name + (rng.choice([".detach()", ".data"]) if where == "detached" else "")
        if op in ("fill_", "clamp_"):
            code = f"{target}.{op}({self.src(self.number(t.dtype))}{', None' if op == 'clamp_' else ''})"
            other = None
        elif op == "zero_":
            code, other = f"{target}.zero_()", None
        elif op == "copy_":
            other = self.pick(lambda v: v is not t) or self.number()
            code = f"{target}.copy_({other.name if isinstance(other, Var) else f'torch.tensor({lit(other)})'})"
        elif op in ("iadd", "imul") and where == "graph":
            code = f"{t.name} {'+=' if op == 'iadd' else '*='} {self.src(other)}"
        else:
            code = f"{target}.{ {'iadd': 'add_', 'imul': 'mul_'}.get(op, op)}({self.src(other)})"
        uses = self.uses(t, other)
        if where == "graph" and not code.startswith(f"{t.name} "):  # a method returns the tensor: bind it
            out = Var("", t.dtype, t.rg or (isinstance(other, Var) and other.rg), False, t.shape)
            self.emit(code, op, uses, out)
            t.leaf, t.rg = False, out.rg
            return
        if where == "no_grad":
            code = "with torch.no_grad():\n    " + code
        self.statement(code, op, uses, tag="value")
        if where == "graph":
            t.leaf = False
        self._reread(t)

    def _reread(self, t: Var) -> None:
        """Bind a tensor changed in place to a new name: its value is observed again, and later
        steps read it under that name (so each name's observation is its current value)."""
        self.emit(t.name, "read", (t.name,), Var("", t.dtype, t.rg, t.leaf, t.shape))
        t.dead = True
        if t in self.retained:
            self.retained[self.retained.index(t)] = self.vars[-1]

    def detach(self) -> None:
        a = self.pick()
        if a is None:
            return
        r = self.rng.random()
        if r < 0.4:
            self.emit(f"{a.name}.detach()", "detach", (a.name,), Var("", a.dtype, False, True, a.shape))
        elif r < 0.7:
            self.emit(f"{a.name}.clone()", "clone", (a.name,), Var("", a.dtype, a.rg, not a.rg, a.shape))
        elif a.dtype in ("float32", "float64"):
            self.emit(f"{a.name}.detach().requires_grad_()", "detach_requires_grad", (a.name,),
                      Var("", a.dtype, True, True, a.shape))

    def hook(self) -> None:
        a = self.pick(lambda v: v.rg)
        if a is None:
            return
        body = self.rng.choice(HOOKS)
        self.statement(f"{a.name}.register_hook(lambda g: {body})", "hook:" + body, (a.name,))
        if not a.leaf and self.rng.random() < 0.5:
            self.statement(f"{a.name}.retain_grad()", "retain_grad", (a.name,))
            self.retained.append(a)

    def view(self) -> None:
        """Views and indexing (shaped mode)."""
        a = self.pick(lambda v: bool(v.shape))
        if a is None:
            return
        rng = self.rng
        n = 1
        for s in a.shape:
            n *= s
        choices = [(f"{a.name}.view(-1)", (n,)), (f"{a.name}.reshape({n})", (n,)),
                   (f"{a.name}.unsqueeze(0)", (1,) + a.shape), (f"{a.name}[0]", a.shape[1:])]
        if len(a.shape) == 2:
            choices.append((f"{a.name}.t()", a.shape[::-1]))
        if a.shape == (1,):
            choices.append((f"{a.name}.expand(3)", (3,)))
        code, shape = rng.choice(choices)
        self.emit(code, "view", (a.name,), Var("", a.dtype, a.rg, False, shape))
        if rng.random() < 0.3 and self.vars[-1].shape:  # in place on the view
            v = self.vars[-1]
            self.statement(f"{v.name}.mul_({lit(O.float_number(rng))})", "view_inplace", (v.name,), tag="value")
            self._reread(a)

    # ------------------------------------------------------------ the program

    def body(self, n_ops: int) -> None:
        rng = self.rng
        table = [(self.unary, 30), (self.binary, 35), (self.clamp, 8), (self.reduction, 5)]
        if not self.smooth:
            table += [(self.inplace, 10), (self.detach, 5), (self.hook, 5)]
        if self.shapes:
            table.append((self.view, 12))
        fns, weights = zip(*table)
        for _ in range(n_ops):
            rng.choices(fns, weights)[0]()

    def backward(self) -> None:
        rng = self.rng
        leaves = [v for v in self.vars if v.leaf and v.rg and not v.dead]
        y = self.pick(lambda v: v.rg, recent=0.9) or self.vars[-1]
        if y.shape:
            y = self.emit(f"{y.name}.sum()", "sum", (y.name,), Var("", y.dtype, y.rg, False, ()))
        other = self.pick(lambda v: v.rg and v is not y and not v.shape)
        if other is not None and rng.random() < 0.4:
            y = self.emit(f"{y.name} + {other.name}", "add", (y.name, other.name), self.model(y, other))
        names = [v.name for v in leaves]
        inputs = "[" + ", ".join(names) + "]"
        kind = rng.choices(["backward", "gradient", "grad", "double", "double_backward"], [30, 15, 25, 22, 8])[0]
        self.kind = kind
        if kind in ("backward", "gradient"):
            if kind == "gradient":
                g = O.float_number(rng, 0.5)
                dt = rng.choice(["", "", ", dtype=torch.float64"])
                arg = f"gradient=torch.tensor({lit(g)}{dt})"
            else:
                arg = ""
            retain = rng.random() < 0.2
            if retain:
                arg = (arg + ", " if arg else "") + "retain_graph=True"
            self.statement(f"{y.name}.backward({arg})", kind, (y.name,), tag="value")
            if retain:
                self.statement(f"{y.name}.backward()", "backward", (y.name,), tag="value")
            self.read_grads(leaves)
        elif kind == "grad":
            self.emit(f"torch.autograd.grad({y.name}, {inputs}, allow_unused=True)", "autograd.grad",
                      (y.name, *names), Var("", "tuple"), tag=GRAD, show=True)
        elif kind == "double":
            gs = self.emit(f"torch.autograd.grad({y.name}, {inputs}, create_graph=True, allow_unused=True)",
                           "autograd.grad", (y.name, *names), Var("", "tuple"), tag=GRAD, show=True)
            for i in range(min(len(leaves), 2)):
                self.emit(f"graph_names({gs.name}[{i}])", "graph_names", (gs.name,), Var("", "str"),
                          tag=GRAD_GRAPH, helpers=("graph_names",))
            z = self.emit(f"sum(g for g in {gs.name} if g is not None and g.requires_grad)", "sum_grads",
                          (gs.name,), Var("", "float32", True), tag=GRAD)
            if rng.random() < 0.5:
                self.statement(f"{z.name}.backward()", "backward", (z.name,), tag="value")
                self.read_grads(leaves)
            else:
                self.emit(f"torch.autograd.grad({z.name}, {inputs}, allow_unused=True)", "autograd.grad",
                          (z.name, *names), Var("", "tuple"), tag=GRAD, show=True)
        else:  # backward(create_graph=True), then backward through the gradient
            self.statement(f"{y.name}.backward(create_graph=True)", "backward_create_graph", (y.name,), tag="value")
            self.read_grads(leaves)
            if leaves:
                x = rng.choice(leaves)
                self.emit(f"graph_names({x.name}.grad)", "graph_names", (x.name,), Var("", "str"), tag=GRAD_GRAPH,
                          helpers=("graph_names",))
                self.statement(f"{x.name}.grad.backward()", "backward", (x.name,), tag="value")
                self.read_grads(leaves)

    def read_grads(self, leaves: list) -> None:
        for v in leaves + [r for r in self.retained if r not in leaves]:
            self.emit(f"{v.name}.grad", "read_grad", (v.name,), Var("", v.dtype), tag=GRAD, show=True)

    def build_smooth(self) -> None:
        """Leaves that require grad, differentiable ops on ordinary numbers, one autograd.grad."""
        rng = self.rng
        self.retained = []
        leaves = [self.leaf(rng.choice(["float32", "float64"]), True) for _ in range(rng.choice([1, 2, 3]))]
        self.body(rng.randint(1, 8))
        y = self.pick(lambda v: v.rg, recent=0.9)
        names = [v.name for v in leaves]
        self.emit(f"torch.autograd.grad({y.name}, [{', '.join(names)}], allow_unused=True)", "autograd.grad",
                  (y.name, *names), Var("", "tuple"), tag=GRAD, show=True)
        self.kind = "grad"
        self.meta = {"output": y.name, "inputs": names, "grads": self.vars[-1].name}

    def build(self) -> None:
        rng = self.rng
        self.retained: list = []
        if rng.random() < 0.1:
            self.default = "float64"
            self.statement("torch.set_default_dtype(torch.float64)", "set_default_dtype")
        shape = lambda: rng.choice(SHAPES) if self.shapes and rng.random() < 0.6 else ()
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            self.leaf(rng.choice(["float32"] * 4 + ["float64"]), True, shape())
        for _ in range(rng.choice([0, 0, 1, 2])):
            self.leaf(O.pick_dtype(rng), False, shape())
        self.body(rng.randint(2, 10))
        self.backward()


def generate_graph(seed: int, index: int, shapes: bool = False, smooth: bool = False) -> Program:
    """Graph program ``index`` of campaign ``seed`` (the same pair always gives the same program).

    ``smooth``: only differentiable ops on ordinary numbers, leaves that require grad, closed by
    one ``autograd.grad`` whose output and inputs ``Program.meta`` names (for the property tests
    against SymPy and mpmath)."""
    rng = random.Random(f"graphs:{seed}:{index}:{shapes}:{smooth}" if smooth else f"graphs:{seed}:{index}:{shapes}")
    b = GraphBuilder(rng, shapes, smooth)
    if smooth:
        b.build_smooth()
    else:
        b.build()
    return Program("graphs", seed, index, b.steps, note=f"backward kind: {b.kind}", meta=getattr(b, "meta", {}))
