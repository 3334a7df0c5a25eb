"""``torch.optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov,
weight decay and maximize, as PyTorch 2.13's single-tensor implementation computes it.

Per parameter (float32 roundings as ATen's kernels: ``add`` with alpha is one fused
multiply-add, the number cast to the dtype first)::

    grad = -grad if maximize
    grad = grad + weight_decay * param                      (grad.add(param, alpha=wd))
    buf  = grad, first step; then buf * momentum + (1 - dampening) * grad
    grad = grad + momentum * buf if nesterov, else buf
    param = param - lr * grad                               (param.add_(grad, alpha=-lr))
"""

from __future__ import annotations

from .._base.grad_mode import enable_grad
from .._tensor.tensor import Tensor
from . import elements as el
from .optimizer import Optimizer, _to_scalar, _use_grad_for_differentiable
from .unsupported import refuse_fused

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True
            self._need_device_dtype_check_for_fused = True
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            refuse_fused("SGD")

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One step of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if el.has_grad(p)]
            if group["fused"]:
                refuse_fused("SGD")
            momentum = group["momentum"]
            bufs = [self.state[p].get("momentum_buffer") for p in params] if momentum != 0 else []
            sgd(params, [None] * len(params), bufs, weight_decay=group["weight_decay"], momentum=momentum,
                lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                maximize=group["maximize"], differentiable=group["differentiable"])
            if momentum != 0:
                for p, buf in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def sgd(params: list, d_p_list: list, momentum_buffer_list: list, *, weight_decay, momentum, lr, dampening,
        nesterov: bool, maximize: bool, differentiable: bool = False, **_ignored) -> None:
    """The SGD update of ``params`` (the functional form; a None gradient in ``d_p_list`` means
    the parameter's own ``.grad``). ``momentum_buffer_list`` is updated in place."""
    lr = _to_scalar(lr)
    fast = not differentiable and el.numbers(lr, weight_decay, momentum, dampening)
    for i, param in enumerate(params):
        buf = momentum_buffer_list[i] if momentum != 0 else None
        grad = d_p_list[i]
        if fast and grad is None and (buf is None or el.same_layout(buf, param)):
            rounds = el.rounding(param._t.dtype)
            if rounds is not None:
                new_buf = _sgd_numbers(param, buf, rounds, weight_decay, momentum, lr, dampening, nesterov, maximize)
                if momentum != 0:
                    momentum_buffer_list[i] = new_buf
                continue
        if grad is None:
            grad = param.grad
        new_buf = _sgd_tensors(param, grad, buf, weight_decay, momentum, lr, dampening, nesterov, maximize)
        if momentum != 0:
            momentum_buffer_list[i] = new_buf


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _sgd_tensors(param, grad, buf, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """One parameter's update with tensor ops, as PyTorch's ``_single_tensor_sgd`` reads."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
            grad = grad.addcmul_(param.clone(), weight_decay)
        else:
            grad = grad.add(param, alpha=_num(weight_decay))
    if momentum != 0:
        if buf is None:
            buf = grad.detach().clone()
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - dampening)
        grad = grad.add(buf, alpha=momentum) if nesterov else buf
    if isinstance(lr, Tensor) and lr.requires_grad:
        param.addcmul_(grad, lr, value=-1)
    else:
        param.add_(grad, alpha=_num(-lr))
    return buf


def _sgd_numbers(param, buf, rounds, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """The same update on the elements (see ``elements.py``); returns the momentum buffer."""
    r, fma = rounds
    nlr = r(-lr)
    gv = el.grad_values(param)
    pv = param._val
    if not (maximize or weight_decay != 0 or momentum != 0):  # plain SGD, the common case
        if param._t.ndim:
            el.store(param, el.fma_all(rounds, gv, nlr, pv))
        else:
            el.store(param, fma(gv, nlr, pv))
        return None
    wd = r(weight_decay)
    mom = r(momentum)
    keep = r(1 - dampening)
    first = buf is None

    def update(p, g, b):
        if maximize:
            g = -g
        if weight_decay != 0:
            g = fma(p, wd, g)
        if momentum != 0:
            b = g if first else fma(g, keep, r(b * mom))
            g = fma(b, mom, g) if nesterov else b
        return fma(g, nlr, p), b

    if param._t.ndim:  # the same roundings, a whole list at a time
        g = [-x for x in gv] if maximize else gv
        if weight_decay != 0:
            g = el.fma_all(rounds, pv, wd, g)
        new_b = None
        if momentum != 0:
            new_b = list(g) if first else el.fma_all(rounds, g, keep, el.round_all(rounds, [b * mom for b in buf._val]))
            g = el.fma_all(rounds, new_b, mom, g) if nesterov else new_b
        new_p = el.fma_all(rounds, g, nlr, pv)
    else:
        new_p, new_b = update(pv, gv, None if first else buf._val)
    el.store(param, new_p)
    if momentum == 0:
        return None
    if first:
        return el.new_state(param, new_b)
    el.store(buf, new_b, 2)  # buf.mul_(momentum).add_(grad, ...)
    return buf
