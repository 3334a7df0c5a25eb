"""torch.distributions (Categorical, Bernoulli, Normal, Uniform) against live PyTorch: samples bit for
bit under one seed (they are multinomial/bernoulli/normal/rand draws, exact arithmetic); reprs, shapes
and validation errors word for word; log_prob, entropy and the like within 4 float32 ulps relative
(they pass through log/exp/softmax, machine-dependent kernels: the bound holds under
ATEN_CPU_CAPABILITY=default and =avx2 as well)."""

from __future__ import annotations

import math

import pytest

import scalargrad
from scalargrad.errors import Unsupported

REL = 4 * 2.0 ** -23  # float32 results of log/exp kernels: a few ulps


def _run(lib, f, seed=3):
    lib.manual_seed(seed)
    try:
        return f(lib)
    except Exception as e:  # compared: type and message
        return e


def _same_error(a, b) -> None:
    assert isinstance(a, Exception) and isinstance(b, Exception), (a, b)
    assert type(a).__name__ == type(b).__name__ and str(a) == str(b)


def _close(a: list | float, b: list | float) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if math.isnan(a):
        return math.isnan(b)
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def _d(lib):
    return lib.distributions


P3 = [0.2, 0.3, 0.5]
P23 = [[0.2, 0.3, 0.5], [1.0, 2.0, 7.0]]

SAMPLES = {
    "categorical": lambda t: _d(t).Categorical(t.tensor(P3)).sample(),
    "categorical_shape": lambda t: _d(t).Categorical(t.tensor(P3)).sample((4, 2)),
    "categorical_batch": lambda t: _d(t).Categorical(t.tensor(P23)).sample((6,)),
    "categorical_logits": lambda t: _d(t).Categorical(logits=t.tensor(P23)).sample((5,)),
    "categorical_64": lambda t: _d(t).Categorical(t.tensor(P23, dtype=t.float64)).sample((40,)),
    "categorical_many": lambda t: _d(t).Categorical(t.rand(7, 30)).sample((3,)),
    "normal": lambda t: _d(t).Normal(0.0, 1.0).sample(),
    "normal_batch": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).sample((3,)),
    "normal_vector_path": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).sample((10,)),
    "normal_rsample": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).rsample((10,)),
    "normal_rsample_small": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), 0.5).rsample((3,)),
    "normal_64": lambda t: _d(t).Normal(t.zeros(9, dtype=t.float64), 2.0).sample((3,)),
    "bernoulli": lambda t: _d(t).Bernoulli(0.3).sample((7,)),
    "bernoulli_batch": lambda t: _d(t).Bernoulli(t.tensor([0.3, 0.9])).sample((20,)),
    "bernoulli_logits": lambda t: _d(t).Bernoulli(logits=t.tensor([-1.0, 2.0])).sample((20,)),
    "uniform": lambda t: _d(t).Uniform(0.0, 2.0).sample((5,)),
    "uniform_batch": lambda t: _d(t).Uniform(t.tensor([0.0, 1.0]), 2.0).rsample((30,)),
    "multinomial": lambda t: _d(t).Multinomial(10, t.tensor(P3)).sample(),
    "multinomial_batch": lambda t: _d(t).Multinomial(10, t.tensor(P23)).sample((4,)),
    "one_hot": lambda t: _d(t).OneHotCategorical(t.tensor(P3)).sample(),
    "one_hot_batch": lambda t: _d(t).OneHotCategorical(logits=t.tensor(P23)).sample((3,)),
}


# float32 normal_ of 16 or more elements runs ATen's vectorised transform (the C library's under
# ATEN_CPU_CAPABILITY=default, which rng.py does not reproduce)
VECTOR = ("normal_vector_path", "normal_rsample")


@pytest.mark.parametrize("seed", [0, 3, 11])
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.vector_kernels) if n in VECTOR else n
                                  for n in SAMPLES])
def test_samples_are_pytorchs_bit_for_bit(torch_ref, name, seed):
    a, b = _run(torch_ref, SAMPLES[name], seed), _run(scalargrad, SAMPLES[name], seed)
    assert a.tolist() == b.tolist()
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)


