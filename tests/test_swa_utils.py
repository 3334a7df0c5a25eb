"""torch.optim.swa_utils.SWALR: the annealing to ``swa_lr`` (cos or linear), alone and after
another scheduler, its errors and its state dict.

Learning rates are Python float arithmetic in PyTorch's order: they must equal live PyTorch's bit
for bit on any processor. Without PyTorch: a linear schedule exact in binary, derived by hand.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad


def _optimizer(L):
    params = [L.nn.Parameter(L.tensor(float(i))) for i in range(2)]
    return L.optim.SGD([{"params": [params[0]], "lr": 1.0}, {"params": [params[1]], "lr": 0.3}], lr=1.0)


def _schedule(L, swa_kwargs, before=None, epochs=16, swa_start=5) -> list:
    opt = _optimizer(L)
    first = L.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.9) if before else None
    swa = L.optim.swa_utils.SWALR(opt, **swa_kwargs)
    out = [[g["lr"] for g in opt.param_groups]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(epochs):
            opt.step()
            if epoch >= swa_start:
                swa.step()
            elif first is not None:
                first.step()
            out.append([g["lr"] for g in opt.param_groups])
    return out


CASES = [({"swa_lr": 0.05}, None), ({"swa_lr": 0.05, "anneal_epochs": 5}, "mult"),
         ({"swa_lr": [0.01, 0.02], "anneal_epochs": 4, "anneal_strategy": "linear"}, "mult"),
         ({"swa_lr": 0.01, "anneal_epochs": 1}, None), ({"swa_lr": 0.01, "anneal_epochs": 0}, "mult")]


@pytest.mark.parametrize("kwargs,before", CASES)
def test_learning_rates_bit_equal_to_pytorch(torch_ref, kwargs, before):
    assert _schedule(scalargrad, kwargs, before) == _schedule(torch_ref, kwargs, before)


def test_linear_annealing_by_hand():
    # lr 1 to swa_lr 0 over 4 steps: alpha = step / 4, lr = prev * (1 - alpha) recovered exactly
    opt = scalargrad.optim.SGD([scalargrad.nn.Parameter(scalargrad.tensor(0.0))], lr=1.0)
    swa = scalargrad.optim.swa_utils.SWALR(opt, swa_lr=0.0, anneal_epochs=4, anneal_strategy="linear")
    seen = [opt.param_groups[0]["lr"]]
    for _ in range(5):
        opt.step()
        swa.step()
        seen.append(opt.param_groups[0]["lr"])
    assert seen == [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    assert opt.param_groups[0]["swa_lr"] == 0.0 and swa.get_last_lr() == [0.0]


def test_errors_in_pytorchs_words():
    opt = _optimizer(scalargrad)
    SWALR = scalargrad.optim.swa_utils.SWALR
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', instead got exp$"):
        SWALR(opt, swa_lr=1.0, anneal_strategy="exp")
    for bad in (-1, 1.7):
        with pytest.raises(ValueError, match=f"^anneal_epochs must be equal or greater than 0, got {bad}$"):
            SWALR(opt, swa_lr=1.0, anneal_epochs=bad)
    with pytest.raises(ValueError, match="^swa_lr must have the same length as optimizer.param_groups. swa_lr has 3 "
                                         "values, param_groups has 2.$"):
        SWALR(opt, swa_lr=[1.0, 0.1, 0.01])


def test_state_dict_leaves_out_the_annealing_function_and_load_restores_it():
    opt = _optimizer(scalargrad)
    swa = scalargrad.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="linear")
    state = swa.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state and state["_anneal_strategy"] == "linear"
    other = scalargrad.optim.swa_utils.SWALR(opt, swa_lr=0.2)
    other.load_state_dict(state)
    assert other.anneal_func(0.25) == 0.25 and other.state_dict() == state

