"""torch.optim.LBFGS, with and without the strong-Wolfe line search, against PyTorch 2.13.

The iteration counts, function evaluations and branch decisions must be PyTorch's exactly; the
values go through dot products, which PyTorch computes with MKL (its order of additions, and
so its last bit, depends on the processor) and scalargrad as exact sums rounded once: they must
agree within a few float64 ulps after a whole run (measured here: bit-equal on the capture
machine for these sizes; the bound allows another machine's MKL).
"""

from __future__ import annotations

import pytest

import scalargrad


def rosenbrock(L, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def quadratic(L, x):
    weights = L.tensor([1.0, 3.0, 0.5, 2.0, 7.0], dtype=x.dtype)
    return (weights * (x - L.tensor([0.3, -1.0, 2.0, 0.0, 0.5], dtype=x.dtype)) ** 2).sum() + (x[0] * x[1]) ** 2


CASES = [
    (rosenbrock, [-1.5, 2.0], dict(lr=1, max_iter=20)),
    (rosenbrock, [-1.5, 2.0], dict(lr=1, max_iter=50, line_search_fn="strong_wolfe")),
    (quadratic, [1.0, 1.0, 1.0, 1.0, 1.0], dict(lr=0.5, max_iter=8, history_size=3)),
    (quadratic, [1.0, 1.0, 1.0, 1.0, 1.0], dict(lr=1, max_iter=10, history_size=2, line_search_fn="strong_wolfe")),
]


def run(L, f, start, kwargs, outer=3):
    x = L.nn.Parameter(L.tensor(start, dtype=L.float64))
    opt = L.optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        loss = f(L, x)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(outer)]
    state = opt.state[x]
    return losses, x.tolist(), state["func_evals"], state["n_iter"], len(state["old_dirs"]), float(state["t"])


@pytest.mark.parametrize("f, start, kwargs", CASES, ids=str)
def test_runs_as_pytorchs(torch_ref, f, start, kwargs):
    ours, theirs = run(scalargrad, f, start, kwargs), run(torch_ref, f, start, kwargs)
    assert ours[2:5] == theirs[2:5]  # evaluations, iterations, history: the same decisions
    assert ours[0] == pytest.approx(theirs[0], rel=1e-12, abs=1e-15)
    assert ours[1] == pytest.approx(theirs[1], rel=1e-12, abs=1e-15)
    assert ours[5] == pytest.approx(theirs[5], rel=1e-12)


def test_converges_on_rosenbrock():
    losses, x, *_ = run(scalargrad, rosenbrock, [-1.5, 2.0], dict(line_search_fn="strong_wolfe", max_iter=100))
    assert x == pytest.approx([1.0, 1.0], abs=1e-4)


def test_errors_in_pytorchs_words(torch_ref):
    for L in (scalargrad, torch_ref):
        _errors(L)


def _errors(L):
    a, b = L.nn.Parameter(L.tensor(1.0)), L.nn.Parameter(L.tensor(2.0))
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options \(parameter groups\)$"):
        L.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = L.optim.LBFGS([a], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (a - 3.0) ** 2
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
        opt.step(closure)
    assert repr(opt) == repr(L.optim.LBFGS([b], line_search_fn="armijo"))