VALUES = {
    "categorical_log_prob": lambda t: _d(t).Categorical(t.tensor(P3)).log_prob(t.tensor([0, 2, 1])),
    "categorical_log_prob_batch": lambda t: _d(t).Categorical(logits=t.tensor(P23)).log_prob(t.tensor([[0], [2]])),
    "categorical_entropy": lambda t: _d(t).Categorical(t.tensor(P23)).entropy(),
    "categorical_entropy_zero": lambda t: _d(t).Categorical(t.tensor([0.0, 1.0])).entropy(),
    "categorical_probs": lambda t: _d(t).Categorical(logits=t.tensor(P23)).probs,
    "categorical_logits": lambda t: _d(t).Categorical(t.tensor(P23)).logits,
    "categorical_mean": lambda t: _d(t).Categorical(t.tensor(P23)).mean,
    "categorical_variance": lambda t: _d(t).Categorical(t.tensor(P23)).variance,
    "categorical_mode": lambda t: _d(t).Categorical(t.tensor(P23)).mode,
    "categorical_support": lambda t: _d(t).Categorical(t.tensor(P23)).enumerate_support(),
    "normal_log_prob": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).log_prob(t.tensor(0.5)),
    "normal_entropy": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).entropy(),
    "normal_cdf": lambda t: _d(t).Normal(0.0, 2.0).cdf(t.tensor([-1.0, 0.5])),
    "normal_variance": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).variance,
    "normal_stddev": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).stddev,
    "bernoulli_log_prob": lambda t: _d(t).Bernoulli(t.tensor([0.3, 0.9])).log_prob(t.tensor([1.0, 0.0])),
    "bernoulli_entropy": lambda t: _d(t).Bernoulli(t.tensor([0.3, 0.9])).entropy(),
    "bernoulli_probs": lambda t: _d(t).Bernoulli(logits=t.tensor([0.3, -0.9])).probs,
    "bernoulli_logits": lambda t: _d(t).Bernoulli(t.tensor([0.3, 0.9])).logits,
    "bernoulli_variance": lambda t: _d(t).Bernoulli(t.tensor([0.3, 0.9])).variance,
    "uniform_log_prob": lambda t: _d(t).Uniform(t.tensor([0.0, 1.0]), 2.0).log_prob(t.tensor([0.5, 1.5])),
    "uniform_entropy": lambda t: _d(t).Uniform(t.tensor([0.0, 1.0]), 3.0).entropy(),
    "uniform_mean_variance": lambda t: _d(t).Uniform(1.0, 3.0).variance + _d(t).Uniform(1.0, 3.0).mean,
    "multinomial_mean": lambda t: _d(t).Multinomial(10, t.tensor(P23)).mean,
    "multinomial_variance": lambda t: _d(t).Multinomial(10, t.tensor(P23)).variance,
    "one_hot_log_prob": lambda t: _d(t).OneHotCategorical(t.tensor(P3)).log_prob(t.tensor([0.0, 0.0, 1.0])),
    "one_hot_entropy": lambda t: _d(t).OneHotCategorical(t.tensor(P23)).entropy(),
    "one_hot_mode": lambda t: _d(t).OneHotCategorical(t.tensor(P23)).mode,
    "one_hot_support": lambda t: _d(t).OneHotCategorical(t.tensor(P3)).enumerate_support(),
    "uniform_cdf": lambda t: _d(t).Uniform(1.0, 3.0).cdf(t.tensor([1.5, 2.5, 3.0])),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_values_are_pytorchs(torch_ref, name):
    a, b = _run(torch_ref, VALUES[name]), _run(scalargrad, VALUES[name])
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
    assert _close(a.tolist(), b.tolist()), (a, b)


def test_log_prob_has_pytorchs_gradient(torch_ref):
    grads = []
    for lib in (torch_ref, scalargrad):
        logits = lib.tensor([[0.5, -1.0, 2.0], [0.0, 0.25, 1.0]], requires_grad=True)
        loc = lib.tensor([0.5, 1.0], requires_grad=True)
        dist = _d(lib).Categorical(logits=logits)
        (dist.log_prob(lib.tensor([2, 0])).sum() + dist.entropy().sum()).backward()
        _d(lib).Normal(loc, 2.0).log_prob(lib.tensor([1.0, 3.0])).sum().backward()
        grads.append((logits.grad.tolist(), loc.grad.tolist()))
    assert _close(list(grads[0]), list(grads[1]))


SHOWN = {
    "categorical": lambda t: _d(t).Categorical(t.tensor(P3)),
    "categorical_logits": lambda t: _d(t).Categorical(logits=t.tensor(P23)),
    "normal": lambda t: _d(t).Normal(0.0, 1.0),
    "normal_batch": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), 1.0),
    "bernoulli": lambda t: _d(t).Bernoulli(0.3),
    "bernoulli_logits": lambda t: _d(t).Bernoulli(logits=t.tensor([0.3])),
    "uniform": lambda t: _d(t).Uniform(0.0, 2.0),
    "shapes": lambda t: (_d(t).Categorical(t.tensor(P23)).batch_shape, _d(t).Categorical(t.tensor(P3)).event_shape,
                         _d(t).Normal(t.zeros(2, 3), 1.0).batch_shape,
                         _d(t).Categorical(t.tensor(P23)).expand((4, 2)).batch_shape),
    "constraints": lambda t: (_d(t).Categorical(t.tensor(P3)).support, _d(t).Categorical.arg_constraints,
                              _d(t).Normal.arg_constraints, _d(t).Bernoulli.support,
                              _d(t).constraints.real_vector),
    "multinomial": lambda t: (_d(t).Multinomial(10, t.tensor(P23)), _d(t).Multinomial(10, t.tensor(P23)).batch_shape,
                              _d(t).Multinomial(10, t.tensor(P23)).event_shape),
    "one_hot": lambda t: (_d(t).OneHotCategorical(t.tensor(P3)), _d(t).OneHotCategorical(t.tensor(P3)).event_shape),
    "flags": lambda t: (_d(t).Normal.has_rsample, _d(t).Categorical.has_rsample,
                        _d(t).Categorical.has_enumerate_support),
}


