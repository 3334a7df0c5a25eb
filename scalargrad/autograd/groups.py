"""Hooks on a multi-element tensor, which see its whole gradient at once.

A multi-element tensor (``shaped.ShapedTensor``) is a container of scalar nodes, but PyTorch
calls its hooks once with the full gradient tensor, and a hook's return replaces the gradient of
every element. A Group ties the elements of one tensor together: the engine holds back each
element's gradient until every element that takes part in this backward pass has its own, then
calls the hooks with the whole gradient, and only then lets the elements run (non-leaves) or
accumulate (leaves). Elements produced by one op were created one after another, so they sit
next to each other in the engine's sweep and holding them back does not change the order in
which the rest of the graph runs.
"""

from __future__ import annotations

from collections import OrderedDict

from ..value import Value, _ext, leaf

__all__ = ["Group", "group_for", "Pending"]


class Group:
    """The elements of one multi-element tensor and the hooks registered on the tensor."""

    __slots__ = ("tensor", "elements", "hooks", "post_acc")

    def __init__(self, tensor, elements: tuple) -> None:
        self.tensor = tensor
        self.elements = elements
        self.hooks: OrderedDict = OrderedDict()  # fn(grad_tensor) -> tensor | None
        self.post_acc: OrderedDict = OrderedDict()  # fn(tensor) -> None, leaves only

    def call_hooks(self, grads: list, graph: bool) -> list:
        """Run the tensor hooks on the whole gradient; return the element gradients after them.

        ``grads`` are the element gradients in element order (floats, Values, or None where an
        element received nothing: PyTorch's gradient tensor is dense, so those read as zero).
        """
        if not self.hooks:
            return grads
        cells = [g if isinstance(g, Value) else leaf(0.0 if g is None else g, e._t)
                 for e, g in zip(self.elements, grads)]
        whole = self.tensor._grad_tensor(cells)
        parts = None
        for hook in list(self.hooks.values()):
            res = hook(whole)
            if res is not None:
                parts = self.tensor._split_grad(res, hook)  # checked per hook, to name the culprit
                whole = res
        if parts is None:
            parts = self.tensor._split_grad(whole)
        out = []
        for e, g in zip(self.elements, parts):
            if isinstance(g, Value):
                out.append(g if graph else g._val)
            else:
                out.append(e._t.dtype.round(g) if not graph else leaf(e._t.dtype.round(g), e._t))
        return out


def group_for(tensor) -> Group:
    """The Group of a multi-element tensor (made on first use and remembered on the tensor)."""
    grp = getattr(tensor, "_group", None)
    if grp is None:
        grp = Group(tensor, tuple(tensor._elems))
        tensor._group = grp
        for e in grp.elements:
            _ext(e).group = grp
    return grp


class Pending:
    """Element gradients held back during one backward call, per group."""

    __slots__ = ("waiting", "expected")

    def __init__(self) -> None:
        self.waiting: dict = {}  # group -> {element: gradient}
        self.expected: dict = {}  # group -> number of its elements that take part

    def arrive(self, grp: Group, element: Value, g, taking_part) -> list | None:
        """Record ``element``'s gradient; when the group is complete, return every element's
        gradient in element order (None where an element received none)."""
        got = self.waiting.get(grp)
        if got is None:
            got = self.waiting[grp] = {}
            self.expected[grp] = sum(1 for e in grp.elements if taking_part(e))
        got[element] = g
        if len(got) < self.expected[grp]:
            return None
        del self.waiting[grp]
        del self.expected[grp]
        return [got.get(e) for e in grp.elements]

    def leftover(self) -> list:
        """Groups still incomplete at the end of the sweep (some element never got a gradient)."""
        out = [(grp, [got.get(e) for e in grp.elements]) for grp, got in self.waiting.items()]
        self.waiting.clear()
        self.expected.clear()
        return out
