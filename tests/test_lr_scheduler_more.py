"""The schedulers issue 23's census asked for: MultiplicativeLR, ConstantLR, LinearLR,
PolynomialLR, SequentialLR, ChainedScheduler, ReduceLROnPlateau, CyclicLR,
CosineAnnealingWarmRestarts, OneCycleLR.

Learning rates and momentums are Python float arithmetic in PyTorch's order: they must equal
live PyTorch's bit for bit, on any processor (``math.cos`` is the C library's on both sides).
Without PyTorch: figures exact in binary, derived by hand.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad


def _optimizer(L, lrs=(1.0, 0.3), kind="SGD"):
    params = [L.nn.Parameter(L.tensor(float(i))) for i in range(len(lrs))]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, lrs)]
    if kind == "SGD":
        return L.optim.SGD(groups, lr=lrs[0], momentum=0.9)
    return L.optim.Adam(groups, lr=lrs[0])


def _make(L, opt, name, kwargs):
    S = L.optim.lr_scheduler
    if name == "MultiplicativeLR":
        kwargs = dict(kwargs, lr_lambda=[lambda e: 0.95, lambda e: 1.0 - 0.01 * e])
    if name == "SequentialLR":
        first = S.ConstantLR(opt, factor=0.25, total_iters=3)
        second = S.ExponentialLR(opt, gamma=0.8)
        return S.SequentialLR(opt, [first, second], milestones=[4])
    if name == "SequentialLR3":
        members = [S.LinearLR(opt, start_factor=0.1, total_iters=4), S.CosineAnnealingLR(opt, T_max=6),
                   S.StepLR(opt, step_size=2, gamma=0.5)]
        return S.SequentialLR(opt, members, milestones=[5, 9])
    if name == "ChainedScheduler":
        return S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
    return getattr(S, name)(opt, **kwargs)


def _schedule(L, name, kwargs, epochs=40, kind="SGD", epoch_arg=False) -> list:
    opt = _optimizer(L, kind=kind)
    sched = _make(L, opt, name, kwargs)
    out = [list(sched.get_last_lr())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(1, epochs):
            opt.step()
            sched.step(epoch) if epoch_arg else sched.step()
            row = list(sched.get_last_lr()) + [g["lr"] for g in opt.param_groups]
            row += [g.get("momentum", g.get("betas")) for g in opt.param_groups]
            out.append(row)
    return out


CASES = [
    ("MultiplicativeLR", {}),
    ("ConstantLR", dict(factor=0.3, total_iters=6)), ("ConstantLR", {}),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=7)), ("LinearLR", {}),
    ("PolynomialLR", dict(total_iters=9, power=2.0)), ("PolynomialLR", dict(total_iters=12, power=0.5)),
    ("SequentialLR", {}), ("SequentialLR3", {}), ("ChainedScheduler", {}),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5, mode="triangular2")),
    ("CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.97)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn=lambda x: 0.5 ** x, scale_mode="iterations",
                      cycle_momentum=False)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5)), ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2,
                                                                                       eta_min=0.05)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=39)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], epochs=3, steps_per_epoch=13, anneal_strategy="linear")),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=40, three_phase=True, pct_start=0.25)),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=str)
def test_learning_rates_and_momentums_bit_equal_to_pytorch(torch_ref, name, kwargs):
    assert _schedule(scalargrad, name, kwargs) == _schedule(torch_ref, name, kwargs)


@pytest.mark.parametrize("name, kwargs", [c for c in CASES if c[0] in ("CyclicLR", "OneCycleLR")], ids=str)
def test_beta1_cycles_with_adam_bit_equal_to_pytorch(torch_ref, name, kwargs):
    assert _schedule(scalargrad, name, kwargs, kind="Adam") == _schedule(torch_ref, name, kwargs, kind="Adam")


@pytest.mark.parametrize("name, kwargs", [c for c in CASES if c[0] in (
    "ConstantLR", "LinearLR", "PolynomialLR", "CosineAnnealingWarmRestarts")], ids=str)
def test_closed_form_with_an_epoch_argument_bit_equal_to_pytorch(torch_ref, name, kwargs):
    assert _schedule(scalargrad, name, kwargs, epoch_arg=True) == _schedule(torch_ref, name, kwargs, epoch_arg=True)


def test_fractional_epochs_of_warm_restarts(torch_ref):
    def run(L):
        opt = _optimizer(L)
        sched = L.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(30):
                sched.step(i * 0.37)
                out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out

    assert run(scalargrad) == run(torch_ref)


def _plateau(L, **kwargs):
    opt = _optimizer(L)
    sched = L.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    losses = [5.0, 4.0, 4.0, 3.9999, 4.1, 4.2, 4.3, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    out = []
    for loss in losses:
        opt.step()
        sched.step(loss)
        out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, sched.best))
    return out, sched.state_dict()


@pytest.mark.parametrize("kwargs", [dict(patience=1), dict(patience=0, cooldown=2, factor=0.5),
                                    dict(mode="max", patience=2, threshold_mode="abs", threshold=0.5),
                                    dict(patience=1, min_lr=[0.2, 0.29], eps=1e-3)], ids=str)
def test_reduce_on_plateau_bit_equal_to_pytorch(torch_ref, kwargs):
    assert _plateau(scalargrad, **kwargs) == _plateau(torch_ref, **kwargs)


def test_schedules_by_hand():
    # ConstantLR: a quarter for 2 epochs, then the initial lr again
    rows = _schedule(scalargrad, "ConstantLR", dict(factor=0.25, total_iters=2), epochs=5)
    assert [r[0] for r in rows] == [0.25, 0.25, 1.0, 1.0, 1.0]
    # LinearLR from a half to 1 in 2 steps: 0.5, 0.75, 1.0
    rows = _schedule(scalargrad, "LinearLR", dict(start_factor=0.5, total_iters=2), epochs=4)
    assert [r[0] for r in rows] == [0.5, 0.75, 1.0, 1.0]
    # PolynomialLR, power 1, 4 steps: 1, 3/4, 1/2, 1/4, 0
    rows = _schedule(scalargrad, "PolynomialLR", dict(total_iters=4), epochs=6)
    assert [r[0] for r in rows] == [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    # CyclicLR, triangular, base 0 to max 1 in 2 steps: 0, 1/2, 1, 1/2, 0; momentum 0.9 to 0.8 and back
    rows = _schedule(scalargrad, "CyclicLR", dict(base_lr=0.0, max_lr=1.0, step_size_up=2, base_momentum=0.5,
                                                  max_momentum=1.0), epochs=5)
    assert [r[0] for r in rows] == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert [r[-1] for r in rows[1:]] == [0.75, 0.5, 0.75, 1.0]
    # warm restarts every 2 epochs, eta_min 0: 1, 1/2, 1, 1/2
    rows = _schedule(scalargrad, "CosineAnnealingWarmRestarts", dict(T_0=2), epochs=4)
    assert [r[0] for r in rows] == pytest.approx([1.0, 0.5, 1.0, 0.5], abs=1e-16)


def test_one_cycle_sets_its_group_keys_and_refuses_extra_steps():
    opt = _optimizer(scalargrad, (0.1,))
    sched = scalargrad.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3, div_factor=4.0,
                                                    final_div_factor=2.0)
    group = opt.param_groups[0]
    assert (group["initial_lr"], group["max_lr"], group["min_lr"]) == (0.25, 1.0, 0.125)
    assert (group["max_momentum"], group["base_momentum"]) == (0.95, 0.85)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="^Tried to step 4 times. The specified number of total steps is 3$"):
        sched.step()


def test_state_dicts_round_trip(torch_ref):
    def run(L):
        out = []
        for name, kwargs in CASES:
            opt = _optimizer(L)
            sched = _make(L, opt, name, kwargs)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in range(5):
                    opt.step()
                    sched.step()
            state = sched.state_dict()
            keys = sorted(k for k in state if k != "_scale_fn_ref")
            opt2 = _optimizer(L)
            again = _make(L, opt2, name, kwargs)
            again.load_state_dict(state)
            out.append((name, keys, again.get_last_lr(), getattr(again, "last_epoch", None)))
        return out

    assert run(scalargrad) == run(torch_ref)


@pytest.mark.parametrize("make, message", [
    (lambda S, o: S.ConstantLR(o, factor=1.5), "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda S, o: S.LinearLR(o, start_factor=0), "Starting multiplicative factor expected to be greater than 0"),
    (lambda S, o: S.MultiplicativeLR(o, 0.95), "lr_lambda should be a function, but got float"),
    (lambda S, o: S.ReduceLROnPlateau(o, factor=1.0), "Factor should be < 1.0."),
    (lambda S, o: S.ReduceLROnPlateau(o, mode="best"), "mode best is unknown!"),
    (lambda S, o: S.OneCycleLR(o, max_lr=1.0), r"You must define either total_steps OR \(epochs AND steps_per_epoch\)"),
    (lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=1), "Expected float between 0 and 1"),
    (lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=0), "Expected positive integer T_0, but got 0"),
    (lambda S, o: S.CyclicLR(o, 0.1, 1.0, mode="zigzag"), "mode is invalid and scale_fn is None"),
    (lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2)], milestones=[3]), "Sequential Schedulers expects number"),
    (lambda S, o: S.ChainedScheduler([S.ReduceLROnPlateau(o)]), "ChainedScheduler does not support"),
])
def test_errors_in_pytorchs_words(torch_ref, make, message):
    for L in (scalargrad, torch_ref):
        with pytest.raises((ValueError, TypeError), match=message) as info:
            make(L.optim.lr_scheduler, _optimizer(L))
        assert type(info.value).__name__ in ("ValueError", "TypeError")


def test_classes_print_under_pytorchs_module_path():
    S = scalargrad.optim.lr_scheduler
    for name in ("OneCycleLR", "ReduceLROnPlateau", "SequentialLR", "CyclicLR", "PolynomialLR"):
        assert repr(getattr(S, name)) == f"<class 'torch.optim.lr_scheduler.{name}'>"
