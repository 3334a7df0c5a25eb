"""``torch.optim.Adamax``, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter::

    step += 1
    grad = -grad if maximize;  grad = grad + weight_decay * param
    exp_avg = exp_avg.lerp(grad, 1 - beta1)
    exp_inf = maximum(exp_inf * beta2, |grad| + eps)
    param = param.addcdiv(exp_avg, exp_inf, value=-lr / (1 - beta1 ** step))
"""

from __future__ import annotations

from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from .optimizer import _get_value
from .single_tensor import SingleTensorOptimizer, check, maybe_negate, with_weight_decay

__all__ = ["Adamax", "adamax"]


class Adamax(SingleTensorOptimizer):
    """``Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
    maximize=False, differentiable=False, capturable=False)``."""

    STATE = (("step", "step"), ("exp_avg", "zeros"), ("exp_inf", "zeros"))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False) -> None:
        check(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        beta1, beta2 = group["betas"]
        adamax([p], [grad], [state["exp_avg"]], [state["exp_inf"]], [state["step"]], eps=group["eps"], beta1=beta1,
               beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"], maximize=group["maximize"],
               differentiable=group["differentiable"])


def adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay, maximize,
           differentiable=False, **_ignored) -> None:
    """The Adamax update (the functional form); the state tensors are updated in place."""
    for param, grad, exp_avg, exp_inf, step_t in zip(params, grads, exp_avgs, exp_infs, state_steps):
        grad = maybe_negate(grad, maximize)
        step_t += 1
        grad = with_weight_decay(grad, param, weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            # PyTorch writes with out=exp_inf: the same values (scalargrad's out= is listed for the core)
            exp_inf.copy_(FUNCTIONS["maximum"](exp_inf.mul_(beta2), grad.abs().add_(eps)))
        else:
            norm_buf = FUNCTIONS["cat"]([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(FUNCTIONS["amax"](norm_buf, 0, keepdim=False))
        clr = lr / (1 - beta1 ** _get_value(step_t))
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
