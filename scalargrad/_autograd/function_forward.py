"""Forward-mode AD through a custom Function: its ``jvp`` gives the outputs' tangents, with
PyTorch's checks of what it returns (``_process_forward_mode_AD`` in custom_function.cpp).

Forward runs with forward-mode AD off, so that only ``jvp`` decides the tangents (a Function
without one raises PyTorch's NotImplementedError, even if its forward's ops are differentiable).
"""

from __future__ import annotations

from .._base import grad_mode
from .._base.dtypes import TensorType
from .._tensor.tensor import Tensor, leaf
from . import forward_ad

__all__ = ["apply_with_jvp"]

_NOT_DIFFERENTIABLE = ("Function's jvp returned a gradient at position {i}, but  the corresponding forward output is "
                       "not a differentiable Tensor.You should return None at that position instead.")
_NOT_INPLACE = ("An inplace custom Function is not modifying the forward mode gradients inplace. If the forward is "
                "modifying an input inplace, then the jvp function must modify the corresponding gradient inplace.")
_NOT_AS_IS = ("An inplace custom Function is not returning the forward mode gradients as-is. If the forward is "
              "modifying an input inplace, then the jvp function must modify the gradient inplace and return it "
              "as-is.")
_NOT_A_VIEW = "A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a view."
_NOT_VIEW_OF_GRAD = ("A custom Function is returning a view but the jvp is not returning a view of the given grad "
                     "input.")
_NOT_SAME_BASE = ("A custom Function is returning a view but the jvp is not returning a view of the same base as the "
                  "given grad input.")


def _zeros_like(x: Tensor) -> Tensor:
    t = TensorType(x._t.dtype, x._t.shape)
    return leaf([0.0] * len(x._val) if t.ndim else 0.0, t)


def _root(x: Tensor) -> Tensor:
    base = x._base
    return x if base is None else base


def apply_with_jvp(cls, ctx, args: tuple, kwargs: dict):
    """``cls.apply(*args, **kwargs)`` when an input has a tangent."""
    given = [forward_ad.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    tangents = []
    for a, t in zip(args, given):
        if isinstance(a, Tensor) and t is None and ctx.materialize_grads and a.is_floating_point():
            t = _zeros_like(a)
        tangents.append(t)
    inputs = [a for a in args if isinstance(a, Tensor)]
    versions = [None if t is None else t._version for t in given]
    with forward_ad.suspended():
        result = cls._record(ctx, args, kwargs)
        is_tuple = isinstance(result, tuple)
        outs = list(result) if is_tuple else [result]
        for i, o in enumerate(outs):  # an input returned as is (nothing recorded): a view of it, as PyTorch
            if isinstance(o, Tensor) and any(o is a for a in inputs) and not any(o is d for d in ctx._dirty):
                with grad_mode.no_grad():
                    outs[i] = o.view_as(o)
        ctx._in_jvp = True
        try:
            grads = cls.jvp(ctx, *tangents)
        finally:
            ctx._in_jvp = False
    if not isinstance(grads, tuple):
        grads = (grads,)
    if len(grads) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outs)} "
                           f"but got {len(grads)})")
    non_diff = {id(t) for t in ctx._non_differentiable}
    for i, (o, g) in enumerate(zip(outs, grads)):
        if not isinstance(o, Tensor) or id(o) in non_diff or not o.is_floating_point():
            if g is not None:
                raise RuntimeError(_NOT_DIFFERENTIABLE.format(i=i))
            continue
        if g is None:
            continue
        dirty = next((j for j, a in enumerate(args) if a is o and any(o is d for d in ctx._dirty)), None)
        if dirty is not None:
            if given[dirty] is not None:
                if g._version == versions[dirty]:
                    raise RuntimeError(_NOT_INPLACE)
                if g is not given[dirty]:
                    raise RuntimeError(_NOT_AS_IS)
                continue
        else:
            _check_view(o, g, args, given)
        forward_ad.set_tangent(o, g)
    return tuple(outs) if is_tuple else outs[0]


def _check_view(o: Tensor, g: Tensor, args: tuple, given: list) -> None:
    """An output that is a view of an input with a tangent must get a view of that tangent."""
    root = _root(o)
    for a, t in zip(args, given):
        if not isinstance(a, Tensor) or t is None or _root(a) is not root or o._base is None:
            continue
        if g._base is None:
            raise RuntimeError(_NOT_A_VIEW)
        if t._base is not None:
            if g._base is not t._base:
                raise RuntimeError(_NOT_SAME_BASE)
        elif g._base is not t:
            raise RuntimeError(_NOT_VIEW_OF_GRAD)
        return
