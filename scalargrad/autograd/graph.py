"""``torch.autograd.graph``: the Node base class of every ``grad_fn``."""

from .._tensor.nodes import AccumulateGrad, Node

__all__ = ["Node", "AccumulateGrad"]
