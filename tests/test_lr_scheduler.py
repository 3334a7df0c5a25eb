"""torch.optim.lr_scheduler: LambdaLR, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR.

The schedules are Python float arithmetic in PyTorch's chained form: the learning rates must
equal live PyTorch's bit for bit (the same operations in the same order on the same machine's
``math.cos``). Without PyTorch: schedules whose figures are exact in binary, derived by hand,
and the closed form of cosine annealing.
"""

from __future__ import annotations

import math
import warnings

import pytest

import scalargrad


def _optimizer(L, lrs=(1.0,)):
    params = [L.nn.Parameter(L.tensor(float(i))) for i in range(len(lrs))]
    return L.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)], lr=lrs[0])


def _schedule(L, name: str, kwargs: dict, epochs: int = 30, lrs=(1.0, 0.3), epoch_arg=False) -> list:
    opt = _optimizer(L, lrs)
    make = getattr(L.optim.lr_scheduler, name)
    if name == "LambdaLR":
        kwargs = dict(kwargs, lr_lambda=[lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)])
    sched = make(opt, **kwargs)
    out = [list(sched.get_last_lr())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(1, epochs):
            opt.step()
            sched.step(epoch) if epoch_arg else sched.step()
            out.append(list(sched.get_last_lr()) + [g["lr"] for g in opt.param_groups])
    return out


CASES = [
    ("StepLR", dict(step_size=3, gamma=0.1)), ("StepLR", dict(step_size=1, gamma=0.7)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 11], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=7)), ("CosineAnnealingLR", dict(T_max=10, eta_min=0.01)),
    ("LambdaLR", {}),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=str)
def test_learning_rates_bit_equal_to_pytorch(torch_ref, name, kwargs):
    assert _schedule(scalargrad, name, kwargs) == _schedule(torch_ref, name, kwargs)


@pytest.mark.parametrize("name, kwargs", CASES, ids=str)
def test_closed_form_with_an_epoch_argument_bit_equal_to_pytorch(torch_ref, name, kwargs):
    assert _schedule(scalargrad, name, kwargs, epoch_arg=True) == _schedule(torch_ref, name, kwargs, epoch_arg=True)


def test_schedules_by_hand():
    # figures exact in binary: halving, quartering
    assert [r[0] for r in _schedule(scalargrad, "StepLR", dict(step_size=2, gamma=0.5), epochs=7, lrs=(1.0,))] == \
        [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
    assert [r[0] for r in _schedule(scalargrad, "ExponentialLR", dict(gamma=0.5), epochs=4, lrs=(1.0,))] == \
        [1.0, 0.5, 0.25, 0.125]
    # a milestone listed twice decays by gamma squared
    assert [r[0] for r in _schedule(scalargrad, "MultiStepLR", dict(milestones=[2, 2, 4], gamma=0.5), epochs=6,
                                    lrs=(1.0,))] == [1.0, 1.0, 0.25, 0.25, 0.125, 0.125]
    opt = _optimizer(scalargrad, (2.0,))
    sched = scalargrad.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))
    lrs = [sched.get_last_lr()[0]]
    for _ in range(3):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [2.0, 1.0, 2 / 3, 0.5]


def test_cosine_annealing_follows_its_closed_form():
    # eta_t = eta_min + (base - eta_min) * (1 + cos(pi t / T)) / 2, also past T (it rises again)
    rows = _schedule(scalargrad, "CosineAnnealingLR", dict(T_max=8, eta_min=0.1), epochs=20, lrs=(1.0,))
    for t, row in enumerate(rows):
        assert row[0] == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi * t / 8)) / 2, rel=1e-12, abs=1e-15)


