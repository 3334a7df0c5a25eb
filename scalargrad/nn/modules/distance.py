"""Distance modules (PyTorch's ``torch.nn.modules.distance``): each calls its ``nn.functional``
form with the settings given at construction."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import more_loss_functions as G
from .. import normalization_functions as N
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """``F.pairwise_distance`` (the norm of the difference over the last dimension)."""

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return G.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """``F.cosine_similarity`` of the two inputs along ``dim``."""

    __constants__ = ["dim", "eps"]

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return N.cosine_similarity(x1, x2, self.dim, self.eps)
