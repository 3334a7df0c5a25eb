"""``torch.nn.utils``: gradient clipping, flattening parameters into one vector, parametrizations
(``prune`` is imported by name, as in PyTorch)."""

from ..._base.missing_api import missing_attribute
from . import parametrize, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "rnn"]


def __getattr__(name: str):
    if name == "prune":  # scalargrad has it, but as in PyTorch only once imported by name
        raise AttributeError("module 'torch.nn.utils' has no attribute 'prune'")
    return missing_attribute("torch.nn.utils", name)
