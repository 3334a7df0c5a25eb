"""``torch.optim.Adam`` (with amsgrad, maximize, L2 or decoupled weight decay), as PyTorch
2.13's single-tensor implementation computes it.

Per parameter, ``step`` a 0-dim tensor counting the steps (float32, float64 when that is the
default dtype)::

    step += 1
    grad = -grad if maximize
    param = param * (1 - lr * weight_decay)    if decoupled (AdamW), else
    grad = grad + weight_decay * param         (grad.add(param, alpha=wd))
    exp_avg = exp_avg.lerp(grad, 1 - beta1)
    exp_avg_sq = (exp_avg_sq * beta2).addcmul(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1 ** step; bias_correction2 = 1 - beta2 ** step    (Python floats)
    denom = sqrt(exp_avg_sq, or its running maximum with amsgrad) / sqrt(bias_correction2) + eps
    param = param.addcdiv(exp_avg, denom, value=-lr / bias_correction1)

``differentiable=True`` takes PyTorch's other branch, where the bias corrections are tensors
(``beta1 ** step``) and grad mode records the update.
"""

from __future__ import annotations

from .._base import ieee
from .._base.dtypes import float32, round_f32, round_f32_list
from .._base.grad_mode import enable_grad
from .._base.kernel_order import fma32_list, fma32_lists
from .._tensor import factories as F
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from . import elements as el
from .optimizer import Optimizer, _get_scalar_dtype, _get_value, _to_scalar, _use_grad_for_differentiable
from .unsupported import refuse_fused

__all__ = ["Adam", "adam", "capturable_on_cpu"]

