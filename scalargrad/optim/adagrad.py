"""``torch.optim.Adagrad`` (lr decay, weight decay, initial accumulator, maximize), as PyTorch
2.13's single-tensor implementation computes it. The state (``step``, ``sum``) is made for
every parameter when the optimizer is, as PyTorch does.

Per parameter::

    step += 1
    grad = -grad if maximize;  grad = grad + weight_decay * param
    clr = lr / (1 + (step - 1) * lr_decay)                 (Python floats)
    sum = sum.addcmul(grad, grad, value=1)
    param = param.addcdiv(grad, sqrt(sum) + eps, value=-clr)
"""

from __future__ import annotations

from .._base.grad_mode import enable_grad
from .._tensor import factories as F
from .._tensor.tensor import Tensor
from . import elements as el
from .optimizer import Optimizer, _get_scalar_dtype, _get_value, _to_scalar, _use_grad_for_differentiable
from .unsupported import refuse_fused

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """``Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
    eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None)``."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            refuse_fused("Adagrad")
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = F.tensor(0.0, dtype=_get_scalar_dtype())
                state["sum"] = F.full_like(p, initial_accumulator_value)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = F.tensor(float(p_state["step"]), dtype=_get_scalar_dtype(is_fused=fused))
        values = list(self.state.values())
        if values and not isinstance(values[0]["step"], Tensor):
            for s in values:
                s["step"] = F.tensor(float(s["step"]), dtype=_get_scalar_dtype(is_fused=fused))

    def share_memory(self) -> None:
        """PyTorch shares the state sums with other processes; scalargrad has one process."""

    def _init_group(self, group, params, state_sums, state_steps) -> None:
        for p in group["params"]:
            if not el.has_grad(p):
                continue
            params.append(p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = F.tensor(0.0, dtype=_get_scalar_dtype())
                state["sum"] = F.full_like(p, self.defaults["initial_accumulator_value"])
            state_sums.append(state["sum"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One step of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, state_sums, state_steps = [], [], []
            self._init_group(group, params, state_sums, state_steps)
            adagrad(params, [None] * len(params), state_sums, state_steps, lr=group["lr"],
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"], eps=group["eps"],
                    maximize=group["maximize"], differentiable=group["differentiable"])
        return loss


def adagrad(params: list, grads: list, state_sums: list, state_steps: list, *, lr, weight_decay, lr_decay, eps,
            maximize: bool, differentiable: bool = False, **_ignored) -> None:
    """The Adagrad update of ``params`` (the functional form; a None gradient means the
    parameter's own ``.grad``); the state tensors are updated in place."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    lr = _to_scalar(lr)
    fast = not differentiable and el.numbers(lr, weight_decay, lr_decay, eps)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        rounds = el.rounding(param._t.dtype) if fast and grad is None else None
        if rounds is not None and el.same_layout(state_sum, param):
            _adagrad_numbers(param, state_sum, step_t, rounds, lr, weight_decay, lr_decay, eps, maximize)
            continue
        if grad is None:
            grad = param.grad
        _adagrad_tensors(param, grad, state_sum, step_t, lr, weight_decay, lr_decay, eps, maximize, differentiable)


def _adagrad_tensors(param, grad, state_sum, step_t, lr, weight_decay, lr_decay, eps, maximize,
                     differentiable) -> None:
    """One parameter's update with tensor ops, as PyTorch's ``_single_tensor_adagrad`` reads."""
    step_t += 1
    step = _get_value(step_t)
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay.item() if isinstance(weight_decay, Tensor) else weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    state_sum.addcmul_(grad, grad, value=1)
    std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
    param.addcdiv_(grad, std, value=-clr)


def _adagrad_numbers(param, state_sum, step_t, rounds, lr, weight_decay, lr_decay, eps, maximize) -> None:
    """The same update on the elements (see ``elements.py``)."""
    r, fma = rounds
    step = step_t._t.dtype.round(step_t._val + 1)
    el.store(step_t, step)
    clr = lr / (1 + (step - 1) * lr_decay)
    wd = r(weight_decay)
    eps_ = r(eps)
    value = r(-clr)
    addcmul, addcdiv, sqrt = el.addcmul_element, el.addcdiv_element, el.sqrt

    def update(p, g, s):
        if maximize:
            g = -g
        if weight_decay != 0:
            g = fma(p, wd, g)
        s = addcmul(r, s, g, g, 1.0)
        return addcdiv(r, p, g, r(sqrt(r, s) + eps_), value), s

    gv = el.grad_values(param)
    if param._t.ndim:
        rows = [update(p, g, s) for p, g, s in zip(param._val, gv, state_sum._val)]
        new = [list(col) for col in zip(*rows)]
    else:
        new = update(param._val, gv, state_sum._val)
    el.store(param, new[0])
    el.store(state_sum, new[1])
