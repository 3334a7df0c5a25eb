"""``make_dot``: a picture of the backward graph, drawn as torchviz 0.0.3 draws it, with hooks.

The graph is read only through the API torchviz reads on PyTorch: ``grad_fn``,
``next_functions``, an ``AccumulateGrad`` node's ``variable``, the ``_saved_*`` attributes
listed by ``dir(node)``, a custom Function node's ``saved_tensors``, and the node's name. The
statements come out in torchviz's order (a depth-first walk, done here with an explicit stack),
with torchviz's labels and colours: grey boxes for backward nodes named like their class,
blue for leaf tensors that require grad (named from ``params``), orange for saved tensors,
green for the output(s). So the DOT text of a program run on scalargrad matches torchviz's on
the same program run on PyTorch, node for node and edge for edge.

scalargrad adds the graph's hook points (``show_hooks``): a note beside each node or leaf
that carries hooks lists them in the order they fire, and, given the record of a backward call
(``hook_order``, from ``recorder.HookRecorder``), numbers them in the order they fired in it.
"""

from __future__ import annotations

from typing import Any

from .._tensor.tensor import is_tensor
from .digraph import Digraph
from .hook_points import HookSlot, _hook_points
from .recorder import BackwardCall, HookRecorder

__all__ = ["make_dot", "resize_graph"]

SAVED_PREFIX = "_saved_"
_NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1", height="0.2",
                  fontname="monospace")
_NOTE_COLOUR = "darkgoldenrod"


def _is_tensor(x: Any) -> bool:
    return is_tensor(x)


def _fn_name(fn: Any) -> str:
    """The node's name as torchviz shows it (its class name: ``AccumulateGrad``, not PyTorch's
    ``torch::autograd::AccumulateGrad``)."""
    name = fn.name() if hasattr(fn, "name") else type(fn).__name__
    return name.rsplit("::", 1)[-1]


def _fn_label(fn: Any, show_attrs: bool, max_attr_chars: int) -> str:
    name = _fn_name(fn)
    if not show_attrs:
        return name
    attrs = {}
    for attr in dir(fn):
        if not attr.startswith(SAVED_PREFIX):
            continue
        val = getattr(fn, attr)
        attr = attr[len(SAVED_PREFIX):]
        if _is_tensor(val):
            attrs[attr] = "[saved tensor]"
        elif isinstance(val, tuple) and any(_is_tensor(t) for t in val):
            attrs[attr] = "[saved tensors]"
        else:
            attrs[attr] = str(val)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    col1 = max(len(k) for k in attrs)
    col2 = min(max(len(str(v)) for v in attrs.values()), max_attr_chars)
    sep = "-" * max(col1 + col2 + 2, len(name))

    def cut(s: str) -> str:
        return s[:col2 - 3] + "..." if len(s) > col2 else s

    rows = "\n".join(f"{k:<{col1}}: {cut(str(v)):>{col2}}" for k, v in attrs.items())
    return name + "\n" + sep + "\n" + rows


def resize_graph(dot: Digraph, size_per_element: float = 0.15, min_size: float = 12) -> None:
    """torchviz's page size: grows with the number of statements."""
    size = max(min_size, len(dot.body) * size_per_element)
    dot.graph_attr.update(size=f"{size},{size}")


def _hook_lines(slots: list[HookSlot], order: BackwardCall | None) -> str:
    lines = []
    for s in slots:
        if order is None or s.container is None:  # retain_grad is no callable: never numbered
            lines.append(s.text)
        else:
            numbers = order.numbers(s)
            mark = ",".join(f"#{n}" for n in numbers) if numbers else "(not fired)"
            lines.append(f"{mark} {s.text}")
    return "".join(line + "\\l" for line in lines)