_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def capturable_on_cpu() -> AssertionError:
    """PyTorch's refusal of ``capturable=True`` for parameters on the CPU (raised at step)."""
    return AssertionError("If capturable=True, params and state_steps must be on supported devices: "
                          f"{_CAPTURABLE_DEVICES}.")


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
    foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
    decoupled_weight_decay=False)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        defaults = {"lr": lr, "betas": tuple(map(_to_scalar, betas)), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            refuse_fused(type(self).__name__)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    dt = _get_scalar_dtype(is_fused=fused) if group["capturable"] or group["fused"] \
                        else _get_scalar_dtype()
                    p_state["step"] = F.tensor(float(p_state["step"]), dtype=dt)

    def _init_group(self, group, params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps) -> None:
        for p in group["params"]:
            if not el.has_grad(p):
                continue
            params.append(p)
            state = self.state[p]
            if len(state) == 0:
                if group["fused"]:
                    refuse_fused(type(self).__name__)
                special = group["capturable"] or group["fused"]
                state["step"] = F.zeros((), dtype=_get_scalar_dtype(is_fused=group["fused"])) if special \
                    else F.tensor(0.0, dtype=_get_scalar_dtype())
                state["exp_avg"] = F.zeros_like(p)
                state["exp_avg_sq"] = F.zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = F.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
            if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One step of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps)
            adam(params, [None] * len(params), exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                 capturable=group["capturable"], differentiable=group["differentiable"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params: list, grads: list, exp_avgs: list, exp_avg_sqs: list, max_exp_avg_sqs: list, state_steps: list,
         *, amsgrad: bool, beta1, beta2, lr, weight_decay, eps, maximize: bool, capturable: bool = False,
         differentiable: bool = False, decoupled_weight_decay: bool = False, **_ignored) -> None:
    """The Adam update of ``params`` (the functional form; a None gradient means the
    parameter's own ``.grad``); the state tensors are updated in place."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    fast = not (differentiable or capturable) and el.numbers(lr, beta1, beta2, weight_decay, eps)
    for i, param in enumerate(params):
        if capturable:
            raise capturable_on_cpu()
        grad = grads[i]
        state = [exp_avgs[i], exp_avg_sqs[i]] + ([max_exp_avg_sqs[i]] if amsgrad else [])
        rounds = el.rounding(param._t.dtype) if fast and grad is None else None
        if rounds is not None and all(el.same_layout(t, param) for t in state):
            _adam_numbers(param, state, state_steps[i], rounds, amsgrad, beta1, beta2, lr, weight_decay, eps,
                          maximize, decoupled_weight_decay)
            continue
        if grad is None:
            grad = param.grad
        _adam_tensors(param, grad, state, state_steps[i], amsgrad, beta1, beta2, lr, weight_decay, eps, maximize,
                      differentiable, decoupled_weight_decay)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _adam_tensors(param, grad, state, step_t, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize,
                  differentiable, decoupled_weight_decay) -> None:
    """One parameter's update with tensor ops, as PyTorch's ``_single_tensor_adam`` reads."""
    maximum = FUNCTIONS["maximum"]
    exp_avg, exp_avg_sq = state[0], state[1]
    if maximize:
        grad = -grad
    step_t += 1
    if weight_decay != 0:
        if decoupled_weight_decay:
            param.mul_(1 - lr * weight_decay)
        elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
            grad = grad.addcmul_(param.clone(), weight_decay)
        else:
            grad = grad.add(param, alpha=_num(weight_decay))
    device_beta1 = beta1
    if isinstance(beta1, Tensor) and beta1._t.dtype is not param._t.dtype:
        device_beta1 = beta1.to(dtype=param._t.dtype)
    exp_avg.lerp_(grad, 1 - device_beta1)
    if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
        exp_avg_sq.lerp_(grad.square(), 1 - beta2)
    else:
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    if differentiable:
        step = step_t
        bias_correction1 = 1 - beta1 ** (step.clone() if isinstance(beta1, Tensor) and beta1.requires_grad else step)
        bias_correction2 = 1 - beta2 ** (step.clone() if isinstance(beta2, Tensor) and beta2.requires_grad else step)
        step_size_neg = (lr / bias_correction1).neg()
        bias_correction2_sqrt = bias_correction2.sqrt()
        if amsgrad:
            state[2].copy_(maximum(state[2].clone(), exp_avg_sq))
            source = state[2]
        else:
            source = exp_avg_sq
        denom = (source.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
        param.addcdiv_(exp_avg.clone(), denom)
        return
    step = _get_value(step_t)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    if amsgrad:
        state[2].copy_(maximum(state[2], exp_avg_sq))
        source = state[2]
    else:
        source = exp_avg_sq
    denom = (source.sqrt() / bias_correction2_sqrt).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)


def _adam_numbers(param, state, step_t, rounds, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize,
                  decoupled_weight_decay) -> None:
    """The same update on the elements (see ``elements.py``)."""
    r, fma = rounds
    step = step_t._t.dtype.round(step_t._val + 1)
    el.store(step_t, step)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    decay = r(1 - lr * weight_decay)
    wd = r(weight_decay)
    weight1 = r(1 - beta1)
    b2 = r(beta2)
    value2 = r(1 - beta2)
    root2 = r(bias_correction2_sqrt)
    eps_ = r(eps)
    value = r(-step_size)
    lerp, addcmul, addcdiv, sqrt, maximum = (el.lerp_element, el.addcmul_element, el.addcdiv_element, el.sqrt,
                                             el.maximum)
    decoupled = weight_decay != 0 and decoupled_weight_decay
    coupled = weight_decay != 0 and not decoupled_weight_decay

    def update(p, g, m, v, vmax):
        if maximize:
            g = -g
        if decoupled:
            p = r(p * decay)
        elif coupled:
            g = fma(p, wd, g)
        m = lerp(r, m, g, weight1)
        v = addcmul(r, r(v * b2), g, g, value2)
        if amsgrad:
            vmax = maximum(r, vmax, v)
            denom = r(r(sqrt(r, vmax) / root2) + eps_)
        else:
            denom = r(r(sqrt(r, v) / root2) + eps_)
        return addcdiv(r, p, m, denom, value), m, v, vmax

    exp_avg, exp_avg_sq = state[0], state[1]
    gv = el.grad_values(param)
    if param._t.ndim and r is round_f32 and not amsgrad and root2:
        new = _adam_f32_lists(param._val, gv, exp_avg._val, exp_avg_sq._val, maximize, decoupled, coupled, decay,
                              wd, weight1, b2, value2, root2, eps_, value)
    elif param._t.ndim:
        vmaxs = state[2]._val if amsgrad else [None] * len(gv)
        rows = [update(p, g, m, v, w) for p, g, m, v, w in zip(param._val, gv, exp_avg._val, exp_avg_sq._val, vmaxs)]
        new = [list(col) for col in zip(*rows)]
    else:
        new = update(param._val, gv, exp_avg._val, exp_avg_sq._val, state[2]._val if amsgrad else None)
    el.store(param, new[0], 2 if decoupled else 1)
    el.store(exp_avg, new[1])
    el.store(exp_avg_sq, new[2], 2)
    if amsgrad:
        el.store(state[2], new[3])


def _adam_f32_lists(p: list, g: list, m: list, v: list, maximize: bool, decoupled: bool, coupled: bool, decay: float,
                    wd: float, weight1: float, b2: float, value2: float, root2: float, eps_: float,
                    value: float) -> tuple:
    """``update`` of ``_adam_numbers`` (float32, no amsgrad) on whole lists: each of its roundings
    as one pass and one cast in C (``round_f32_list``, ``fma32_list``: the same bits as the
    per-element ``round_f32`` and ``fma32``), about a fifth of the per-element time on a
    ``Linear(1000, 100)``. ``root2`` is not zero (the caller's condition)."""
    rl = round_f32_list
    rounds = el.rounding(float32)
    if maximize:
        g = [-x for x in g]
    if decoupled:
        p = rl([x * decay for x in p])
    elif coupled:
        g = fma32_list(p, wd, g)
    d = rl([e - s for e, s in zip(g, m)])  # lerp: end - self rounded, then one fused step
    if abs(weight1) < 0.5:
        m = fma32_list(d, weight1, m)
    else:
        m = fma32_list([-x for x in d], round_f32(1.0 - weight1), g)
    v = fma32_lists(rl([value2 * x for x in g]), g, rl([x * b2 for x in v]))  # addcmul on v * beta2
    # ieee.sqrt as el.sqrt takes it (read at the call: the tests hand it live PyTorch's roots)
    denom = rl([x + eps_ for x in rl([x / root2 for x in rl(list(map(ieee.sqrt, v)))])])
    step = el.div_all(rounds, rl([value * x for x in m]), denom)  # addcdiv
    return rl([a + b for a, b in zip(p, step)]), m, v
