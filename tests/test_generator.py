"""``torch.Generator`` as programs use it (issue 23), against live PyTorch 2.13: ``get_state()``
is a uint8 tensor of PyTorch's 5056-byte CPUGeneratorImplState, a state saved and restored gives
the same next numbers, a state PyTorch gave (saved as bytes) continues PyTorch's stream here,
``device``, ``initial_seed``, ``manual_seed`` returning the generator, ``seed``, the repr, and
PyTorch's refusals of a bad state. Only the uniform and scalar-normal draws (the same on every
processor: integer arithmetic, double Box-Muller of fewer than 16 elements) are compared."""

from __future__ import annotations

import re

import pytest

import scalargrad


def test_attributes_and_repr():
    g = scalargrad.Generator()
    assert re.fullmatch(r"<torch\._C\.Generator object at 0x[0-9a-f]+>", repr(g))
    assert repr(g.device) == "device(type='cpu')" and str(g.device) == "cpu"
    assert g.initial_seed() == 67280421310721  # c10::default_rng_seed_val
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert scalargrad.manual_seed(7) is scalargrad.default_generator
    assert isinstance(scalargrad.default_generator, scalargrad.Generator)
    assert scalargrad.Generator("cpu:0").device == scalargrad.device("cpu")
    state = g.get_state()
    assert (state.dtype, tuple(state.shape), state.requires_grad) == (scalargrad.uint8, (5056,), False)


def test_state_round_trip_gives_the_same_numbers():
    g = scalargrad.Generator().manual_seed(5)
    scalargrad.randn(3, generator=g)  # leaves a cached Box-Muller sample in the state
    state = g.get_state()
    first = (scalargrad.rand(6, generator=g).tolist(), scalargrad.randn(3, generator=g).tolist())
    assert g.set_state(state) is g
    assert (scalargrad.rand(6, generator=g).tolist(), scalargrad.randn(3, generator=g).tolist()) == first
    saved = scalargrad.get_rng_state()
    drawn = scalargrad.rand(4, dtype=scalargrad.float64).tolist()
    scalargrad.set_rng_state(saved)
    assert scalargrad.rand(4, dtype=scalargrad.float64).tolist() == drawn


@pytest.mark.parametrize("seed", [0, 11, 2**40 + 3])
def test_states_exchange_with_pytorch(torch_ref, seed):
    tg = torch_ref.Generator().manual_seed(seed)
    torch_ref.randn(3, generator=tg)
    theirs = bytes(tg.get_state().tolist())  # what a program saves
    g = scalargrad.Generator().manual_seed(seed)
    scalargrad.randn(3, generator=g)
    assert bytes(g.get_state().tolist()) == theirs
    g = scalargrad.Generator().set_state(scalargrad.tensor(list(theirs), dtype=scalargrad.uint8))
    assert g.initial_seed() == tg.initial_seed()
    for _ in range(2):
        assert scalargrad.rand(7, generator=g, dtype=scalargrad.float64).tolist() == \
            torch_ref.rand(7, generator=tg, dtype=torch_ref.float64).tolist()
        assert scalargrad.randn(5, generator=g).tolist() == torch_ref.randn(5, generator=tg).tolist()
    tg.set_state(torch_ref.tensor(g.get_state().tolist(), dtype=torch_ref.uint8))  # and back
    assert scalargrad.rand(3, generator=g).tolist() == torch_ref.rand(3, generator=tg).tolist()


BAD_STATES = [lambda t: [0] * 5056, lambda t: t.zeros(5056), lambda t: t.zeros(10, dtype=t.uint8),
              lambda t: t.zeros(5056, dtype=t.uint8), lambda t: (1, 2)]


@pytest.mark.parametrize("bad", range(len(BAD_STATES)))
def test_bad_states_refused_as_pytorch(torch_ref, bad):
    def refusal(t):
        with pytest.raises((TypeError, RuntimeError)) as info:
            t.Generator().set_state(BAD_STATES[bad](t))
        return type(info.value).__name__, str(info.value)

    assert refusal(scalargrad) == refusal(torch_ref)


def test_fork_rng(torch_ref):
    def call(t):
        t.manual_seed(3)
        with t.random.fork_rng():
            inside = t.rand(3, dtype=t.float64)
            t.manual_seed(99)
        after = t.rand(3, dtype=t.float64)
        with t.random.fork_rng(enabled=False):
            t.rand(2)
        try:
            with t.random.fork_rng(devices=[0]):
                pass
        except AssertionError as e:
            refused = str(e)
        return inside.tolist() == after.tolist(), t.rand(2, dtype=t.float64).tolist(), refused
    assert call(scalargrad) == call(torch_ref)


def test_thread_safe_generator_outside_a_thread_worker_is_none(torch_ref):
    """torch.random.thread_safe_generator's docstring example: None in the main process, so
    randint draws from the default generator (PyTorch's stream)."""
    from scalargrad.random import thread_safe_generator

    outs = []
    for L, tsg in ((scalargrad, thread_safe_generator), (torch_ref, torch_ref.random.thread_safe_generator)):
        L.manual_seed(0)
        g = tsg()
        outs.append((g, L.randint(0, 10, (5,), generator=g).tolist()))
    assert outs[0] == outs[1] == (None, outs[1][1])
