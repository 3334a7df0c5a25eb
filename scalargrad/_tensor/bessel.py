"""The Bessel family's backward on tensors (``_ops/bessel.py`` declares the ops):
ATen's ``i1_backward`` and ``i1e_backward``, composed of tensor ops as ATen composes them, so a
double backward records the same nodes (WhereBackward0, I0Backward0, ReciprocalBackward0...)."""

from __future__ import annotations

from .._ops import bessel as BS
from .comparison import where
from .elementwise import elementwise
from .factories import full
from .tensor import Tensor
from .tensor_kernel import helper

__all__ = ["i1_backward"]

# numeric_limits<scalar_t>::epsilon() of the floating dtypes
_EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


@helper
def i1_backward(g: Tensor, x: Tensor, result: Tensor, scaled: bool) -> Tensor:
    """``i1_backward`` (``scaled``: ``i1e_backward``): ``grad * where(|x| > eps, i0(x) - result /
    x, 0.5)`` with x replaced by eps where it is tiny (``where`` passes gradients through both
    branches: the safe x keeps the unused one finite); i1e's term is ``i0e(x) - result * (sgn(x)
    + 1 / x)``."""
    dt = x._t.dtype
    eps = _EPS[dt.name]
    not_tiny = x.abs() > eps
    safe = where(not_tiny, x, full((), eps, dtype=dt))
    if scaled:
        dx = elementwise(BS.SpecialI0e, (safe,)) - result * (safe.sgn() + safe.reciprocal())
    else:
        dx = safe.i0() - result * safe.reciprocal()
    return g * where(not_tiny, dx, full((), 0.5, dtype=dt))


def install(method, function) -> None:
    """No spellings here: ``torch.i0``/``Tensor.i0`` come from I0's declaration, the
    ``torch.special`` names from ``special.py``; importing the module registers the helper."""
