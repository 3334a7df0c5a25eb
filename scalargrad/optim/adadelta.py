"""``torch.optim.Adadelta``, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter::

    step += 1
    grad = -grad if maximize;  grad = grad + weight_decay * param
    square_avg = (square_avg * rho).addcmul(grad, grad, value=1 - rho)
    std = sqrt(square_avg + eps);  delta = sqrt(acc_delta + eps) / std * grad
    acc_delta = (acc_delta * rho).addcmul(delta, delta, value=1 - rho)
    param = param + (-lr) * delta

A float32 or float64 parameter with dimensions, number hyperparameters and state of its layout
is updated on its elements' lists (``_adadelta_numbers``, the same roundings as the tensor ops:
``elements.py``); others with the tensor ops, as PyTorch's source reads.
"""

from __future__ import annotations

from .._tensor.tensor import Tensor
from . import elements as el
from .single_tensor import SingleTensorOptimizer, check, maybe_negate, with_weight_decay

__all__ = ["Adadelta", "adadelta"]


class Adadelta(SingleTensorOptimizer):
    """``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)``."""

    STATE = (("step", "step"), ("square_avg", "zeros"), ("acc_delta", "zeros"))

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False) -> None:
        check(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        adadelta([p], [grad], [state["square_avg"]], [state["acc_delta"]], [state["step"]], lr=group["lr"],
                 rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"], maximize=group["maximize"],
                 differentiable=group["differentiable"])


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay, maximize,
             differentiable=False, **_ignored) -> None:
    """The Adadelta update (the functional form); the state tensors are updated in place."""
    fast = not differentiable and el.numbers(lr, rho, eps, weight_decay)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps):
        rounds = el.rounding(param._t.dtype) if fast and param._t.ndim else None
        if (rounds is not None and el.same_layout(grad, param) and el.same_layout(square_avg, param)
                and el.same_layout(acc_delta, param)):
            _adadelta_numbers(param, grad._val, square_avg, acc_delta, step, rounds, lr, rho, eps, weight_decay,
                              maximize)
            continue
        step += 1
        grad = with_weight_decay(maybe_negate(grad, maximize), param, weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)


def _adadelta_numbers(param, g, square_avg, acc_delta, step, rounds, lr, rho, eps, weight_decay, maximize) -> None:
    """The same update on whole lists of elements, each tensor op's rounding kept: ``mul_`` by a
    number rounds the product, ``addcmul_`` is ``value * t1`` rounded then one fused multiply-add,
    ``add`` of eps and ``div_`` round once, ``add_`` with alpha is one fused multiply-add."""
    r = rounds[0]
    el.store(step, step._t.dtype.round(step._val + 1))
    rho_, keep, eps_ = r(rho), r(1 - rho), r(eps)
    if maximize:
        g = [-x for x in g]
    if weight_decay != 0:
        g = el.fma_all(rounds, param._val, r(weight_decay), g)
    sq = el.fma_lists(rounds, el.round_all(rounds, [keep * x for x in g]), g,
                      el.round_all(rounds, [v * rho_ for v in square_avg._val]))
    std = el.sqrt_all(rounds, el.round_all(rounds, [v + eps_ for v in sq]))
    delta = el.sqrt_all(rounds, el.round_all(rounds, [v + eps_ for v in acc_delta._val]))
    delta = el.div_all(rounds, delta, std)
    delta = el.round_all(rounds, [d * x for d, x in zip(delta, g)])
    acc = el.fma_lists(rounds, el.round_all(rounds, [keep * d for d in delta]), delta,
                       el.round_all(rounds, [v * rho_ for v in acc_delta._val]))
    el.store(param, el.fma_all(rounds, delta, r(-lr), param._val))
    el.store(square_avg, sq, 2)
    el.store(acc_delta, acc, 2)
