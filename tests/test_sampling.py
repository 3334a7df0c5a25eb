"""torch.multinomial, torch.bernoulli / bernoulli_, exponential_, geometric_, cauchy_, log_normal_ and
the deterministic-algorithms flag, compared with live PyTorch under the same seed: the draws are exact
integer and double arithmetic (libm's log1p/log/tan/exp, the same calls ATen's serial kernels make), so
values are compared bit for bit."""

from __future__ import annotations

import pytest

import scalargrad
from scalargrad.errors import Unsupported

DTYPES = ("float32", "float64")
SHAPES = ((1,), (5,), (16,), (17,), (3, 7), (2, 40), ())


def _pair(torch, dt, shape, seed):
    probs = torch.rand(shape, dtype=getattr(torch, dt), generator=torch.Generator().manual_seed(seed + 99))
    return probs, scalargrad.tensor(probs.tolist(), dtype=getattr(scalargrad, dt))


def _both(torch, seed, f, g):
    torch.manual_seed(seed)
    scalargrad.manual_seed(seed)
    return f(torch).tolist(), g(scalargrad).tolist()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [s for s in SHAPES if s])
@pytest.mark.parametrize("n, replacement", [(1, True), (1, False), (2, False), (3, True), (64, True)])
def test_multinomial_is_pytorchs_bit_for_bit(torch_ref, dt, shape, n, replacement, seed):
    p, q = _pair(torch_ref, dt, shape, seed)
    if not replacement and n > shape[-1]:
        return
    a, b = _both(torch_ref, seed, lambda t: t.multinomial(p, n, replacement),
                 lambda s: s.multinomial(q, n, replacement))
    assert a == b
    a, b = _both(torch_ref, seed, lambda t: p.multinomial(n, replacement=replacement),
                 lambda s: q.multinomial(n, replacement=replacement))
    assert a == b


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fill, args", [("exponential_", ()), ("exponential_", (2.5,)), ("geometric_", (0.3,)),
                                        ("cauchy_", ()), ("cauchy_", (1.5, 0.25)), ("log_normal_", ()),
                                        ("log_normal_", (0.5, 0.75)), ("bernoulli_", ()), ("bernoulli_", (0.3,))])
def test_random_fills_are_pytorchs_bit_for_bit(torch_ref, dt, shape, fill, args, seed):
    p, q = _pair(torch_ref, dt, shape, seed)
    a, b = _both(torch_ref, seed, lambda t: getattr(p.clone(), fill)(*args),
                 lambda s: getattr(q.clone(), fill)(*args))
    assert a == b


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_bernoulli_of_probabilities_is_pytorchs_bit_for_bit(torch_ref, dt, shape, seed):
    p, q = _pair(torch_ref, dt, shape, seed)
    a, b = _both(torch_ref, seed, lambda t: t.bernoulli(p), lambda s: s.bernoulli(q))
    assert a == b
    a, b = _both(torch_ref, seed, lambda t: t.bernoulli(p, 0.25), lambda s: s.bernoulli(q, 0.25))
    assert a == b
    a, b = _both(torch_ref, seed, lambda t: p.bernoulli(), lambda s: q.bernoulli())
    assert a == b
    a, b = _both(torch_ref, seed, lambda t: t.zeros(shape).bernoulli_(p), lambda s: s.zeros(shape).bernoulli_(q))
    assert a == b


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n, replacement", [(1, True), (5, False), (200, True)])
def test_multinomial_over_many_categories_is_pytorchs(torch_ref, dt, n, replacement, seed):
    # a language model's next-token draw: thousands of categories, some of them zero
    p, q = _pair(torch_ref, dt, (2, 3000), seed)
    p[:, ::7] = 0.0
    q[:, ::7] = 0.0
    a, b = _both(torch_ref, seed, lambda t: t.multinomial(p, n, replacement),
                 lambda s: s.multinomial(q, n, replacement))
    assert a == b


def test_multinomial_refuses_ties_it_cannot_order():
    # without replacement, zero weights tie once the others are drawn: PyTorch's topk orders them its own way
    with pytest.raises(Unsupported, match="tie"):
        scalargrad.multinomial(scalargrad.tensor([0.5, 0.0, 0.5, 0.0]), 3)
    assert sorted(scalargrad.multinomial(scalargrad.tensor([0.5, 0.0, 0.5, 0.0]), 2).tolist()) == [0, 2]


