"""The op table: every op declared once, with its forward, its derivative (PyTorch's
``derivatives.yaml`` term for term), its SymPy form, its grad_fn name, its saved values and
its spellings. Imports only ``_base``: the tensor layer above makes the surface from it."""

from . import (
    activations,
    angles,
    convolution,
    elementwise,
    embedding,
    losses,
    moments,
    normalization,
    norms,
    pointwise,
    pooling,
    products,
    reductions,
    rounding,
    scans,
    scatter,
    selection,
    softmax,
    views,
)
from .table import REGISTRY

__all__ = ["REGISTRY", "activations", "angles", "convolution", "elementwise", "embedding", "losses",
           "moments", "normalization", "norms", "pointwise", "pooling", "products", "reductions", "rounding", "scans",
           "scatter",
           "selection", "softmax", "views"]
