"""scalargrad: PyTorch's autograd and nn.Module on scalars, in pure Python, verified by SymPy.

``import scalargrad as torch`` runs a scalar PyTorch program and prints what PyTorch prints.
"""

from __future__ import annotations

from . import autograd, cuda, dtypes, ops
from .autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .dtypes import Size, bool, double, dtype, float, float32, float64, int64, long  # noqa: A004
from .factories import (
    device,
    empty,
    full,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    scalar_tensor,
    tensor,
    zeros,
    zeros_like,
)
from .functional import (  # noqa: A004
    abs,
    absolute,
    add,
    allclose,
    broadcast_shapes,
    cat,
    clamp,
    clip,
    clone,
    concat,
    cos,
    div,
    divide,
    dot,
    equal,
    exp,
    flatten,
    log,
    matmul,
    maximum,
    mean,
    minimum,
    mm,
    mul,
    multiply,
    mv,
    neg,
    negative,
    numel,
    permute,
    pow,
    reciprocal,
    relu,
    reshape,
    rsub,
    sigmoid,
    sin,
    sqrt,
    square,
    squeeze,
    stack,
    sub,
    subtract,
    sum,
    t,
    tanh,
    transpose,
    true_divide,
    unsqueeze,
)
from .shaped import MAX_ELEMENTS, ShapedTensor
from .value import Tensor, Value, get_default_dtype, is_tensor, set_default_dtype

__version__ = "0.1.0"


def __getattr__(name: str):
    # nn, symbolic and random load on first use: building a graph does not need them
    if name in ("nn", "symbolic", "random", "runner"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    if name.startswith("__"):
        raise AttributeError(name)
    from .errors import Unsupported

    raise Unsupported(f"torch.{name}")