@pytest.mark.parametrize("call", [
    lambda t: t.multinomial(t.tensor([0.5, -0.1]), 2, True),
    lambda t: t.multinomial(t.tensor([0.5, float("inf")]), 2, True),
    lambda t: t.multinomial(t.tensor([0.5, float("nan")]), 2, True),
    lambda t: t.multinomial(t.tensor([0.5, float("nan")]), 2),
    lambda t: t.multinomial(t.tensor([0.0, 0.0]), 2, True),
    lambda t: t.multinomial(t.tensor([0.0, 0.0]), 1),
    lambda t: t.multinomial(t.tensor([0.5, -0.1]), 1),
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), 3),
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), 0),
    lambda t: t.multinomial(t.tensor(0.5), 1),
    lambda t: t.multinomial(t.ones(2, 2, 2), 1),
    lambda t: t.multinomial(t.tensor([1, 2]), 1),
    lambda t: t.empty(3).exponential_(0.0),
    lambda t: t.empty(3).geometric_(1.5),
    lambda t: t.empty(3).cauchy_(0.0, -1.0),
    lambda t: t.bernoulli(t.tensor([0.5, 1.5])),
    lambda t: t.bernoulli(t.tensor([1, 0])),
    lambda t: t.bernoulli(t.tensor([0.5]), "a"),
    lambda t: t.empty(2).bernoulli_("a"),
    lambda t: t.empty(2).bernoulli_(t.tensor([1, 0])),
    lambda t: t.empty(2).exponential_("a"),
    lambda t: t.empty(2).cauchy_(0.0, None),
    lambda t: t.tensor([1, 2]).exponential_(),
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), 2.5),
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), True),
    lambda t: t.multinomial([0.5, 0.5], 1),
    lambda t: t.empty(2).bernoulli_(1.5),
])
def test_bad_draws_are_refused_in_pytorchs_words(torch_ref, call):
    with pytest.raises(Exception) as expected:
        call(torch_ref)
    with pytest.raises(type(expected.value)) as got:
        call(scalargrad)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "bool"])
def test_bernoulli_of_a_number_fills_any_dtype_as_pytorch(torch_ref, dt):
    a, b = _both(torch_ref, 1, lambda t: t.zeros(9, dtype=getattr(t, dt)).bernoulli_(0.4),
                 lambda s: s.zeros(9, dtype=getattr(s, dt)).bernoulli_(0.4))
    assert a == b
    a, b = _both(torch_ref, 2, lambda t: t.bernoulli(t.zeros(3, 3, dtype=getattr(t, dt)), 0.7),
                 lambda s: s.bernoulli(s.zeros(3, 3, dtype=getattr(s, dt)), 0.7))
    assert a == b
    a, b = _both(torch_ref, 3, lambda t: t.ones(3).exponential_(True), lambda s: s.ones(3).exponential_(True))
    assert a == b


def test_deterministic_algorithms_flag_is_pytorchs(torch_ref):
    before = torch_ref.are_deterministic_algorithms_enabled(), torch_ref.is_deterministic_algorithms_warn_only_enabled()
    try:
        for mode, warn_only in ((True, False), (True, True), (False, False)):
            for lib in (torch_ref, scalargrad):
                lib.use_deterministic_algorithms(mode, warn_only=warn_only)
            for name in ("are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
                         "get_deterministic_debug_mode"):
                assert getattr(scalargrad, name)() == getattr(torch_ref, name)()
        for bad in ((1,), ("x",), (True, 1)):
            with pytest.raises(TypeError) as expected:
                torch_ref.use_deterministic_algorithms(bad[0], **({"warn_only": bad[1]} if len(bad) > 1 else {}))
            with pytest.raises(TypeError, match=str(expected.value).replace("(", r"\(").replace(")", r"\)")):
                scalargrad.use_deterministic_algorithms(bad[0], **({"warn_only": bad[1]} if len(bad) > 1 else {}))
    finally:
        torch_ref.use_deterministic_algorithms(before[0], warn_only=before[1])
        scalargrad.use_deterministic_algorithms(False)


def test_a_draw_from_a_tensor_that_requires_grad_is_refused_by_name():
    p = scalargrad.tensor([0.5, 0.25], requires_grad=True)
    with pytest.raises(Unsupported, match="torch.bernoulli of a tensor that requires grad"):
        scalargrad.bernoulli(p)
    with scalargrad.no_grad():
        assert scalargrad.bernoulli(p).shape == (2,)


@pytest.mark.parametrize("fill", ["normal_", "uniform_", "random_", "bernoulli_", "exponential_", "cauchy_",
                                  "log_normal_"])
def test_a_draw_into_a_tensor_of_a_graph_is_refused_by_name(fill):
    # PyTorch records a node with a zero gradient (NormalBackward0...); scalargrad refuses rather than keep
    # the tensor's old node, whose gradient would be wrong
    z = scalargrad.tensor([0.3, 0.7], requires_grad=True) * 1.0
    with pytest.raises(Unsupported, match=f"Tensor.{fill} of a tensor that requires grad"):
        getattr(z, fill)()
    with scalargrad.no_grad():
        assert getattr(z, fill)() is z