class _Drawer:
    """One drawing: torchviz's ``make_dot`` walk (its nested functions, as methods), iteratively."""

    def __init__(self, param_map: dict, points: dict, show_attrs: bool, show_saved: bool, max_attr_chars: int):
        self.dot = Digraph(node_attr=_NODE_ATTR, graph_attr=dict(size="12,12"))
        self.seen: set = set()
        self.notes: list[tuple[str, list[HookSlot]]] = []  # (id of the annotated node, its hooks)
        self.param_map = param_map
        self.points = points
        self.show_attrs = show_attrs
        self.show_saved = show_saved
        self.max_attr_chars = max_attr_chars

    def var_name(self, v, name: str | None = None) -> str:
        if not name:
            name = self.param_map.get(id(v), "")
        return f"{name}\n {'(' + ', '.join(str(int(s)) for s in v.size()) + ')'}"

    def note(self, target: Any) -> None:
        point = self.points.get(id(target))
        if point is not None and point[0] is target:
            self.notes.append((str(id(target)), point[1]))

    def saved(self, fn) -> None:
        """``show_saved``: the tensors ``fn`` saved, in orange."""
        dot = self.dot
        for attr in dir(fn):
            if not attr.startswith(SAVED_PREFIX):
                continue
            val = getattr(fn, attr)
            _add_seen(self.seen, val)
            attr = attr[len(SAVED_PREFIX):]
            if _is_tensor(val):
                dot.edge(str(id(fn)), str(id(val)), dir="none")
                dot.node(str(id(val)), self.var_name(val, attr), fillcolor="orange")
            if isinstance(val, tuple):
                for i, t in enumerate(val):
                    if _is_tensor(t):
                        dot.edge(str(id(fn)), str(id(t)), dir="none")
                        dot.node(str(id(t)), self.var_name(t, f"{attr}[{i}]"), fillcolor="orange")

    def enter(self, fn) -> bool:
        """torchviz's add_nodes up to its recursion; False if ``fn`` was drawn already."""
        if fn in self.seen:
            return False
        self.seen.add(fn)
        if self.show_saved:
            self.saved(fn)
        if hasattr(fn, "variable"):
            leaf = fn.variable
            self.seen.add(leaf)
            self.dot.node(str(id(leaf)), self.var_name(leaf), fillcolor="lightblue")
            self.dot.edge(str(id(leaf)), str(id(fn)))
            self.note(leaf)
        self.dot.node(str(id(fn)), _fn_label(fn, self.show_attrs, self.max_attr_chars))
        self.note(fn)
        return True

    def leave(self, fn) -> None:
        """torchviz's add_nodes after its recursion: a custom Function's saved tensors."""
        if hasattr(fn, "saved_tensors"):
            for t in fn.saved_tensors:
                self.seen.add(t)
                self.dot.edge(str(id(t)), str(id(fn)), dir="none")
                self.dot.node(str(id(t)), self.var_name(t), fillcolor="orange")

    def add_nodes(self, root_fn) -> None:
        if not self.enter(root_fn):
            return
        stack = [(root_fn, iter(getattr(root_fn, "next_functions", ())))]
        while stack:
            fn, pending = stack[-1]
            for u in pending:
                if u[0] is not None:
                    self.dot.edge(str(id(u[0])), str(id(fn)))
                    if self.enter(u[0]):
                        stack.append((u[0], iter(getattr(u[0], "next_functions", ()))))
                        break
            else:
                stack.pop()
                self.leave(fn)

    def add_base_tensor(self, v, color: str = "darkolivegreen1") -> None:
        # torchviz recurses into a view's base and then draws the dotted edge base -> view
        dotted = []
        while v not in self.seen:
            self.seen.add(v)
            self.dot.node(str(id(v)), self.var_name(v), fillcolor=color)
            fn = v.grad_fn
            if fn:
                self.add_nodes(fn)
                self.dot.edge(str(id(fn)), str(id(v)))
            else:
                self.note(v)
            if not (hasattr(type(v), "_is_view") and v._is_view()):
                break
            dotted.append((v._base, v))
            v, color = v._base, "darkolivegreen3"
        for base, view in reversed(dotted):
            self.dot.edge(str(id(base)), str(id(view)), style="dotted")

    def hook_notes(self, hook_order) -> None:
        for target, slots in self.notes:
            name = f"hooks_{target}"
            self.dot.node(name, _hook_lines(slots, hook_order), shape="note", fillcolor="lightyellow",
                          color=_NOTE_COLOUR, fontcolor="black")
            self.dot.edge(name, target, style="dashed", arrowhead="none", color=_NOTE_COLOUR)


def make_dot(var, params: dict | None = None, show_attrs: bool = False, show_saved: bool = False,
             max_attr_chars: int = 50, *, show_hooks: bool = True,
             hook_order: BackwardCall | HookRecorder | None = None) -> Digraph:
    """The backward graph of ``var`` (a tensor or a tuple of tensors) as a ``Digraph``.

    torchviz's arguments: ``params`` maps names to tensors and names the leaves drawn for them;
    ``show_attrs`` lists the non-tensor ``_saved_*`` attributes of each node; ``show_saved``
    draws the tensors a node saved; ``max_attr_chars`` cuts long attribute values. scalargrad's:
    ``show_hooks`` notes the hooks on the graph; ``hook_order`` (a recorded backward call, or a
    ``HookRecorder`` for its last call) numbers them in the order they fired.

    ``.source`` is the DOT text; ``.render()`` / ``.pipe()`` draw it with Graphviz.
    """
    if params is not None:
        if not all(_is_tensor(p) for p in params.values()):
            raise TypeError("make_dot: params must map names to tensors")
        param_map = {id(v): k for k, v in params.items()}
    else:
        param_map = {}
    if isinstance(hook_order, HookRecorder):
        hook_order = hook_order.last
    points: dict = {}
    if show_hooks:
        points = _hook_points(var if isinstance(var, tuple) else (var,))
        if hook_order is not None:  # the hooks as they were during that call (some may be gone)
            points = {**points, **hook_order.points}
    drawer = _Drawer(param_map, points, show_attrs, show_saved, max_attr_chars)
    for v in (var if isinstance(var, tuple) else (var,)):
        drawer.add_base_tensor(v)
    drawer.hook_notes(hook_order)
    resize_graph(drawer.dot)
    return drawer.dot


def _add_seen(seen: set, val: Any) -> None:
    try:
        seen.add(val)
    except TypeError:  # an unhashable saved attribute (torchviz would stop here; we draw on)
        pass