@pytest.mark.parametrize("name", list(SHOWN))
def test_reprs_and_shapes_are_pytorchs(torch_ref, name):
    assert repr(_run(scalargrad, SHOWN[name])) == repr(_run(torch_ref, SHOWN[name]))


ERRORS = {
    "neither": lambda t: _d(t).Categorical(),
    "both": lambda t: _d(t).Bernoulli(0.3, 0.1),
    "scalar_probs": lambda t: _d(t).Categorical(t.tensor(0.2)),
    "negative_probs": lambda t: _d(t).Categorical(t.tensor([0.2, -0.3, 0.5])),
    "nan_logits": lambda t: _d(t).Categorical(logits=t.tensor([0.2, float("nan")])),
    "outside_support": lambda t: _d(t).Categorical(t.tensor(P3)).log_prob(t.tensor([3])),
    "event_shape": lambda t: _d(t).Categorical(t.tensor(P23)).log_prob(t.tensor([0, 1, 2])),
    "negative_scale": lambda t: _d(t).Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, -2.0])),
    "probs_above_one": lambda t: _d(t).Bernoulli(t.tensor([1.3, 0.9])),
    "not_boolean": lambda t: _d(t).Bernoulli(t.tensor([0.3, 0.9])).log_prob(t.tensor([2.0, 0.0])),
    "low_above_high": lambda t: _d(t).Uniform(3.0, 2.0),
    "outside_interval": lambda t: _d(t).Uniform(t.tensor([0.0, 1.0]), 2.0).log_prob(t.tensor([0.5, 0.5])),
    "not_a_tensor": lambda t: _d(t).Normal(0.0, 1.0).log_prob(0.5),
    "bad_parameter": lambda t: _d(t).Normal("a", 1.0),
    "multinomial_count": lambda t: _d(t).Multinomial(1.5, t.tensor(P3)),
    "multinomial_probs": lambda t: _d(t).Multinomial(3, t.tensor([0.2, -0.3, 0.5])),
    "not_one_hot": lambda t: _d(t).OneHotCategorical(t.tensor(P3)).log_prob(t.tensor([0.0, 1.0, 1.0])),
    "no_rsample": lambda t: _d(t).Bernoulli(0.3).rsample(),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_are_pytorchs(torch_ref, name):
    _same_error(_run(torch_ref, ERRORS[name]), _run(scalargrad, ERRORS[name]))


def test_validation_can_be_turned_off(torch_ref):
    for lib in (torch_ref, scalargrad):
        dist = _d(lib).Normal(lib.tensor([0.0]), lib.tensor([-1.0]), validate_args=False)
        assert dist.scale.tolist() == [-1.0]


def test_distributions_pytorch_lacks_here_are_refused_by_name():
    with pytest.raises(Unsupported, match="torch.distributions.Beta"):
        scalargrad.distributions.Beta  # noqa: B018
    with pytest.raises(Unsupported, match="Multinomial.log_prob .*lgamma"):
        scalargrad.distributions.Multinomial(3, scalargrad.tensor(P3)).log_prob(scalargrad.tensor([1.0, 1.0, 1.0]))


def test_dir_lists_pytorchs_names(torch_ref):
    assert dir(scalargrad.distributions) == dir(torch_ref.distributions)


def _nodes(lib) -> list:
    d = lib.distributions
    x = lib.tensor([[0.5, 1.0, 2.0]], requires_grad=True)
    c, n, b, u = d.Categorical(logits=x), d.Normal(x, 2.0), d.Bernoulli(logits=x), d.Uniform(x, 3.0)
    made = (c.log_prob(lib.tensor([1])), c.entropy(), c.probs, c.logits, n.log_prob(lib.tensor(0.3)), n.rsample(),
            b.log_prob(lib.tensor(1.0)), b.entropy(), b.probs, u.rsample(), u.log_prob(lib.tensor(2.0)), u.entropy())
    drawn = (c.sample(), n.sample(), b.sample(), u.sample())
    return [t.grad_fn.name() for t in made] + [t.requires_grad for t in drawn]


def test_graphs_have_pytorchs_nodes(torch_ref):
    assert _nodes(scalargrad) == _nodes(torch_ref)


def test_sample_n_warns_as_pytorch(torch_ref):
    got = []
    for lib in (torch_ref, scalargrad):
        lib.manual_seed(5)
        with pytest.warns(FutureWarning) as w:
            got.append(_d(lib).Normal(0.0, 1.0).sample_n(3).tolist())
        got.append([str(x.message) for x in w])
    assert got[:2] == got[2:]
