"""``torch.optim.NAdam``, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter (``mu_product`` a 0-dim state tensor, the product of the momentum factors)::

    step += 1;  bias_correction2 = 1 - beta2 ** step
    grad = -grad if maximize; weight decay (L2, or decoupled: param *= 1 - lr * weight_decay)
    mu = beta1 * (1 - 0.5 * 0.96 ** (step * momentum_decay)); mu_next likewise at step + 1
    mu_product *= mu
    exp_avg = exp_avg.lerp(grad, 1 - beta1)
    exp_avg_sq = (exp_avg_sq * beta2).addcmul(grad, grad, value=1 - beta2)
    denom = sqrt(exp_avg_sq / bias_correction2) + eps
    param = param.addcdiv(grad, denom, value=-lr * (1 - mu) / (1 - mu_product))
    param = param.addcdiv(exp_avg, denom, value=-lr * mu_next / (1 - mu_product * mu_next))
"""

from __future__ import annotations

from .._tensor.tensor import Tensor
from .optimizer import _get_value
from .single_tensor import SingleTensorOptimizer, check

__all__ = ["NAdam", "nadam"]


class NAdam(SingleTensorOptimizer):
    """``NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)``."""

    STATE = (("step", "step"), ("mu_product", "one"), ("exp_avg", "zeros"), ("exp_avg_sq", "zeros"))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False) -> None:
        check(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def update(self, group: dict, p: Tensor, grad: Tensor, state: dict) -> None:
        beta1, beta2 = group["betas"]
        nadam([p], [grad], [state["exp_avg"]], [state["exp_avg_sq"]], [state["mu_product"]], [state["step"]],
              beta1=beta1, beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
              momentum_decay=group["momentum_decay"], eps=group["eps"], maximize=group["maximize"],
              decoupled_weight_decay=group["decoupled_weight_decay"], differentiable=group["differentiable"])


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr, weight_decay,
          momentum_decay, eps, maximize, decoupled_weight_decay=False, differentiable=False, **_ignored) -> None:
    """The NAdam update (the functional form); the state tensors are updated in place."""
    for param, grad, exp_avg, exp_avg_sq, mu_product, step_t in zip(params, grads, exp_avgs, exp_avg_sqs,
                                                                      mu_products, state_steps):
        grad = -grad if maximize else grad
        step_t += 1
        step = _get_value(step_t)
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        if differentiable:
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
            exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
            param.addcdiv_(grad, denom)
            param.addcdiv_(exp_avg, denom)
        else:
            mu_product_next = _get_value(mu_product) * mu_next
            denom.add_(eps)
            param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - _get_value(mu_product))))
            param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
