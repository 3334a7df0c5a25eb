"""The op table: every op declared once, with its forward, its derivative (PyTorch's
``derivatives.yaml`` term for term), its SymPy form, its grad_fn name, its saved values and
its spellings. Imports only ``_base``: the tensor layer above makes the surface from it."""

from . import (
    activations,
    angles,
    arithmetic,
    comparison,
    convolution,
    counting,
    distances,
    elementwise,
    embedding,
    fill,
    fold,
    gamma,
    gated,
    grid_sampling,
    indexing,
    joins,
    linalg,
    linalg_eigh,
    linalg_qr,
    linalg_triangular,
    logarithms,
    losses,
    medians,
    moments,
    normalization,
    norms,
    padding,
    pointwise,
    pooling,
    predicates,
    products,
    reductions,
    rounding,
    rrelu,
    scans,
    scatter,
    selection,
    shuffle,
    signs,
    softmax,
    trigonometric,
    unary,
    upsampling,
    views,
)
from .table import REGISTRY

SCALAR_DERIVATIVES = arithmetic.SCALAR_DERIVATIVES + comparison.SCALAR_DERIVATIVES + unary.SCALAR_DERIVATIVES
"""Every differentiable elementwise op with a non-trivial derivative, for the catalogue tests."""

__all__ = ["REGISTRY", "SCALAR_DERIVATIVES", "activations", "angles", "arithmetic", "comparison", "convolution",
           "counting", "distances", "elementwise", "embedding", "fill", "fold", "gamma", "gated", "grid_sampling",
           "indexing", "joins", "linalg",
           "linalg_eigh", "linalg_qr", "linalg_triangular", "logarithms",
           "losses", "medians", "moments",
           "normalization", "norms", "padding", "pointwise", "pooling", "predicates", "products", "reductions",
           "rounding", "rrelu", "scans", "scatter", "selection", "shuffle", "signs", "softmax", "trigonometric",
           "unary", "upsampling", "views"]
