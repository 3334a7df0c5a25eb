"""``torch.autograd.graph``: the Node base class of every ``grad_fn``, saved-tensor hooks,
multi-grad hooks, gradient edges."""

from .._autograd.edges import GradientEdge, get_gradient_edge, increment_version
from .._autograd.graph_task import register_multi_grad_hook
from .._base.missing_api import missing_attribute
from .._base.presentation import present_as_torch
from .._tensor.nodes import AccumulateGrad, Node
from .._tensor.saved_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

__all__ = ["Node", "AccumulateGrad", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "GradientEdge", "get_gradient_edge", "increment_version"]


present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    return missing_attribute("torch.autograd.graph", name)
