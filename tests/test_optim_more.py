"""The optimizers issue 23's census asked for: Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop (and
LBFGS, in ``test_lbfgs.py``).

Trajectories as in ``test_optim.py``: 25 steps, float32 and float64, 0-dim and n-d parameters,
each step's gradient a fixed function of the parameters computed in Python. Adamax, ASGD and
Rprop use IEEE operations, fused multiply-adds, maxima, signs and one Python-float power only:
their trajectories must equal live PyTorch's bit for bit on any processor. Adadelta, NAdam and
RAdam take square roots, which PyTorch may compute 1 ulp off the correctly rounded value on some
processors (MKL's vector library): they must equal, bit for bit, PyTorch's own optimizer run with
a correctly rounded square root, and live PyTorch bit for bit with the square roots live PyTorch
took handed to scalargrad (each within 1 ulp of the correctly rounded one; test_optim.py). Where
live PyTorch rounds products before adding (ATen's generic kernels), scalargrad does too
(``live_fusing``).
"""

from __future__ import annotations

import contextlib

import pytest
from test_optim import (
    _key,
    assert_within_one_ulp_of_the_correct_square_root,
    correctly_rounded_sqrt,
    live_fusing,
    recorded_sqrt,
    replayed_sqrt,
    trajectory,
)

import scalargrad
from scalargrad.errors import Unsupported


@contextlib.contextmanager
def replayed_sqrt_in_bulk(table: dict):
    """``replayed_sqrt`` for a tensor's elements too: a tensor with dimensions takes its square
    roots through the op's bulk function (``Sqrt.fast``), not ``ieee.sqrt``."""
    from scalargrad._ops.unary import Sqrt

    original = Sqrt.fast

    def live(x: float) -> float:
        hit = table.get(_key(x))
        return original(x) if hit is None else hit[1]

    Sqrt.fast = staticmethod(live)
    try:
        with replayed_sqrt(table):
            yield
    finally:
        Sqrt.fast = original


def assert_equal_to_live_pytorch(torch, run) -> None:
    """``run(L)`` on scalargrad, given the square roots live PyTorch took (each within 1 ulp of
    the correctly rounded one), equals live PyTorch's bit for bit."""
    with recorded_sqrt(torch) as table:
        theirs = run(torch)
    assert_within_one_ulp_of_the_correct_square_root(table)
    with replayed_sqrt_in_bulk(table):
        ours = run(scalargrad)
    assert ours == theirs


