"""torch.optim.swa_utils.AveragedModel, update_bn and the averaging-function factories.

The averages are float32 tensor arithmetic (``lerp_``, ``+``, ``-``, ``/``, ``*``), one rounding
per operation on every processor: compared bit for bit with live PyTorch. The BatchNorm statistics
``update_bn`` recomputes go through batch norm's reductions, whose order is the processor's: those
within a bound. Without PyTorch: an equal-weight average of exactly representable values by hand.
"""

from __future__ import annotations

import pytest

import scalargrad

WEIGHTS = [[0.5, -1.25, 3.0], [0.1, 0.2, 0.3]]  # a (2, 3) Linear, then BatchNorm1d(2)


def _model(L, shift: float):
    model = L.nn.Sequential(L.nn.Linear(3, 2), L.nn.BatchNorm1d(2))
    with L.no_grad():
        model[0].weight.copy_(L.tensor(WEIGHTS) * (1 + shift))
        model[0].bias.copy_(L.tensor([0.7, -0.3]) - shift)
        model[1].weight.copy_(L.tensor([1.5, 0.25]) + shift / 3)
        model[1].running_mean.copy_(L.tensor([0.1, -2.0]) * shift)
        model[1].running_var.copy_(L.tensor([1.0, 0.5]) + shift * shift)
        model[1].num_batches_tracked.fill_(int(10 * shift))
    return model


def _batches(L) -> list:
    return [L.tensor([[0.1 * i - j, 0.3 * j, 1.0 + i * j / 7] for j in range(4)]) for i in range(3)]


def _run(L, how: str) -> tuple:
    su = L.optim.swa_utils
    kwargs = {"swa": {}, "ema": {"avg_fn": su.get_ema_avg_fn(0.9)},
              "ema_multi": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.9)},
              "swa_multi": {"multi_avg_fn": su.get_swa_multi_avg_fn()},
              "ema_buffers": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.75), "use_buffers": True},
              "swa_buffers": {"use_buffers": True}}[how]
    model = _model(L, 0.0)
    averaged = su.AveragedModel(model, **kwargs)
    seen = []
    for step in range(4):
        averaged.update_parameters(_model(L, step / 3))
        seen.append({k: v.tolist() for k, v in averaged.state_dict().items()})
    return seen


@pytest.mark.parametrize("how", ["swa", "ema", "ema_multi", "swa_multi", "ema_buffers", "swa_buffers"])
def test_averages_bit_equal_to_pytorch(torch_ref, how):
    assert _run(scalargrad, how) == _run(torch_ref, how)


def _update_bn(L) -> tuple:
    averaged = L.optim.swa_utils.AveragedModel(_model(L, 0.5))
    averaged.update_parameters(_model(L, 0.25))
    averaged.eval()
    L.optim.swa_utils.update_bn(_batches(L) + [(_batches(L)[1], "label")], averaged)
    bn = averaged.module[1]
    return (bn.running_mean.tolist() + bn.running_var.tolist(), bn.num_batches_tracked.item(), bn.momentum,
            averaged.training, averaged(_batches(L)[0]).tolist())


def test_update_bn_as_pytorchs(torch_ref):
    # the statistics: the cumulative average (momentum None) over the four batches, then the
    # momentum and eval mode restored; values within float32 reduction-order noise
    ours, theirs = _update_bn(scalargrad), _update_bn(torch_ref)
    assert ours[1:4] == theirs[1:4] == (4, 0.1, False)
    assert ours[0] == pytest.approx(theirs[0], rel=1e-6, abs=1e-7)
    for a, b in zip(ours[4], theirs[4]):
        assert a == pytest.approx(b, rel=1e-5, abs=1e-6)


def test_equal_weight_average_by_hand():
    # parameters 1, 2, 3, 6 (exact in binary): running means 1, 1.5, 2, 3
    p = scalargrad.nn.Linear(1, 1, bias=False)
    averaged = scalargrad.optim.swa_utils.AveragedModel(p)
    means = []
    for value in (1.0, 2.0, 3.0, 6.0):
        with scalargrad.no_grad():
            p.weight.fill_(value)
        averaged.update_parameters(p)
        means.append(averaged.module.weight.item())
    assert means == [1.0, 1.5, 2.0, 3.0] and averaged.n_averaged.item() == 4
    assert averaged.n_averaged.dtype == scalargrad.int64
    assert list(averaged.state_dict()) == ["n_averaged", "module.weight"]


def test_printed_and_state_as_pytorchs(torch_ref):
    for L in (scalargrad, torch_ref):
        averaged = L.optim.swa_utils.AveragedModel(_model(L, 0.0), use_buffers=True)
        averaged.update_parameters(_model(L, 0.5))
        averaged.update_parameters(_model(L, 0.25))
        if L is scalargrad:
            ours = (repr(averaged), list(averaged.state_dict()), str(averaged.n_averaged))
        else:
            assert ours == (repr(averaged), list(averaged.state_dict()), str(averaged.n_averaged))


def test_update_bn_without_batchnorm_leaves_the_model_alone():
    model = scalargrad.nn.Linear(2, 1)
    model.eval()
    scalargrad.optim.swa_utils.update_bn([scalargrad.ones(1, 2)], model)
    assert not model.training


def test_errors_in_pytorchs_words():
    su = scalargrad.optim.swa_utils
    for factory in (su.get_ema_multi_avg_fn, su.get_ema_avg_fn):
        with pytest.raises(ValueError, match=r"^Invalid decay value 1.5 provided. Please provide a value in \[0,1\] "
                                             r"range.$"):
            factory(1.5)
    with pytest.raises(AssertionError, match="^Only one of avg_fn and multi_avg_fn should be provided$"):
        su.AveragedModel(scalargrad.nn.Linear(1, 1), avg_fn=su.get_swa_avg_fn(),
                         multi_avg_fn=su.get_swa_multi_avg_fn())


def _integer_and_list_cases(L) -> list:
    su = L.optim.swa_utils
    out = []
    for use in (lambda: su.get_swa_multi_avg_fn()([L.tensor([1, 2])], [L.tensor([3, 5])], 2),
                lambda: su.get_swa_multi_avg_fn()([L.tensor([1, 2])], [L.tensor([3, 5])], L.tensor(2)),
                lambda: su.get_swa_multi_avg_fn()([L.ones(1)], [], 2)):
        with pytest.raises(RuntimeError) as info:
            use()
        out.append(str(info.value))
    ints = [L.tensor([1, 2])]
    su.get_ema_multi_avg_fn(0.5)(ints, [L.tensor([3, 6])], 2)
    floats = [L.tensor([1.0, 2.0])]
    su.get_swa_multi_avg_fn()(floats, [L.tensor([3.0, 5.0])], 2)
    return out + [ints[0].tolist(), floats[0].tolist()]


def test_integer_tensors_and_list_errors_as_pytorchs(torch_ref):
    assert _integer_and_list_cases(scalargrad) == _integer_and_list_cases(torch_ref)
