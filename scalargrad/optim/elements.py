"""Optimizer steps on the numbers themselves: the fast path of every optimizer here.

PyTorch's single-tensor (for-loop) optimizers update each parameter with a few tensor ops
(``param.add_(grad, alpha=-lr)``, ``exp_avg.lerp_(grad, 1 - beta1)``...). Each of those ops is
elementwise, and its rounding is known exactly (``_ops/pointwise.py``, ``_ops/arithmetic.py``,
``_tensor/elementwise.add_alpha``: add with alpha is one fused multiply-add), so the same update computed
element by element on floats gives the very same bits without building a tensor per op. That
matters for scalar programs, where every parameter is a 0-dim tensor (micrograd's demo has 337
of them). Each optimizer's module writes its update twice: with tensor ops, as PyTorch's
source reads (``differentiable=True``, tensor hyperparameters, other dtypes), and on floats with
the helpers below; the tests run both against PyTorch.

Results are written back with ``storage.write``, so views and ``.data`` aliases see them and
version counters move on by as many in-place ops as PyTorch's update makes.
"""

from __future__ import annotations

from .._base import dtypes, ieee
from .._base.dtypes import TensorType, round_f32, round_f32_list
from .._base.kernel_order import fma32, fma32_list, fma32_lists, fma64
from .._ops.comparison import max_forward
from .._ops.pointwise import addcdiv_element, addcmul_element, lerp_element
from .._ops.unary import Sqrt
from .._tensor.storage import mem, write
from .._tensor.tensor import Tensor, leaf

__all__ = ["rounding", "fma_all", "fma_lists", "round_all", "sqrt_all", "div_all",
           "grad_values", "store", "numbers", "new_state", "same_layout", "sqrt", "maximum",
           "lerp_element", "addcmul_element", "addcdiv_element", "has_grad"]

_ROUNDING = {dtypes.float32: (round_f32, fma32), dtypes.float64: (float, fma64)}


def rounding(dt: dtypes.dtype):
    """``(round, fma)`` of a dtype the fast path serves (float32, float64), else None."""
    return _ROUNDING.get(dt)


def fma_all(rounds, xs: list, y: float, cs: list) -> list:
    """``[fma(x, y, c) for x, c in zip(xs, cs)]`` with the ``fma`` of ``rounds``: in float32 a
    whole list cast at once (``fma32_list``, the same bits)."""
    fma = rounds[1]
    if fma is fma32:
        return fma32_list(xs, y, cs)
    return [fma(x, y, c) for x, c in zip(xs, cs)]


def fma_lists(rounds, xs: list, ys: list, cs: list) -> list:
    """``[fma(x, y, c) for x, y, c in zip(xs, ys, cs)]`` (``addcmul``'s multiply-add), in float32
    a whole list cast at once (``fma32_lists``, the same bits)."""
    fma = rounds[1]
    if fma is fma32:
        return fma32_lists(xs, ys, cs)
    return [fma(x, y, c) for x, y, c in zip(xs, ys, cs)]


def round_all(rounds, xs: list) -> list:
    """Doubles rounded to the dtype of ``rounds``: float32's cast in C; doubles as they are."""
    return round_f32_list(xs) if rounds[0] is round_f32 else xs


def sqrt_all(rounds, xs: list) -> list:
    """``Tensor.sqrt`` of a whole list, as the tensor op computes it (``Sqrt.fast``, read when
    called; ``ieee.sqrt``'s nan for a negative element)."""
    try:
        vals = list(map(Sqrt.fast, xs))
    except ValueError:
        vals = list(map(ieee.sqrt, xs))
    return round_all(rounds, vals)


def div_all(rounds, xs: list, ys: list) -> list:
    """``xs / ys`` element by element, rounded to the dtype (IEEE's result for a zero divisor)."""
    try:
        vals = [x / y for x, y in zip(xs, ys)]
    except ZeroDivisionError:
        vals = list(map(ieee.div, xs, ys))
    return round_all(rounds, vals)


def has_grad(p: Tensor) -> bool:
    """``p.grad is not None`` (a leaf's gradient may still be a bare number: not wrapped here)."""
    if p._op is None:
        return p._g is not None
    return p.grad is not None


def grad_values(p: Tensor):
    """The elements of ``p``'s gradient: a number for a 0-dim parameter, else a list."""
    g = p._g
    if isinstance(g, Tensor):
        return g._val
    return g


def store(t: Tensor, values, changes: int = 1) -> None:
    """Write ``values`` into ``t`` in place, as ``changes`` in-place ops would (version counter)."""
    write(t, values)
    if changes > 1:
        mem(t).ver.n += changes - 1


def numbers(*xs) -> bool:
    """True when every hyperparameter is a Python number (a tensor takes the tensor path)."""
    for x in xs:
        if x.__class__ not in (float, int, bool):
            return False
    return True


def same_layout(t, p: Tensor) -> bool:
    """Is state tensor ``t`` of ``p``'s dtype and shape (so its elements pair with p's)?"""
    return isinstance(t, Tensor) and t._t.dtype is p._t.dtype and t._t.shape == p._t.shape and not t._rg


def new_state(like: Tensor, values) -> Tensor:
    """A new state tensor of ``like``'s type holding ``values`` (a list is taken over)."""
    t = like._t
    return leaf(values, t if t.contiguous else TensorType(t.dtype, t.shape))


def sqrt(r, x: float) -> float:
    """``Tensor.sqrt`` of one element: the correctly rounded square root (PyTorch's vectorised
    sqrt may differ from it in the last bit on some processors)."""
    return r(ieee.sqrt(x))


maximum = max_forward  # torch.maximum of one element pair (nan propagates)