EXACT_CASES = [
    ("Adamax", dict(lr=0.01)), ("Adamax", dict(lr=0.02, betas=(0.8, 0.95), weight_decay=0.1, eps=1e-3)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("ASGD", dict(lr=0.05)), ("ASGD", dict(lr=0.05, t0=10, lambd=0.01, alpha=0.5, weight_decay=0.1)),
    ("ASGD", dict(lr=0.02, maximize=True, t0=3)),
    ("Rprop", dict(lr=0.01)), ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.01, maximize=True)),
]
SQRT_CASES = [
    ("Adadelta", dict()), ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
    ("NAdam", dict(lr=0.01)), ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", EXACT_CASES, ids=str)
def test_trajectories_bit_equal_to_pytorch(torch_ref, dt, name, kwargs):
    with live_fusing(torch_ref):
        assert trajectory(scalargrad, name, kwargs, dt) == trajectory(torch_ref, name, kwargs, dt)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", SQRT_CASES, ids=str)
def test_trajectories_bit_equal_to_pytorch_with_a_correctly_rounded_sqrt(torch_ref, dt, name, kwargs):
    with live_fusing(torch_ref):
        ours = trajectory(scalargrad, name, kwargs, dt)
        with correctly_rounded_sqrt(torch_ref):
            assert ours == trajectory(torch_ref, name, kwargs, dt)
        assert_equal_to_live_pytorch(torch_ref, lambda L: trajectory(L, name, kwargs, dt))


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_printed_form_state_dict_and_round_trip(torch_ref, name):
    def run(L, steps=3, state=None, start=(0.5, -1.0, 2.0), first=0):
        w = L.nn.Parameter(L.tensor(list(start), dtype=L.float64))
        opt = getattr(L.optim, name)([w])
        if state is not None:
            opt.load_state_dict(state)
        for k in range(first, first + steps):
            opt.zero_grad()
            (w * w * (k + 1.0)).sum().backward()
            opt.step()
        sd = opt.state_dict()
        return repr(opt), {k: type(v).__name__ for k, v in sd["state"][0].items()}, sd["param_groups"], \
            w.tolist(), sd, {k: v.tolist() if hasattr(v, "tolist") else v for k, v in sd["state"][0].items()}

    ours, theirs = run(scalargrad), run(torch_ref)
    assert ours[:3] == theirs[:3]
    # values: within the square roots' last bits of PyTorch's (bit-equal trajectories are above)
    assert ours[3] == pytest.approx(theirs[3], rel=1e-12)
    for key, value in ours[5].items():
        assert value == pytest.approx(theirs[5][key], rel=1e-12), key
    # three more steps after loading the state into a fresh optimizer (which casts the floating
    # state to the parameter's dtype, mu_product and eta included, as PyTorch's does)
    resumed = run(scalargrad, state=ours[4], start=ours[3], first=3)[3]
    assert resumed == pytest.approx(run(torch_ref, state=theirs[4], start=theirs[3], first=3)[3], rel=1e-12)


@pytest.mark.parametrize("make, message", [
    (lambda optim, w: optim.Adadelta([w], rho=1.5), "Invalid rho value: 1.5"),
    (lambda optim, w: optim.Adamax([w], betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (lambda optim, w: optim.NAdam([w], momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda optim, w: optim.RAdam([w], eps=-1), "Invalid epsilon value: -1"),
    (lambda optim, w: optim.ASGD([w], lr=-1), "Invalid learning rate: -1"),
    (lambda optim, w: optim.Rprop([w], etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
])
def test_argument_errors_in_pytorchs_words(torch_ref, make, message):
    for L in (scalargrad, torch_ref):
        with pytest.raises(ValueError, match=f"^{message}$"):
            make(L.optim, L.nn.Parameter(L.tensor(1.0)))


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_capturable_on_the_cpu_fails_at_step_and_foreach_is_refused_by_name(torch_ref, name):
    for L in (scalargrad, torch_ref):
        w = L.nn.Parameter(L.tensor([1.0]))
        opt = getattr(L.optim, name)([w], capturable=True)
        w.grad = L.tensor([1.0])
        with pytest.raises(AssertionError, match="If capturable=True, params"):
            opt.step()
    with pytest.raises(Unsupported, match=rf"^torch\.optim\.{name}\(foreach=True\) is not supported: .*for-loop"):
        getattr(scalargrad.optim, name)([scalargrad.nn.Parameter(scalargrad.tensor(1.0))], foreach=True)


def test_first_steps_by_hand():
    # Rprop: the first step moves each weight by lr against the sign of its gradient; the
    # second, with the gradient's sign unchanged, by lr * etaplus
    w = scalargrad.nn.Parameter(scalargrad.tensor([1.0, -1.0], dtype=scalargrad.float64))
    opt = scalargrad.optim.Rprop([w], lr=0.25, etas=(0.5, 2.0))
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    assert w.tolist() == [1.0 - 0.25 - 0.5, -1.0 + 0.25 + 0.5]
    # ASGD with lambd 0: plain SGD steps, eta = lr / (1 + 0) ** alpha = lr, ax follows param
    w = scalargrad.nn.Parameter(scalargrad.tensor(2.0, dtype=scalargrad.float64))
    opt = scalargrad.optim.ASGD([w], lr=0.25, lambd=0.0)
    (w * w).backward()
    opt.step()
    assert w.item() == 1.0 and opt.state[w]["ax"].item() == 1.0 and opt.state[w]["eta"].item() == 0.25
    # Adamax, first step: exp_avg = 0.1 g, exp_inf = |g| + eps, step = lr / 0.1 * 0.1 g / (|g| + eps)
    w = scalargrad.nn.Parameter(scalargrad.tensor(2.0, dtype=scalargrad.float64))
    opt = scalargrad.optim.Adamax([w], lr=0.5, eps=0.0)
    (w * w).backward()
    opt.step()
    assert w.item() == 1.5


@pytest.mark.parametrize("kwargs", [dict(lr=0.01), dict(lr=0.1, betas=(0.3, 0.5), maximize=True, weight_decay=0.1),
                                    dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True, eps=0.0)])
def test_adam_float32_on_whole_lists_is_the_element_update_bit_for_bit(kwargs):
    # Adam on an n-d float32 parameter updates whole lists (adam._adam_f32_lists); each element's
    # update is independent, so the same numbers as 0-dim parameters (the per-element update)
    # must give the same bits, signed zeros, subnormals, overflow and nan included
    import math
    import struct

    vals = [0.0, -0.0, 1.5, -2.25, 1e-40, 3e38, -7e-39, 0.3]
    grads = [[-0.0, 0.0, 0.125, -3.0, 1e-42, 3e38, 2.5, math.nan],
             [1e-30, -0.0, -1e38, 0.5, 0.0, -2.0, 1e-45, 4.0],
             [math.inf, 2.0, 0.0, -1e-20, 0.75, 1.0, -0.0, 0.1]]
    whole = scalargrad.tensor(vals).requires_grad_()
    single = [scalargrad.tensor(v).requires_grad_() for v in vals]
    opts = scalargrad.optim.Adam([whole], **kwargs), scalargrad.optim.Adam(single, **kwargs)
    bits = lambda vs: [struct.pack("<f", v) for v in vs]
    for g in grads:
        whole.grad = scalargrad.tensor(g)
        for p, v in zip(single, g):
            p.grad = scalargrad.tensor(v)
        for opt in opts:
            opt.step()
        assert bits(whole.tolist()) == bits([p.item() for p in single])
        state = opts[0].state[whole]
        for key in ("exp_avg", "exp_avg_sq"):
            assert bits(state[key].tolist()) == bits([opts[1].state[p][key].item() for p in single])
