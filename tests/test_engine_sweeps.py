"""The engine's two sweeps compute the same gradients, bit for bit, on random graphs.

A plain ``backward()`` runs ``_fast_sweep`` (no discovery pass, a heap of the nodes that have a
gradient, leaves accumulated at the end); ``backward(inputs=...)`` and anything that runs user
code during backward run the exact sweep (``_sweep``: discovery, delivery counts, leaves
accumulated as soon as their last gradient arrives), and the fast sweep hands over to the exact
one at the first node it cannot run (``_handover``). Each random graph (0-dim and vector tensors,
shared subexpressions, broadcasting, ops of one to three inputs, float32 and float64) is built
three times and run: by the fast sweep to the end (checked: it never hands over), by the exact
sweep from the start, and by the fast sweep handing over at a node in the middle (a tensor hook
that changes nothing). The leaves' gradients must be equal to the bit. No PyTorch is involved.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scalargrad as torch
from scalargrad._autograd import engine

pytestmark = pytest.mark.no_sympy_check  # random graphs, run three ways: the gradients are compared here

UNARY = ("relu", "tanh", "sigmoid", "neg", "square", "exp_small", "abs", "sum", "mean")
BINARY = ("add", "sub", "mul", "div", "max", "add_alpha")


def _apply(name: str, a, b=None, c=None):
    if name == "relu":
        return a.relu()
    if name == "tanh":
        return a.tanh()
    if name == "sigmoid":
        return a.sigmoid()
    if name == "neg":
        return -a
    if name == "square":
        return a * a
    if name == "exp_small":
        return (a * 0.01).exp()
    if name == "abs":
        return a.abs()
    if name == "sum":
        return a.sum()
    if name == "mean":
        return a.mean()
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name == "div":
        return a / (b * b + 1.0)
    if name == "max":
        return torch.maximum(a, b)
    if name == "add_alpha":
        return torch.add(a, b, alpha=0.5)
    if name == "addcmul":  # three inputs: the exact sweep's path for nodes of 3+ inputs
        return torch.addcmul(a, b, c, value=0.25)
    raise AssertionError(name)


STEP = st.one_of(
    st.tuples(st.sampled_from(UNARY), st.integers(0, 10**6)),
    st.tuples(st.sampled_from(BINARY), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("addcmul"), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6)),
)


def _build(leaves: list, steps: list, hook_at: int | None):
    """The graph: each step applies an op to earlier values (picked by index), so values are
    shared; the loss sums every value (a scalar each). ``hook_at``: a hook that returns None on
    that step's value (the fast sweep hands over there)."""
    pool = list(leaves)
    for k, (name, *picks) in enumerate(steps):
        args = [pool[p % len(pool)] for p in picks]
        out = _apply(name, *args)
        if hook_at == k and out.requires_grad:
            out.register_hook(lambda g: None)
        pool.append(out)
    loss = pool[0].sum() * 0.0
    for v in pool[len(leaves):]:
        loss = loss + v.sum()
    return loss


def _leaves(values: list, dtype):
    scalars = [torch.tensor(v, dtype=dtype, requires_grad=True) for v in values[:3]]
    vector = torch.tensor(values[3:6], dtype=dtype, requires_grad=True)
    return scalars + [vector]


def _bits(t) -> list:
    vals = t.reshape(-1).tolist() if t.dim() else [t.item()]
    return ["nan" if v != v else struct.unpack("<q", struct.pack("<d", v))[0] for v in vals]


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=6, max_size=6),
       steps=st.lists(STEP, min_size=1, max_size=25), dtype=st.sampled_from(["float32", "float64"]),
       hook_frac=st.floats(0.0, 1.0))
def test_the_fast_and_the_exact_sweep_agree(values, steps, dtype, hook_frac):
    dt = getattr(torch, dtype)
    fast = _leaves(values, dt)
    loss = _build(fast, steps, None)
    handovers = []
    real = engine._handover
    engine._handover = lambda *a, **k: (handovers.append(1), real(*a, **k))[1]
    try:
        loss.backward()
    finally:
        engine._handover = real
    # the fast sweep ran the whole graph, unless a node of three inputs (addcmul) made it hand over
    assert not handovers or any(s[0] == "addcmul" for s in steps)

    exact = _leaves(values, dt)
    _build(exact, steps, None).backward(inputs=exact)

    mid = _leaves(values, dt)
    _build(mid, steps, int(hook_frac * len(steps))).backward()

    for f, e, m in zip(fast, exact, mid):
        got = [None if t.grad is None else _bits(t.grad) for t in (f, e, m)]
        assert got[0] == got[1] == got[2], (steps, got)


def test_the_sweeps_agree_on_a_long_chain_and_a_wide_fan():
    # a chain (the fast sweep's inline path) and a node used by many (the heap)
    for build in (lambda x: _chain(x, 500), lambda x: _fan(x, 200)):
        grads = []
        for how in ("fast", "exact"):
            x = torch.tensor(0.75, requires_grad=True)
            y = build(x)
            if how == "fast":
                y.backward()
            else:
                y.backward(inputs=[x])
            grads.append(_bits(x.grad))
        assert grads[0] == grads[1]
        assert math.isfinite(x.grad.item())


def _chain(x, n):
    y = x
    for _ in range(n):
        y = y * 1.0001 + 0.25
    return y


def _fan(x, n):
    total = x * 0.0
    for k in range(n):
        total = total + (x * (k + 1) / n).tanh()
    return total
