"""``torch.optim.RMSprop`` (centered, momentum, weight decay, maximize), as PyTorch 2.13's
single-tensor implementation computes it.

Per parameter::

    step += 1
    grad = -grad if maximize;  grad = grad + weight_decay * param
    square_avg = (square_avg * alpha).addcmul(grad, grad, value=1 - alpha)
    centered:  grad_avg = grad_avg.lerp(grad, 1 - alpha)
               avg = sqrt(square_avg.addcmul(grad_avg, grad_avg, value=-1)) + eps
    otherwise: avg = sqrt(square_avg) + eps
    momentum > 0: buf = (buf * momentum).addcdiv(grad, avg); param = param - lr * buf
    otherwise:    param = param.addcdiv(grad, avg, value=-lr)
"""

from __future__ import annotations

from .._base.grad_mode import enable_grad
from .._tensor import factories as F
from .._tensor.tensor import Tensor
from . import elements as el
from .adam import capturable_on_cpu
from .optimizer import Optimizer, _get_scalar_dtype, _to_scalar, _use_grad_for_differentiable

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
    capturable=False, foreach=None, maximize=False, differentiable=False)``."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = F.tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _init_group(self, group, params, square_avgs, momentum_buffer_list, grad_avgs, state_steps) -> None:
        for p in group["params"]:
            if not el.has_grad(p):
                continue
            params.append(p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = F.zeros((), dtype=_get_scalar_dtype())
                state["square_avg"] = F.zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = F.zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = F.zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One step of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, square_avgs, grad_avgs, momentum_buffer_list, state_steps = [], [], [], [], []
            self._init_group(group, params, square_avgs, momentum_buffer_list, grad_avgs, state_steps)
            rmsprop(params, [None] * len(params), square_avgs, grad_avgs, momentum_buffer_list, state_steps,
                    lr=group["lr"], alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum=group["momentum"], centered=group["centered"], maximize=group["maximize"],
                    differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def rmsprop(params: list, grads: list, square_avgs: list, grad_avgs: list, momentum_buffer_list: list,
            state_steps: list, *, lr, alpha, eps, weight_decay, momentum, centered: bool, maximize: bool,
            differentiable: bool = False, capturable: bool = False, **_ignored) -> None:
    """The RMSprop update of ``params`` (the functional form; a None gradient means the
    parameter's own ``.grad``); the state tensors are updated in place."""
    lr = _to_scalar(lr)
    fast = not differentiable and el.numbers(lr, alpha, eps, weight_decay, momentum)
    for i, param in enumerate(params):
        if capturable:
            raise capturable_on_cpu()
        grad = grads[i]
        state = [state_steps[i], square_avgs[i], grad_avgs[i] if centered else None,
                 momentum_buffer_list[i] if momentum > 0 else None]
        rounds = el.rounding(param._t.dtype) if fast and grad is None else None
        if rounds is not None and all(t is None or el.same_layout(t, param) for t in state[1:]):
            _rmsprop_numbers(param, state, rounds, lr, alpha, eps, weight_decay, momentum, centered, maximize)
            continue
        if grad is None:
            grad = param.grad
        _rmsprop_tensors(param, grad, state, lr, alpha, eps, weight_decay, momentum, centered, maximize,
                         differentiable)


def _rmsprop_tensors(param, grad, state, lr, alpha, eps, weight_decay, momentum, centered, maximize,
                     differentiable) -> None:
    """One parameter's update with tensor ops, as PyTorch's ``_single_tensor_rmsprop`` reads."""
    step, square_avg, grad_avg, buf = state
    if maximize:
        grad = -grad
    step += 1
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay.item() if isinstance(weight_decay, Tensor) else weight_decay)
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if centered:
        grad_avg.lerp_(grad, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(eps) if differentiable else avg.add_(eps)
    if momentum > 0:
        buf.mul_(momentum).addcdiv_(grad, avg)
        param.add_(buf, alpha=(-lr).item() if isinstance(lr, Tensor) else -lr)
    else:
        param.addcdiv_(grad, avg, value=-lr)


def _rmsprop_numbers(param, state, rounds, lr, alpha, eps, weight_decay, momentum, centered, maximize) -> None:
    """The same update on the elements (see ``elements.py``)."""
    r, fma = rounds
    step_t, square_avg, grad_avg, buf = state
    el.store(step_t, step_t._t.dtype.round(step_t._val + 1))
    wd = r(weight_decay)
    a = r(alpha)
    keep = r(1 - alpha)
    eps_ = r(eps)
    mom = r(momentum)
    nlr = r(-lr)
    lerp, addcmul, addcdiv, sqrt = el.lerp_element, el.addcmul_element, el.addcdiv_element, el.sqrt
    use_momentum = momentum > 0

    def update(p, g, sq, ga, b):
        if maximize:
            g = -g
        if weight_decay != 0:
            g = fma(p, wd, g)
        sq = addcmul(r, r(sq * a), g, g, keep)
        if centered:
            ga = lerp(r, ga, g, keep)
            avg = sqrt(r, addcmul(r, sq, ga, ga, -1.0))
        else:
            avg = sqrt(r, sq)
        avg = r(avg + eps_)
        if use_momentum:
            b = addcdiv(r, r(b * mom), g, avg, 1.0)
            return fma(b, nlr, p), sq, ga, b
        return addcdiv(r, p, g, avg, nlr), sq, ga, b

    gv = el.grad_values(param)
    if param._t.ndim:
        n = len(gv)
        gas = grad_avg._val if centered else [None] * n
        bs = buf._val if use_momentum else [None] * n
        rows = [update(*x) for x in zip(param._val, gv, square_avg._val, gas, bs)]
        new = [list(col) for col in zip(*rows)]
    else:
        new = update(param._val, gv, square_avg._val, grad_avg._val if centered else None,
                     buf._val if use_momentum else None)
    el.store(param, new[0])
    el.store(square_avg, new[1], 2)
    if centered:
        el.store(grad_avg, new[2])
    if use_momentum:
        el.store(buf, new[3], 2)
