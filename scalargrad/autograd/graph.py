"""``torch.autograd.graph``: the Node base class of every ``grad_fn``."""

from .._tensor.nodes import AccumulateGrad, Node

__all__ = ["Node", "AccumulateGrad"]


def __getattr__(name: str):
    # a missing name is a missing feature (saved_tensors_hooks, register_multi_grad_hook...),
    # named in one sentence as everywhere else, never an AttributeError about a module
    if name.startswith("__"):
        raise AttributeError(name)
    from .._base.errors import Unsupported

    raise Unsupported(f"torch.autograd.graph.{name}")
