"""``torch.optim.RAdam``, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter::

    step += 1
    grad = -grad if maximize; weight decay (L2, or decoupled: param *= 1 - lr * weight_decay)
    exp_avg = exp_avg.lerp(grad, 1 - beta1)
    exp_avg_sq = (exp_avg_sq * beta2).addcmul(grad, grad, value=1 - beta2)
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 step beta2 ** step / (1 - beta2 ** step)
    rho_t > 5: param -= exp_avg / (1 - beta1 ** step) * lr * sqrt(1 - beta2 ** step)
                        / (sqrt(exp_avg_sq) + eps) * rect       (rect: the variance rectification)
    otherwise: param -= exp_avg / (1 - beta1 ** step) * lr
"""

from __future__ import annotations

from .._tensor.tensor import Tensor
from .optimizer import _get_value
from .single_tensor import SingleTensorOptimizer, check

__all__ = ["RAdam", "radam"]


class RAdam(SingleTensorOptimizer):
    """``RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)``."""

    STATE = (("step", "step"), ("exp_avg", "zeros"), ("exp_avg_sq", "zeros"))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False) -> None:
        check(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        beta1, beta2 = group["betas"]
        radam([p], [grad], [state["exp_avg"]], [state["exp_avg_sq"]], [state["step"]], beta1=beta1, beta2=beta2,
              lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
              decoupled_weight_decay=group["decoupled_weight_decay"], differentiable=group["differentiable"])


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr, weight_decay, eps, maximize,
          decoupled_weight_decay=False, differentiable=False, **_ignored) -> None:
    """The RAdam update (the functional form); the state tensors are updated in place."""
    for param, grad, exp_avg, exp_avg_sq, step_t in zip(params, grads, exp_avgs, exp_avg_sqs, state_steps):
        grad = -grad if maximize else grad
        step_t += 1
        step = _get_value(step_t)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            exp_avg_sq_sqrt = exp_avg_sq.sqrt()
            exp_avg_sq_sqrt = exp_avg_sq_sqrt.add(eps) if differentiable else exp_avg_sq_sqrt.add_(eps)
            adaptive_lr = bias_correction2 ** 0.5 / exp_avg_sq_sqrt
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
