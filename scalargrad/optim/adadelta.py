"""``torch.optim.Adadelta``, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter::

    step += 1
    grad = -grad if maximize;  grad = grad + weight_decay * param
    square_avg = (square_avg * rho).addcmul(grad, grad, value=1 - rho)
    std = sqrt(square_avg + eps);  delta = sqrt(acc_delta + eps) / std * grad
    acc_delta = (acc_delta * rho).addcmul(delta, delta, value=1 - rho)
    param = param + (-lr) * delta
"""

from __future__ import annotations

from .._tensor.tensor import Tensor
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
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps):
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