def test_initial_lr_base_lrs_and_state_dict_round_trip():
    opt = _optimizer(scalargrad, (0.5, 0.2))
    sched = scalargrad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.5, 0.2] and sched.base_lrs == [0.5, 0.2]
    for _ in range(3):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3 and state["_last_lr"] == [0.25, 0.1]
    opt2 = _optimizer(scalargrad, (0.5, 0.2))
    opt2.load_state_dict(opt.state_dict())
    sched2 = scalargrad.optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.5, last_epoch=-1)
    sched2.load_state_dict(state)
    for s, o in ((sched, opt), (sched2, opt2)):
        o.step()
        s.step()
    assert sched2.get_last_lr() == sched.get_last_lr() == [0.125, 0.05]


def test_lambda_lr_saves_callable_objects_but_not_functions():
    class Decay:
        def __init__(self) -> None:
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    opt = _optimizer(scalargrad, (1.0, 1.0))
    sched = scalargrad.optim.lr_scheduler.LambdaLR(opt, [Decay(), lambda e: 1.0])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.5}, None]
    other = scalargrad.optim.lr_scheduler.LambdaLR(_optimizer(scalargrad, (1.0, 1.0)), [Decay(), lambda e: 2.0])
    state["lr_lambdas"][0]["rate"] = 0.25
    other.load_state_dict(state)
    assert other.lr_lambdas[0].rate == 0.25 and "lr_lambdas" in state


def test_warnings_in_pytorchs_words():
    opt = _optimizer(scalargrad)
    sched = scalargrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`\. "
                                         r"In PyTorch 1\.1\.0 and later"):
        sched.step()
    with pytest.warns(UserWarning, match=r"^To get the last learning rate computed by the scheduler, please use "
                                         r"`get_last_lr\(\)`\.$"):
        sched.get_lr()
    with pytest.warns(UserWarning, match=r"^The epoch parameter in `scheduler\.step\(\)` was not necessary"):
        sched.step(5)
    opt = _optimizer(scalargrad)
    sched = scalargrad.optim.lr_scheduler.StepLR(opt, step_size=1)
    opt.step = lambda closure=None: None  # replaced after the scheduler wrapped it
    with pytest.warns(UserWarning, match=r"^Seems like `optimizer\.step\(\)` has been overridden after learning rate "
                                         r"scheduler initialization"):
        sched.step()
    opt = _optimizer(scalargrad)
    sched = scalargrad.optim.lr_scheduler.StepLR(opt, step_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()  # the right order: no warning


def test_warnings_match_pytorchs(torch_ref):
    texts = {}
    for L in (scalargrad, torch_ref):
        opt = _optimizer(L)
        sched = L.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
            sched.get_lr()
            sched.step(2)
        texts[L] = [str(w.message) for w in caught]
    assert texts[scalargrad] == texts[torch_ref] and len(texts[scalargrad]) == 3


def test_errors_in_pytorchs_words():
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        scalargrad.optim.lr_scheduler.StepLR([], step_size=1)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\] when resuming"):
        scalargrad.optim.lr_scheduler.StepLR(_optimizer(scalargrad), step_size=1, last_epoch=3)
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 1$"):
        scalargrad.optim.lr_scheduler.LambdaLR(_optimizer(scalargrad, (1.0, 2.0)), [lambda e: 1.0])


def test_a_tensor_learning_rate_is_filled_in_place():
    lr = scalargrad.tensor(0.5)
    opt = scalargrad.optim.SGD([scalargrad.nn.Parameter(scalargrad.tensor(1.0))], lr=lr)
    sched = scalargrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == 0.25
    assert sched.get_last_lr()[0] is not lr and sched.get_last_lr()[0].item() == 0.25


def test_the_old_base_class_name_and_a_custom_scheduler():
    class Halve(scalargrad.optim.lr_scheduler._LRScheduler):
        def get_lr(self):
            return [g["lr"] / 2 if self.last_epoch else g["lr"] for g in self.optimizer.param_groups]

    opt = _optimizer(scalargrad)
    sched = Halve(opt)
    opt.step()
    sched.step()
    assert sched.get_last_lr() == [0.5] and isinstance(sched, scalargrad.optim.lr_scheduler.LRScheduler)
