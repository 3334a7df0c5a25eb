"""``parameters_to_vector`` and ``vector_to_parameters``: every parameter as one 1-D tensor, and back."""

from __future__ import annotations

from ..._tensor.joins import cat
from ..._tensor.tensor import Tensor
from ..._tensor.typename import typename as _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """``torch.cat`` of each parameter's ``view(-1)`` (in the graph: ViewBackward0 nodes, CatBackward0)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Give each parameter, in order, the next ``numel`` elements of ``vec`` as its data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
