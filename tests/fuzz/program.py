"""The fuzzer's program representation: a list of steps of Python written against ``torch``.

A step is one line (or block) of source, the variable it binds, the variables it reads and a
few tags the comparator needs (what kind of result it is, the op and operands for the
correctly-rounded check). Executing the source with ``torch`` bound to scalargrad or to
PyTorch is the whole interpreter, so the repro printed for a failure is exactly what ran.
Shrinking removes steps; a step whose inputs were removed goes with them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

__all__ = ["Step", "Program", "HELPERS", "lit", "number_source"]

# what a step's result is, for the classifier
VALUE, GRAD, GRAD_GRAPH, MODULE, STATE, SETUP = "value", "grad", "grad_graph", "module", "state", "setup"
HIDDEN = "hidden"  # bound but not observed (holds identities that differ between libraries by nature)
EVENTS = "events"  # a list of the events hooks recorded, compared in order


@dataclass(frozen=True)
class Step:
    """One statement of a program.

    ``code`` is an expression when ``name`` is set (the interpreter binds and observes its
    value), otherwise statements. ``guard``: an exception is recorded and the program goes on
    (for probes whose error is the point); otherwise the first exception ends the program.
    """

    code: str
    name: str | None = None
    uses: tuple[str, ...] = ()
    op: str = ""
    tag: str = VALUE
    show: bool = False
    guard: bool = False
    helpers: tuple[str, ...] = ()

    def source(self, observe: bool = False) -> str:
        """The step as Python; with ``observe``, followed by a print of what the fuzzer records."""
        lines = (f"{self.name} = {self.code}" if self.name else self.code).splitlines()
        if observe and self.name:
            lines.append(f"print({self.name!r}, {self.name})")
        if self.guard:
            lines = ["try:"] + ["    " + line for line in lines] + [
                "except Exception as e:", "    print(type(e).__name__, e)"]
        return "\n".join(lines)


@dataclass
class Program:
    """A generated program: its kind, where it came from, its steps."""

    kind: str
    seed: int
    index: int
    steps: list[Step] = field(default_factory=list)
    note: str = ""
    meta: dict = field(default_factory=dict)  # e.g. a smooth graph's output and input names

    @property
    def ident(self) -> str:
        return f"{self.kind}:{self.seed}:{self.index}"

    def helpers(self) -> list[str]:
        seen: list[str] = []
        for s in self.steps:
            for h in s.helpers:
                for dep in HELPER_DEPS.get(h, ()) + (h,):
                    if dep not in seen:
                        seen.append(dep)
        return seen

    def source(self, observe: bool = True) -> str:
        """A standalone repro: runs on PyTorch as is, on scalargrad with ``import scalargrad as torch``."""
        lines = ["import torch"]
        lines += [HELPERS[h] for h in self.helpers()]
        lines += [s.source(observe) for s in self.steps]
        return "\n".join(lines) + "\n"

    def without(self, drop: set[int]) -> Program:
        """The program minus steps ``drop`` and every step that reads what they bound."""
        gone: set[str] = set()
        kept = []
        for i, s in enumerate(self.steps):
            if i in drop or gone.intersection(s.uses):
                if s.name:
                    gone.add(s.name)
                continue
            kept.append(s)
        return replace(self, steps=kept)


def number_source(x) -> str:
    """Python source for a number, exact: ``float('-inf')``, ``-0.0``, ``1e-45``."""
    if isinstance(x, bool) or isinstance(x, int):
        return repr(x)
    if math.isnan(x):
        return "float('nan')"
    if math.isinf(x):
        return "float('inf')" if x > 0 else "float('-inf')"
    return repr(x)


def lit(x) -> str:
    """Python source for a literal operand (numbers exactly, strings and containers by repr)."""
    if isinstance(x, (bool, int, float)):
        return number_source(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(lit(v) for v in x)
        if isinstance(x, tuple):
            return f"({inner},)" if len(x) == 1 else f"({inner})"
        return f"[{inner}]"
    return repr(x)


# Functions a program may call, written once against ``torch`` and printed into repros.
HELPERS = {
    # the gradient graph as text: the grad_fn names breadth first, bounded
    "graph_names": '''def graph_names(t, limit=40):
    # seen keeps the nodes alive: PyTorch's Python wrappers of its nodes are made on demand,
    # and a freed wrapper's id() is reused by the next one
    out, todo, seen = [], [getattr(t, "grad_fn", None)], {}
    while todo and len(out) < limit:
        fn = todo.pop(0)
        if fn is None:
            out.append("None")
            continue
        out.append(fn.name())
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        todo.extend(n for n, _ in fn.next_functions)
    return " ".join(out)''',
    # every parameter and buffer of a module: (kind, name, identity key, values) before a load
    "snapshot": '''_kept = []  # snapshots keep their tensors alive: a freed tensor's id() is reused by the next one
def snapshot(m):
    out = {}
    for n, p in m.named_parameters(remove_duplicate=False):
        _kept.append(p)
        out["p:" + n] = (id(p), isinstance(p, torch.nn.Parameter), str(p.dtype), tuple(p.shape), p.requires_grad,
                         repr(p.detach().tolist()))
    for n, b in m.named_buffers(remove_duplicate=False):
        _kept.append(b)
        out["b:" + n] = (id(b), isinstance(b, torch.nn.Parameter), str(b.dtype), tuple(b.shape), b.requires_grad,
                         repr(b.tolist()))
    return out''',
    # what a load changed, by name: identity, type, dtype, shape, values, entries added/removed
    "changed": '''def changed(m, before):
    after = snapshot(m)
    out = []
    for k in sorted(set(before) | set(after)):
        b, a = before.get(k), after.get(k)
        if b is None or a is None:
            out.append(k + (" added" if b is None else " removed"))
        else:
            fields = ("identity", "is_parameter", "dtype", "shape", "requires_grad", "values")
            out += [k + " " + what for what, x, y in zip(fields, b, a) if x != y]
    return out''',
    # run a function in another thread and return what it returned or raised
    "in_thread": '''def in_thread(fn):
    import threading
    box = {}
    def target():
        try:
            box["r"] = fn()
        except Exception as e:
            box["r"] = (type(e).__name__, str(e))
    th = threading.Thread(target=target)
    th.start()
    th.join()
    return box["r"]''',
}
HELPER_DEPS = {"changed": ("snapshot",)}
