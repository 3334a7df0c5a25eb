"""``GradientEdge`` / ``get_gradient_edge``: where a tensor's gradient is computed (its node and
output number), usable as an input of ``autograd.grad``; ``increment_version`` for in-place
changes autograd cannot see."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .._tensor.nodes import Node, accumulate_grad_for
from .._tensor.storage import write
from .._tensor.tensor import INFERENCE, Tensor

__all__ = ["GradientEdge", "get_gradient_edge", "increment_version", "edge_tensor"]


class GradientEdge(NamedTuple):
    """A gradient edge of the graph: the node that computes the gradient and which of its
    outputs."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge along which ``tensor``'s gradient is computed: ``autograd.grad(loss, edge)``
    gives what ``autograd.grad(loss, tensor)`` gives."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node = accumulate_grad_for(tensor) if tensor._op is None else tensor.grad_fn
    return GradientEdge(node, tensor.output_nr)


def edge_tensor(edge: GradientEdge) -> Tensor:
    """The tensor whose gradient flows along ``edge``."""
    return edge.node._v


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Record an in-place change made behind autograd's back: the version counter moves on, so
    a node that saved the tensor refuses to run (inference tensors have no counter)."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if t._c is INFERENCE and t._op is None:
            continue
        write(t, list(t._val) if t._t.ndim else t._val)
